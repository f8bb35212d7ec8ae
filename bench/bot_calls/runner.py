"""``python -m bench.bot_calls``: the chosen games, one after the other, then the report."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence

import bench.bot_calls
from bench.bot_calls.game import play_game
from bench.bot_calls.people import FULL_SPEED, Pace, Scenario
from bench.bot_calls.report import report
from bench.botrun import started, write_section

SECTION = "bench.bot_calls"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.bot_calls", description=bench.bot_calls.__doc__
    )
    parser.add_argument("--think", type=float, nargs=2, default=(0.8, 2.0), metavar=("MIN", "MAX"))
    parser.add_argument("--tap", type=float, nargs=2, default=(0.4, 0.8), metavar=("MIN", "MAX"))
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument(
        "--only", choices=("human", "default", "full"), action="append", help="rows to run"
    )
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args(argv)
    pace = Pace(tuple(args.think), tuple(args.tap))  # type: ignore[arg-type]
    chosen = set(args.only or ("human", "default", "full"))
    scenarios = []
    if "human" in chosen:
        scenarios.append(Scenario("4 humans, human pace", 4, 1.2, pace))
    if "default" in chosen:
        scenarios.append(Scenario("1 human (human pace) + 3 computers (1.2 s)", 1, 1.2, pace))
    if "full" in chosen:
        scenarios.append(Scenario("1 human + 3 computers, full speed", 1, 0.0, FULL_SPEED))
        scenarios.append(Scenario("4 computers, full speed", 0, 0.0, FULL_SPEED))
    start = started()
    outcomes = []
    for number, scenario in enumerate(scenarios):
        print(f"playing: {scenario.name} ...", file=sys.stderr, flush=True)
        outcomes.append(asyncio.run(play_game(scenario, args.seed + number)))
    given = list(argv if argv is not None else sys.argv[1:])
    command = " ".join([".venv/bin/python -m bench.bot_calls", *given])
    body = report(outcomes, start, command, pace)
    print(body)
    if not args.no_write:
        write_section(SECTION, body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
