"""RandBot's and DumbBot's orders are legal: every THX note the adjudicator gives is MBV.

Two sources of positions:

* generated ones: random units of random powers on random provinces (with
  coasts), random centre owners, every season; in retreat phases some units
  are dislodged with a random MRT list - thousands of odd positions no game
  would reach;
* played ones: every phase of in-process games of RandBots and DumbBots
  (`bots.local`, which validates each order exactly as the server does),
  on the standard map and on every playable variant of `engine.variants`.

Besides legality, every order set must be self-consistent: each support and
convoy of an own unit matches that unit's final order
(`bots.orders.unmatched_supports`, `bots.convoys.unmatched_convoys`).  On
variant maps every order must also be writable in the variant's own tokens:
the SUB the client would send reads back as the same order.
"""

from __future__ import annotations

import random

import pytest

from adjudicator.values import Dislodged, GameState, Phase
from bots.board import BoardView
from bots.convoys import unmatched_convoys
from bots.dumbbot import DumbBot
from bots.local import owes_orders, play_game, submit, view_of
from bots.orders import unmatched_supports
from bots.randbot import RandBot
from bots.strategy import Strategy
from engine.convert import order_from_node
from engine.variants import standard_map, variant_files, variant_map, variant_names
from maps import Map, MapError
from orders import Location, Order, Unit
from protocol.orders import order_node
from protocol.tokens import Representation

MAP = standard_map()
SEASONS = ("SPR", "SUM", "FAL", "AUT", "WIN")


def random_unit(m: Map, power: str, province: str, rng: random.Random) -> Unit:
    prov = m.province(province)
    options: list[Location] = []
    if prov.is_land:
        options.append(Location(province))
    options.extend(Location(*m.location_name(loc)) for loc in m.fleet_locs[prov.id])
    loc = rng.choice(options)
    fleet = not prov.is_land or (loc.coast is not None) or (
        prov.kind.value == "coastal" and rng.random() < 0.5)
    return Unit(power, "FLT" if fleet else "AMY", loc)


def random_state(m: Map, rng: random.Random) -> GameState:
    season = rng.choice(SEASONS)
    provinces = [p.mnemonic for p in m.provinces]
    rng.shuffle(provinces)
    count = rng.randint(4, 34)
    units = [random_unit(m, rng.choice(m.powers), p, rng) for p in provinces[:count]]
    owners = {m.provinces[c].mnemonic: rng.choice((*m.powers, None))
              for c in m.supply_centres}
    ownership = {c: p for c, p in owners.items() if p is not None}
    dislodged = []
    if season in ("SUM", "AUT"):
        for unit in units[: rng.randint(1, 4)]:
            victim = random_unit(m, rng.choice([p for p in m.powers if p != unit.power]),
                                 unit.province, rng)
            occupied = {u.province for u in units}
            geo_kind = victim.kind
            if geo_kind == "AMY":
                near = [m.provinces[q].mnemonic for q in m.army_adj[m.ids[victim.province]]]
                places = [Location(p) for p in near]
            else:
                here = m.location(victim.province, victim.location.coast)
                places = [Location(*m.location_name(q)) for q in m.fleet_adj[here]]
            places = [p for p in places if p.province not in occupied]
            rng.shuffle(places)
            dislodged.append(Dislodged(victim, tuple(places[: rng.randint(0, len(places))])))
    return GameState(Phase(season, rng.randint(1901, 1920)), tuple(units), ownership,
                     tuple(dislodged))


@pytest.mark.parametrize("strategy", [RandBot(), DumbBot()], ids=lambda s: s.name)
def test_orders_are_legal_on_generated_positions(strategy: Strategy) -> None:
    rng = random.Random(f"positions/{strategy.name}")
    checked = 0
    for _ in range(1000):
        state = random_state(MAP, rng)
        for power in MAP.powers:
            if not owes_orders(state, power):
                continue
            view = view_of(MAP, state, power)
            orders = strategy.orders(view, random.Random(rng.random()))
            rejected: list = []
            accepted = submit(MAP, state, power, orders, rejected)
            assert rejected == [], (state, power, rejected)
            assert unmatched_supports(orders) + unmatched_convoys(orders) == [], (state, power)
            checked += len(accepted)
    assert checked > 10_000, checked


@pytest.mark.parametrize("lineup", ["randbot", "dumbbot", "mixed"])
def test_orders_are_legal_in_played_games(lineup: str) -> None:
    phases = 0
    for seed in range(6):
        players: dict[str, Strategy] = {}
        for i, power in enumerate(MAP.powers):
            kind = lineup if lineup != "mixed" else ("dumbbot" if i % 2 else "randbot")
            players[power] = RandBot() if kind == "randbot" else DumbBot()
        game = play_game(MAP, players, seed=seed, max_year=1912)
        assert game.rejections == []
        phases += game.phases
    assert phases > 150


def _playable() -> list[str]:
    """Every variant of the registry whose data loads (a faulty one raises MapError)."""
    out = []
    for name in variant_names():
        try:
            variant_map(name)
        except MapError:
            continue
        out.append(name)
    return out


PLAYABLE = _playable()


def test_nearly_every_variant_is_playable() -> None:
    """The legality tests below cover the registry, not a hand-picked subset."""
    assert "standard" in PLAYABLE and "world3" in PLAYABLE
    assert len(PLAYABLE) >= len(variant_names()) - 1 >= 25


def rewritten(orders: list[Order], rep: Representation) -> list[Order]:
    """The orders as the server reads them from the client's SUB in ``rep``'s tokens."""
    return [order_from_node(order_node(order), rep) for order in orders]


class Checked:
    """A strategy wrapper that keeps every self-contradicting support or convoy it
    saw, and every order that does not read back the same from the variant's tokens."""

    def __init__(self, inner: Strategy, rep: Representation) -> None:
        self.inner = inner
        self.name = inner.name
        self.rep = rep
        self.unmatched: list[Order] = []
        self.unwritable: list[Order] = []

    def orders(self, view: BoardView, rng: random.Random) -> list[Order]:
        orders = self.inner.orders(view, rng)
        self.unmatched.extend(unmatched_supports(orders) + unmatched_convoys(orders))
        self.unwritable.extend(o for o, back in zip(orders, rewritten(orders, self.rep),
                                                    strict=True) if o != back)
        return orders


@pytest.mark.parametrize("stem", PLAYABLE)
def test_bots_play_every_variant_legally(stem: str) -> None:
    """RandBot and DumbBot play three years of every playable variant (own tokens):
    no order rejected, no support that the supported unit's own order contradicts."""
    variant = variant_map(stem)
    rep = variant_files(stem).rep
    first = variant.start_phase[1]
    for strategy in (RandBot, DumbBot):
        for seed in (0, 1):
            players = {p: Checked(strategy(), rep) for p in variant.powers}
            game = play_game(variant, players, seed=seed, max_year=first + 3)
            assert game.rejections == [], (strategy.name, seed)
            assert [u for c in players.values() for u in c.unmatched] == [], (strategy.name, seed)
            assert [o for c in players.values() for o in c.unwritable] == [], (strategy.name,
                                                                                seed)
            assert game.phases >= 8 or game.winner is not None


@pytest.mark.parametrize("stem", PLAYABLE)
def test_bots_order_legally_on_generated_variant_positions(stem: str) -> None:
    """Odd positions on every variant map (coasts, retreats, builds of its own)."""
    variant = variant_map(stem)
    rep = variant_files(stem).rep
    for strategy in (RandBot(), DumbBot()):
        rng = random.Random(f"{stem}/{strategy.name}")
        for _ in range(15):
            state = random_state(variant, rng)
            for power in variant.powers:
                if owes_orders(state, power):
                    orders = strategy.orders(view_of(variant, state, power),
                                             random.Random(rng.random()))
                    rejected: list = []
                    submit(variant, state, power, rewritten(orders, rep), rejected)
                    assert rejected == [], (state, power, rejected)
                    assert unmatched_supports(orders) + unmatched_convoys(orders) == [], (state, power)
