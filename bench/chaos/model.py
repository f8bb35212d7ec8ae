"""A chaos run's settings, its people and tables, its counts, and the state its parts share."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from fakebot import CallbackResult, FakeTelegram, Fault

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
    #: with --standby: seconds from each SIGKILL of the active instance to the standby's
    #: first poll (it took the lease and recovered every game)
    takeover_seconds: list[float] = field(default_factory=list)
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


class ChaosState:
    """What the parts of a run (the bot process, the people, the chaos makers) share."""

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
        #: with --standby: the instance waiting to take over, and the PostgreSQL database
        self.standby: asyncio.subprocess.Process | None = None
        self.database_url: str | None = None
        #: the PostgreSQL cluster's life (closed by the runner, whatever happens)
        self.stack = contextlib.ExitStack()
        self.kill_windows: list[tuple[float, float]] = []  # (killed, polling again)
        self.presses: list[CallbackResult] = []
        self.faults: list[Fault] = []
        self.chaos_over = asyncio.Event()
        self.humans_stop = False
        self.side_tasks: list[asyncio.Task[None]] = []
        self.ready_wall = time.time()  # when the bot last began to poll (epoch seconds)
