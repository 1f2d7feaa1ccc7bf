"""Settings of the server and of the games it hosts, as frozen values.

`GameSettings` is everything a game needs to be re-created after a restart
(it is stored with the game as JSON); `ServerSettings` is how this process
runs (address, database, protocol timers, flood limits).  Both are checked
when built, so a bad value is a one-line error at the command line, never a
surprise in the middle of a game.
"""

from __future__ import annotations

import ipaddress
import json
import re
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from protocol.variant import VariantOptions

#: Largest DAIDE integer (docs/protocol.md §6.3): years, passcodes and seconds
#: must fit in 14-bit two's complement.
MAX_DAIDE_INT = 8191

#: Press levels the language defines (docs/protocol.md §10).
VALID_LEVELS = frozenset([*range(0, 140, 10), 8000])

#: The Player's Technical Guide's draw (docs/references.md, DPTG ch. II): seven
#: consecutive year-ends without a capture.
DPTG_IDLE_YEARS = 7
#: The Player's Technical Guide's draw: thirty-five game years played, i.e. the end of 1935.
DPTG_MAX_YEAR = 1935
#: The French adjudicator's refereeing convention 2(a) (docs/references.md): ownership unchanged for three years.
UNCHANGED_STOP_YEARS = 3


#: ``press_numbering``: detect each connection's numbering of FCT/FOR/FWD.
AUTO_NUMBERING = "auto"
#: The values ``press_numbering`` may take (`GameSettings`).
PRESS_NUMBERINGS = (AUTO_NUMBERING, "daide", "parlance", "mila")
#: Seconds connections stay open after a game ends, by default of ``daide serve --linger``.
DEFAULT_LINGER = 30.0


class SettingsError(ValueError):
    """A setting out of range; the message names the setting."""


@dataclass(frozen=True)
class GameSettings:
    """The options of one game: variant, press level, deadlines, house rules.

    Time limits are seconds (``None`` = no deadline for that kind of phase),
    as in the HLO variant options of docs/protocol.md §10.  The three house
    rules end a game in a draw among the survivors and are all off by default:

    * ``idle_years_draw`` (the Player's Technical Guide, chapter II;
      docs/references.md): the game is drawn when this
      many consecutive year-ends have each seen no supply centre change owner;
    * ``max_year``: the game is drawn when this year's last autumn phase has
      been processed (the Guide's "thirty-five game years" is 1935);
    * ``stop_unchanged`` (the French adjudicator's convention 2(a),
      docs/references.md): the game is stopped when
      the centre ownership table is the same after three consecutive years
      (the Guide's rule with three years instead of seven).
    """

    variant: str = "standard"
    level: int = 0
    mtl: int | None = None
    rtl: int | None = None
    btl: int | None = None
    ptl: int | None = None
    dsd: bool = False
    aoa: bool = False
    pda: bool = False
    npr: bool = False
    npb: bool = False
    idle_years_draw: int | None = None
    max_year: int | None = None
    stop_unchanged: bool = False
    #: Wire values of the five disputed press tokens (docs/protocol.md §6.7):
    #: ``auto`` (each connection's numbering is told from its press and
    #: translated when relayed, `server.press.NumberingDetector`), or one fixed
    #: for every connection: ``daide`` (tokens.tsv), ``parlance`` or ``mila`` -
    #: `protocol.press_tokens.PressNumbering`.
    press_numbering: str = AUTO_NUMBERING
    #: The game's name, as hosts and players see it (``daide game new --name``).
    name: str = ""
    #: Who may take a seat: ``open`` (anyone who joins through the game's door) or
    #: ``invitation`` (only the holders of an invitation; docs/hosting.md).
    access: str = "open"
    #: The French adjudicator's expedited removal of players (docs/adjudication-conventions.md):
    #: the dislodged units of a power whose orders cannot matter are destroyed at the
    #: autumn moves, and the units of a power owning no centre removed at the autumn retreats.
    expedite: bool = False
    #: The game's own TCP port (its door for unmodified DAIDE clients), None = the shared port;
    #: 0 asks for any free port, chosen when the game is created and stored as chosen.
    port: int | None = None
    #: The position the game starts from instead of the map's: ``NOW (...)`` and
    #: ``SCO (...)`` in DAIDE text, one message per line (``daide serve --start-from``).
    start: str | None = None

    def __post_init__(self) -> None:
        if len(self.name) > 80 or any(not c.isprintable() for c in self.name):
            raise SettingsError("a game name is at most 80 printable characters")
        if self.access not in ("open", "invitation"):
            raise SettingsError(f"access {self.access!r}: open or invitation")
        if self.port is not None and not 0 <= self.port <= 65535:
            raise SettingsError(f"a game's port must be 0..65535 (0: any free one), not {self.port}")
        if self.press_numbering not in PRESS_NUMBERINGS:
            raise SettingsError(f"press numbering {self.press_numbering!r}:"
                                f" {', '.join(PRESS_NUMBERINGS[:-1])} or {PRESS_NUMBERINGS[-1]}")
        if self.level not in VALID_LEVELS:
            raise SettingsError(f"level {self.level} is not a DAIDE press level (0, 10 ... 130, 8000)")
        for name in ("mtl", "rtl", "btl", "ptl"):
            value = getattr(self, name)
            if value is not None and not 1 <= value <= MAX_DAIDE_INT:
                raise SettingsError(f"{name} must be 1..{MAX_DAIDE_INT} seconds, not {value}")
        if self.idle_years_draw is not None and self.idle_years_draw < 1:
            raise SettingsError("the idle-years draw needs at least one year")
        if self.max_year is not None and not 1 <= self.max_year <= MAX_DAIDE_INT:
            raise SettingsError(f"max year must be 1..{MAX_DAIDE_INT}")
        if not self.variant or not all(c.isalnum() or c == "_" for c in self.variant):
            raise SettingsError(f"variant name {self.variant!r}: letters, digits and _ only")

    @property
    def has_deadlines(self) -> bool:
        """True if any kind of phase has a time limit."""
        return any(v is not None for v in (self.mtl, self.rtl, self.btl))

    @property
    def longest_limit(self) -> int:
        """The longest phase time limit (0 without deadlines): TME requests above it are refused."""
        return max((v for v in (self.mtl, self.rtl, self.btl) if v is not None), default=0)

    def time_limit(self, season: str) -> int | None:
        """Seconds allowed for a phase of this season (SPR/FAL moves, SUM/AUT retreats, WIN)."""
        if season in ("SPR", "FAL"):
            return self.mtl
        if season in ("SUM", "AUT"):
            return self.rtl
        if season == "WIN":
            return self.btl
        raise SettingsError(f"unknown season {season!r}")

    def hlo_variant(self) -> VariantOptions:
        """The HLO ``variant`` options (docs/protocol.md §10)."""
        return VariantOptions(level=self.level, move_limit=self.mtl, retreat_limit=self.rtl,
                       build_limit=self.btl, dsd=self.dsd, aoa=self.aoa, pda=self.pda,
                       npr=self.npr, npb=self.npb, press_limit=self.ptl)

    def to_json(self) -> str:
        """Stable JSON (sorted keys) for the database."""
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> GameSettings:
        """Inverse of `to_json`; unknown keys (from a newer version) are ignored."""
        data = json.loads(text)
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


def default_db_path() -> Path:
    """The default database: a SQLite file in the working directory."""
    return Path("daide-server.db")


#: When an announcement may go out (``ServerSettings.durability``).
DURABILITY = ("disk", "commit", "os")


@dataclass(frozen=True)
class ServerSettings:
    """How this server process runs.

    ``im_timeout`` is the 30-second initial-message timer of docs/protocol.md §2;
    ``outbound_queue`` bounds each client's queue of unsent messages (a
    client that lets it fill, or whose socket takes no data for
    ``send_timeout`` seconds, is disconnected); the IAM limits stop passcode
    guessing (at most ``iam_failures_per_connection`` wrong passcodes per
    connection, and ``iam_failures_per_address`` per peer address within
    ``iam_failure_window`` seconds, then a block that doubles each time:
    `server.limits.IamGuard`).  ``disorder_grace`` is how long a game
    without deadlines still waits for a disconnected power before playing
    without it (`server.game`).

    The hostile-input limits (`server.limits` has the table): the largest DM
    body a client may send (``max_frame_body`` bytes), its message rate
    (``message_rate`` per second, bursts of ``message_burst``), the
    connections the server holds (``max_connections``) and holds from one
    address (``connections_per_address``; the addresses in
    ``limit_exempt`` count towards the total only), the time a connection
    may stay idle before it joins a game (``join_idle_timeout``) and the time
    a partly received frame may take to complete (``frame_timeout``).
    ``durability`` says when a client may hear of an order or phase
    (`server.durability`); it is always stored first.  ``"os"`` (the
    default): once its transaction is committed to the operating system -
    it survives any crash or kill of the server, not a power cut or an OS
    crash, and announcements never wait for the disk; ``"disk"``: once an
    fsync has put it on disk, one fsync per batch of transactions (group
    commit) - power-cut safe, but every announcement waits through the
    disk's slowest fsyncs; ``"commit"``: the same with one fsync per
    transaction;
    ``turn_stats`` measures turn latencies (`server.turnstats`, for `load/`).
    ``linger`` is how long, after a game's SMR, its connections stay open:
    requests (HST, ORD, SCO, NOW, SMR...) are still answered and ADM still
    relayed; then every client gets OFF and an orderly close.  ``daide
    serve`` lingers ``DEFAULT_LINGER`` seconds; the default here, 0, sends OFF
    right after the SMR, for embedded servers (the demo, the tournament
    runner, the tests) whose own bots leave at the SMR anyway.
    """

    host: str = "127.0.0.1"
    port: int = 16713
    db_path: Path = field(default_factory=default_db_path)
    game: GameSettings = field(default_factory=GameSettings)
    im_timeout: float = 30.0
    outbound_queue: int = 256
    iam_failures_per_connection: int = 3
    iam_failures_per_address: int = 10
    iam_failure_window: float = 600.0
    shutdown_grace: float = 5.0
    disorder_grace: float = 60.0
    max_frame_body: int = 16384
    message_rate: float = 100.0
    message_burst: int = 200
    max_connections: int = 1000
    connections_per_address: int = 50
    limit_exempt: tuple[str, ...] = ("127.0.0.1", "::1")
    join_idle_timeout: float = 120.0
    frame_timeout: float = 30.0
    send_timeout: float = 60.0
    durability: str = "os"
    turn_stats: bool = False
    #: Port of the web side (pages, JSON API, DAIDE over WebSocket: `server.http`);
    #: None = off, 0 = any free port.
    http_port: int | None = None
    #: Origins besides the page's own whose WebSocket is upgraded (``--allow-origin``,
    #: e.g. "https://play.example" behind a proxy; docs/web.md).
    allow_origins: tuple[str, ...] = ()
    linger: float = 0.0
    #: The web door's own budget, apart from the DAIDE connections' (docs/hardening.md):
    #: HTTP and WebSocket connections in all and per address, and the time a
    #: request's headers, then its body, may take.
    http_max_connections: int = 500
    http_connections_per_address: int = 50
    http_request_timeout: float = 10.0
    #: Proxies whose ``X-Forwarded-For`` names the client (``daide serve --trusted-proxy``).
    trusted_proxies: tuple[str, ...] = ()
    #: The players of a game may run the DAIDE admin commands on it, each change
    #: carried out after ``veto_delay`` seconds unless vetoed (``daide serve
    #: --player-admin``; `server.admin_adm`, docs/hosting.md).
    player_admin: bool = False
    veto_delay: float = 20.0
    #: The admin token's file (``daide serve --admin-token-file``); None = ``<db>.admin-token``
    #: beside the database (`server.admin_token`, docs/hosting.md).
    admin_token_file: Path | None = None

    def __post_init__(self) -> None:
        if not 0 <= self.linger <= 3600:
            raise SettingsError(f"linger must be 0..3600 seconds, not {self.linger}")
        if self.durability not in DURABILITY:
            raise SettingsError(f"durability must be one of {', '.join(DURABILITY)},"
                                f" not {self.durability!r}")
        if not 0 <= self.port <= 65535:
            raise SettingsError(f"port must be 0..65535, not {self.port}")
        if self.http_port is not None and not 0 <= self.http_port <= 65535:
            raise SettingsError(f"HTTP port must be 0..65535, not {self.http_port}")
        for origin in self.allow_origins:
            if not re.fullmatch(r"https?://[^/\s]+/?", origin, re.IGNORECASE):
                raise SettingsError(f"an allowed origin is scheme://host[:port], not {origin!r}")
        if self.outbound_queue < 8:
            raise SettingsError("the outbound queue must hold at least 8 messages")
        for name in ("im_timeout", "join_idle_timeout", "frame_timeout", "send_timeout",
                     "message_rate", "iam_failure_window", "http_request_timeout", "veto_delay"):
            if not getattr(self, name) > 0:
                raise SettingsError(f"{name} must be positive, not {getattr(self, name)}")
        # 64 bytes hold the longest standard order; docs/protocol.md §3: bodies are 16-bit lengths.
        if not 64 <= self.max_frame_body <= 65535:
            raise SettingsError(f"max_frame_body must be 64..65535 bytes, not {self.max_frame_body}")
        for name in ("message_burst", "max_connections", "connections_per_address",
                     "iam_failures_per_connection", "iam_failures_per_address",
                     "http_max_connections", "http_connections_per_address"):
            if getattr(self, name) < 1:
                raise SettingsError(f"{name} must be at least 1, not {getattr(self, name)}")
        for proxy in self.trusted_proxies:
            try:
                ipaddress.ip_address(proxy.strip("[]"))
            except ValueError:
                raise SettingsError(f"trusted proxy must be an IP address, not {proxy!r}") from None
