"""Limits that keep one hostile or broken peer from hurting anyone else.

Every limit is a small sans-IO object here (no sockets, no clock of its
own: the caller passes ``now``), configured from `server.settings.ServerSettings`
and used by `server.connection` (per connection) and `server.lobby` (per
server).  The values and why they are what they are:

=========================  ==========================  ==============================
limit                      setting (default)           what happens
=========================  ==========================  ==============================
frame size                 ``max_frame_body`` (16384)  EM 0x09 and close, decided from
                                                       the header before the body is
                                                       buffered
messages per second        ``message_rate`` (100/s),   the connection is read more
                           ``message_burst`` (200)     slowly (TCP backpressure)
connections per address    ``connections_per_address`` the socket is closed at once
                           (50; loopback exempt)
total connections          ``max_connections`` (1000)  the socket is closed at once
time to complete the IM    ``im_timeout`` (30 s)       EM 0x01 and close (docs/protocol.md §2)
idle before joining        ``join_idle_timeout``       OFF and close
                           (120 s)
partial frame (slow-loris) ``frame_timeout`` (30 s)    EM 0x09 and close (Parlance's
                                                       choice, docs/protocol.md §2 [X])
outbound queue             ``outbound_queue`` (256),   disconnected; a player goes into
                           ``send_timeout`` (60 s)     civil disorder
wrong passcodes            ``iam_failures_per_...``    see `IamGuard`
web connections            ``http_max_connections``    the socket is closed at once
                           (500), ``http_connections_  (`server.web_door`: a budget
                           per_address`` (50)          apart from the TCP one)
WebSocket message          ``max_frame_body`` + 4      close 1009 from the frame
                                                       header (`WebSocketGuard`)
request headers, body      ``http_request_timeout``    closed; 408 for a body
                           (10 s each)
=========================  ==========================  ==============================

`FrameTracker` follows frame boundaries in the received byte stream on its
own (4-byte header, then ``length`` bytes, docs/protocol.md §3) so that the
connection knows how big the frame coming in is and whether one is only
partly received, without reaching into `protocol.connection`.
"""

from __future__ import annotations

import ipaddress
import math
from collections import deque
from dataclasses import dataclass, field

#: Frame type byte of a DM (docs/protocol.md §3): the only frame whose length a client chooses.
_DM_TYPE = 2
_HEADER_SIZE = 4

#: Addresses exempt from the per-address connection limit by default: a
#: process on the server's own machine can exhaust it anyway, and local bot
#: farms (tournaments, the load harness) run hundreds of clients from it.
LOOPBACK = ("127.0.0.1", "::1")


def address_key(host: str) -> str:
    """The unit that per-address limits count: the host, or its /64 for IPv6.

    One IPv6 subscriber usually holds a whole /64, so counting single IPv6
    addresses would let one attacker rotate through 2**64 of them.
    IPv4-mapped IPv6 addresses count as the IPv4 address.
    """
    try:
        ip = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        if ip.is_loopback:
            return str(ip)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


@dataclass(frozen=True)
class Oversize:
    """A DM header announced a body over the limit; ``offset`` is where that frame began
    in the chunk just fed (0 if it began in an earlier one)."""

    reason: str
    offset: int


class FrameTracker:
    """Frame boundaries of a received byte stream: size limit and partial frames.

    `feed` is given every chunk in arrival order, before it goes to the
    protocol machine.  It returns an `Oversize` when a DM header announces a
    body over ``max_body`` bytes (the caller lets the machine have the frames
    before it, then answers EM 0x09 without reading the body); other frame
    types have fixed or refused lengths that the protocol machine judges
    itself (docs/protocol.md §4.5).  `partial_since` is the time the first byte of
    a frame that is not yet complete arrived, or None between frames.
    """

    def __init__(self, max_body: int) -> None:
        self.max_body = max_body
        self._header = bytearray()
        self._body_left = 0
        self.partial_since: float | None = None

    def feed(self, data: bytes, now: float) -> Oversize | None:
        """Account for ``data``; an `Oversize` if a frame is over the size limit."""
        if not self._body_left and not self._header:
            return self._feed_from_boundary(data, now)
        return self._feed(data, now)

    def _feed_from_boundary(self, data: bytes, now: float) -> Oversize | None:
        """`feed` for a chunk that starts a frame (nearly always: a peer writes
        whole frames): hop from header to header, then note what is left over."""
        pos, size = 0, len(data)
        while pos + _HEADER_SIZE <= size:
            length = (data[pos + 2] << 8) | data[pos + 3]
            if data[pos] == _DM_TYPE and length > self.max_body:
                self.partial_since = now
                return Oversize(f"DM of {length} bytes, over the limit of {self.max_body}", pos)
            pos += _HEADER_SIZE + length
        if pos > size:                          # the last frame's body is still to come
            self._body_left = pos - size
            self.partial_since = now
        elif pos < size:                        # part of a header
            self._header += data[pos:]
            self.partial_since = now
        return None

    def _feed(self, data: bytes, now: float) -> Oversize | None:
        pos, size = 0, len(data)
        while pos < size:
            if self.partial_since is None:
                self.partial_since = now
            if self._body_left:
                taken = min(self._body_left, size - pos)
                self._body_left -= taken
                pos += taken
            else:
                taken = min(_HEADER_SIZE - len(self._header), size - pos)
                self._header += data[pos:pos + taken]
                pos += taken
                if len(self._header) < _HEADER_SIZE:
                    continue
                frame_type, length = self._header[0], (self._header[2] << 8) | self._header[3]
                self._header.clear()
                if frame_type == _DM_TYPE and length > self.max_body:
                    return Oversize(f"DM of {length} bytes, over the limit of {self.max_body}",
                                    max(0, pos - _HEADER_SIZE))
                self._body_left = length
            if not self._body_left and not self._header:
                self.partial_since = None       # a frame boundary
        return None


class TokenBucket:
    """``rate`` events per second with bursts of up to ``burst`` (a token bucket).

    `delay` takes one token and returns how long the caller must wait first
    (0 when a token was there): a connection over its message rate is not
    refused, only read more slowly.  `take` refuses instead (a press SND over
    its power's rate is answered REJ, `server.press`).
    """

    def __init__(self, rate: float, burst: int, now: float) -> None:
        self.rate = rate
        self.burst = burst
        self._tokens = float(burst)
        self._stamp = now

    def available(self, now: float) -> float:
        """Tokens in the bucket at ``now`` (refilled, at most ``burst``)."""
        if self.rate != math.inf:
            self._tokens = min(self.burst, self._tokens + (now - self._stamp) * self.rate)
            self._stamp = now
        return self._tokens

    def delay(self, now: float) -> float:
        """Take a token; seconds to wait before acting on it."""
        if self.rate == math.inf:
            return 0.0
        self._tokens = self.available(now) - 1
        return 0.0 if self._tokens >= 0 else -self._tokens / self.rate

    def take(self, now: float) -> bool:
        """Take a token if one is there now; False (and nothing taken) otherwise."""
        if self.rate == math.inf:
            return True
        if self.available(now) >= 1.0:
            self._tokens -= 1.0
            return True
        return False


class ConnectionGate:
    """Admission: at most ``total`` connections, ``per_address`` from one address.

    Addresses are counted by `address_key`; those in ``exempt`` (loopback by
    default) count towards the total only.  `admit` returns the reason for a
    refusal, or None and counts the connection until `release`.
    """

    def __init__(self, total: int, per_address: int, exempt: tuple[str, ...] = LOOPBACK) -> None:
        self.total = total
        self.per_address = per_address
        self.exempt = frozenset(address_key(a) for a in exempt)
        self.open = 0
        self._by_address: dict[str, int] = {}

    def admit(self, host: str) -> str | None:
        key = address_key(host)
        if self.open >= self.total:
            return f"server full ({self.total} connections)"
        held = self._by_address.get(key, 0)
        if key not in self.exempt and held >= self.per_address:
            return f"too many connections from {key} ({self.per_address})"
        self.open += 1
        self._by_address[key] = held + 1
        return None

    def release(self, host: str) -> None:
        key = address_key(host)
        self.open -= 1
        left = self._by_address.get(key, 1) - 1
        if left > 0:
            self._by_address[key] = left
        else:
            self._by_address.pop(key, None)


@dataclass
class _Record:
    failures: deque[float] = field(default_factory=deque)
    strikes: int = 0
    blocked_until: float = -math.inf


class IamGuard:
    """Wrong passcodes per address, with an exponentially growing block.

    An address (`address_key`) may get ``limit`` IAMs wrong within ``window``
    seconds.  The ``limit``-th wrong one blocks every IAM from it, checked or
    not, for ``window`` seconds; each further block lasts twice as long as the
    one before (``window * 2**(strikes - 1)``).  With the defaults (10 wrong
    in 600 s) an attacker gets 10 guesses per block, so a year of guessing
    as fast as allowed tries about 160 of the 8191 passcodes (docs/protocol.md
    §13.2: passcodes are 1..8191), about 2 %; an exhaustive search would take
    longer than the universe has.  Together with the per-connection limit
    (`Client.iam_failures`) this keeps the passcode space from being searched.

    A record is forgotten once its address has been quiet for twice its last
    block, so the table stays small.
    """

    def __init__(self, limit: int, window: float) -> None:
        self.limit = limit
        self.window = window
        self._records: dict[str, _Record] = {}

    def blocked(self, host: str, now: float) -> bool:
        """True while IAMs from this address are refused unchecked."""
        record = self._records.get(address_key(host))
        return record is not None and now < record.blocked_until

    def failed(self, host: str, now: float) -> bool:
        """Count a wrong passcode; True if the address is blocked from now on."""
        self._prune(now)
        record = self._records.setdefault(address_key(host), _Record())
        failures = record.failures
        failures.append(now)
        while failures and failures[0] <= now - self.window:
            failures.popleft()
        if len(failures) < self.limit:
            return False
        failures.clear()
        record.strikes += 1
        record.blocked_until = now + self.block_length(record.strikes)
        return True

    def block_length(self, strikes: int) -> float:
        """Seconds the ``strikes``-th block lasts."""
        return self.window * 2.0 ** min(strikes - 1, 40)

    def _prune(self, now: float) -> None:
        if len(self._records) < 1024:
            return
        for key, record in list(self._records.items()):
            quiet_since = max(record.blocked_until, record.failures[-1] if record.failures else -math.inf)
            if now > quiet_since + 2 * self.block_length(max(record.strikes, 1)):
                del self._records[key]


#: WebSocket opcodes (RFC 6455 §5.2): continuation, text, binary; 8 and up are control frames.
_WS_DATA_OPCODES = (0, 1, 2)
_WS_CONTROL_MAX = 125


class WebSocketGuard:
    """Frame headers of the bytes a WebSocket client sends (RFC 6455 §5.2), judged
    before anything buffers the payload.

    `feed` is given every received chunk in order.  It returns the reason to
    close the connection once a frame header announces a message of more
    than ``max_message`` bytes (counted over its fragments, so endless
    continuation frames are caught as well as one frame declaring 2**62
    bytes), a message split into more than ``max_fragments`` frames (empty
    fragments cost work but no bytes), a control frame over 125 bytes or
    fragmented, a reserved bit (no extension is negotiated: the server offers
    none) or an unknown opcode.  The decision is made from the header alone,
    so nothing of an oversized payload needs to be read.
    """

    def __init__(self, max_message: int, max_fragments: int = 64) -> None:
        self.max_message = max_message
        self.max_fragments = max_fragments
        self._header = bytearray()
        self._payload_left = 0
        self._message = 0
        self._fragments = 0

    def feed(self, data: bytes) -> str | None:
        """Account for ``data``; the reason to refuse the connection, or None."""
        pos, size = 0, len(data)
        while pos < size:
            if self._payload_left:
                taken = min(self._payload_left, size - pos)
                self._payload_left -= taken
                pos += taken
                continue
            need = self._header_size()
            taken = min(need - len(self._header), size - pos)
            self._header += data[pos:pos + taken]
            pos += taken
            if len(self._header) < self._header_size():
                continue
            refusal = self._frame()
            if refusal is not None:
                return refusal
        return None

    def _header_size(self) -> int:
        if len(self._header) < 2:
            return 2
        length7 = self._header[1] & 0x7F
        extended = 2 if length7 == 126 else 8 if length7 == 127 else 0
        return 2 + extended + (4 if self._header[1] & 0x80 else 0)

    def _frame(self) -> str | None:
        head = self._header
        fin, reserved, opcode = head[0] & 0x80, head[0] & 0x70, head[0] & 0x0F
        length = head[1] & 0x7F
        if length == 126:
            length = int.from_bytes(head[2:4], "big")
        elif length == 127:
            length = int.from_bytes(head[2:10], "big")
        head.clear()
        if reserved:
            return "reserved bits set (no extension was negotiated)"
        if opcode >= 8:
            if opcode > 10:
                return f"unknown opcode {opcode}"
            if length > _WS_CONTROL_MAX or not fin:
                return "control frame over 125 bytes or fragmented"
        elif opcode in _WS_DATA_OPCODES:
            if opcode:                          # a new message starts
                self._message = self._fragments = 0
            self._message += length
            self._fragments += 1
            if self._message > self.max_message:
                return f"message over {self.max_message} bytes"
            if self._fragments > self.max_fragments:
                return f"message in over {self.max_fragments} fragments"
            if fin:
                self._message = self._fragments = 0
        else:
            return f"unknown opcode {opcode}"
        self._payload_left = length
        return None


def forwarded_client(headers: list[tuple[bytes, bytes]]) -> str | None:
    """The client address a trusted proxy forwarded (the last ``X-Forwarded-For``
    entry: the one that proxy appended; the ones before it are the client's own
    claims), or None when there is none or it is not an IP address."""
    value = b""
    for name, field_value in headers:
        if name.lower() == b"x-forwarded-for":
            value = field_value             # the last header line: the proxy's own
    entry = value.decode("latin-1").rsplit(",", 1)[-1].strip()
    try:
        return str(ipaddress.ip_address(entry.strip("[]")))
    except ValueError:
        return None
