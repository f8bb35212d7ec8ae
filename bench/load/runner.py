"""``python -m bench.load``: the runs (the fake here, the bot in a child process), the report."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import bench.load
from bench.botrun import started, write_section
from bench.harness import DATABASE_NAMES, add_databases_option, bot_process, fake_settings
from bench.load.botside import bot_process_main
from bench.load.checks import CheckReport, check_games
from bench.load.people import Scenario, TableSpec, table_mix
from bench.load.report import report
from bench.load.scenario import FAKE_LIMITS, bot_overrides, run_scenario
from bench.pgcluster import LIKE_SQLITE, copy_to_sqlite, create_database, throwaway_cluster
from fakebot import FakeTelegram

SECTION = "bench.load"


@dataclass
class LoadRun:
    name: str
    specs: list[TableSpec]
    computer_delay: float
    traced: bool
    scenario: Scenario
    check: CheckReport
    bot: dict[str, Any]
    requests: int


async def run_load(
    name: str,
    specs: list[TableSpec],
    *,
    computer_delay: float,
    seed: int,
    traced: bool = False,
    spread: tuple[float, float] = (0.0, 0.0),
    database: str = "sqlite",
) -> LoadRun:
    """One run: the fake here, the bot in a child process; the checks once the bot stopped.

    ``database`` ``postgresql``: the bot runs on a throwaway PostgreSQL cluster, and the
    checks read a copy of its database made with ``copy-db``'s code (a SQLite file)."""
    async with FakeTelegram(**FAKE_LIMITS) as fake:
        with (
            tempfile.TemporaryDirectory(prefix="bench-load-") as folder,
            contextlib.ExitStack() as stack,
        ):
            db_path = Path(folder) / "bot.sqlite3"
            out = Path(folder) / "bot.json"
            overrides = bot_overrides(computer_delay)
            postgres_url = None
            if database == "postgresql":
                cluster = stack.enter_context(throwaway_cluster(LIKE_SQLITE))
                postgres_url = await create_database(cluster, "bench")
                overrides["database_url"] = postgres_url
            settings = fake_settings(fake, db_path, **overrides)
            config = {"settings": settings, "out": str(out), "tracemalloc": traced}
            async with bot_process("bench.load", Path(folder), config) as process:
                line = await process.hello()
                if line.strip() != b"ready":
                    raise RuntimeError(f"the bot process did not start: {line!r}")
                scenario = await run_scenario(
                    fake, specs, seed=seed, setup_spread=spread[0], start_spread=spread[1]
                )
                await process.stop(120)
            if process.returncode != 0:
                raise RuntimeError(f"the bot process exited with {process.returncode}")
            bot = json.loads(out.read_text(encoding="utf-8"))
            if postgres_url is not None:
                await copy_to_sqlite(postgres_url, db_path)
            check = check_games(db_path, scenario, fake)
            requests = len(fake.requests)
    return LoadRun(name, specs, computer_delay, traced, scenario, check, bot, requests)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.load", description=bench.load.__doc__)
    parser.add_argument("--tables", type=int, default=54, help="tables at once (≥ 50)")
    parser.add_argument(
        "--computer-delay",
        type=float,
        nargs="+",
        default=[1.2],
        help="computer delay of each timing run (default the bot's own, 1.2 s)",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-quiet", action="store_true", help="skip the one-table run")
    parser.add_argument("--no-tracemalloc", action="store_true", help="skip the memory run")
    add_databases_option(parser, "the timing runs")
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("--bot-process", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.bot_process:
        return bot_process_main(args.bot_process)
    start = started()
    specs = table_mix(args.tables)
    plans: list[tuple[str, list[TableSpec], float, bool, tuple[float, float], str]] = []
    both = len(args.databases) > 1
    for database in args.databases:
        on = f", {DATABASE_NAMES[database]}" if both else ""
        if not args.no_quiet:
            quiet = [TableSpec("shuangkou", 2)]
            plans.append((f"quiet: 1 table alone{on}", quiet, 0.3, False, (0.0, 0.0), database))
        for delay in args.computer_delay:
            name = f"{args.tables} tables{on}"
            plans.append((name, specs, delay, False, (10.0, 5.0), database))
    if not args.no_tracemalloc:
        name = f"{args.tables} tables, tracemalloc (memory only: tracing slows the bot ~7×)"
        plans.append((name, specs, 0.3, True, (10.0, 5.0), args.databases[0]))
    runs = []
    for name, chosen, delay, traced, spread, database in plans:
        if sum(1 for p in plans if p[0] == name) > 1:
            name = f"{name}, computers {delay:g} s"
        print(f"running: {name} ...", file=sys.stderr, flush=True)
        runs.append(
            asyncio.run(
                run_load(
                    name,
                    chosen,
                    computer_delay=delay,
                    seed=args.seed,
                    traced=traced,
                    spread=spread,
                    database=database,
                )
            )
        )
    given = list(argv if argv is not None else sys.argv[1:])
    body = report(runs, start, " ".join([".venv/bin/python -m bench.load", *given]))
    print(body)
    if not args.no_write:
        write_section(SECTION, body)
    return 0 if all(not r.check.problems for r in runs) else 1
