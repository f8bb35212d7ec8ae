"""``python -m bench.chaos``: the run in a temporary folder, then the report."""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import bench.chaos
from bench.botrun import started, write_section
from bench.chaos.model import BotDown
from bench.chaos.report import format_report, section
from bench.chaos.scenario import Chaos

SECTION = "bench.chaos"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.chaos",
        description=bench.chaos.__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--minutes", type=float, default=3.0, help="minutes of chaos")
    parser.add_argument(
        "--settle", type=float, default=60.0, help="seconds after the chaos for the games to end"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("--keep", action="store_true", help="keep the database and bot log")
    parser.add_argument(
        "--standby",
        action="store_true",
        help="two instances on a throwaway PostgreSQL: each SIGKILL of the active one is a "
        "takeover by the standby, and the killed one comes back as the next standby",
    )
    args = parser.parse_args(argv)
    start = started()
    folder = Path(tempfile.mkdtemp(prefix="bench-chaos-"))
    chaos = Chaos(args, folder)
    try:
        report = asyncio.run(chaos.run())
    except BotDown as error:
        print(f"the run stopped: {error}; the bot's log is in {folder}", file=sys.stderr)
        return 2
    finally:
        chaos.stack.close()
    keep = args.keep or bool(report.failures)
    if keep:
        report.kept = str(folder)
    else:
        for child in folder.iterdir():
            child.unlink()
        folder.rmdir()
    body = format_report(report)
    print(body)
    if report.kept:
        print(f"\nThe database, the bot's log and requests.jsonl are in {report.kept}")
    given = list(argv if argv is not None else sys.argv[1:])
    command = " ".join([".venv/bin/python -m bench.chaos", *given])
    if not args.no_write:
        write_section(SECTION + (".standby" if args.standby else ""),
                      section(report, command, start, body))
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
