"""A command flood in one group while another group plays: does anyone else wait?

``.venv/bin/python -m bench.spam`` runs the real bot (``build_application``, its default
settings: 20 messages a minute per group, 10 commands a minute per group after a burst of 5,
45 s turns) against the fake Bot API server with Telegram's limits, and:

- in ``--tables`` groups (4), four humans each play 双扣; they think 1 to 2.5 s, then press
  提示 and 出牌 (or 不出) 0.4 s apart, and every press is timed from the press to the answer;
- once the games are under way, ``--spammers`` people send ``--commands`` ``/help`` in one
  more group, evenly over ``--seconds`` seconds;
- meanwhile a newcomer sends ``/start`` in private, and the time to the bot's hello is taken.

It prints the press latencies during and outside the flood, how many commands B got answered,
the most messages any group got in 60 s, and rewrites the ``bench.spam`` section of
``bench/results/bot.md``. ``tests/e2e/test_fairness.py`` runs the same flood with a generous
bound on the p99.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bench.botrun import (
    machine_lines,
    markdown_table,
    max_in_window,
    percentile,
    started,
    write_section,
)
from bot.config import Settings
from bot.edge.app import build_application, running_application
from bot.service import GameService
from fakebot import FakeMessage, FakeTelegram

SECTION = "bench.spam"
PLAYING = -1_003_000_000_001  # the first playing group; the others follow it
FLOODED = -1_004_000_000_001  # far from the playing groups
HUMANS = (101, 102, 103, 104)  # the first table's; table t seats 100 * t + these
TABLES = 4


def playing(table: int) -> tuple[int, tuple[int, ...]]:
    """(group id, its four humans) of playing table ``table``."""
    return PLAYING - table, tuple(100 * table + user_id for user_id in HUMANS)
NEWCOMER = 900
GOAL_P99_SECONDS = 1.0
#: a person's pause before the first press of a turn (uniform), and between presses: at
#: inhuman speed the private chats' own pace (about one message a second) is what is measured
THINK = (1.0, 2.5)
TAP = 0.4


@dataclass
class SpamReport:
    commands: int
    seconds: float
    spammers: int
    tables: int
    during: list[float] = field(default_factory=list)  # press latencies inside the flood
    outside: list[float] = field(default_factory=list)
    answered_commands: int = 0
    newcomer_seconds: float = float("nan")
    most_in_a_minute: dict[int, int] = field(default_factory=dict)
    violations: int = 0
    shed: int = 0

    @property
    def p99_during(self) -> float:
        return percentile(self.during, 99)


async def run_spam(
    *,
    commands: int = 300,
    seconds: float = 10.0,
    spammers: int = 30,
    play_for: float = 25.0,
    tables: int = TABLES,
) -> SpamReport:
    """Run the scenario once; ``play_for``: seconds of play measured after the flood starts."""
    report = SpamReport(commands, seconds, spammers, tables)
    assert FLOODED not in {playing(t)[0] for t in range(tables)}
    async with FakeTelegram() as fake:
        flooders = [2000 + n for n in range(spammers)]
        fake.add_group(FLOODED, "热闹群", members=flooders)
        for user_id in (NEWCOMER, *flooders):
            fake.add_user(user_id, f"u{user_id}")
        everyone: list[int] = []
        for table in range(tables):
            group, humans = playing(table)
            fake.add_group(group, f"牌桌{table + 1}", members=humans)
            for user_id in humans:
                fake.add_user(user_id, f"u{user_id}")
            everyone += humans
        with tempfile.TemporaryDirectory(prefix="bench-spam-") as folder:
            settings = Settings(
                telegram_bot_token=fake.token,
                telegram_api_base_url=fake.base_url,
                database_path=str(Path(folder) / "bot.sqlite3"),
            )  # type: ignore[call-arg]
            application = build_application(settings)
            async with running_application(application):
                service: GameService = application.bot_data["service"]
                for table in range(tables):
                    await _start_game(fake, service, *playing(table))
                flood_window: list[float] = [0.0, 0.0]
                stop = asyncio.Event()
                players = [
                    asyncio.ensure_future(_play(fake, user_id, report, flood_window, stop))
                    for user_id in everyone
                ]
                await asyncio.sleep(3.0)  # a few presses before the flood
                flood_window[0] = time.monotonic()
                flood = asyncio.ensure_future(_flood(fake, flooders, commands, seconds))
                report.newcomer_seconds = await _newcomer(fake)
                await flood
                flood_window[1] = time.monotonic()
                await asyncio.sleep(max(0.0, play_for - seconds))
                stop.set()
                await asyncio.gather(*players)
                report.shed = getattr(application.update_processor, "shed", 0)
        report.answered_commands = sum(  # the /help answers quote their command
            1 for m in fake.chat(FLOODED).bot_messages if m.reply_to is not None
        )
        for chat_id in (*(playing(t)[0] for t in range(tables)), FLOODED):
            times = [
                r.time
                for r in fake.requests
                if r.ok and r.chat_id == chat_id
                and r.method in ("sendMessage", "editMessageText")
            ]
            report.most_in_a_minute[chat_id] = max_in_window(times)
        report.violations = len(fake.limit_violations)
    return report


async def _start_game(
    fake: FakeTelegram, service: GameService, group: int, humans: tuple[int, ...]
) -> None:
    for user_id in humans:
        await fake.send_text(user_id, user_id, "/start")
    await fake.wait_for(lambda: all(fake.chat(u).bot_messages for u in humans), 30)
    await fake.send_text(humans[0], group, "/newgame 双扣")
    lobby = await fake.wait_for_message(group, contains="等待玩家", timeout=30)
    for user_id in humans[1:]:
        await (await fake.press(user_id, group, lobby.message_id, "加入")).answered(30)
    await (await fake.press(humans[0], group, lobby.message_id, "开始")).answered(60)
    await fake.wait_for(lambda: service.by_chat.get(group) is not None, 30)


def _live(fake: FakeTelegram, user_id: int) -> FakeMessage | None:
    for message in reversed(fake.chat(user_id).bot_messages):
        if message.reply_markup and not message.deleted and "提示" in message.labels:
            return message
    return None


async def _play(
    fake: FakeTelegram,
    user_id: int,
    report: SpamReport,
    flood: list[float],
    stop: asyncio.Event,
) -> None:
    """Press at a person's pace once asked; time every press to its answer."""
    rng = random.Random(user_id)
    while not stop.is_set():
        try:
            message = await fake.wait_for(lambda: _live(fake, user_id) or stop.is_set(), 60)
        except TimeoutError:
            return
        if message is True:
            return
        assert isinstance(message, FakeMessage)
        labels = ["提示", "出牌"] if "不出" not in message.labels else ["不出"]
        await asyncio.sleep(rng.uniform(*THINK))
        for label in labels:
            await asyncio.sleep(TAP)
            begun = time.monotonic()
            found = message.find_button(lambda text, want=label: text.startswith(want))
            if found is None:
                break
            pressed = await fake.press(
                user_id, user_id, message.message_id, data=found["callback_data"]
            )
            await pressed.answered(120)
            took = time.monotonic() - begun
            inside = flood[0] and (not flood[1] or begun <= flood[1])
            (report.during if inside else report.outside).append(took)
        await fake.wait_for(lambda m=message: m.reply_markup is None or stop.is_set(), 120)


async def _flood(fake: FakeTelegram, flooders: list[int], commands: int, seconds: float) -> None:
    if not commands:  # the baseline: the same window, no flood
        await asyncio.sleep(seconds)
        return
    gap = seconds / commands
    begun = time.monotonic()
    for n in range(commands):
        await fake.send_text(flooders[n % len(flooders)], FLOODED, "/help")
        await asyncio.sleep(max(0.0, begun + (n + 1) * gap - time.monotonic()))


async def _newcomer(fake: FakeTelegram) -> float:
    await asyncio.sleep(1.0)
    begun = time.monotonic()
    await fake.send_text(NEWCOMER, NEWCOMER, "/start")
    await fake.wait_for(lambda: fake.chat(NEWCOMER).bot_messages, 120)
    return time.monotonic() - begun


def format_report(report: SpamReport, baseline: SpamReport | None = None) -> str:
    def row(name: str, values: list[float]) -> list[object]:
        return [
            name, len(values),
            *(f"{percentile(values, q) * 1000:.0f}" for q in (50, 95, 99)),
            f"{max(values) * 1000:.0f}" if values else "n/a",
        ]

    lines = [
        f"{report.commands} /help from {report.spammers} people in one group over "
        f"{report.seconds:.0f} s, while {report.tables} other groups play 双扣, four humans "
        "each.",
        "",
        markdown_table(
            ["presses in the playing group", "n", "p50 ms", "p95 ms", "p99 ms", "max ms"],
            [
                row("during the flood", report.during),
                row("before and after it", report.outside),
                *(
                    [row("the same window, no flood (baseline run)", baseline.during)]
                    if baseline is not None
                    else []
                ),
            ],
        ),
        "",
        f"- Commands of the flood answered: {report.answered_commands} of {report.commands} "
        "(the rest dropped by the per-group command throttle and budget, never queued)",
        f"- Updates shed by the fair update processor: {report.shed}",
        f"- A newcomer's /start in private answered after {report.newcomer_seconds:.2f} s",
        "- Most messages in any 60 s: "
        + ", ".join(
            f"{'flooded' if c == FLOODED else 'a playing'} group {n}"
            for c, n in report.most_in_a_minute.items()
        )
        + " (Telegram's limit: 20)",
        f"- Limit violations recorded by the fake: {report.violations}",
        f"- Goal: p99 of the presses during the flood under {GOAL_P99_SECONDS:.0f} s: "
        + ("met" if report.p99_during < GOAL_P99_SECONDS else "missed"),
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.spam", description=__doc__)
    parser.add_argument("--commands", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--spammers", type=int, default=30)
    parser.add_argument("--tables", type=int, default=TABLES)
    parser.add_argument(
        "--play-for", type=float, default=40.0, help="seconds of play measured from the flood"
    )
    args = parser.parse_args(argv)
    start = started()
    baseline = asyncio.run(
        run_spam(
            commands=0,
            seconds=args.seconds,
            spammers=args.spammers,
            play_for=args.play_for,
            tables=args.tables,
        )
    )
    report = asyncio.run(
        run_spam(
            commands=args.commands,
            seconds=args.seconds,
            spammers=args.spammers,
            play_for=args.play_for,
            tables=args.tables,
        )
    )
    body = format_report(report, baseline)
    print(body)
    command = "python -m bench.spam " + " ".join(argv if argv is not None else sys.argv[1:])
    section = "\n".join(
        [f"## {SECTION}: a command flood in one group", "", f"`{command.strip()}`", "",
         *machine_lines(start), "", body]
    )
    write_section(SECTION, section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
