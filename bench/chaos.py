"""Chaos: many tables play while the bot is killed, Telegram misbehaves and people do odd things.

``.venv/bin/python -m bench.chaos [--tables 20] [--minutes 3] [--seed 1]`` runs the real bot as
a subprocess (``python -m bot run``, as a deployment does) against the fake Bot API server of
``fakebot`` on 127.0.0.1, both with Telegram's limits (20 messages a minute per group, about one a
second per private chat with 3 at once, 30 a second overall), short turns (``TURN_SECONDS=20``)
and computers at ``COMPUTER_DELAY=0.5``, and for ``--minutes`` minutes of chaos:

- ``--tables`` groups each hold one or two simulated humans who open games (双扣 or 刨王, by the
  table), join them, fill the other seats with computers and start; they play at a person's pace
  (0.5–2 s of thought, then 提示 and 出牌, or 不出), answer 亮王/不亮 and 知道了，继续 in 刨王,
  and press 我回来了 when the computer took over. Once a game ends the table opens another;
- now and then a human presses a button twice at once, sends /leave (逃跑) or blocks the bot
  (and comes back with /start 15–40 s later);
- one more group gets 200 /help from one user in 20 s;
- 3 to 5 kills are planned: the bot is SIGKILLed and, 1–4 s later, started again on the same
  database (ready once it polls again); it polls at least 10–20 s before the next kill, so a
  slow restart leaves room for fewer kills (the report says how many were made);
- in stretches of 3–10 s Telegram answers sendMessage, editMessageText or answerCallbackQuery
  with 429 (``retry_after`` 1–3 s), 500, 502, or holds it 1–8 s and then answers 504 (the
  method took effect: ``performed=True``). The bot's read timeout is 5 s here, so the longer
  holds are timeouts on the bot's side.

The choreography (who does what, when the kills and the fault stretches come) is drawn from
``random.Random(--seed)``; the timing is real, so two runs differ in what the bot sees.

Then the chaos stops: no faults, no kills, no odd presses; the tables stop opening games and get
``--settle`` seconds to finish the ones they play; the bot is stopped with SIGTERM, and the run
is checked:

1. every stored game log replays: a game is dealt from its seed (or hands) and leader, and the
   engine accepts every stored action in order;
2. no action is lost or doubled: each game's ``seq`` is 0..n-1; a finished game's replay is
   over, its outcome and every seat's rules delta are the stored ones, the applied delta is the
   one a desertion fixed (or 0 in a short game) where one did; a game still ``playing`` is not
   over; every player's rating is the sum of their stored results (no settlement doubled);
3. every press is answered, except those made while the bot was down or in the 10 s before a
   kill (the update was taken and the process died): those are counted apart;
4. no flood limit is exceeded: the fake recorded no violation (group, private or global), and no
   group got more than 20 messages (sends and edits) in any 60 s, counting every request but
   those answered 429 and those an injected 500/502 answered (they never reached "Telegram");
   the count with those too is printed beside it;
5. no game stalls: a game still ``playing`` when the bot is stopped has had a move in the last
   60 s, or the bot has been up for less than that (with 20 s turns and their timers, a game the
   bot still runs never waits that long).

It prints the counts and rewrites the ``bench.chaos`` section of ``bench/results/bot.md``. With
``--keep`` (or when a check fails) the database, the bot's log and ``requests.jsonl`` (every
request the bot made, every press, the kill windows; fake-clock seconds) stay in a temporary
folder whose name is printed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import signal
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from bench.botrun import (
    COUNTED,
    machine_lines,
    markdown_table,
    max_in_window,
    percentile,
    started,
    write_section,
)
from bot.game.cards import parse_cards
from bot.game.protocol import GameState
from bot.game.variants import VARIANTS, apply_action
from fakebot import (
    CallbackAnswer,
    CallbackResult,
    FakeMessage,
    FakeTelegram,
    Fault,
    Rejection,
)

SECTION = "bench.chaos"
ROOT = Path(__file__).resolve().parent.parent
GROUP_BASE = -1_004_000_000_000
SPAM_GROUP = -1_004_000_000_999
SPAMMER = 49_999
USER_BASE = 40_000

#: the bot's settings: Telegram's limits, short turns, quick computers
BOT_ENV = {
    "COMPUTER_DELAY": "0.5",
    "TURN_SECONDS": "20",
    "REVEAL_SECONDS": "20",
    "GROUP_MESSAGES_PER_MINUTE": "20",
    "OVERALL_MESSAGES_PER_SECOND": "30",
    "PRIVATE_MESSAGES_PER_SECOND": "1.0",
    "PRIVATE_BURST": "3",
    "TELEGRAM_READ_TIMEOUT": "5",
    "LOG_LEVEL": "WARNING",
}
GROUP_LIMIT = 20

THINK = (0.5, 2.0)  # seconds before the first press of a turn
TAP = (0.3, 0.8)  # between presses of one turn
P_PASS = 0.2  # 不出 when allowed
P_DOUBLE = 0.1  # a play/pass/亮王 press pressed twice at once (during the chaos)
P_LEAVE = 0.015  # per turn, during the chaos
P_BLOCK = 0.015
UNBLOCK_AFTER = (15.0, 40.0)
PRESS_WAIT = 20.0  # how long a human waits for an answer before moving on
KILLS = (3, 5)
DEAD_FOR = (1.0, 4.0)
ALIVE_AT_LEAST = (10.0, 20.0)  # seconds the bot polls between a restart and the next kill
KILL_GRACE = 10.0  # an unanswered press this long before a kill is excused
FAULT_METHODS = ("sendMessage", "editMessageText", "answerCallbackQuery")
FAULT_KINDS = ("429", "500", "502", "timeout")
FAULT_GAP = (3.0, 10.0)
FAULT_STRETCH = (3.0, 10.0)
SPAM_COMMANDS = 200
SPAM_SECONDS = 20.0
STALL_SECONDS = 60.0  # 3 turns: a game the bot runs makes a move sooner (turn timer 20 s)
STARTUP_TIMEOUT = 300.0  # a restart recovers every game before it polls

CONTROLS = frozenset(("提示", "不出", "亮王", "不亮", "知道了，继续", "我回来了"))
SEATED = re.compile(r"\((\d+)/(\d+)\)")
END_MARKS = ("🏆", "牌局已取消")


class BotDown(RuntimeError):
    """The bot could not be started again: the run cannot go on."""


@dataclass
class Human:
    user_id: int
    name: str
    table: TableState
    rng: random.Random
    blocked: bool = False
    acted: dict[tuple[int, tuple[str, ...]], float] = field(default_factory=dict)


@dataclass
class TableState:
    chat_id: int
    variant: str  # what follows /newgame: 双扣 or 刨王
    rng: random.Random
    humans: list[Human] = field(default_factory=list)
    history_seen: int = 0
    lobbies: int = 0
    ends_seen: int = 0
    open_failures: int = 0


@dataclass
class Stats:
    presses: int = 0
    double_presses: int = 0
    press_misses: int = 0  # the button was gone by the time the human pressed
    press_timeouts: int = 0  # not answered within PRESS_WAIT (counted once per awaited press)
    latencies: list[float] = field(default_factory=list)
    turns: int = 0
    leaves: int = 0
    leaves_confirmed: int = 0
    blocks: int = 0
    unblocks: int = 0
    kills: int = 0
    kills_planned: int = 0
    restart_seconds: list[float] = field(default_factory=list)
    start_failures: list[str] = field(default_factory=list)
    starts: list[str] = field(default_factory=list)  # what each start did before polling
    fault_stretches: Counter[str] = field(default_factory=Counter)
    spam_sent: int = 0
    bench_errors: list[str] = field(default_factory=list)


@dataclass
class DbReport:
    games: Counter[str] = field(default_factory=Counter)
    started: int = 0
    actions: int = 0
    by_variant: Counter[str] = field(default_factory=Counter)
    deserted_games: int = 0
    failures: list[str] = field(default_factory=list)
    stalled: list[str] = field(default_factory=list)  # playing games nothing moves (5.)


@dataclass
class Report:
    args: argparse.Namespace
    seconds: float = 0.0
    chaos_seconds: float = 0.0
    settle_seconds: float = 0.0
    tables_unsettled: int = 0
    stats: Stats = field(default_factory=Stats)
    db: DbReport = field(default_factory=DbReport)
    humans: int = 0
    variants: Counter[str] = field(default_factory=Counter)
    presses_total: int = 0
    unanswered_excused: int = 0
    unanswered: list[str] = field(default_factory=list)
    faults_fired: Counter[str] = field(default_factory=Counter)
    violations: Counter[str] = field(default_factory=Counter)
    violation_samples: list[str] = field(default_factory=list)
    group_max: int = 0
    group_max_strict: int = 0
    group_over: list[str] = field(default_factory=list)
    spam_answered: int = 0
    rejections: list[str] = field(default_factory=list)
    rejection_kinds: Counter[str] = field(default_factory=Counter)
    rejections_other: list[str] = field(default_factory=list)
    forbidden: int = 0
    log_errors: Counter[str] = field(default_factory=Counter)
    kept: str | None = None

    @property
    def failures(self) -> list[str]:
        found = list(self.db.failures)
        found += [f"stalled: {line}" for line in self.db.stalled]
        found += [f"press never answered: {line}" for line in self.unanswered]
        found += [f"flood limit exceeded: {line}" for line in self.violation_samples]
        found += [f"group limit: {line}" for line in self.group_over]
        found += [f"bot start: {line}" for line in self.stats.start_failures]
        found += [f"benchmark error: {line}" for line in self.stats.bench_errors]
        return found


class Chaos:
    """One run: the fake, the bot process, the tables, the humans and the chaos makers."""

    def __init__(self, args: argparse.Namespace, folder: Path) -> None:
        self.args = args
        self.rng = random.Random(args.seed)
        self.folder = folder
        self.db_path = folder / "bot.sqlite3"
        self.log: IO[bytes] = open(folder / "bot.log", "ab")  # noqa: SIM115 (closed in run)
        self.fake = FakeTelegram()
        self.stats = Stats()
        self.tables: list[TableState] = []
        self.humans: list[Human] = []
        self.process: asyncio.subprocess.Process | None = None
        self.kill_windows: list[tuple[float, float]] = []  # (killed, polling again)
        self.presses: list[CallbackResult] = []
        self.faults: list[Fault] = []
        self.chaos_over = asyncio.Event()
        self.humans_stop = False
        self.side_tasks: list[asyncio.Task[None]] = []
        self.ready_wall = time.time()  # when the bot last began to poll (epoch seconds)

    # ---- the bot process ---------------------------------------------------------------

    async def start_bot(self) -> None:
        """Start ``python -m bot run`` and wait for its first poll (it recovered its games)."""
        fake = self.fake
        env = dict(os.environ)
        env.update(
            TELEGRAM_BOT_TOKEN=fake.token,
            TELEGRAM_API_BASE_URL=fake.base_url,
            DATABASE_PATH=str(self.db_path),
            **BOT_ENV,
        )
        for attempt in range(3):
            since = len(fake.requests)
            begun = time.monotonic()
            process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "bot",
                "run",
                cwd=ROOT,
                env=env,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=self.log,
            )
            self.process = process
            polled = asyncio.ensure_future(
                fake.wait_for(
                    lambda s=since: any(r.method == "getUpdates" for r in fake.requests[s:]),
                    STARTUP_TIMEOUT,
                    what="the bot's first poll",
                )
            )
            exited = asyncio.ensure_future(process.wait())
            await asyncio.wait((polled, exited), return_when=asyncio.FIRST_COMPLETED)
            exited.cancel()
            polled.cancel()
            await asyncio.gather(polled, exited, return_exceptions=True)
            if (
                process.returncode is None
                and polled.done()
                and not polled.cancelled()
                and (polled.exception() is None)
            ):
                took = time.monotonic() - begun
                self.ready_wall = time.time()
                self.stats.restart_seconds.append(took)
                made = Counter(r.method for r in fake.requests[since:] if r.method != "getUpdates")
                self.stats.starts.append(
                    f"{took:.1f} s, {sum(made.values())} requests before the first poll"
                    + (f" ({_counts(made)})" if made else "")
                )
                return
            self.stats.start_failures.append(
                f"attempt {attempt + 1}: no poll after {time.monotonic() - begun:.0f} s "
                f"(exit code {process.returncode}; see bot.log)"
            )
            if process.returncode is None:
                process.kill()
                await process.wait()
        raise BotDown("the bot did not start three times in a row")

    async def kill_and_restart(self) -> None:
        process = self.process
        assert process is not None
        killed = time.monotonic()
        process.send_signal(signal.SIGKILL)
        await process.wait()
        self.stats.kills += 1
        await asyncio.sleep(self.rng.uniform(*DEAD_FOR))  # down for a while: presses queue
        try:
            await self.start_bot()
        finally:
            self.kill_windows.append((killed, time.monotonic()))

    async def stop_bot(self) -> None:
        process = self.process
        if process is None or process.returncode is not None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(process.wait(), 30)
        except TimeoutError:
            self.stats.start_failures.append("the bot did not stop within 30 s of SIGTERM")
            process.kill()
            await process.wait()

    # ---- the world -----------------------------------------------------------------------

    def build_world(self) -> None:
        fake = self.fake
        for n in range(self.args.tables):
            rng = random.Random(self.rng.randrange(1 << 62))
            table = TableState(GROUP_BASE - n - 1, rng.choice(("双扣", "刨王")), rng)
            for k in range(rng.choice((1, 2))):
                user_id = USER_BASE + 10 * n + k
                name = f"{'甲乙'[k]}{n + 1:02d}"
                fake.add_user(user_id, name)
                human = Human(user_id, name, table, random.Random(rng.randrange(1 << 62)))
                table.humans.append(human)
                self.humans.append(human)
            fake.add_group(table.chat_id, f"牌桌{n + 1}", members=[h.user_id for h in table.humans])
            self.tables.append(table)
        fake.add_user(SPAMMER, "刷屏者")
        fake.add_group(SPAM_GROUP, "热闹群", members=[SPAMMER])

    async def greet(self) -> None:
        for human in self.humans:
            await self.fake.send_text(human.user_id, human.user_id, "/start")
        await self.fake.wait_for(
            lambda: all(self.fake.chat(h.user_id).bot_messages for h in self.humans),
            60,
            what="every human's hello",
        )

    # ---- pressing ------------------------------------------------------------------------

    async def press(
        self,
        human: Human,
        chat_id: int,
        message_id: int,
        *,
        label: str | None = None,
        data: str | None = None,
        double: bool = False,
    ) -> CallbackAnswer | None:
        """Press a button (twice at once if ``double``); the answer, or None when the button
        was gone or no answer came within PRESS_WAIT."""
        fake, stats = self.fake, self.stats
        try:
            if data is not None:
                result = await fake.press(human.user_id, chat_id, message_id, data=data)
            else:
                result = await fake.press(human.user_id, chat_id, message_id, label)
        except (LookupError, ValueError):
            stats.press_misses += 1
            return None
        self.presses.append(result)
        stats.presses += 1
        if double:
            try:
                again = await fake.press(human.user_id, chat_id, message_id, data=result.data)
            except (LookupError, ValueError):
                pass
            else:
                self.presses.append(again)
                stats.presses += 1
                stats.double_presses += 1
        begun = time.monotonic()
        try:
            answer = await result.answered(PRESS_WAIT)
        except TimeoutError:
            stats.press_timeouts += 1
            return None
        stats.latencies.append(time.monotonic() - begun)
        return answer

    # ---- a table: lobby, start, wait for the end, again ----------------------------------

    async def run_table(self, table: TableState) -> None:
        try:
            while not self.chaos_over.is_set():
                opener = await self._opener(table)
                if opener is None:
                    return
                since = time.monotonic()
                lobby = await self._open_lobby(table, opener)
                if lobby is None:
                    table.open_failures += 1
                    await asyncio.sleep(table.rng.uniform(3.0, 6.0))
                    continue
                if lobby > 0:
                    await self._fill_and_start(table, opener, lobby)
                try:
                    await self.fake.wait_for(
                        lambda t=table, s=since: self._ended(t, s), 900, what="the game's end"
                    )
                    table.ends_seen += 1
                except TimeoutError:
                    continue
                await asyncio.sleep(table.rng.uniform(2.0, 6.0))  # the table chats a little
        except asyncio.CancelledError:
            raise
        except Exception as error:  # a bug of this benchmark: report it, do not stop the run
            self.stats.bench_errors.append(f"table {table.chat_id}: {error!r}")

    async def _opener(self, table: TableState) -> Human | None:
        def free() -> Human | bool | None:
            if self.chaos_over.is_set():
                return True
            return next((h for h in table.humans if not h.blocked), None)

        while True:
            try:
                found = await self.fake.wait_for(free, 10, what="a human who has not blocked")
            except TimeoutError:
                continue
            return found if isinstance(found, Human) else None

    async def _open_lobby(self, table: TableState, opener: Human) -> int | None:
        """/newgame; the lobby message's id, 0 when a game is already being played there,
        None when no answer came."""
        fake = self.fake
        chat = fake.chat(table.chat_id)
        before = len(chat.messages)
        await fake.send_text(opener.user_id, table.chat_id, f"/newgame {table.variant}")

        def answer() -> FakeMessage | None:
            for message in chat.messages[before:]:
                if not message.from_bot or message.deleted:
                    continue
                shown = message.text or ""
                if ("等待玩家" in shown and "开始" in message.labels) or "已有一局" in shown:
                    return message
            return None

        try:
            found: FakeMessage = await fake.wait_for(answer, 30, what="the lobby")
        except TimeoutError:
            return None
        table.lobbies += 1
        if "已有一局" not in (found.text or ""):
            return found.message_id
        shown = chat.message(found.reply_to) if found.reply_to is not None else None
        if shown is not None and "开始" in shown.labels:
            return shown.message_id
        return 0

    async def _fill_and_start(self, table: TableState, opener: Human, lobby_id: int) -> None:
        chat = self.fake.chat(table.chat_id)

        def lobby() -> FakeMessage | None:
            message = chat.message(lobby_id)
            if message is None or message.deleted or "开始" not in message.labels:
                return None
            return message

        for human in table.humans:
            current = lobby()
            if current is None:
                return
            if human is opener or human.blocked or human.name in (current.text or ""):
                continue
            await asyncio.sleep(human.rng.uniform(*THINK))
            await self.press(human, table.chat_id, lobby_id, label="加入")
        current = lobby()
        if current is None:
            return
        shown = SEATED.search(current.text or "")
        missing = int(shown.group(2)) - int(shown.group(1)) if shown else 1
        for _ in range(missing):
            answer = await self.press(opener, table.chat_id, lobby_id, label="加电脑")
            if answer is not None and "已满" in (answer.text or ""):
                break
        for _ in range(12):
            if lobby() is None:
                return
            answer = await self.press(opener, table.chat_id, lobby_id, label="开始")
            if answer is None:
                continue
            if "人还没齐" in (answer.text or ""):
                await self.press(opener, table.chat_id, lobby_id, label="加电脑")
                continue
            return  # started (no text), or the lobby is gone (过期)

    def _ended(self, table: TableState, since: float) -> bool:
        history = self.fake.chat(table.chat_id).history
        while table.history_seen < len(history):
            version = history[table.history_seen]
            table.history_seen += 1
            if version.time >= since and any(mark in version.text for mark in END_MARKS):
                return True
        return False

    # ---- a human -------------------------------------------------------------------------

    def _live(self, human: Human) -> FakeMessage | None:
        """The newest bot message with buttons in the private chat, if it asks for a decision
        the human has not made yet (or made more than 10 s ago and it still asks)."""
        if human.blocked:
            return None
        messages = self.fake.chat(human.user_id).messages
        for message in reversed(messages[-8:]):
            if not message.from_bot or message.deleted or not message.reply_markup:
                continue
            labels = message.labels
            if not any(label in CONTROLS or label.startswith("出牌") for label in labels):
                return None
            key = (message.message_id, tuple(b.get("callback_data", "") for b in message.buttons))
            acted = human.acted.get(key)
            if acted is not None and time.monotonic() - acted < 10.0:
                return None
            return message
        return None

    async def run_human(self, human: Human) -> None:
        try:
            while not self.humans_stop:
                try:
                    found = await self.fake.wait_for(
                        lambda h=human: self._live(h) or self.humans_stop, 5, what="a decision"
                    )
                except TimeoutError:
                    continue
                if not isinstance(found, FakeMessage):
                    return
                human.acted[self._key(found)] = time.monotonic()
                await asyncio.sleep(human.rng.uniform(*THINK))
                await self._decide(human, found)
                current = self.fake.chat(human.user_id).message(found.message_id)
                if current is not None:
                    human.acted[self._key(current)] = time.monotonic()
        except asyncio.CancelledError:
            raise
        except Exception as error:
            self.stats.bench_errors.append(f"human {human.user_id}: {error!r}")

    @staticmethod
    def _key(message: FakeMessage) -> tuple[int, tuple[str, ...]]:
        return (message.message_id, tuple(b.get("callback_data", "") for b in message.buttons))

    async def _decide(self, human: Human, message: FakeMessage) -> None:
        rng, chaos = human.rng, not self.chaos_over.is_set()
        labels = message.labels
        chat_id, message_id = human.user_id, message.message_id
        double = chaos and rng.random() < P_DOUBLE
        if "亮王" in labels:
            label = rng.choice(("亮王", "不亮"))
            await self.press(human, chat_id, message_id, label=label, double=double)
            return
        for label in ("知道了，继续", "我回来了"):
            if label in labels:
                await self.press(human, chat_id, message_id, label=label)
                return
        self.stats.turns += 1
        if chaos:
            roll = rng.random()
            if roll < P_LEAVE:
                await self._leave(human)
                return
            if roll < P_LEAVE + P_BLOCK:
                self._block(human)
                return
        if "提示" not in labels:  # only 出牌… / 不出 shown: press the first of them
            play = next((b for b in message.buttons if b["text"].startswith("出牌")), None)
            data = play["callback_data"] if play else None
            if data is None and "不出" in labels:
                await self.press(human, chat_id, message_id, label="不出", double=double)
            elif data is not None:
                await self.press(human, chat_id, message_id, data=data, double=double)
            return
        if "不出" in labels and rng.random() < P_PASS:
            await self.press(human, chat_id, message_id, label="不出", double=double)
            return
        hint = await self.press(human, chat_id, message_id, label="提示")
        if hint is None or "过期" in (hint.text or ""):
            return
        if "只能不出" in (hint.text or ""):
            await self.press(human, chat_id, message_id, label="不出", double=double)
            return
        await asyncio.sleep(rng.uniform(*TAP))
        current = self.fake.chat(chat_id).message(message_id)
        if current is None:
            return
        play = current.find_button(lambda text: text.startswith("出牌"))
        if play is None:
            return
        await self.press(human, chat_id, message_id, data=play["callback_data"], double=double)

    async def _leave(self, human: Human) -> None:
        fake = self.fake
        chat_id = human.table.chat_id
        sent = await fake.send_text(human.user_id, chat_id, "/leave")
        self.stats.leaves += 1
        with contextlib.suppress(TimeoutError):
            await fake.wait_for(
                lambda: any(m.reply_to == sent.message_id for m in fake.chat(chat_id).bot_messages),
                PRESS_WAIT,
                what="the answer to /leave",
            )
            self.stats.leaves_confirmed += 1

    def _block(self, human: Human) -> None:
        self.fake.block(human.user_id)
        human.blocked = True
        self.stats.blocks += 1
        self.side_tasks.append(asyncio.ensure_future(self._unblock_later(human)))

    async def _unblock_later(self, human: Human) -> None:
        await asyncio.sleep(human.rng.uniform(*UNBLOCK_AFTER))
        try:
            await self.fake.send_text(human.user_id, human.user_id, "/start")
        except ValueError as error:
            self.stats.bench_errors.append(f"unblock {human.user_id}: {error}")
            return
        human.blocked = False
        self.stats.unblocks += 1

    # ---- the chaos makers ----------------------------------------------------------------

    async def _pause(self, seconds: float) -> bool:
        """Wait ``seconds`` of the chaos; False once the chaos is over."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.chaos_over.wait(), seconds)
        return not self.chaos_over.is_set()

    async def killer(self, chaos_seconds: float) -> None:
        count = self.rng.randint(*KILLS)
        self.stats.kills_planned = count
        first, last = 10.0, max(20.0, chaos_seconds - 20.0)
        span = (last - first) / count
        moments = [first + span * n + self.rng.uniform(0.0, span * 0.8) for n in range(count)]
        begun = time.monotonic()
        ready = begun
        for moment in moments:
            # the bot gets some time up between kills, however long its restart took
            at = max(begun + moment, ready + self.rng.uniform(*ALIVE_AT_LEAST))
            if not await self._pause(at - time.monotonic()):
                return
            try:
                await self.kill_and_restart()
            except BotDown:  # recorded in start_failures; nothing left to measure
                self.chaos_over.set()
                return
            ready = time.monotonic()

    async def faulter(self) -> None:
        rng = random.Random(self.rng.randrange(1 << 62))
        while await self._pause(rng.uniform(*FAULT_GAP)):
            method = rng.choice(FAULT_METHODS)
            kind = rng.choice(FAULT_KINDS)
            fault = self.fake.inject(
                method,
                kind,
                times=rng.randint(2, 10),
                retry_after=rng.randint(1, 3),
                hold=rng.uniform(1.0, 8.0),
                performed=kind == "timeout",
            )
            self.faults.append(fault)
            self.stats.fault_stretches[f"{method} {kind}"] += 1
            await self._pause(rng.uniform(*FAULT_STRETCH))
            with contextlib.suppress(ValueError):
                self.fake.faults.remove(fault)

    async def spammer(self) -> None:
        rng = random.Random(self.rng.randrange(1 << 62))
        if not await self._pause(rng.uniform(20.0, 50.0)):
            return
        gap = SPAM_SECONDS / SPAM_COMMANDS
        begun = time.monotonic()
        for n in range(SPAM_COMMANDS):
            await self.fake.send_text(SPAMMER, SPAM_GROUP, "/help")
            self.stats.spam_sent += 1
            await asyncio.sleep(max(0.0, begun + (n + 1) * gap - time.monotonic()))

    # ---- the run -------------------------------------------------------------------------

    async def run(self) -> Report:
        report = Report(self.args)
        begun = time.monotonic()
        chaos_seconds = self.args.minutes * 60.0
        async with self.fake:
            self.build_world()
            report.humans = len(self.humans)
            report.variants = Counter(t.variant for t in self.tables)
            tables: list[asyncio.Task[None]] = []
            humans: list[asyncio.Task[None]] = []
            makers: list[asyncio.Task[None]] = []
            try:
                await self.start_bot()
                await self.greet()
                humans = [asyncio.ensure_future(self.run_human(h)) for h in self.humans]
                tables = [asyncio.ensure_future(self.run_table(t)) for t in self.tables]
                makers = [
                    asyncio.ensure_future(self.killer(chaos_seconds)),
                    asyncio.ensure_future(self.faulter()),
                    asyncio.ensure_future(self.spammer()),
                ]
                chaos_begun = time.monotonic()
                with contextlib.suppress(TimeoutError):  # the chaos runs (a dead bot ends it)
                    await asyncio.wait_for(self.chaos_over.wait(), chaos_seconds)
                self.chaos_over.set()
                for maker in makers:  # a restart under way finishes first
                    with contextlib.suppress(asyncio.CancelledError):
                        await maker
                self.fake.clear_faults()
                report.chaos_seconds = time.monotonic() - chaos_begun
                settle_begun = time.monotonic()
                with contextlib.suppress(TimeoutError):
                    await self.fake.wait_for(
                        lambda: all(t.done() for t in tables),
                        self.args.settle,
                        what="the tables to finish their games",
                    )
                report.tables_unsettled = sum(1 for t in tables if not t.done())
                report.settle_seconds = time.monotonic() - settle_begun
                self.humans_stop = True
                with contextlib.suppress(TimeoutError):  # answers still on their way
                    await self.fake.wait_for(
                        lambda: not self._unanswered()[1], 15, what="the last answers"
                    )
            finally:
                for task in [*tables, *humans, *makers, *self.side_tasks]:
                    task.cancel()
                await asyncio.gather(
                    *tables, *humans, *makers, *self.side_tasks, return_exceptions=True
                )
                stopped = time.time()
                await self.stop_bot()
                self.log.close()
            self._fill(report)
        report.db = check_database(self.db_path, stopped=stopped, up_since=self.ready_wall)
        report.log_errors = log_errors(self.folder / "bot.log")
        report.seconds = time.monotonic() - begun
        return report

    def _unanswered(self) -> tuple[list[CallbackResult], list[CallbackResult]]:
        """Unanswered presses: (excused by a kill, not excused)."""
        excused, other = [], []
        for press in self.fake.unanswered_callbacks():
            if any(k - KILL_GRACE <= press.created <= up for k, up in self.kill_windows):
                excused.append(press)
            else:
                other.append(press)
        return excused, other

    def _fill(self, report: Report) -> None:
        fake = self.fake
        report.stats = self.stats
        report.presses_total = len(fake.callbacks)
        excused, other = self._unanswered()
        report.unanswered_excused = len(excused)
        origin = min((r.time for r in fake.requests), default=0.0)
        for press in other:
            tried = [
                r
                for r in fake.requests
                if r.method == "answerCallbackQuery"
                and str(r.raw.get("callback_query_id")) == press.query_id
            ]
            how = (
                "never answered by the bot"
                if not tried
                else "answers tried: "
                + ", ".join(f"{r.status}{' (' + r.fault + ')' if r.fault else ''}" for r in tried)
            )
            report.unanswered.append(
                f"user {press.user_id} pressed {press.data!r} on message {press.message_id} "
                f"at t={press.created - origin:.1f} s; {how}"
            )
        for fault in self.faults:
            report.faults_fired[f"{fault.method} {fault.kind}"] += fault.fired
        report.violations = Counter(v.scope for v in fake.limit_violations)
        report.violation_samples = [str(v) for v in fake.limit_violations[:10]]
        faulted = {"500", "502"}  # answered by an injected failure: never reached "Telegram"
        for table in self.tables:
            strict = [
                r.time
                for r in fake.requests
                if r.chat_id == table.chat_id and r.method in COUNTED and r.status != 429
            ]
            effective = [
                r.time
                for r in fake.requests
                if r.chat_id == table.chat_id
                and r.method in COUNTED
                and r.status != 429
                and r.fault not in faulted
            ]
            most = max_in_window(effective)
            report.group_max = max(report.group_max, most)
            report.group_max_strict = max(report.group_max_strict, max_in_window(strict))
            if most > GROUP_LIMIT:
                report.group_over.append(
                    f"group {table.chat_id} got {most} messages in 60 s (limit {GROUP_LIMIT})"
                )
        report.spam_answered = sum(
            1 for m in fake.chat(SPAM_GROUP).bot_messages if m.reply_to is not None
        )
        report.rejections = [str(r) for r in fake.rejections]
        report.rejection_kinds = Counter(_explain(fake, r) for r in fake.rejections)
        report.rejections_other = [
            str(r) for r in fake.rejections if _explain(fake, r) == REFUSED_OTHER
        ]
        report.forbidden = len(fake.forbidden)
        self._dump()

    def _dump(self) -> None:
        """Every request the bot made, one JSON line each (kept with --keep or on failure)."""
        with open(self.folder / "requests.jsonl", "w", encoding="utf-8") as out:
            for r in self.fake.requests:
                line = {
                    "t": round(r.time, 3),
                    "method": r.method,
                    "chat": r.chat_id,
                    "status": r.status,
                    "fault": r.fault,
                    "message_id": r.raw.get("message_id"),
                    "query": r.raw.get("callback_query_id"),
                    "text": str(r.raw.get("text", ""))[:80],
                }
                out.write(json.dumps(line, ensure_ascii=False) + "\n")
            for press in self.fake.callbacks.values():
                line = {
                    "press": press.query_id,
                    "t": round(press.created, 3),
                    "user": press.user_id,
                    "data": press.data,
                    "answered": press.is_answered,
                }
                out.write(json.dumps(line) + "\n")
            for window in self.kill_windows:
                out.write(json.dumps({"killed": window[0], "polling": window[1]}) + "\n")


REFUSED_AFTER_TIMEOUT = "a retry after an attempt that timed out but took effect"
REFUSED_REPEAT = "a repeat of a request that had succeeded"
REFUSED_PROBE = "a look for a table message whose send timed out (an edit to the same buttons)"
REFUSED_OTHER = "other"


def _explain(fake: FakeTelegram, rejection: Rejection) -> str:
    """Why the fake refused a request: the bot retried one whose earlier attempt took effect
    (an injected "timeout" with performed=True, which a real lost response also causes), or
    repeated one that had succeeded, or something else."""
    params = rejection.params
    if rejection.method == "editMessageReplyMarkup" and "not modified" in rejection.description:
        return REFUSED_PROBE
    if rejection.method == "answerCallbackQuery":
        keys = ("callback_query_id",)
    elif "message_id" in params:
        keys = ("chat_id", "message_id")
    else:
        return REFUSED_OTHER
    wanted = [str(params.get(k)) for k in keys]
    earlier = [
        r
        for r in fake.requests
        if r.method == rejection.method
        and r.time < rejection.time
        and [str(r.raw.get(k)) for k in keys] == wanted
    ]
    if any(r.fault == "timeout" for r in earlier):
        return REFUSED_AFTER_TIMEOUT
    if any(r.ok for r in earlier):
        return REFUSED_REPEAT
    return REFUSED_OTHER


# ---- the checks on the database ------------------------------------------------------------


def _connect(path: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    connection.row_factory = sqlite3.Row
    return connection


def _deal(row: sqlite3.Row) -> GameState | None:
    variant = VARIANTS[row["variant"]]
    hands = json.loads(row["hands"]) if row["hands"] else None
    if hands:
        return variant.from_hands([parse_cards(" ".join(h)) for h in hands], row["leader"] or 0)
    if row["seed"] is None:
        return None
    return variant.deal(json.loads(row["seed"]), row["leader"])


def check_database(path: Path, *, stopped: float, up_since: float) -> DbReport:
    """Invariants 1, 2 and 5, read from the database after the bot stopped (``stopped``: when
    it was told to; ``up_since``: when it last began to poll, epoch seconds)."""
    report = DbReport()
    with contextlib.closing(_connect(path)) as db:
        for row in db.execute("SELECT * FROM games ORDER BY id").fetchall():
            report.games[row["status"]] += 1
            report.by_variant[row["variant"]] += 1
            actions = db.execute(
                "SELECT seq, seat, kind, cards, at FROM actions WHERE game_id = ? ORDER BY seq",
                (row["id"],),
            ).fetchall()
            results = db.execute(
                "SELECT * FROM results WHERE game_id = ? ORDER BY seat", (row["id"],)
            ).fetchall()
            report.actions += len(actions)
            report.failures += list(_check_game(row, actions, results, report))
            if row["status"] == "playing":
                last = max([row["started_at"] or 0.0, *(a["at"] for a in actions)])
                idle = min(stopped - last, stopped - up_since)
                if idle > STALL_SECONDS:
                    report.stalled.append(_stalled(row, actions, stopped - last, idle))
        report.failures += list(_check_ratings(db))
    return report


def _stalled(row: sqlite3.Row, actions: list[sqlite3.Row], idle: float, up: float) -> str:
    """A game nobody moves any more: who the engine waits for."""
    game = _deal(row)
    waiting = "?"
    if game is not None:
        with contextlib.suppress(Exception):  # a log that does not replay is reported apart
            for action in actions:
                apply_action(game, (action["kind"], action["seat"], action["cards"]))
            seats = json.loads(row["seats"])
            waiting = ", ".join(
                f"seat {s} ({'computer' if seats[s]['is_computer'] else 'human'})"
                for s in game.to_act
            )
    return (
        f"game {row['id']} ({row['variant']}, chat {row['chat_id']}): no action for "
        f"{idle:.0f} s ({up:.0f} s of them with the bot up), {len(actions)} actions; "
        f"waiting for {waiting}"
    )


def _check_game(
    row: sqlite3.Row,
    actions: list[sqlite3.Row],
    results: list[sqlite3.Row],
    report: DbReport,
) -> Iterator[str]:
    name = f"game {row['id']} ({row['variant']}, {row['status']}, chat {row['chat_id']})"
    status = row["status"]
    seqs = [a["seq"] for a in actions]
    if seqs != list(range(len(seqs))):
        yield f"{name}: action seqs are not 0..{len(seqs) - 1}: {seqs}"
    game = _deal(row)
    if game is None:  # a lobby, open or cancelled: never dealt
        if actions:
            yield f"{name}: {len(actions)} actions but no deal"
        if status not in ("lobby", "cancelled"):
            yield f"{name}: no deal"
        return
    report.started += 1
    for action in actions:
        try:
            apply_action(game, (action["kind"], action["seat"], action["cards"]))
        except Exception as error:
            yield (
                f"{name}: the engine refuses stored action seq {action['seq']} "
                f"({action['kind']} by seat {action['seat']}: {action['cards']}): {error!r}"
            )
            return
    fixed = json.loads(row["fixed_scores"] or "[]")
    if any(score is not None for score in fixed):
        report.deserted_games += 1
    if status == "playing" and game.over:
        yield f"{name}: the replay is over but the game is not settled"
    if status == "finished":
        yield from _check_result(name, row, game, results, fixed)


def _check_result(
    name: str,
    row: sqlite3.Row,
    game: GameState,
    results: list[sqlite3.Row],
    fixed: list[int | None],
) -> Iterator[str]:
    result = game.result
    if not game.over or result is None:
        yield f"{name}: finished, but its replay is not over ({len(game.hands)} hands left)"
        return
    if row["outcome"] != result.outcome:
        yield f"{name}: stored outcome {row['outcome']!r}, the replay's {result.outcome!r}"
    if len(results) != game.seats:
        yield f"{name}: {len(results)} result rows for {game.seats} seats"
        return
    stored = [r["delta"] for r in results]
    if stored != list(result.deltas):
        yield f"{name}: stored deltas {stored}, the replay's {list(result.deltas)}"
    short = row["note"] == "short game"
    for seat, r in enumerate(results):
        score = fixed[seat] if seat < len(fixed) else None
        expected = score if score is not None else (0 if short else r["delta"])
        if r["adjusted_delta"] != expected:
            yield (
                f"{name}: seat {seat} applied {r['adjusted_delta']}, expected {expected} "
                f"(delta {r['delta']}, fixed {score}, short {short})"
            )


def _check_ratings(db: sqlite3.Connection) -> Iterator[str]:
    """Each rating is the sum of the player's results: no settlement lost or applied twice."""
    sums = {
        (r["user_id"], r["variant"]): (r["score"], r["games"])
        for r in db.execute(
            "SELECT res.user_id, g.variant, SUM(res.adjusted_delta) AS score, COUNT(*) AS games"
            " FROM results res JOIN games g ON g.id = res.game_id"
            " WHERE res.user_id IS NOT NULL GROUP BY res.user_id, g.variant"
        )
    }
    ratings = {
        (r["user_id"], r["game"]): (r["score"], r["games"])
        for r in db.execute("SELECT user_id, game, score, games FROM ratings")
    }
    for key in sorted(set(sums) | set(ratings)):
        if sums.get(key, (0, 0)) != ratings.get(key, (0, 0)):
            yield (
                f"rating of user {key[0]} in {key[1]}: (score, games) {ratings.get(key)} "
                f"but the results add up to {sums.get(key)}"
            )


def log_errors(path: Path) -> Counter[str]:
    """The bot's log lines (LOG_LEVEL=WARNING), by their first 110 characters, digits as N."""
    found: Counter[str] = Counter()
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return found
    for line in lines:
        if any(level in line for level in (" WARNING ", " ERROR ", " CRITICAL ")):
            shown = re.sub(r"\d+", "N", line.split(" ", 2)[-1])  # without the date and time
            found[shown[:110]] += 1
    return found


# ---- the report ----------------------------------------------------------------------------


def format_report(report: Report) -> str:
    s, db, args = report.stats, report.db, report.args
    latencies = s.latencies
    fired = sum(report.faults_fired.values())
    rows = [
        ["tables (groups playing; + 1 spam group)", f"{args.tables} ({_counts(report.variants)})"],
        ["simulated humans", report.humans],
        ["games opened / dealt", f"{sum(db.games.values())} / {db.started}"],
        [
            "games finished / playing / cancelled / open lobbies",
            " / ".join(str(db.games[k]) for k in ("finished", "playing", "cancelled", "lobby")),
        ],
        ["games with a desertion (逃跑)", db.deserted_games],
        ["actions stored", db.actions],
        ["turns decided by humans", s.turns],
        ["presses (of them double presses)", f"{report.presses_total} ({s.double_presses})"],
        ["presses answered within 20 s: p50 / p95 / max s", _latency(latencies)],
        ["presses not answered within 20 s (later answered or not)", s.press_timeouts],
        ["buttons gone before the press", s.press_misses],
        ["/leave (answered)", f"{s.leaves} ({s.leaves_confirmed})"],
        ["blocks (unblocked again with /start)", f"{s.blocks} ({s.unblocks})"],
        [
            "SIGKILLs (planned); seconds from each start to the first poll",
            f"{s.kills} ({s.kills_planned}); "
            + (", ".join(f"{v:.1f}" for v in s.restart_seconds) or "n/a"),
        ],
        [
            "fault stretches; faulted requests",
            f"{sum(s.fault_stretches.values())}; {fired} ({_counts(report.faults_fired)})",
        ],
        ["spam /help sent / answered", f"{s.spam_sent} / {report.spam_answered}"],
        [
            "flood-limit violations (group / private / global)",
            " / ".join(str(report.violations[k]) for k in ("group", "private", "global")),
        ],
        [
            "most group messages in any 60 s (all but 429s; also 500/502s)",
            f"{report.group_max} ({report.group_max_strict}); limit {GROUP_LIMIT}",
        ],
        [
            "unanswered presses: excused by a kill / others",
            f"{report.unanswered_excused} / {len(report.unanswered)}",
        ],
        [
            "requests the fake refused (4xx, not 403/429); 403s to blocked users",
            f"{len(report.rejections)}; {report.forbidden}",
        ],
        ["bot log warnings and errors", sum(report.log_errors.values())],
        [
            "wall time: total / chaos / settle s",
            f"{report.seconds:.0f} / "
            f"{report.chaos_seconds:.0f} / {report.settle_seconds:.0f}"
            + (
                f" ({report.tables_unsettled} tables still playing)"
                if report.tables_unsettled
                else ""
            ),
        ],
    ]
    lines = [markdown_table(["what", "count"], rows), ""]
    failures = report.failures
    checks = [
        (
            "1. every stored log replays",
            not [f for f in db.failures if "refuses" in f or "no deal" in f],
        ),
        ("2. no action lost or doubled (seqs, results, ratings)", not db.failures),
        ("3. every press answered (outside kill windows)", not report.unanswered),
        ("4. limits never exceeded", not report.violation_samples and not report.group_over),
        (
            f"5. no game stalls ({STALL_SECONDS:g} s without a move while the bot is up)",
            not db.stalled,
        ),
    ]
    lines += [f"- {name}: {'held' if ok else '**FAILED**'}" for name, ok in checks]
    if failures:
        lines += ["", f"Invariant failures and problems ({len(failures)}):"]
        lines += [f"- {line}" for line in failures[:25]]
        if len(failures) > 25:
            lines.append(f"- ... and {len(failures) - 25} more")
    if s.starts:
        lines += ["", "Bot starts (the first, then one after each SIGKILL):"]
        lines += [f"- {line}" for line in s.starts]
    if report.rejections:
        lines += ["", "Requests the fake refused, by cause:"]
        lines += [f"- {n} × {kind}" for kind, n in report.rejection_kinds.most_common()]
        lines += [f"  - {line[:300]}" for line in report.rejections_other[:5]]
    if report.log_errors:
        lines += ["", "Bot log warnings and errors (most common 8, digits as N):"]
        lines += [f"- {n} × `{line}`" for line, n in report.log_errors.most_common(8)]
    return "\n".join(lines)


def _counts(counter: Counter[str]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(counter.items())) or "none"


def _latency(values: Sequence[float]) -> str:
    if not values:
        return "n/a"
    return " / ".join(
        f"{v:.2f}" for v in (percentile(values, 50), percentile(values, 95), max(values))
    )


def section(report: Report, command: str, start: tuple[str, str, str], body: str) -> str:
    settings = ", ".join(f"{k}={v}" for k, v in BOT_ENV.items() if k != "LOG_LEVEL")
    return "\n".join(
        [
            "## Chaos: kills, Telegram faults and odd users (`bench.chaos`)",
            "",
            f"`{command}`",
            "",
            *machine_lines(start),
            f"- The bot as a subprocess (`python -m bot run`) with {settings}; the fake with "
            "Telegram's limits (20 a minute per group, 1 a second per private chat with 3 at once, "
            "30 a second overall)",
            f"- {report.args.minutes:g} min of chaos: {KILLS[0]}–{KILLS[1]} SIGKILLs and restarts "
            f"planned, the bot polling at least {ALIVE_AT_LEAST[0]:g}–{ALIVE_AT_LEAST[1]:g} s "
            "between them; stretches of 429/500/502/held-then-504 answers on sendMessage, "
            "editMessageText and answerCallbackQuery; humans at 0.5–2 s a decision, pressing twice "
            f"at once ({P_DOUBLE:.0%} of their 出牌, 不出 and 亮王 presses), /leave and blocking "
            f"the bot ({P_LEAVE:.1%} of turns each); {SPAM_COMMANDS} /help in {SPAM_SECONDS:g} s "
            f"in another group. Then up to {report.args.settle:g} s without chaos for the games "
            "to end, and SIGTERM",
            "",
            body,
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.chaos",
        description=__doc__,
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
    args = parser.parse_args(argv)
    start = started()
    folder = Path(tempfile.mkdtemp(prefix="bench-chaos-"))
    try:
        report = asyncio.run(Chaos(args, folder).run())
    except BotDown as error:
        print(f"the run stopped: {error}; the bot's log is in {folder}", file=sys.stderr)
        return 2
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
        write_section(SECTION, section(report, command, start, body))
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
