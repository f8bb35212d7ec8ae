"""A press flood at the tables: is the player on turn still answered at once?

``.venv/bin/python -m bench.presses`` runs the real bot (``build_application``, its default
settings) against the fake Bot API server with Telegram's limits, and:

- in ``--tables`` groups (2), four humans each play 双扣 at a person's pace: 1 to 2.5 s of
  thought, then 提示 and 出牌 (or 不出) 0.4 s apart; each of these presses of the player on
  turn is timed from the press to its answer (answerCallbackQuery);
- once the games are under way, ``--rate`` presses a second (200) flood the bot for
  ``--seconds`` (10), every one timed too. Each is made by a seated human who is not on turn
  (chosen by a seeded random), and is one of: an old button of their own (a card toggle,
  提示, 出牌 or 不出 of a hand message already answered: stale); a hand button pressed on
  the group's message (someone else's button); a lobby button pressed again. With
  ``--own-toggles`` the player on turn also toggles a card twice (leaving the selection as
  it was) between their 提示 and 出牌, a burst of ``--own-toggles`` pairs.

It prints p50/p95/p99/max of both, and rewrites the ``bench.presses`` section of
``bench/results/bot.md``.
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

from bench.botrun import machine_lines, markdown_table, percentile, started, write_section
from bot.config import Settings
from bot.edge.app import build_application, running_application
from bot.presentation.callbacks import Act
from bot.service import GameService
from fakebot import CallbackResult, FakeMessage, FakeTelegram

SECTION = "bench.presses"
FIRST_GROUP = -1_005_000_000_001
GOAL_P99_SECONDS = 0.3
THINK = (1.0, 2.5)
TAP = 0.4
PRESS_WAIT = 60.0


def table_of(table: int) -> tuple[int, tuple[int, ...]]:
    """(group id, its four humans) of table ``table``."""
    return FIRST_GROUP - table, tuple(1000 * (table + 1) + n for n in range(1, 5))


@dataclass
class PressReport:
    rate: float
    seconds: float
    tables: int
    seed: int
    own_toggles: int
    on_turn: list[float] = field(default_factory=list)  # presses of the player on turn
    on_turn_in_flood: list[float] = field(default_factory=list)
    flood: list[float] = field(default_factory=list)
    flood_kinds: dict[str, int] = field(default_factory=dict)
    unanswered: int = 0
    violations: int = 0
    shed: int = 0
    actions: int = 0


@dataclass
class _Seen:
    """Buttons a human has seen on their hand messages: (message id, callback data)."""

    buttons: list[tuple[int, str]] = field(default_factory=list)
    known: set[str] = field(default_factory=set)

    def look(self, fake: FakeTelegram, user_id: int) -> None:
        for message in fake.chat(user_id).bot_messages:
            for button in message.buttons:
                data = button.get("callback_data")
                if data and data not in self.known:
                    self.known.add(data)
                    self.buttons.append((message.message_id, data))


async def run_presses(
    *,
    rate: float = 200.0,
    seconds: float = 10.0,
    tables: int = 2,
    seed: int = 1,
    play_for: float = 20.0,
    own_toggles: int = 0,
) -> PressReport:
    report = PressReport(rate, seconds, tables, seed, own_toggles)
    rng = random.Random(seed)
    async with FakeTelegram() as fake:
        humans: list[int] = []
        for table in range(tables):
            group, seated = table_of(table)
            fake.add_group(group, f"牌桌{table + 1}", members=seated)
            for user_id in seated:
                fake.add_user(user_id, f"u{user_id}")
            humans += seated
        with tempfile.TemporaryDirectory(prefix="bench-presses-") as folder:
            settings = Settings(
                telegram_bot_token=fake.token,
                telegram_api_base_url=fake.base_url,
                database_path=str(Path(folder) / "bot.sqlite3"),
            )  # type: ignore[call-arg]
            application = build_application(settings)
            async with running_application(application):
                service: GameService = application.bot_data["service"]
                lobbies: dict[int, FakeMessage] = {}
                for table in range(tables):
                    group, seated = table_of(table)
                    lobbies[group] = await _start_game(fake, service, group, seated)
                window = [0.0, 0.0]
                stop = asyncio.Event()
                players = [
                    asyncio.ensure_future(
                        _play(
                            fake,
                            user_id,
                            report,
                            window,
                            stop,
                            random.Random(seed * 7919 + user_id),
                        )
                    )
                    for user_id in humans
                ]
                await asyncio.sleep(3.0)
                window[0] = time.monotonic()
                presses = await _flood(fake, humans, lobbies, report, rate, seconds, rng)
                window[1] = time.monotonic()
                await asyncio.sleep(max(0.0, play_for - seconds))
                stop.set()
                await asyncio.gather(*players)
                for took in await asyncio.gather(*presses, return_exceptions=True):
                    if isinstance(took, float):
                        report.flood.append(took)
                    else:
                        report.unanswered += 1
                report.shed = getattr(application.update_processor, "shed", 0)
                report.actions = sum(len(t.log) for t in service.deps.registry.tables.values())
        report.violations = len(fake.limit_violations)
    return report


async def _start_game(
    fake: FakeTelegram, service: GameService, group: int, humans: tuple[int, ...]
) -> FakeMessage:
    for user_id in humans:
        await fake.send_text(user_id, user_id, "/start")
    await fake.wait_for(lambda: all(fake.chat(u).bot_messages for u in humans), 30)
    await fake.send_text(humans[0], group, "/newgame 双扣")
    lobby = await fake.wait_for_message(group, contains="等待玩家", timeout=30)
    for user_id in humans[1:]:
        await (await fake.press(user_id, group, lobby.message_id, "加入")).answered(30)
    await (await fake.press(humans[0], group, lobby.message_id, "开始")).answered(60)
    await fake.wait_for(lambda: service.by_chat.get(group) is not None, 30)
    return lobby


def _live(fake: FakeTelegram, user_id: int) -> FakeMessage | None:
    for message in reversed(fake.chat(user_id).bot_messages):
        if message.reply_markup and not message.deleted and "提示" in message.labels:
            return message
    return None


async def _timed(press: CallbackResult, begun: float) -> float:
    await press.answered(PRESS_WAIT)
    return time.monotonic() - begun


async def _play(
    fake: FakeTelegram,
    user_id: int,
    report: PressReport,
    window: list[float],
    stop: asyncio.Event,
    rng: random.Random,
) -> None:
    """Press at a person's pace once asked; time every press to its answer."""
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
            if label == "出牌" and report.own_toggles:
                await _own_toggles(fake, user_id, message, report.own_toggles)
            begun = time.monotonic()
            found = message.find_button(lambda text, want=label: text.startswith(want))
            if found is None:
                break
            press = await fake.press(
                user_id, user_id, message.message_id, data=found["callback_data"]
            )
            took = await _timed(press, begun)
            report.on_turn.append(took)
            if window[0] and (not window[1] or begun <= window[1]):
                report.on_turn_in_flood.append(took)
        await fake.wait_for(lambda m=message: m.reply_markup is None or stop.is_set(), 120)


async def _own_toggles(fake: FakeTelegram, user_id: int, message: FakeMessage, pairs: int) -> None:
    """The player on turn toggles their first card on and off again, ``pairs`` times, not
    waiting for the answers (their selection ends as it was)."""
    cards = [
        b
        for b in message.buttons
        if b.get("callback_data", "").split(":")[2:3] == [Act.TOGGLE.value]
    ]
    if not cards:
        return
    data = cards[0]["callback_data"]
    for _ in range(2 * pairs):
        await fake.press_raw(user_id, user_id, message.message_id, data)


async def _flood(
    fake: FakeTelegram,
    humans: list[int],
    lobbies: dict[int, FakeMessage],
    report: PressReport,
    rate: float,
    seconds: float,
    rng: random.Random,
) -> list[asyncio.Future[float]]:
    """Flood the bot; the futures give each press's time to its answer."""
    seen = {user_id: _Seen() for user_id in humans}
    group_of = {u: table_of(t)[0] for t in range(report.tables) for u in table_of(t)[1]}
    presses: list[asyncio.Future[float]] = []
    count = int(rate * seconds)
    begun = time.monotonic()
    for n in range(count):
        idle = [u for u in humans if _live(fake, u) is None]
        user_id = rng.choice(idle or humans)
        seen[user_id].look(fake, user_id)
        group = group_of[user_id]
        kind = rng.choice(("stale", "stale", "others", "lobby"))
        stale = seen[user_id].buttons
        if kind == "stale" and not stale:
            kind = "lobby"
        started_at = time.monotonic()
        if kind == "stale":
            message_id, data = rng.choice(stale)
            press = await fake.press_raw(user_id, user_id, message_id, data)
        elif kind == "others":  # someone's hand button, pressed on the group's table
            other = rng.choice([u for u in group_of if group_of[u] == group and u != user_id])
            seen[other].look(fake, other)
            data = rng.choice(seen[other].buttons)[1] if seen[other].buttons else "x"
            last = fake.chat(group).last_message
            assert last is not None
            press = await fake.press_raw(user_id, group, last.message_id, data)
        else:
            lobby = lobbies[group]
            data = rng.choice([b["callback_data"] for b in lobby.buttons] or ["x"])
            press = await fake.press_raw(user_id, group, lobby.message_id, data)
        report.flood_kinds[kind] = report.flood_kinds.get(kind, 0) + 1
        presses.append(asyncio.ensure_future(_timed(press, started_at)))
        await asyncio.sleep(max(0.0, begun + (n + 1) / rate - time.monotonic()))
    return presses


def format_report(before: PressReport) -> str:
    def row(name: str, values: list[float]) -> list[object]:
        return [
            name,
            len(values),
            *(f"{percentile(values, q) * 1000:.0f}" for q in (50, 95, 99)),
            f"{max(values) * 1000:.0f}" if values else "n/a",
        ]

    r = before
    kinds = ", ".join(f"{k} {n}" for k, n in sorted(r.flood_kinds.items()))
    lines = [
        f"{len(r.flood) + r.unanswered} presses in {r.seconds:.0f} s ({r.rate:.0f} a second, "
        f"seed {r.seed}: {kinds}) by the humans not on turn, while {r.tables} groups play 双扣, "
        "four humans each"
        + (
            f"; the player on turn toggles a card {2 * r.own_toggles} times before 出牌"
            if r.own_toggles
            else ""
        )
        + ".",
        "",
        markdown_table(
            ["presses, press to answer", "n", "p50 ms", "p95 ms", "p99 ms", "max ms"],
            [
                row("the player on turn, during the flood", r.on_turn_in_flood),
                row("the player on turn, the whole run", r.on_turn),
                row("the flood's presses", r.flood),
            ],
        ),
        "",
        f"- Flood presses never answered (within {PRESS_WAIT:.0f} s): {r.unanswered}",
        f"- Updates shed by the fair update processor: {r.shed}",
        f"- Actions stored in the games: {r.actions}",
        f"- Limit violations recorded by the fake: {r.violations}",
        f"- Goal: p99 of the on-turn presses during the flood under "
        f"{GOAL_P99_SECONDS * 1000:.0f} ms: "
        + ("met" if percentile(r.on_turn_in_flood, 99) < GOAL_P99_SECONDS else "missed"),
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.presses", description=__doc__)
    parser.add_argument("--rate", type=float, default=200.0)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--tables", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--play-for", type=float, default=20.0)
    parser.add_argument("--own-toggles", type=int, default=0)
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args(argv)
    start = started()
    report = asyncio.run(
        run_presses(
            rate=args.rate,
            seconds=args.seconds,
            tables=args.tables,
            seed=args.seed,
            play_for=args.play_for,
            own_toggles=args.own_toggles,
        )
    )
    body = format_report(report)
    print(body)
    if not args.no_write:
        command = "python -m bench.presses " + " ".join(argv if argv is not None else sys.argv[1:])
        section = "\n".join(
            [
                f"## {SECTION}: a press flood at the tables",
                "",
                f"`{command.strip()}`",
                "",
                *machine_lines(start),
                "",
                body,
            ]
        )
        write_section(SECTION, section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
