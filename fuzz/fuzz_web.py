"""Fuzzing the web door: random HTTP requests and WebSocket frames against ``daide serve``.

    make fuzz                                          # the DAIDE run, then this one
    .venv/bin/python -m fuzz.fuzz_web --seconds 300    # this one alone
    .venv/bin/python -m fuzz.fuzz_web --seed 7 --cases 2000
    .venv/bin/python -m fuzz.fuzz_web --replay SEED    # one case, what went and came back

The server runs as ``daide serve --http-port`` in its own process
(`fuzz.web_harness.WebServer`), so atheris's coverage of this process could
not guide the inputs: the cases (`fuzz.web_inputs`) come from seeded random
sources, one seed a case.  It stops at the first finding (a 5xx, an error
or traceback in the log, the server no longer answering a DAIDE TCP client
or the API) and prints it with the seeds to replay; exit status 1.
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import time
from collections.abc import Iterator

import trio

from fuzz.web_harness import Tally, WebServer, exchange, fuzz_cases, h2_statuses, make_case


def seeds_from(seed: int | None) -> Iterator[int]:
    if seed is not None:
        return itertools.count(seed * 1_000_000)
    source = random.SystemRandom()
    return iter(lambda: source.randrange(2**63), None)


async def run(args: argparse.Namespace) -> int:
    with WebServer.running() as server:
        async with trio.open_nursery() as nursery:
            await server.ready(nursery)
            if args.replay is not None:
                kind, chunks = make_case(args.replay, server.host)
                print(f"case {args.replay} ({kind}) sends:")
                for chunk in chunks:
                    print(f"  {chunk[:400]!r}{' ...' if len(chunk) > 400 else ''}")
                statuses, data = await exchange(server.http_port, chunks,
                                                wait_head=kind == "websocket")
                if kind == "h2":
                    statuses = h2_statuses(data)
                print(f"statuses {statuses}; got {len(data)} bytes: {data[:1500]!r}")
                await trio.sleep(0.5)
                problems = server.log_findings()
                broken = await server.answering()
                for problem in problems + ([broken] if broken else []):
                    print("FINDING:", problem)
                nursery.cancel_scope.cancel()
                return 1 if problems or broken else 0
            deadline = time.monotonic() + args.seconds
            seeds = seeds_from(args.seed)
            if args.cases is not None:
                seeds = itertools.islice(seeds, args.cases)
            tally = Tally()
            started = time.monotonic()
            async with trio.open_nursery() as reporter:
                async def report() -> None:
                    while True:
                        await trio.sleep(30)
                        print(f"  {tally.cases} cases, statuses {dict(sorted(tally.statuses.items()))}",
                              flush=True)
                reporter.start_soon(report)
                await fuzz_cases(server, seeds, workers=args.workers, tally=tally,
                                 keep_going=lambda: time.monotonic() < deadline)
                reporter.cancel_scope.cancel()
            nursery.cancel_scope.cancel()
    spent = time.monotonic() - started
    print(f"{tally.cases} cases in {spent:.0f} s ({dict(tally.kinds)}); "
          f"answers by status {dict(sorted(tally.statuses.items()))}")
    for finding in tally.findings:
        print(f"FINDING: {finding}")
    if tally.findings:
        print("replay a case: .venv/bin/python -m fuzz.fuzz_web --replay SEED")
        return 1
    print("no finding")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fuzz.fuzz_web",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--cases", type=int, default=None, help="stop after this many cases")
    parser.add_argument("--seed", type=int, default=None,
                        help="cases seed*1000000, seed*1000000+1, ... (default: random seeds)")
    parser.add_argument("--workers", type=int, default=16, help="connections at a time")
    parser.add_argument("--replay", type=int, default=None, metavar="SEED")
    args = parser.parse_args(argv)
    print("web door fuzzing: random cases (the server runs in its own process, so "
          "coverage cannot guide them)", flush=True)
    return trio.run(run, args)


if __name__ == "__main__":
    sys.exit(main())
