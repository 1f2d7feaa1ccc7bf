"""A game in DAIDE terms: the layer between the pure cores and the programs.

protocol/ (the wire), maps/ (geography) and adjudicator/ (the rules) know
nothing of each other, except that the rules read the map.  This package is
where they meet (docs/architecture.md):

* :mod:`engine.convert` - DAIDE orders and messages <-> adjudicator values,
  and results as ORD / SCO / NOW;
* :mod:`engine.variants` - the playable variants: a map with its token
  representation and MDF message (:class:`~engine.variants.Variant`);
* :mod:`engine.position` - one position of a game that answers in DAIDE
  (:class:`~engine.position.Engine`): THX notes, MIS, and the phase runner
  ``Engine.advance`` that the server, ``daide adjudicate``, ``daide datc``,
  the bots' local games and the benchmarks share;
* :mod:`engine.phase_text` - one phase given as DAIDE text lines (SCO, NOW,
  SUB in; THX, ORD, SCO, NOW out): ``daide adjudicate`` and ``daide datc``.
"""

from native import activate as _activate

#: True when the mypyc-compiled modules run (see native/), False for pure Python
COMPILED: bool = _activate(__name__, __path__)
