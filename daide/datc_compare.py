"""Comparing expected and produced result lines (THX, ORD, SCO, NOW, SLO).

docs/adjudication-conventions.md: "line kinds as multisets, lists inside
messages whose order carries no meaning (units of NOW, MRT lists, centres of
SCO) as sets".  Each line is read into a DAIDE tree and turned into a
*canonical key* (a hashable value with those lists as frozensets); a phase
matches when, for every kind, the multisets of keys are equal.

The first difference is described in words for ``daide datc``: a missing
line is paired with the produced line of the same kind that concerns the
same order (THX, ORD) or is the only one of its kind (SCO, NOW, SLO), so the
report reads "expected X, got Y".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from protocol.tree import Node, Tree

KIND_ORDER = ("THX", "ORD", "SCO", "NOW", "SLO")


def canonical(tree: Tree) -> Hashable:
    """The comparison key of one result message."""
    if not tree or not isinstance(tree[0], str):
        return tree
    kind = tree[0]
    if kind == "NOW" and len(tree) >= 2:
        return ("NOW", tree[1], frozenset(_canonical_unit(u) for u in tree[2:]))
    if kind == "SCO":
        return ("SCO", frozenset(_canonical_group(g) for g in tree[1:]))
    return tree


def _canonical_unit(unit: Node) -> Hashable:
    # ( power type place MRT ( location ... ) ): the MRT list is a set.
    if isinstance(unit, tuple) and len(unit) == 5 and unit[3] == "MRT":
        mrt = unit[4]
        places = frozenset(mrt) if isinstance(mrt, tuple) else mrt
        return (unit[0], unit[1], unit[2], "MRT", places)
    return unit


def _canonical_group(group: Node) -> Hashable:
    # ( power centre centre ... ): the centres are a set.
    if isinstance(group, tuple) and group:
        return (group[0], frozenset(group[1:]))
    return group


def _subject(tree: Tree) -> Hashable:
    """What a line is about, for pairing differences: THX/ORD name an order."""
    if tree and tree[0] == "THX" and len(tree) >= 2:
        return tree[1]
    if tree and tree[0] == "ORD" and len(tree) >= 3:
        return tree[2]
    return None


@dataclass(frozen=True)
class ResultLine:
    """One result line: its text (as written or rendered) and its tree."""

    text: str
    tree: Tree

    @property
    def kind(self) -> str:
        head = self.tree[0] if self.tree else ""
        return head if isinstance(head, str) else ""


def first_difference(expected: Sequence[ResultLine], got: Sequence[ResultLine]) -> str | None:
    """``None`` when the two sets of lines match, else the first difference.

    Kinds are visited in the order THX, ORD, SCO, NOW, SLO (then any other),
    lines of one kind in the order they were written.
    """
    kinds = list(KIND_ORDER) + sorted(
        {line.kind for line in (*expected, *got)} - set(KIND_ORDER)
    )
    for kind in kinds:
        exp = [line for line in expected if line.kind == kind]
        out = [line for line in got if line.kind == kind]
        missing = _minus(exp, out)
        extra = _minus(out, exp)
        if not missing and not extra:
            continue
        if missing:
            wanted = missing[0]
            partner = _partner(wanted, extra)
            if partner is None:
                return f"expected {wanted.text}, got no such line"
            return f"expected {wanted.text}, got {partner.text}"
        return f"unexpected {extra[0].text}"
    return None


def _minus(left: Sequence[ResultLine], right: Sequence[ResultLine]) -> list[ResultLine]:
    """The lines of ``left`` not matched one-to-one by a line of ``right``."""
    available = Counter(canonical(line.tree) for line in right)
    rest = []
    for line in left:
        key = canonical(line.tree)
        if available[key]:
            available[key] -= 1
        else:
            rest.append(line)
    return rest


def _partner(wanted: ResultLine, extra: Sequence[ResultLine]) -> ResultLine | None:
    subject = _subject(wanted.tree)
    if subject is not None:
        for line in extra:
            if _subject(line.tree) == subject:
                return line
        # Same unit, other order (e.g. HLD reported for a rejected MTO).
        unit = subject[0] if isinstance(subject, tuple) and subject else None
        for line in extra:
            other = _subject(line.tree)
            if unit is not None and isinstance(other, tuple) and other and other[0] == unit:
                return line
        return None
    return extra[0] if extra else None
