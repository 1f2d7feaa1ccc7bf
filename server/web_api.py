"""The web page's read-only JSON API: what DAIDE does not carry.

DAIDE itself travels over the WebSocket (`server.http`); this API answers
the rest, always from the server's own state - the store, the live games,
the variant's map - so that no rule of the game lives in the page:

=================================  ==============================================
``GET  /api/games``                every game, as ``daide games`` lists them (newest first)
``GET  /api/games/N``              one game (settings, seats without passcodes)
``GET  /api/games/N/history``      every processed phase (turn, ORDs, SCO, NOW)
``GET  /api/tokens``               the token table of this server's variant
``GET  /api/map``                  the variant: powers, provinces, geometry, SVG
``POST /api/render``               {now, sco, orders}: the board drawn as SVG
``POST /api/notation``             {text, game, power, lang}: notation -> DAIDE order
``POST /api/preview``              {game, power, orders, against}: Loeb's THK
``POST /api/summary``              {game, power, passcode}: Loeb's SUM
``POST /api/press``                {game, power, passcode}: the power's press, kept
=================================  ==============================================

A game's ``free_powers`` are the powers a newcomer may have, each as
``{"power": "FRA", "name": "France"}`` (`server.events.GameHandle.free_powers`):
in a forming game those no joiner asked for by name and no invitation
reserves (none once its seats are taken), in a running game those in civil
disorder that a replacement may take over with the passcode (IAM).

Preview adjudicates the game's current position with the candidate orders
on a copy (an `engine.position.Engine` is immutable) against holds, or against
the other powers' orders of the last phase of the same kind that still fit
the position; nothing is submitted.  Summary answers with the orders the
server holds for the power this phase (what a SUB has made it accept), and
needs the power's passcode: the same per-address guard as IAM counts wrong
passcodes (`server.limits.IamGuard`).  Press answers every press message the
power sent or received (the FRM texts the server stored as it delivered
them, `server.store.Store.press`), oldest first, under the same passcode
check: the page shows a power's conversations again after a reload.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

import structlog
import trio

import render
from engine.convert import order_from_node
from engine.position import Engine
from engine.variants import Variant, VariantError, load_variant
from protocol.errors import ProtocolError
from protocol.messages import Message, Now, Sco
from protocol.parse import Sender, parse_message
from protocol.text import parse_text, render_text, tree_from_text
from protocol.tokens import Representation
from protocol.tree import from_tree
from render.board import Board
from server.catalog import centre_counts, summarize
from server.french import FRENCH
from server.notation import Context, NotationError, parse_order, units_of_now
from server.store import GameRecord, StoreError

if TYPE_CHECKING:
    from server.lobby import Lobby

log = structlog.get_logger("server.web_api")

#: Most orders a preview takes (a power has at most a few dozen units).
MAX_PREVIEW_ORDERS = 64
#: Pictures kept for repeated render requests (the positions being watched).
PICTURES_KEPT = 64
#: Largest game number (the store's integers are SQLite's, signed 64-bit).
MAX_GAME_NUMBER = 2**63 - 1


class ApiError(Exception):
    """An HTTP error status with a one-line message for the page."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class WebApi:
    """Answers ``/api/...`` requests from the lobby's store, games and variant."""

    def __init__(self, lobby: Lobby) -> None:
        self.lobby = lobby
        # The map of each variant, as the page draws it (by the variant's name).
        self._map_json: dict[str, dict[str, Any]] = {}
        # Every watcher of a game asks for the same picture after each phase.
        self._pictures: OrderedDict[tuple[Any, ...], str] = OrderedDict()

    async def handle(self, method: str, path: str, query: Mapping[str, str],
                     body: Mapping[str, Any], host: str) -> Any:
        parts = [p for p in path.split("/") if p][1:]     # after "api"
        match method, parts:
            case "GET", ["games"]:
                return {"games": self.games()}
            case "GET", ["games", number]:
                return self.game(self._game_id(number))
            case "GET", ["games", number, "history"]:
                return self.history(self._game_id(number))
            case "GET", ["tokens"]:
                return self.tokens(self._query_variant(query))
            case "GET", ["map"]:
                return self.map_info(self._query_variant(query))
            case "POST", ["render"]:
                return {"svg": await self.render(body.get("now"), body.get("sco"),
                                                 body.get("orders") or (),
                                                 self._body_variant(body))}
            case "POST", ["notation"]:
                return self.notation(body)
            case "POST", ["preview"]:
                return await self.preview(body)
            case "POST", ["summary"]:
                return self.summary(body, host)
            case "POST", ["press"]:
                return self.press(body, host)
        raise ApiError(404, f"no API {method} {path}")

    # --- games and their variants ------------------------------------------------------

    def variant_of(self, game_id: int | None) -> Variant:
        """The variant of game ``game_id`` (None: the server's template, the shared
        port's): a game hosted on another map is drawn and read with its own."""
        if game_id is None:
            return self.lobby.variant
        handle = self.lobby.games.get(game_id)
        if handle is not None:
            return handle.variant
        try:
            return load_variant(self._record(game_id).settings.variant)
        except VariantError as exc:
            raise ApiError(409, f"game {game_id}: {exc}") from None

    def _query_variant(self, query: Mapping[str, str]) -> Variant:
        text = query.get("game", "")
        return self.variant_of(game_number(text) if text else None)

    def _body_variant(self, body: Mapping[str, Any]) -> Variant:
        game = body.get("game")
        if game is not None and body_game(game) is None:
            raise ApiError(400, "game must be a game number")
        return self.variant_of(body_game(game))

    def _game_id(self, text: str) -> int:
        return game_number(text)

    def _record(self, game_id: int) -> GameRecord:
        try:
            return self.lobby.store.game(game_id)
        except StoreError:
            raise ApiError(404, f"no game {game_id}") from None

    def games(self) -> list[dict[str, Any]]:
        return [self._summary_of(r) for r in reversed(self.lobby.store.games())]

    def _summary_of(self, record: GameRecord) -> dict[str, Any]:
        """As `daide games` lists it (`server.catalog`), with the live status and free seats."""
        out = summarize(record, served=True).to_dict()
        handle = self.lobby.games.get(record.id)
        if handle is not None and record.status != "finished":
            out["status"] = handle.status
        out["open_seats"] = handle.open_seats if handle is not None else 0
        # The powers a newcomer may have: joining (forming), taking over (running).
        names = handle.variant.map.power_names if handle is not None else {}
        out["free_powers"] = [{"power": p, "name": names.get(p) or p}
                              for p in (handle.free_powers if handle is not None else ())]
        out["seats"] = handle.seats if handle is not None else \
            len(self.variant_of(record.id).powers)
        settings = record.settings
        out["level"] = settings.level
        out["deadlines"] = {"mtl": settings.mtl, "rtl": settings.rtl, "btl": settings.btl}
        out["name"] = settings.name
        out["access"] = settings.access
        # People read a player's name: the 'FRA:' of a power request is not part of it.
        for player in out["players"]:
            player["name"] = player_name(player["name"])
        return out

    def game(self, game_id: int) -> dict[str, Any]:
        record = self._record(game_id)
        out = self._summary_of(record)
        settings = record.settings
        out["settings"] = {"level": settings.level, "mtl": settings.mtl, "rtl": settings.rtl,
                           "btl": settings.btl, "pda": settings.pda, "aoa": settings.aoa}
        out["now"] = record.now
        out["sco"] = record.sco
        return out

    def history(self, game_id: int) -> dict[str, Any]:
        self._record(game_id)
        phases = []
        for phase in self.lobby.store.phases(game_id):
            phases.append({
                "turn": phase.turn or None,
                "results": [m for m in phase.messages if m.startswith("ORD")],
                "sco": phase.sco, "now": phase.now,
                "centres": centre_counts(phase.sco),
            })
        return {"id": game_id, "phases": phases}

    # --- the variant ---------------------------------------------------------------

    def tokens(self, variant: Variant) -> dict[str, Any]:
        """Every named token of the variant's representation: value -> mnemonic."""
        return {"variant": variant.map.name,
                "names": {str(v): m for v, m in sorted(variant.rep.names.items())}}

    def map_info(self, variant: Variant) -> dict[str, Any]:
        found = self._map_json.get(variant.name)
        if found is None:
            the_map = variant.map
            found = self._map_json[variant.name] = {
                "variant": the_map.name,
                "powers": list(the_map.powers),
                "power_names": dict(the_map.power_names),
                "colours": render.power_colours(the_map),
                "provinces": [{"id": p.mnemonic, "name": p.name, "kind": str(p.kind),
                               "sc": p.supply_centre, "coasts": list(p.coasts)}
                              for p in the_map.provinces],
                "geometry": render.map_geometry(the_map),
                "svg": render.render_svg(the_map, element_id="board"),
                # The French page writes the standard map's provinces as the French do.
                "french": {m: {"abbr": a, "name": n} for m, (a, n) in FRENCH.items()}
                if the_map.name.lower() == "standard" else {},
            }
        return found

    async def render(self, now: Any, sco: Any, orders: Any, variant: Variant) -> str:
        if not (now is None or isinstance(now, str)) or not (sco is None or isinstance(sco, str)) \
                or not isinstance(orders, list | tuple) \
                or not all(isinstance(o, str) for o in orders):
            raise ApiError(400, "render takes now and sco as DAIDE text, orders as a list of it")
        try:
            board = render.board_from_daide(variant.map, now=now, sco=sco, orders=orders)
        except render.RenderError as exc:
            raise ApiError(400, str(exc)) from None
        # A unit or order of no power of the map (UNO's, or a name from another map) has
        # no colour to draw it in (make fuzz found the renderer failing on one).
        named = {u.power for u in board.units} | {o.unit.power for o in board.orders} \
            | {o.other.power for o in board.orders if o.other is not None}
        strangers = sorted(named - set(variant.powers))
        if strangers:
            raise ApiError(400, f"{_short(' '.join(strangers), 30)} is not a power of the "
                                f"{variant.map.name} map")
        key = (variant.name, now, sco, tuple(orders))
        svg = self._pictures.get(key)
        if svg is None:
            svg = await self._draw(variant, board, "board")
            self._pictures[key] = svg
            if len(self._pictures) > PICTURES_KEPT:
                self._pictures.popitem(last=False)
        else:
            self._pictures.move_to_end(key)
        return svg

    async def _draw(self, variant: Variant, board: Board, element_id: str) -> str:
        """The SVG of ``board``, drawn in a worker thread: drawing takes milliseconds
        (about 6.5 ms for the standard map) that the games' event loop should not wait."""
        return await trio.to_thread.run_sync(
            partial(render.render_svg, variant.map, board, element_id=element_id))

    # --- orders ---------------------------------------------------------------------

    def _live_position(self, game_id: int, variant: Variant) -> tuple[GameRecord, Engine]:
        record = self._record(game_id)
        if record.status != "running" or not record.now or not record.sco:
            raise ApiError(409, f"game {game_id} is not running")
        engine = variant.position(_parse(record.sco, Sco, variant), _parse(record.now, Now, variant))
        return record, engine

    def _power(self, body: Mapping[str, Any], variant: Variant) -> str:
        power = str(body.get("power", "")).upper()
        if power not in variant.powers:
            raise ApiError(400, f"power {_short(power, 20)} is not one of "
                                f"{' '.join(variant.powers)}")
        return power

    def notation(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """One line of English notation -> the DAIDE order text (or a one-line error)."""
        text = body.get("text")
        if not isinstance(text, str) or len(text) > 200:
            raise ApiError(400, "notation takes {text: 'A Par - Bur', game: N, power: 'FRA'}")
        variant = self._body_variant(body)
        power = self._power(body, variant)
        season, units = "SPR", None
        game = body.get("game")
        if game is not None and body_game(game) is None:
            raise ApiError(400, "notation's game must be a game number")
        if isinstance(game, int):
            record = self._record(game)
            if record.now:
                units = units_of_now(record.now)
                season = record.now.split()[2] if len(record.now.split()) > 2 else "SPR"
        try:
            order = parse_order(text, Context(variant.map, power, season, units,
                                              "fr" if body.get("lang") == "fr" else "en"))
        except NotationError as exc:
            raise ApiError(400, str(exc)) from None
        return {"text": text, "order": order}

    def _order(self, text: str, variant: Variant) -> Any:
        try:
            return _order_of(text, variant.rep)
        except (ProtocolError, ValueError) as exc:
            raise ApiError(400, f"{_short(text)} is not a DAIDE order: {exc}") from None

    async def preview(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """Loeb's THK: adjudicate the current position with candidate orders, on a copy."""
        game_id = body_game(body.get("game"))
        texts = body.get("orders")
        against = body.get("against", "holds")
        if game_id is None or not isinstance(texts, list) \
                or not all(isinstance(t, str) for t in texts) or len(texts) > MAX_PREVIEW_ORDERS:
            raise ApiError(400, "preview takes {game: N, power: 'FRA', orders: [DAIDE order text]"
                                ", against: 'holds' | 'last'}")
        if against not in ("holds", "last"):
            raise ApiError(400, "against must be 'holds' or 'last'")
        variant = self.variant_of(game_id)
        power = self._power(body, variant)
        record, engine = self._live_position(game_id, variant)
        notes: list[dict[str, str]] = []
        mine: list[Any] = []
        for text in texts:
            order = self._order(text, variant)
            note = engine.check(power, order, mine)
            notes.append({"order": text, "note": note})
            if note == "MBV":
                mine.append(order)
        given: dict[str, list[Any]] = {power: mine}
        if against == "last":
            for other, orders in self._last_orders(game_id, engine.season).items():
                if other == power:
                    continue
                kept: list[Any] = []
                for text in orders:
                    try:
                        order = _order_of(text, variant.rep)
                    except (ProtocolError, ValueError):
                        continue
                    if engine.check(other, order, kept) == "MBV":
                        kept.append(order)
                given[other] = kept
        outcome = engine.advance(given)
        results = [render_text(from_tree(m.to_tree(), variant.rep), variant.rep)
                   for m in outcome.results]
        board = render.board_from_daide(variant.map, now=record.now, sco=record.sco,
                                        orders=results)
        log.info("preview", game=game_id, power=power, orders=len(mine), against=against)
        return {"turn": record.turn, "notes": notes, "results": results,
                "svg": await self._draw(variant, board, "preview")}

    def _last_orders(self, game_id: int, season: str) -> dict[str, tuple[str, ...]]:
        """The orders of the last processed phase of the same kind (movement, retreat, build)."""
        kinds = {"SPR": "move", "FAL": "move", "SUM": "retreat", "AUT": "retreat", "WIN": "build"}
        for phase in reversed(self.lobby.store.phases(game_id)):
            if phase.turn and kinds.get(phase.turn.split()[0]) == kinds.get(season):
                return dict(phase.orders)
        return {}

    def _authorised(self, body: Mapping[str, Any], host: str, what: str
                    ) -> tuple[int, str, GameRecord]:
        """(game, power, record) once the power's passcode is right; the IAM guard
        counts wrong passcodes per address (`server.limits.IamGuard`)."""
        game_id = body_game(body.get("game"))
        passcode = body.get("passcode")
        if game_id is None or isinstance(passcode, bool) or not isinstance(passcode, int):
            raise ApiError(400, f"{what} takes {{game: N, power: 'FRA', passcode: P}}")
        power = self._power(body, self.variant_of(game_id))
        guard = self.lobby.iam_guard
        now = trio.current_time()
        if guard.blocked(host, now):
            raise ApiError(429, "too many wrong passcodes from this address: wait")
        record = self._record(game_id)
        seat = next((s for s in record.seats if s.power == power), None)
        if seat is None or seat.passcode != passcode:
            guard.failed(host, now)
            log.warning(f"{what}_refused", game=game_id, power=power, host=host)
            raise ApiError(403, f"wrong passcode for {power} in game {game_id}")
        return game_id, power, record

    def press(self, body: Mapping[str, Any], host: str) -> dict[str, Any]:
        """Every press message the power sent or received, oldest first."""
        game_id, power, _ = self._authorised(body, host, "press")
        messages = [{"seq": p.seq, "turn": p.turn, "sender": p.sender,
                     "recipients": list(p.recipients), "frm": p.message, "sent_at": p.sent_at}
                    for p in self.lobby.store.press(game_id)
                    if p.sender == power or power in p.recipients]
        return {"game": game_id, "power": power, "messages": messages}

    def summary(self, body: Mapping[str, Any], host: str) -> dict[str, Any]:
        """Loeb's SUM: the orders the server holds for this power this phase."""
        game_id, power, record = self._authorised(body, host, "summary")
        held = record.pending.get(power, ()) if record.pending_turn == record.turn else ()
        # Stored as the order's node text; the page writes each order in brackets, as in a SUB.
        return {"game": game_id, "power": power, "turn": record.turn,
                "orders": [f"( {text} )" for text in held]}


def player_name(name: str) -> str:
    """A client's name without the ``FRA:`` of a power request (docs/protocol.md §8.1)."""
    prefix, colon, rest = name.partition(":")
    return rest if colon and rest and len(prefix) == 3 and prefix.isalpha() else name


def _short(text: str, size: int = 60) -> str:
    """A client's text quoted in an error line, cut to ``size`` characters."""
    return repr(text if len(text) <= size else text[:size] + "...")


def is_number(text: str) -> bool:
    """ASCII digits only (``str.isdigit`` also takes "\u00b2", which ``int`` refuses)."""
    return text.isascii() and text.isdigit()


def game_number(text: str, what: str = "game number") -> int:
    """A game number from a path or a query: 400 unless digits within the store's integers."""
    if not is_number(text) or len(text) > 19 or int(text) > MAX_GAME_NUMBER:
        raise ApiError(400, f"{what} {_short(text, 30)} is not a game number")
    return int(text)


def body_game(value: Any) -> int | None:
    """A game number from a JSON body: None unless a (non-boolean) int the store can hold."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_GAME_NUMBER:
        return None
    return value


def _parse(text: str, kind: type[Message], variant: Variant) -> Any:
    """A stored server message of ``variant``'s game, back from its text."""
    message = parse_message(parse_text(text, variant.rep), variant.rep, sender=Sender.SERVER)
    assert isinstance(message, kind)
    return message


def _order_of(text: str, rep: Representation) -> Any:
    """An order from its text, bracketed as in a SUB or not (as the store keeps it)."""
    tree = tree_from_text(text, rep)
    if len(tree) == 1 and isinstance(tree[0], tuple):
        tree = tree[0]
    return order_from_node(tree, rep)

