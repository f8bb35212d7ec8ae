"""``python -m bench.attack``: the groups set up, each attack on a fresh bot, then the report."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import resource
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import bench.attack
from bench.attack.bot import BotRun
from bench.attack.probes import build_world
from bench.attack.report import report
from bench.attack.scenarios import (
    ATTACKS,
    Attack,
    Measured,
    bodies_attack,
    measured,
    presses_attack,
    quiet,
    slow_attack,
    sockets_attack,
    spectators_attack,
)
from bench.botrun import started, write_section
from bench.web.tables import TableSpec, start_table
from fakebot import FakeTelegram

SECTION = "bench.attack"


@dataclass
class Run:
    groups: int
    setup_seconds: float = 0.0
    results: list[Measured] = field(default_factory=list)
    starts: list[float] = field(default_factory=list)  # seconds each bot start took
    log_tail: list[str] = field(default_factory=list)  # the log's commonest lines, by kind


async def run_attacks(args: argparse.Namespace, folder: Path) -> Run:
    spectators = max(args.pollers + args.spectator_sockets, args.press_users, 1)
    plans: list[tuple[str, float, Attack, int | None]] = [
        ("slow connections", args.slow_seconds, slow_attack(args), args.nofile),
        ("spectator flood", args.spectator_seconds, spectators_attack(args), None),
        ("big bodies", args.body_seconds, bodies_attack(args), None),
        ("many sockets, one seated user", args.sockets_seconds, sockets_attack(args), None),
        ("press flood", args.press_seconds, presses_attack(args), None),
    ]
    chosen = [p for key, p in zip(ATTACKS, plans, strict=True) if key in args.only]
    run = Run(args.groups)
    async with FakeTelegram() as fake:
        world = build_world(fake, args.groups, spectators)
        bot = BotRun(fake, folder)
        began = time.monotonic()
        await bot.start()
        run.starts.append(time.monotonic() - began)
        try:
            gate = asyncio.Semaphore(4)

            async def opened(spec: TableSpec) -> int:
                async with gate:
                    return await start_table(fake, spec, timeout=180)

            world.games = list(await asyncio.gather(*(opened(s) for s in world.specs)))
            await fake.wait_for(world.to_act, 60, what="the first table's turn prompt")
            run.setup_seconds = time.monotonic() - began
            if args.quiet_seconds > 0:
                run.results.append(
                    await measured(world, bot, "no attack", args.quiet_seconds, quiet, args)
                )
            for name, seconds, attack, nofile in chosen:
                print(f"attack: {name} ...", file=sys.stderr, flush=True)
                if not args.reuse_bot or nofile != bot.nofile:
                    await bot.stop()
                    begun = time.monotonic()
                    await bot.start(nofile)
                    await fake.wait_for(world.to_act, 60, what="the first table's turn prompt")
                    run.starts.append(time.monotonic() - begun)
                run.results.append(await measured(world, bot, name, seconds, attack, args))
        finally:
            await bot.stop()
    run.log_tail = log_kinds(bot.log_path)
    return run


def log_kinds(path: Path, top: int = 4) -> list[str]:
    """The bot log's commonest kinds of line (level and logger, or a traceback's last line)."""
    kinds: Counter[str] = Counter()
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    for line in lines:
        parts = line.split(" ", 4)
        if len(parts) >= 4 and parts[2] in ("INFO", "WARNING", "ERROR", "CRITICAL"):
            kinds[f"{parts[2]} {parts[3]} {parts[4][:60] if len(parts) > 4 else ''}"] += 1
        elif line and not line.startswith(" "):
            kinds[line[:80]] += 1
    return [f"{count} × `{kind.strip()}`" for kind, count in kinds.most_common(top)]


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.attack", description=bench.attack.__doc__
    )
    add = parser.add_argument
    add("--groups", type=int, default=3, help="playing groups (each a 双扣 game)")
    add("--help-interval", type=float, default=6.5, help="s between /help in a group")
    add("--press-interval", type=float, default=2.0, help="s between 提示 presses")
    add("--wait", type=float, default=10.0, help="s a probe waits for its answer")
    add("--quiet-seconds", type=float, default=10.0, help="probes with no attack first")
    add("--open-rate", type=float, default=300.0, help="connections opened a second")
    add("--slow", type=int, default=1100, help="slow connections")
    add("--slow-interval", type=float, default=3.0, help="s between their bytes")
    add("--slow-seconds", type=float, default=30.0)
    add("--nofile", type=int, default=1024, help="the bot's open-file limit (slow attack)")
    add("--pollers", type=int, default=40, help="clients polling /api/state")
    add("--spectator-sockets", type=int, default=500)
    add("--spectator-seconds", type=float, default=15.0)
    add("--bodies", type=int, default=100, help="big POST /api/action bodies")
    add("--body-bytes", type=int, default=1_000_000)
    add("--body-seconds", type=float, default=15.0)
    add("--sockets", type=int, default=3000, help="live sockets of one seated user")
    add("--sockets-seconds", type=float, default=20.0)
    add("--presses", type=int, default=1980, help="presses in the press flood")
    add("--press-users", type=int, default=99)
    add("--press-seconds", type=float, default=10.0)
    add("--only", nargs="+", choices=ATTACKS, default=list(ATTACKS), help="run these attacks")
    add(
        "--reuse-bot",
        action="store_true",
        help="one bot for every attack unless the open-file limit differs (quicker, the "
        "attacks' damage adds up)",
    )
    add("--keep", action="store_true", help="keep the database and the bot's log")
    add("--no-write", action="store_true", help="print only")
    return parser.parse_args(argv)


def _enough_files(wanted: int) -> None:
    """This process holds every attacker's socket: raise its soft limit as far as allowed."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < wanted:
        target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
    _enough_files(2 * max(args.slow, args.sockets, args.spectator_sockets) + 1024)
    start = started()
    began = time.monotonic()
    with contextlib.ExitStack() as stack:
        if args.keep:
            folder = Path(tempfile.mkdtemp(prefix="bench-attack-"))
            print(f"keeping {folder}", file=sys.stderr)
        else:
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-attack-")))
        run = asyncio.run(run_attacks(args, folder))
    given = list(argv if argv is not None else sys.argv[1:])
    command = " ".join([".venv/bin/python -m bench.attack", *given])
    body = report(run, start, command, args)
    print(body)
    print(f"(run took {time.monotonic() - began:.0f} s)", file=sys.stderr)
    if not args.no_write:
        write_section(SECTION, body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
