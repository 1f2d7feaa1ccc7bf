"""The sans-IO limit objects of `server.limits`, and the settings that configure them."""

from __future__ import annotations

import math
import random

import pytest

from protocol.frames import DiplomacyMessage, FinalMessage, InitialMessage, build_frame
from server.limits import (
    ConnectionGate,
    FrameTracker,
    IamGuard,
    Oversize,
    TokenBucket,
    address_key,
)
from server.settings import ServerSettings, SettingsError


@pytest.mark.parametrize(("host", "key"), [
    ("192.0.2.7", "192.0.2.7"),
    ("2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64"),
    ("2001:db8:1:2::1", "2001:db8:1:2::/64"),           # same /64, same key
    ("::ffff:192.0.2.7", "192.0.2.7"),                  # IPv4-mapped
    ("[::1]", "::1"),
    ("not-an-address", "not-an-address"),
])
def test_address_key_counts_ipv6_by_its_64(host: str, key: str) -> None:
    assert address_key(host) == key


def test_frame_tracker_follows_frames_fed_one_byte_at_a_time() -> None:
    stream = (build_frame(InitialMessage()) + build_frame(DiplomacyMessage((0x4810,) * 5))
              + build_frame(FinalMessage()))
    tracker = FrameTracker(max_body=64)
    boundaries = []
    for i, byte in enumerate(stream):
        assert tracker.feed(bytes([byte]), now=float(i)) is None
        if tracker.partial_since is None:
            boundaries.append(i + 1)
        else:
            # The partial frame started with its first byte, not with the latest one.
            assert tracker.partial_since == float(max([0, *boundaries]))
    assert boundaries == [8, 8 + 14, 8 + 14 + 4]


def test_frame_tracker_refuses_a_large_dm_from_its_header_alone() -> None:
    tracker = FrameTracker(max_body=100)
    assert tracker.feed(bytes.fromhex("02000064"), 0.0) is None       # 100 bytes: allowed
    assert tracker.feed(b"\x48\x10" * 50, 0.0) is None
    found = tracker.feed(bytes.fromhex("02000066"), 1.0)
    assert found == Oversize("DM of 102 bytes, over the limit of 100", 0)
    # Where the frame began in the chunk: the frames before it are still read.
    chunk = build_frame(InitialMessage()) + bytes.fromhex("0200FFFE")
    assert FrameTracker(max_body=100).feed(chunk, 0.0) == Oversize(
        "DM of 65534 bytes, over the limit of 100", 8)
    # Other frame types are judged by the protocol machine (fixed lengths, EM 0x08/0x0D).
    assert FrameTracker(max_body=100).feed(bytes.fromhex("0100FFFF"), 0.0) is None


def test_frame_tracker_from_a_boundary_agrees_with_its_byte_walk() -> None:
    """`FrameTracker.feed` hops from header to header when a chunk starts a frame;
    the general walk (``_feed``) must see the same partial frames and refusals
    whatever the chunks - whole frames, random splits, one byte at a time."""
    rng = random.Random(7)
    pieces = [build_frame(InitialMessage()), build_frame(FinalMessage()),
              build_frame(DiplomacyMessage((0x4810,) * 5)), build_frame(DiplomacyMessage((0x4A00,) * 50)),
              bytes.fromhex("02000066") + b"\x48\x10" * 51,      # over the limit of 100
              bytes.fromhex("0100FFFF"), bytes.fromhex("02000000"), bytes.fromhex("0300")]
    refused = 0
    for trial in range(600):
        stream = b"".join(rng.choice(pieces) for _ in range(rng.randint(1, 8)))
        mode = trial % 3
        chunks, pos = [], 0
        while pos < len(stream):
            size = len(stream) if mode == 0 else 1 if mode == 1 else rng.randint(1, 12)
            chunks.append(stream[pos:pos + size])
            pos += size
        fast, walk = FrameTracker(max_body=100), FrameTracker(max_body=100)
        for now, chunk in enumerate(chunks):
            got, want = fast.feed(chunk, float(now)), walk._feed(chunk, float(now))
            assert got == want
            assert fast.partial_since == walk.partial_since
            assert (fast._body_left, fast._header) == (walk._body_left, walk._header)
            if got is not None:
                refused += 1
                break
    assert refused > 50


def test_token_bucket_allows_a_burst_then_the_rate() -> None:
    bucket = TokenBucket(rate=10.0, burst=3, now=0.0)
    assert [bucket.delay(0.0) for _ in range(3)] == [0.0, 0.0, 0.0]
    assert bucket.delay(0.0) == pytest.approx(0.1)
    assert bucket.delay(0.0) == pytest.approx(0.2)
    assert bucket.delay(10.0) == 0.0           # refilled, capped at the burst
    strict = TokenBucket(rate=1.0, burst=1, now=0.0)
    assert strict.take(0.0) and not strict.take(0.5) and strict.take(1.0)
    assert TokenBucket(rate=math.inf, burst=1, now=0.0).delay(0.0) == 0.0


def test_connection_gate_counts_per_address_and_in_total() -> None:
    gate = ConnectionGate(total=5, per_address=2, exempt=("127.0.0.1",))
    assert gate.admit("192.0.2.1") is None
    assert gate.admit("192.0.2.1") is None
    assert gate.admit("192.0.2.1") == "too many connections from 192.0.2.1 (2)"
    # Another address of the same IPv6 /64 is the same subscriber.
    assert gate.admit("2001:db8::1") is None and gate.admit("2001:db8::2") is None
    assert gate.admit("2001:db8::3") == "too many connections from 2001:db8::/64 (2)"
    assert gate.admit("127.0.0.1") is None          # exempt from the per-address limit...
    assert gate.admit("127.0.0.1") == "server full (5 connections)"     # ...not the total
    gate.release("192.0.2.1")
    assert gate.admit("192.0.2.1") is None
    for host in ("192.0.2.1", "192.0.2.1", "2001:db8::1", "2001:db8::2", "127.0.0.1"):
        gate.release(host)
    assert gate.open == 0


def test_iam_guard_blocks_for_a_window_that_doubles() -> None:
    guard = IamGuard(limit=3, window=100.0)
    host = "198.51.100.9"
    assert [guard.failed(host, t) for t in (0.0, 1.0)] == [False, False]
    assert not guard.blocked(host, 2.0)
    assert guard.failed(host, 2.0)                 # the third wrong passcode
    assert guard.blocked(host, 101.9) and not guard.blocked(host, 102.0)
    assert not guard.blocked("198.51.100.10", 50.0)
    for t in (200.0, 201.0):
        guard.failed(host, t)
    assert guard.failed(host, 202.0)               # second block: twice as long
    assert guard.blocked(host, 401.9) and not guard.blocked(host, 402.0)
    # Failures older than the window do not add up.
    assert not guard.failed(host, 1000.0) and not guard.failed(host, 1099.0)
    assert not guard.failed(host, 1100.5)


def test_a_year_of_guessing_tries_a_small_share_of_the_passcodes() -> None:
    """The attacker guesses as fast as the defaults allow, from one address, for a year."""
    settings = ServerSettings()
    guard = IamGuard(settings.iam_failures_per_address, settings.iam_failure_window)
    host, now, year, checked = "203.0.113.5", 0.0, 365 * 24 * 3600.0, 0
    while now < year:
        if guard.blocked(host, now):
            now += 600.0
            continue
        checked += 1           # a passcode the server actually compared
        guard.failed(host, now)
        now += 1.0
    assert checked <= 170      # of 8191: about 2 % a year, and ever slower
    assert checked >= settings.iam_failures_per_address * 10


@pytest.mark.parametrize(("field", "value"), [
    ("max_frame_body", 10), ("max_frame_body", 70000), ("message_rate", 0),
    ("message_burst", 0), ("max_connections", 0), ("connections_per_address", 0),
    ("join_idle_timeout", 0), ("frame_timeout", -1), ("send_timeout", 0),
    ("iam_failures_per_address", 0), ("iam_failure_window", 0),
])
def test_limits_are_checked_when_the_settings_are_built(field: str, value: float) -> None:
    with pytest.raises(SettingsError, match=field):
        ServerSettings(**{field: value})  # type: ignore[arg-type]


def test_every_limit_has_a_sane_default() -> None:
    s = ServerSettings()
    assert (s.max_frame_body, s.message_rate, s.message_burst) == (16384, 100.0, 200)
    assert (s.max_connections, s.connections_per_address) == (1000, 50)
    assert (s.im_timeout, s.join_idle_timeout, s.frame_timeout) == (30.0, 120.0, 30.0)
    assert (s.outbound_queue, s.send_timeout) == (256, 60.0)
    assert (s.iam_failures_per_connection, s.iam_failures_per_address) == (3, 10)
