"""``python -m bench.web``: the calls part, the latency part, then the report."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import time
from collections.abc import Sequence

import bench.web
from bench.botrun import started, write_section
from bench.harness import DATABASE_NAMES, add_databases_option
from bench.web.botside import bot_process_main
from bench.web.calls import GameCalls, run_calls
from bench.web.live import LoadResult, Phase, run_load
from bench.web.report import report

SECTION = "bench.web"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.web", description=bench.web.__doc__)
    parser.add_argument("--games", type=int, default=5, help="games of each variant (calls)")
    parser.add_argument(
        "--think",
        type=float,
        nargs=2,
        default=(1.0, 2.6),
        metavar=("MIN", "MAX"),
        help="seconds a person thinks before a decision (calls per action)",
    )
    parser.add_argument("--tables", type=int, default=50, help="tables at once (latency)")
    parser.add_argument("--paowang-share", type=float, default=0.2)
    parser.add_argument(
        "--load-think",
        type=float,
        nargs=2,
        default=(0.5, 1.5),
        metavar=("MIN", "MAX"),
        help="think time of the first latency phase",
    )
    parser.add_argument("--seconds", type=float, default=30.0, help="length of each phase")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--only", choices=("calls", "load"), help="run one part")
    add_databases_option(parser, "the latency part")
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("--bot-process", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.bot_process:
        return bot_process_main(args.bot_process)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    start = started()
    began = time.monotonic()
    calls: list[GameCalls] = []
    no_chat: dict[str, int] = {}
    think = (float(args.think[0]), float(args.think[1]))
    if args.only != "load":
        print(f"calls: {args.games} games of each variant ...", file=sys.stderr, flush=True)
        calls, no_chat = asyncio.run(run_calls(args.games, think, args.seed))
    loads: list[tuple[str, LoadResult]] = []
    if args.only != "calls":
        for database in args.databases:
            print(f"latency: {args.tables} tables on {database} ...", file=sys.stderr, flush=True)
            low, high = args.load_think
            phases = [
                Phase(f"think {low:g}–{high:g} s", (low, high), args.seconds),
                Phase("as fast as they can", (0.0, 0.0), args.seconds),
            ]
            result = run_load(args.tables, args.paowang_share, phases, args.seed, database)
            loads.append((DATABASE_NAMES[database], asyncio.run(result)))
    given = list(argv if argv is not None else sys.argv[1:])
    command = " ".join([".venv/bin/python -m bench.web", *given])
    body = report(calls, no_chat, loads, start, command, think)
    print(body)
    print(f"(run took {time.monotonic() - began:.0f} s)", file=sys.stderr)
    if not args.no_write:
        write_section(SECTION, body)
