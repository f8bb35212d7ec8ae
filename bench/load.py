"""Many tables at once through the fake Bot API server: correctness under load, latency, memory.

``.venv/bin/python -m bench.load`` plays ``--tables`` games at once (two thirds 双扣, one
third 刨王; most seats computers, some simulated humans who press buttons at full speed,
including two users of one table pressing at the same moment and the same button pressed
twice), then checks every game against an independent replay through the engine, and
reports the bot's own time per update and its memory per table. It prints the figures and
rewrites the ``bench.load`` section of ``bench/results/bot.md``.

Two processes: this one runs the fake server and the simulated people; the bot runs in a child
process (``--bot-process``), instrumented with :mod:`bot.edge.metrics`, so its event loop serves
only the bot. The scenario and the checks are also used in-process by
``tests/e2e/test_load_small.py``. ``BENCH_LOAD_PROFILE=file`` writes a cProfile of the bot
process to ``file``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import logging
import os
import random
import re
import sqlite3
import sys
import tempfile
import time
import tracemalloc
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench.botrun import (
    machine_lines,
    markdown_table,
    percentile,
    plain,
    started,
    write_section,
)
from bot.edge.app import running_application
from bot.game import paowang, shuangkou
from bot.game.cards import parse_cards
from bot.game.common import Event
from bot.game.variants import VARIANTS, auto_passes
from bot.presentation.render import SeatLabel, event_lines, table_text
from bot.presentation.strings import text
from fakebot import CallbackAnswer, CallbackResult, FakeMessage, FakeTelegram

ROOT = Path(__file__).resolve().parent.parent
SECTION = "bench.load"
GROUP_BASE = -1_001_000_000_000
USER_BASE = 200_000
VARIANT_ARG = {"shuangkou": "双扣", "paowang": "刨王"}
ENGINES: dict[str, Any] = {"shuangkou": shuangkou, "paowang": paowang}
EVENT_PREFIXES = ("✔", "🏃", "👑")
DECISIONS = {"提示", "亮王", "不亮", "知道了，继续"}
OUTDATED = text("zh", "err.outdated")
#: what a press that must change nothing may be answered: outdated, or the game is over
REFUSED = {OUTDATED, text("zh", "err.game_over")}
PASSED = text("zh", "ok.passed")
PLAYED_PREFIX = text("zh", "ok.played", play="")
HINT_PREFIX = text("zh", "ok.hint", play="")
GATE_ACCEPTED = {text("zh", "ok.revealed"), text("zh", "ok.not_revealed")}
_YOU_PLAYED = re.compile(re.escape(text("zh", "hand.you_played", play="")[:-1]) + r"(.+?)（")
_YOU_PASSED = text("zh", "hand.you_passed")

#: the limits of the load run: the bot's own cost is the point, not Telegram's pacing
FAKE_LIMITS: dict[str, Any] = {
    "group_messages_per_minute": 1_000_000,
    "private_messages_per_second": 1_000_000.0,
    "global_messages_per_second": 1_000_000.0,
    "private_burst": None,
}


def bot_overrides(computer_delay: float) -> dict[str, Any]:
    """Bot settings of a load run: high limits, no turn timeouts, every game scored."""
    return {
        "computer_delay": computer_delay,
        "min_game_seconds": 0.0,
        "turn_seconds": 900.0,
        "reveal_seconds": 900.0,
        "group_messages_per_minute": 1_000_000,
        "overall_messages_per_second": 1_000_000.0,
        "private_messages_per_second": 1_000_000.0,
        "private_burst": 1_000_000,
        "user_actions_per_second": 10_000.0,
    }


# ---- the scenario ------------------------------------------------------------------------


@dataclass(frozen=True)
class TableSpec:
    variant: str  # "shuangkou" | "paowang"
    humans: int

    @property
    def seats(self) -> int:
        return 4 if self.variant == "shuangkou" else 5

    @property
    def computers(self) -> int:
        return self.seats - self.humans


def table_mix(count: int) -> list[TableSpec]:
    """Two 双扣 tables for each 刨王 one; humans per table cycle 0, 1, 0, 2 (双扣) and
    0, 1, 2 (刨王): about one seat in five is a simulated human."""
    specs = []
    for index in range(count):
        if index % 3 == 2:
            specs.append(TableSpec("paowang", (0, 1, 2)[(index // 3) % 3]))
        else:
            specs.append(TableSpec("shuangkou", (0, 1, 0, 2)[(index - index // 3) % 4]))
    return specs


@dataclass
class Knobs:
    """How the simulated people behave (probabilities per decision)."""

    pass_when_allowed: float = 0.25
    typed: float = 0.2  # of the plays after a hint: typed in the private chat
    toggled: float = 0.25  # of the plays after a hint: 清空, then the cards one by one
    duplicate: float = 0.25  # the same 出牌/不出/亮王 button pressed twice at once
    stale_partner: float = 0.4  # another human of the table presses an old button meanwhile


@dataclass
class TableRun:
    index: int
    spec: TableSpec
    group_id: int
    humans: list[int]
    opener: int
    game_id: int | None = None
    started: float = 0.0
    finished: float = 0.0
    over: bool = False
    players: list[Human] = field(default_factory=list)

    def stale_partner(self, me: Human) -> Human | None:
        others = [p for p in self.players if p is not me and p.stale is not None]
        return others[0] if others else None


@dataclass
class HumanStats:
    presses: Counter[str] = field(default_factory=Counter)
    typed: int = 0
    typed_refused: int = 0
    duplicates: int = 0
    stale_presses: int = 0


class Human:
    """A simulated person at full speed: acts as soon as a message with buttons arrives."""

    def __init__(
        self, fake: FakeTelegram, table: TableRun, user_id: int, rng: random.Random, knobs: Knobs
    ) -> None:
        self.fake = fake
        self.table = table
        self.user_id = user_id
        self.rng = rng
        self.knobs = knobs
        self.chat = fake.chat(user_id)
        self.seen = 0
        self.actions: list[tuple[str, str | None]] = []  # accepted, as the retired notes say
        self.stale: tuple[int, str] | None = None  # an old message of ours and a button's data
        self.stats = HumanStats()
        self.problems: list[str] = []
        self.timeout = 900.0

    def _scan(self) -> FakeMessage | None:
        messages = self.chat.messages
        while self.seen < len(messages):
            message = messages[self.seen]
            self.seen += 1
            live = message.from_bot and message.reply_markup and not message.deleted
            if live and DECISIONS & set(message.labels):
                return message
        return None

    async def play(self) -> None:
        while True:
            found = await self.fake.wait_for(
                lambda: self._scan() or ("over" if self.table.over else None),
                self.timeout,
                what=f"a decision for user {self.user_id}",
            )
            if isinstance(found, str):
                return
            try:
                await self._act(found)
            except Exception as error:  # keep going: the checks report it
                self.problems.append(f"user {self.user_id}: {type(error).__name__}: {error}")

    async def _answer(self, result: CallbackResult) -> CallbackAnswer:
        return await result.answered(self.timeout)

    async def _press(self, message: FakeMessage, kind: str, **find: Any) -> CallbackAnswer:
        self.stats.presses[kind] += 1
        result = await self.fake.press(self.user_id, self.user_id, message.message_id, **find)
        return await self._answer(result)

    async def _act(self, message: FakeMessage) -> None:
        labels = message.labels
        if "亮王" in labels:
            await self._gate(message, "亮王" if self.rng.random() < 0.5 else "不亮")
        elif "知道了，继续" in labels:
            await self._gate(message, "知道了，继续")
        else:
            await self._turn(message)

    async def _gate(self, message: FakeMessage, label: str) -> None:
        button = message.find_button(label)
        assert button is not None
        copies = 2 if self.rng.random() < self.knobs.duplicate else 1
        self.stats.duplicates += copies - 1
        self.stats.presses["gate"] += copies
        presses = [
            await self.fake.press(
                self.user_id, self.user_id, message.message_id, data=button["callback_data"]
            )
            for _ in range(copies)
        ]
        answers = [await self._answer(p) for p in presses]
        accepted = [a for a in answers if a.text not in REFUSED]
        if len(accepted) != 1:
            self.problems.append(f"user {self.user_id}: gate answers {answers}")
            return
        if label == "知道了，继续":
            if accepted[0].text:
                self.problems.append(f"user {self.user_id}: ready answered {accepted[0].text}")
            return
        if accepted[0].text not in GATE_ACCEPTED:
            self.problems.append(f"user {self.user_id}: gate answered {accepted[0].text}")
        self.actions.append(("reveal" if label == "亮王" else "decline", None))

    async def _turn(self, message: FakeMessage) -> None:
        if "不出" in message.labels and self.rng.random() < self.knobs.pass_when_allowed:
            await self._decide(message, "不出")
            return
        hint = await self._press(message, "hint", label="提示")
        shown = hint.text or ""
        # the hint is the play's cards and its name: "提示：♠6（单张）"
        play = shown[len(HINT_PREFIX) :].split("（", 1)[0] if shown.startswith(HINT_PREFIX) else ""
        if not play:  # nothing beats the table
            await self._decide(message, "不出")
            return
        style = self.rng.random()
        if style < self.knobs.typed:
            if await self._type(message, play):
                return
        elif style < self.knobs.typed + self.knobs.toggled:
            await self._press(message, "clear", label="清空")
            used: set[str] = set()
            for token in play.split():
                # a press is answered before its edit lands: the keyboard may still mark the
                # hint's cards (✔) that 清空 has just cleared
                button = next(
                    b
                    for b in message.buttons
                    if b["text"].removeprefix("✔") == token and b["callback_data"] not in used
                )
                used.add(button["callback_data"])
                await self._press(message, "toggle", data=button["callback_data"])
        await self._decide(message, "出牌")

    async def _type(self, message: FakeMessage, play: str) -> bool:
        """Type the play; True when taken, False when the bot refused it (then press)."""
        before = len(self.chat.messages)
        await self.fake.send_text(self.user_id, self.user_id, play)
        self.stats.typed += 1

        def outcome() -> str | None:
            if message.reply_markup is None:
                return "taken"
            if any(m.from_bot for m in self.chat.messages[before + 1 :]):
                return "refused"
            return None

        if await self.fake.wait_for(outcome, self.timeout, what="a typed play") == "refused":
            self.stats.typed_refused += 1
            return False
        await self._record_note(message)
        self.stale = None
        return True

    async def _decide(self, message: FakeMessage, label: str) -> None:
        """Press 出牌 or 不出: sometimes twice at once, sometimes while another human of the
        table presses one of their old buttons."""
        button = message.find_button(lambda shown: shown.startswith(label))
        assert button is not None, message.keyboard
        data = button["callback_data"]
        copies = 2 if self.rng.random() < self.knobs.duplicate else 1
        partner = (
            self.table.stale_partner(self) if self.rng.random() < self.knobs.stale_partner else None
        )
        kind = "pass" if label == "不出" else "play"
        self.stats.presses[kind] += copies
        self.stats.duplicates += copies - 1
        presses = [
            await self.fake.press(self.user_id, self.user_id, message.message_id, data=data)
            for _ in range(copies)
        ]
        stale_press = None
        if partner is not None and partner.stale is not None:
            old_message, old_data = partner.stale
            stale_press = await self.fake.press_raw(
                partner.user_id, partner.user_id, old_message, old_data
            )
            partner.stats.stale_presses += 1
        answers = [await self._answer(p) for p in presses]
        accepted = [
            a
            for a in answers
            if a.text is not None and (a.text == PASSED or a.text.startswith(PLAYED_PREFIX))
        ]
        refused = [a for a in answers if a not in accepted]
        if len(accepted) != 1 or any(a.text not in REFUSED for a in refused):
            self.problems.append(f"user {self.user_id}: {label} answered {answers}")
        if stale_press is not None:
            stale = await self._answer(stale_press)
            if stale.text not in REFUSED:
                self.problems.append(f"user {partner.user_id if partner else '?'}: stale {stale}")
        if accepted:
            await self._record_note(message)
            self.stale = (message.message_id, data)
        elif label == "出牌" and "不出" in message.labels:
            await self._decide(message, "不出")

    async def _record_note(self, message: FakeMessage) -> None:
        """The accepted action, as the retired hand's note says. A press is answered before
        its rendering (the answer must not wait behind the chat's pace), so the note is
        waited for: an action that never shows its note is a problem, reported."""

        def note() -> tuple[str, str | None] | None:
            shown = message.text or ""
            played = _YOU_PLAYED.search(shown)
            if played:
                return ("play", played.group(1))
            return ("pass", None) if _YOU_PASSED in shown else None

        try:
            action = await self.fake.wait_for(note, 120.0, what="the retired hand's note")
        except TimeoutError:
            shown = message.text or ""
            self.problems.append(f"user {self.user_id}: no note in the retired hand {shown!r}")
            return
        self.actions.append(action)


@dataclass
class Scenario:
    tables: list[TableRun]
    seconds: float = 0.0  # from the first 开始 to the last game's end

    @property
    def humans(self) -> list[Human]:
        return [p for t in self.tables for p in t.players]


async def _run_table(
    fake: FakeTelegram,
    table: TableRun,
    rng: random.Random,
    knobs: Knobs,
    ready: asyncio.Semaphore,
    go: asyncio.Event,
    delays: tuple[float, float],
    timeout: float,
) -> None:
    spec = table.spec
    await asyncio.sleep(delays[0])
    for user_id in table.humans:
        await fake.send_text(user_id, user_id, "/start")
    await fake.wait_for(
        lambda: all(fake.chat(u).bot_messages for u in table.humans), timeout, what="hellos"
    )
    await fake.send_text(table.opener, table.group_id, f"/newgame {VARIANT_ARG[spec.variant]}")
    lobby = await fake.wait_for_message(table.group_id, contains="等待玩家", timeout=timeout)
    table.game_id = int(lobby.buttons[0]["callback_data"].split(":")[0])
    for user_id in table.humans[1:]:
        await (await fake.press(user_id, table.group_id, lobby.message_id, "加入")).answered(
            timeout
        )
    for _ in range(spec.computers):
        press = await fake.press(table.opener, table.group_id, lobby.message_id, "加电脑")
        await press.answered(timeout)
    ready.release()
    await go.wait()
    await asyncio.sleep(delays[1])
    table.players = [
        Human(fake, table, user_id, random.Random(rng.random()), knobs) for user_id in table.humans
    ]
    tasks = [asyncio.create_task(p.play(), name=f"human-{p.user_id}") for p in table.players]
    table.started = time.monotonic()
    start = await fake.press(table.opener, table.group_id, lobby.message_id, "开始")
    await start.answered(timeout)
    await fake.wait_for_message(table.group_id, contains="🏆", timeout=timeout)
    await fake.wait_for_message(table.group_id, contains="本局结束", timeout=timeout)
    table.finished = time.monotonic()
    table.over = True
    fake._notify()  # wake the humans waiting for a decision: none will come now
    await asyncio.gather(*tasks)


async def run_scenario(
    fake: FakeTelegram,
    specs: Sequence[TableSpec],
    *,
    seed: int = 1,
    knobs: Knobs | None = None,
    setup_spread: float = 0.0,
    start_spread: float = 0.0,
    timeout: float = 900.0,
) -> Scenario:
    """Open every table's lobby (spread over ``setup_spread`` seconds); once all are full,
    start them all (spread over ``start_spread`` seconds) and play until every game's result
    and final table are in its group."""
    rng = random.Random(seed)
    knobs = knobs or Knobs()
    tables = []
    for index, spec in enumerate(specs):
        group_id = GROUP_BASE - index
        users = [USER_BASE + index * 10 + k for k in range(spec.humans)]
        fake.add_group(group_id, f"牌桌{index}")
        for k, user_id in enumerate(users):
            fake.add_user(user_id, f"玩家{index}-{k + 1}")
        opener = users[0] if users else USER_BASE + index * 10 + 9
        if not users:
            fake.add_user(opener, f"开局{index}")  # never starts the bot: is not seated
        tables.append(TableRun(index, spec, group_id, users, opener))
    ready = asyncio.Semaphore(0)
    go = asyncio.Event()
    runs = [
        asyncio.create_task(
            _run_table(
                fake,
                table,
                random.Random(rng.random()),
                knobs,
                ready,
                go,
                (rng.uniform(0, setup_spread), rng.uniform(0, start_spread)),
                timeout,
            )
        )
        for table in tables
    ]
    try:
        for _ in tables:
            async with asyncio.timeout(timeout):
                await ready.acquire()
        go.set()
        began = time.monotonic()
        await asyncio.gather(*runs)
    finally:
        for run in runs:
            run.cancel()
    scenario = Scenario(tables)
    scenario.seconds = time.monotonic() - began
    return scenario


# ---- the checks --------------------------------------------------------------------------


@dataclass
class CheckReport:
    problems: list[str] = field(default_factory=list)  # the invariants, and every press answered
    api_problems: list[str] = field(default_factory=list)  # requests refused, limits exceeded
    refused: Counter[str] = field(default_factory=Counter)  # "method status kind" -> count
    violations: int = 0
    games: int = 0
    finished: int = 0
    actions: int = 0
    human_actions: int = 0
    by_variant: Counter[str] = field(default_factory=Counter)


def _tokens(cards: str | None) -> list[str]:
    return sorted((cards or "").split())


def _replay(
    variant: str, seed: int, leader: int | None, log: Sequence[tuple[str, int, str | None]]
) -> tuple[Any, list[list[Event]]]:
    """The game rebuilt from its deal and log with the engine alone; the events per action."""
    module = ENGINES[variant]
    game = module.Game.deal(seed, leader=leader)
    events: list[list[Event]] = []
    for kind, seat, cards in log:
        if kind == "play":
            events.append(game.play(seat, parse_cards(cards or "")))
        elif kind == "pass":
            events.append(game.pass_turn(seat))
        elif kind in ("reveal", "decline"):
            events.append(game.reveal(seat, kind == "reveal"))
        else:
            raise ValueError(f"unknown action {kind!r}")
    return game, events


def check_games(db_path: Path, scenario: Scenario, fake: FakeTelegram) -> CheckReport:
    """Every game finished; its stored log replays through the engine, matches what its humans
    saw accepted and what its group was shown; its settlement matches the replay."""
    report = CheckReport()
    problems = report.problems
    for human in scenario.humans:
        problems += human.problems
    report.api_problems += [str(r) for r in fake.rejections]
    report.api_problems += [str(v) for v in fake.limit_violations]
    report.refused.update(f"{r.method} {r.status} ({r.kind})" for r in fake.rejections)
    report.violations = len(fake.limit_violations)
    problems += [f"unanswered press {c.data!r}" for c in fake.unanswered_callbacks()]
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    db.row_factory = sqlite3.Row
    try:
        for table in scenario.tables:
            report.games += 1
            where = f"table {table.index} ({table.spec.variant}, game {table.game_id})"
            try:
                _check_one(db, table, fake, report, where)
            except Exception as error:
                problems.append(f"{where}: {type(error).__name__}: {error}")
    finally:
        db.close()
    return report


def _check_one(
    db: sqlite3.Connection, table: TableRun, fake: FakeTelegram, report: CheckReport, where: str
) -> None:
    problems = report.problems
    row = db.execute("SELECT * FROM games WHERE id = ?", (table.game_id,)).fetchone()
    if row is None or row["status"] != "finished":
        problems.append(f"{where}: not finished ({row['status'] if row else 'missing'})")
        return
    report.finished += 1
    report.by_variant[table.spec.variant] += 1
    seats = json.loads(row["seats"])
    log_rows = db.execute(
        "SELECT seq, seat, kind, cards FROM actions WHERE game_id = ? ORDER BY seq",
        (table.game_id,),
    ).fetchall()
    if [r["seq"] for r in log_rows] != list(range(len(log_rows))):
        problems.append(f"{where}: the log's seq has gaps or repeats")
    log = [(r["kind"], r["seat"], r["cards"]) for r in log_rows]
    report.actions += len(log)
    seed = json.loads(row["seed"])
    game, events = _replay(table.spec.variant, seed, row["leader"], log)
    forced = auto_passes(VARIANTS[table.spec.variant], seed, row["leader"], log)
    if not game.over or game.result is None:
        problems.append(f"{where}: the replayed log does not end the game")
        return

    # what each human saw accepted is exactly their seats' part of the log, in order, less
    # the passes the bot made for them because they could not beat the table
    seat_of = {s["user_id"]: i for i, s in enumerate(seats) if not s["is_computer"]}
    for human in table.players:
        seat = seat_of.get(human.user_id)
        logged = [
            (k, _tokens(c)) for n, (k, s, c) in enumerate(log) if s == seat and n not in forced
        ]
        seen = [(k, _tokens(c)) for k, c in human.actions]
        report.human_actions += len(logged)
        if logged != seen:
            problems.append(f"{where}: seat {seat} logged {logged} but its human saw {seen}")
    # the group's event lines (tricks, players out, 亮王) are the replay's, in order
    labels = [SeatLabel(s["name"], bool(s["is_computer"])) for s in seats]
    expected = [plain(line) for batch in events for line in event_lines("zh", batch, labels)]
    chat = fake.chat(table.group_id)
    shown = [
        line
        for version in chat.history
        if version.kind == "send"
        for line in version.text.split("\n")
        if line.startswith(EVENT_PREFIXES)
    ]
    if shown != expected:
        problems.append(f"{where}: group lines {shown} != replay {expected}")
    # the final table, below its title (whose number is the bot's own count of turns)
    final = plain(table_text("zh", game.view(None), labels, number=0)).split("\n")[1:]
    table_message = next(
        (m for m in reversed(chat.bot_messages) if m.text and "本局结束" in m.text), None
    )
    shown_final = table_message.text.split("\n")[1:] if table_message and table_message.text else []
    if shown_final != final:
        problems.append(f"{where}: final table {shown_final} != the replay's {final}")

    # the settlement: rows as the replay says, ratings moved by exactly those deltas
    result = game.result
    if sum(result.deltas) != 0:
        problems.append(f"{where}: deltas {result.deltas} do not sum to 0")
    if row["outcome"] != result.outcome:
        problems.append(f"{where}: outcome {row['outcome']} != {result.outcome}")
    rows = db.execute(
        "SELECT * FROM results WHERE game_id = ? ORDER BY seat", (table.game_id,)
    ).fetchall()
    if [(r["delta"], r["adjusted_delta"]) for r in rows] != [(d, d) for d in result.deltas]:
        problems.append(f"{where}: results {[tuple(r) for r in rows]} != {result.deltas}")
    human_seats = [i for i, s in enumerate(seats) if not s["is_computer"]]
    rating_sum = 0
    for index in human_seats:
        rating = db.execute(
            "SELECT score, games FROM ratings WHERE user_id = ? AND game = ?",
            (seats[index]["user_id"], table.spec.variant),
        ).fetchone()
        if rating is None or rating["games"] != 1 or rating["score"] != result.deltas[index]:
            problems.append(f"{where}: seat {index} rating {rating and tuple(rating)}")
            continue
        rating_sum += rating["score"]
    if rating_sum != sum(result.deltas[i] for i in human_seats):
        problems.append(f"{where}: ratings sum {rating_sum} != the humans' deltas")


# ---- the bot in its own process ------------------------------------------------------------


class _TimedScheduler:
    """The service's scheduler with every timer job (computer turns) timed like an update."""

    def __init__(self, inner: Any, timings: Any) -> None:
        self.inner = inner
        self.timings = timings

    def schedule(self, name: str, delay: float, callback: Any) -> None:
        from bot.edge.metrics import measure

        async def timed() -> None:
            async with measure("job", self.timings):
                await callback()

        self.inner.schedule(name, delay, timed)

    def cancel(self, name: str) -> None:
        self.inner.cancel(name)


def _rss() -> int:
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _memory() -> dict[str, int]:
    traced = tracemalloc.get_traced_memory()[0] if tracemalloc.is_tracing() else 0
    return {"rss": _rss(), "traced": traced}


async def _serve(config: dict[str, Any]) -> dict[str, Any]:
    from bot.config import Settings
    from bot.edge.app import build_application
    from bot.edge.metrics import UpdateTimings, instrument

    application = build_application(Settings(**config["settings"]))
    updates = instrument(application)
    jobs = UpdateTimings()
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    memory: list[dict[str, Any]] = []
    pauses: list[tuple[int, float, float]] = []  # (generation, start, seconds) per collection
    started: list[float] = [0.0]

    def on_gc(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            pauses.append((info["generation"], started[0], time.perf_counter() - started[0]))

    async with running_application(application):
        service = application.bot_data["service"]
        service.hub.scheduler = _TimedScheduler(service.scheduler, jobs)
        statements = [0]

        def count_statement(sql: str) -> None:  # runs on aiosqlite's thread
            statements[0] += 1

        await application.bot_data["db"]._connection.set_trace_callback(count_statement)
        gc.collect()
        baseline = _memory()
        snapshots = {"baseline": tracemalloc.take_snapshot()} if tracemalloc.is_tracing() else {}

        async def sample() -> None:
            most = 0
            while True:
                tables = len(service.tables)
                memory.append({"tables": tables, **_memory()})
                most = max(most, tables)
                if snapshots and "peak" not in snapshots and most and tables >= 0.9 * most:
                    playing = [t.seq for t in service.tables.values() if t.status == "playing"]
                    enough = playing and sum(playing) >= 40 * len(playing)
                    if enough and len(playing) >= 0.9 * most:
                        # (nearly) every table in play, 40 actions in on average: about a
                        # third of a game (a 刨王 deal can end at once, so not "all of them")
                        snapshots["peak"] = tracemalloc.take_snapshot()
                        memory[-1]["peak_snapshot"] = True
                await asyncio.sleep(0.1)

        sampler = asyncio.create_task(sample())
        cpu, wall = time.process_time(), time.monotonic()
        gc.callbacks.append(on_gc)
        print("ready", flush=True)
        await reader.readline()
        cpu, wall = time.process_time() - cpu, time.monotonic() - wall
        gc.callbacks.remove(on_gc)
        sampler.cancel()
        # a game's table leaves the registry just after its last group message: let the
        # last one go before counting what is left
        for _ in range(50):
            if not service.tables:
                break
            await asyncio.sleep(0.1)
        gc.collect()
        after = _memory()
        if snapshots:
            snapshots["after"] = tracemalloc.take_snapshot()
        open_tables = [
            {"game_id": t.game_id, "chat_id": t.chat_id, "status": t.status, "seq": t.seq}
            for t in service.tables.values()
        ]
        cached_players = len(getattr(service, "_players", {}))
        from bot.game.players import decompose, paowang_ai, shuangkou_ai

        plans = {
            name: len(module._DECOMPOSER._cache)
            for name, module in (("shuangkou", shuangkou_ai), ("paowang", paowang_ai))
        }
    return {
        "updates": [asdict(s) for s in updates.samples],
        "jobs": [asdict(s) for s in jobs.samples],
        "memory": {"baseline": baseline, "samples": memory, "after": after},
        "open_tables_after": open_tables,
        "cached_players_after": cached_players,
        "plan_cache_entries": plans,
        "plan_cache_limit": decompose._CACHE_LIMIT,
        "cpu_seconds": cpu,
        "sql_statements": statements[0],
        "gc_pauses": pauses,
        "wall_seconds": wall,
        "allocations": {
            name: _by_file(snapshots[name], snapshots["baseline"])
            for name in ("peak", "after")
            if name in snapshots
        },
    }


def _by_file(snapshot: tracemalloc.Snapshot, baseline: tracemalloc.Snapshot) -> dict[str, int]:
    """Growth since the baseline by the file that allocated, the biggest first."""
    root = str(ROOT) + os.sep
    growth: Counter[str] = Counter()
    for stat in snapshot.compare_to(baseline, "traceback"):
        # the newest frame that is a file (not code made by exec, as dataclasses and named
        # tuples make their methods)
        names = [f.filename for f in reversed(stat.traceback)]
        name = next((n for n in names if not n.startswith("<")), names[0])
        name = name[len(root) :] if name.startswith(root) else name.rsplit("site-packages/", 1)[-1]
        growth[name] += stat.size_diff
    return dict(growth.most_common())


def _bot_process(config_path: str) -> int:
    config = json.loads(Path(config_path).read_text(encoding="utf-8"))
    logging.basicConfig(level=logging.WARNING, format="bot: %(levelname)s %(name)s: %(message)s")
    if config.get("tracemalloc"):
        tracemalloc.start(4)
    profile = os.environ.get("BENCH_LOAD_PROFILE")
    if profile:  # a CPU profile of the bot process, for finding where its time goes
        import cProfile

        with cProfile.Profile() as profiler:
            result = asyncio.run(_serve(config))
        profiler.dump_stats(profile)
    else:
        result = asyncio.run(_serve(config))
    Path(config["out"]).write_text(json.dumps(result), encoding="utf-8")
    return 0


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
) -> LoadRun:
    """One run: the fake here, the bot in a child process; the checks once the bot stopped."""
    async with FakeTelegram(**FAKE_LIMITS) as fake:
        with tempfile.TemporaryDirectory(prefix="bench-load-") as folder:
            db_path = Path(folder) / "bot.sqlite3"
            out = Path(folder) / "bot.json"
            settings = {
                "telegram_bot_token": fake.token,
                "telegram_api_base_url": fake.base_url,
                "database_path": str(db_path),
                **bot_overrides(computer_delay),
            }
            config = Path(folder) / "config.json"
            config.write_text(
                json.dumps({"settings": settings, "out": str(out), "tracemalloc": traced}),
                encoding="utf-8",
            )
            process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "bench.load",
                "--bot-process",
                str(config),
                cwd=ROOT,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
            )
            assert process.stdin is not None and process.stdout is not None
            try:
                line = await asyncio.wait_for(process.stdout.readline(), 60)
                if line.strip() != b"ready":
                    raise RuntimeError(f"the bot process did not start: {line!r}")
                scenario = await run_scenario(
                    fake, specs, seed=seed, setup_spread=spread[0], start_spread=spread[1]
                )
                process.stdin.write(b"stop\n")
                await process.stdin.drain()
                await asyncio.wait_for(process.wait(), 120)
            finally:
                if process.returncode is None:
                    process.kill()
                    await process.wait()
            if process.returncode != 0:
                raise RuntimeError(f"the bot process exited with {process.returncode}")
            bot = json.loads(out.read_text(encoding="utf-8"))
            check = check_games(db_path, scenario, fake)
            requests = len(fake.requests)
    return LoadRun(name, specs, computer_delay, traced, scenario, check, bot, requests)


# ---- the report ----------------------------------------------------------------------------

KIND_GROUPS: dict[str, tuple[str, ...]] = {
    "出牌 / 不出 presses": ("button:p", "button:n"),
    "typed plays": ("text",),
    "selection presses (提示, card, 清空)": ("button:h", "button:t", "button:r"),
    "亮王 gate presses": ("button:v", "button:k"),
    "lobby presses (加入, 加电脑, 开始)": ("button:j", "button:c", "button:s"),
    "commands (/start, /newgame)": ("command",),
}
PLAY_KINDS = (
    "button:p",
    "button:n",
    "text",
    "button:h",
    "button:t",
    "button:r",
    "button:v",
    "button:k",
)
GOAL_P99 = 0.050


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def _own(samples: list[dict[str, Any]], kinds: tuple[str, ...] | None = None) -> list[float]:
    return [s["seconds"] for s in samples if kinds is None or s["kind"] in kinds]


def _latency_rows(samples: list[dict[str, Any]]) -> list[list[str]]:
    rows = []
    groups: list[tuple[str, tuple[str, ...] | None]] = [
        ("all updates", None),
        ("game updates (all but lobby and commands)", PLAY_KINDS),
        *KIND_GROUPS.items(),
    ]
    for name, kinds in groups:
        chosen = [s for s in samples if kinds is None or s["kind"] in kinds]
        if not chosen:
            continue
        own = [s["seconds"] for s in chosen]
        local = [s["seconds"] - s["api_seconds"] for s in chosen]
        calls = sum(s["calls"] for s in chosen) / len(chosen)
        rows.append(
            [
                name,
                str(len(chosen)),
                _ms(percentile(own, 50)),
                _ms(percentile(own, 99)),
                _ms(max(own)),
                _ms(percentile(local, 50)),
                _ms(percentile(local, 99)),
                f"{calls:.2f}",
                f"{sum(s['limiter_wait'] for s in chosen) * 1000:.1f}",
            ]
        )
    return rows


def _memory_figures(bot: dict[str, Any], key: str) -> tuple[int, float, float]:
    """(most tables open at once, bytes per table then, bytes left after all games ended)."""
    base = bot["memory"]["baseline"][key]
    samples = bot["memory"]["samples"]
    most = max((s["tables"] for s in samples), default=0)
    at_most = [s[key] for s in samples if s["tables"] == most]
    per_table = (max(at_most) - base) / most if most else 0.0
    return most, per_table, bot["memory"]["after"][key] - base


def _kib(value: float) -> str:
    return f"{value / 1024:,.0f} KiB"


def _input_line(run: LoadRun) -> str:
    stats = HumanStats()
    for human in run.scenario.humans:
        stats.presses.update(human.stats.presses)
        stats.typed += human.stats.typed
        stats.typed_refused += human.stats.typed_refused
        stats.duplicates += human.stats.duplicates
        stats.stale_presses += human.stats.stale_presses
    presses = ", ".join(f"{k} {v}" for k, v in sorted(stats.presses.items()))
    return (
        f"{sum(stats.presses.values())} presses ({presses}), {stats.typed} typed plays "
        f"({stats.typed_refused} refused, then pressed), {stats.duplicates} second presses of "
        f"the button just pressed, {stats.stale_presses} old buttons pressed by another human "
        "of the table at the same moment as a 出牌/不出"
    )


def _cpu(run: LoadRun) -> str:
    cpu, wall = run.bot["cpu_seconds"], run.bot["wall_seconds"]
    return f"{cpu:.0f} s over {wall:.0f} s ({cpu / wall:.0%} of a core)"


def _invariants(run: LoadRun) -> str:
    check = run.check
    if not check.problems and check.finished == len(run.specs):
        return "all held"
    return f"**{len(check.problems)} problems**: " + "; ".join(check.problems[:5])


PLAYERS = "bot/game/players/"
#: the measuring's own allocations (samples, snapshots), left out of the bot's
INSTRUMENTS = ("bot/edge/metrics.py", "bench/", "tracemalloc.py")


def _bots_own(growth: dict[str, int]) -> dict[str, int]:
    return {k: v for k, v in growth.items() if not any(i in k for i in INSTRUMENTS)}


def _memory_lines(runs: list[LoadRun]) -> list[str]:
    """Memory per table: RSS in the timing run, Python allocations by file in the traced one."""
    lines = ["Memory, in the bot process:", ""]
    for run in runs:
        if len(run.specs) == 1:
            continue
        bot = run.bot
        if not run.traced:
            most, per_table, left = _memory_figures(bot, "rss")
            lines.append(
                f"- {run.name}, RSS: {_kib(per_table)} per table ((RSS when the most tables, "
                f"{most}, were open − RSS before the first lobby) / {most}); "
                f"{_kib(left)} more than before the first lobby once every game had ended "
                f"({len(bot['open_tables_after'])} tables still registered, "
                f"{bot['cached_players_after']} computer players still cached)"
            )
            continue
        peak = _bots_own(bot["allocations"].get("peak", {}))
        after = _bots_own(bot["allocations"].get("after", {}))
        tables = next((m["tables"] for m in bot["memory"]["samples"] if m.get("peak_snapshot")), 0)
        grown, cache = sum(peak.values()), sum(v for k, v in peak.items() if k.startswith(PLAYERS))
        left = sum(after.values())
        left_cache = sum(v for k, v in after.items() if k.startswith(PLAYERS))
        per_plan = left_cache / max(1, sum(bot["plan_cache_entries"].values()))
        limit = bot["plan_cache_limit"]
        top = ", ".join(
            f"{name} {_kib(size)}"
            for name, size in list(after.items())[:6]
            if not name.startswith(PLAYERS)
        )
        per_table = (grown - cache) / tables if tables else 0.0
        lines.append(
            f"- {run.name} (tracemalloc, Python allocations by the file that made them): "
            f"with {tables} tables open, about 40 actions into their games on average, "
            "allocations had grown "
            f"by {_kib(grown)} since before the first lobby: {_kib(cache)} of it in "
            f"`{PLAYERS}` (the computer players' plan caches: module-level, shared by every "
            f"game, bounded) and {_kib(grown - cache)} elsewhere, "
            f"**{_kib(per_table)} per table**. Once every game had ended: {_kib(left)} left, "
            f"{_kib(left_cache)} of it the plan caches, {_kib(left - left_cache)} elsewhere "
            f"(biggest: {top}). The plan caches then held "
            + ", ".join(f"{v:,} plans ({k})" for k, v in bot["plan_cache_entries"].items())
            + f", {per_plan:.0f} bytes a plan: at their bound of {limit:,} plans each they "
            f"would hold about {per_plan * limit * 2 / 2**20:.0f} MiB, then start again empty"
        )
    return [*lines, ""]


def report(runs: list[LoadRun], start: tuple[str, str, str], command: str) -> str:
    main = max((r for r in runs if not r.traced), key=lambda r: len(r.specs))
    variants = Counter(s.variant for s in main.specs)
    humans = sum(s.humans for s in main.specs)
    seats = sum(s.seats for s in main.specs)
    lines = [
        "## Load: many tables at once (`bench.load`)",
        "",
        f"`{command}`",
        "",
        *machine_lines(start),
        f"- {len(main.specs)} tables at once ({variants['shuangkou']} 双扣, "
        f"{variants['paowang']} 刨王), {seats} seats: {humans} simulated humans, "
        f"{seats - humans} computers; each table its own group, each human their own chat. "
        "Lobbies open over 10 s, games start over 5 s once all are full",
        "- Simulated humans act as soon as their buttons arrive: 提示 then 出牌, or 清空 and "
        "the cards one by one then 出牌, or the play typed, or 不出; a quarter of 出牌/不出/亮王 "
        "presses are pressed twice at once; 40% of 出牌/不出 presses come with another human "
        "of the table pressing one of their old buttons at the same moment",
        "- Limits: fake and bot at 1,000,000 messages a minute per group and a second per chat "
        "and overall (the bot's own cost is the point, not Telegram's pacing; so the group "
        "channel sends a table edit after nearly every action instead of coalescing them); "
        "turn timers at 900 s (none fired); `min_game_seconds` 0 (every game scored)",
        "- Two processes: the fake server and the simulated people in one; the bot "
        "(`build_application`, instrumented with `bot/edge/metrics.py`) in the other, so its event "
        "loop serves only the bot. Both share the 2 cores",
        "",
        markdown_table(
            [
                "run",
                "tables",
                "computer delay",
                "games finished",
                "actions (by humans)",
                "seconds",
                "actions / s",
                "bot CPU",
                "bot CPU / action",
                "SQL statements / action",
                "invariants",
            ],
            [
                [
                    run.name,
                    str(len(run.specs)),
                    f"{run.computer_delay:g} s",
                    f"{run.check.finished}/{run.check.games}",
                    f"{run.check.actions} ({run.check.human_actions})",
                    f"{run.scenario.seconds:.0f}",
                    f"{run.check.actions / run.scenario.seconds:.0f}",
                    _cpu(run),
                    f"{run.bot['cpu_seconds'] / max(1, run.check.actions) * 1000:.1f} ms",
                    f"{run.bot['sql_statements'] / max(1, run.check.actions):.1f}",
                    _invariants(run),
                ]
                for run in runs
            ],
        ),
        "",
        "Invariants checked after each run, from the bot's database and the fake's records: "
        "every game finished; each stored log has seq 0..n-1 and replays through the engine "
        "alone (deal from the stored seed, then `play`/`pass_turn`/`reveal`) to a finished "
        "game; each human's accepted actions, as the notes of their retired hand messages show "
        "them, are exactly their seat's entries of the log, in order; of each pair of "
        "presses of one button exactly one was accepted and the other answered 「按钮已过期」 "
        "(or 「这局已经结束了」), and every old button too; the group's trick / out / 亮王 "
        "lines are the replay's, in order, and its final table (below the title) is the replay's; "
        "the results rows are the replay's deltas (which sum to 0), each human's rating moved "
        "by exactly their delta (so each game's ratings sum to its humans' deltas); every "
        "press was answered.",
        "",
    ]
    for run in runs:
        if run.traced:
            continue
        lines += [
            f"### {run.name}: the bot's time per update",
            "",
            f"Human input: {_input_line(run)}. Requests refused by the fake: "
            f"{sum(run.check.refused.values())}"
            + (
                " (" + ", ".join(f"{k}: {v}" for k, v in run.check.refused.most_common()) + ")"
                if run.check.refused
                else ""
            )
            + f"; flood limits exceeded: {run.check.violations}.",
            "",
            markdown_table(
                [
                    "updates",
                    "n",
                    "own p50",
                    "own p99",
                    "own max",
                    "less API p50",
                    "less API p99",
                    "calls / update",
                    "limiter waits, total ms",
                ],
                _latency_rows(run.bot["updates"]),
            ),
            "",
        ]
        jobs = run.bot["jobs"]
        times = [j["seconds"] for j in jobs]
        full = [
            (at, seconds) for generation, at, seconds in run.bot["gc_pauses"] if generation == 2
        ]
        updates = run.bot["updates"]
        spared = [
            s["seconds"]
            for s in updates
            if not any(
                at < s["started"] + s["seconds"] + s["limiter_wait"] and s["started"] < at + took
                for at, took in full
            )
        ]
        lines += [
            f"Timer jobs (computer turns, run by PTB's JobQueue, not updates): {len(jobs)}, "
            f"p50 {_ms(percentile(times, 50))} ms, p99 {_ms(percentile(times, 99))} ms, "
            f"{sum(j['calls'] for j in jobs) / max(1, len(jobs)):.2f} calls each. "
            f"Garbage collector: {len(run.bot['gc_pauses'])} collections, of which "
            f"{len(full)} full (generation 2) ones stopping the bot for "
            f"{', '.join(_ms(took) for _, took in full) or 'none'} ms; "
            f"{len(updates) - len(spared)} updates were in progress during one, and the "
            f"others' own p99 is {_ms(percentile(spared, 99))} ms.",
            "",
        ]
    lines += [
        "**own** (ms) = from the start of PTB's processing of an update (a handler in group -1, "
        "before the bot's) to the end of its last handler group (a handler in the last "
        "group), less the time its calls waited inside the rate limiter (`bot/edge/metrics.py`). "
        "The handlers await every call they make (the callback answer comes last), so this "
        "is the update arriving at the bot's handlers to its last API call returning. It "
        "includes waiting for the table's lock (held by a computer's turn, say), the SQLite "
        "transaction, rendering, the HTTP round trips to the local fake server, and the time "
        "the event loop spends on other updates and jobs meanwhile. Not in it: the "
        "getUpdates long poll and the parsing of the update before dispatch, and the group "
        "table edits and posts, which the group's channel sends later on its own task. "
        "**less API** also takes out the time inside the HTTP requests (encoding, round trip, "
        "decoding, and the loop's delay in resuming after the answer arrived).",
        "",
    ]
    lines += _memory_lines(runs)
    p99 = percentile(_own(main.bot["updates"]), 99)
    play99 = percentile(_own(main.bot["updates"], PLAY_KINDS), 99)
    met = p99 < GOAL_P99
    lines.append(
        f"Goal p99 < 50 ms ({main.name}): all updates {_ms(p99)} ms, game updates "
        f"{_ms(play99)} ms: "
        + ("**met**." if met else f"**missed** by {_ms(p99 - GOAL_P99)} ms (all updates).")
    )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.load", description=__doc__)
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
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("--bot-process", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.bot_process:
        return _bot_process(args.bot_process)
    start = started()
    specs = table_mix(args.tables)
    plans: list[tuple[str, list[TableSpec], float, bool, tuple[float, float]]] = []
    if not args.no_quiet:
        quiet = [TableSpec("shuangkou", 2)]
        plans.append(("quiet: 1 table alone", quiet, 0.3, False, (0.0, 0.0)))
    for delay in args.computer_delay:
        plans.append((f"{args.tables} tables", specs, delay, False, (10.0, 5.0)))
    if not args.no_tracemalloc:
        name = f"{args.tables} tables, tracemalloc (memory only: tracing slows the bot ~7×)"
        plans.append((name, specs, 0.3, True, (10.0, 5.0)))
    runs = []
    for name, chosen, delay, traced, spread in plans:
        if sum(1 for p in plans if p[0] == name) > 1:
            name = f"{name}, computers {delay:g} s"
        print(f"running: {name} ...", file=sys.stderr, flush=True)
        runs.append(
            asyncio.run(
                run_load(
                    name, chosen, computer_delay=delay, seed=args.seed, traced=traced, spread=spread
                )
            )
        )
    given = list(argv if argv is not None else sys.argv[1:])
    body = report(runs, start, " ".join([".venv/bin/python -m bench.load", *given]))
    print(body)
    if not args.no_write:
        write_section(SECTION, body)
    return 0 if all(not r.check.problems for r in runs) else 1


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
