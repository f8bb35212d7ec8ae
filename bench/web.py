"""The web table (the Mini App): Bot API calls per action with every seat on a page, and the
live views' latency and memory with 50 tables of pages at once.

``.venv/bin/python -m bench.web`` runs the real bot with its web table (``WEBAPP_URL`` set, the
server on 127.0.0.1, any free port) against the fake Bot API server with Telegram's limits (20
messages a minute per group, about one a second per private chat with 3 at once, 30 a second
overall) and the bot's default settings (20 group messages a minute, 1.2 s before a 要不起
pass). Every human is a page: signed ``initData`` (``fakebot.miniapp.init_data_for``), the
game taken from the 🃏 牌桌 ``web_app`` button of their hand message, the live WebSocket
(``/api/live``) open, and each decision sent as ``POST /api/action``. A page decides only from
the views it receives: it acts on a view whose ``turn`` is its ``seat`` (not ``auto_pass``),
answers 刨王's 亮王 gate when ``me.reveal`` or ``me.ready`` says so, and stops at
``status`` ``finished``.

1. **Calls per action** (``--games`` deals of each variant, fixed seeds; 双扣 with 4 humans,
   刨王 with 5; all games at once, each in its own group, the bot in this process). From the
   moment every page of a game has its first view to the end of the game (the group's result
   sent and its channel drained), every request the bot makes to the fake for that game's
   group or its players' private chats is counted, whatever its method or answer (a 429 too);
   requests without a chat (getUpdates, getMe, setMyCommands, deleteWebhook) are not. Divided
   by the game's actions (``table.seq`` at the end minus at the start: plays and passes, the
   bot's 要不起 passes, 刨王's 亮王 answers). What to play is the bot's AI player's choice from
   the seat's own view; the person thinks ``--think`` seconds (uniform) first, which puts the
   pace near ``bench.bot_calls``' human-pace game, whose keyboards figure (read from its
   section of ``bench/results/bot.md``) is compared.
2. **50 tables at once** (``--tables``, a fifth of them 刨王 with 5 humans; the bot in a child
   process, ``--bot-process``, so its event loop serves only the bot; the fake and the pages
   in this one). Memory: the bot's RSS and its Python allocations (tracemalloc, on only while
   the pages connect) with every page connected less before the first one, per connection.
   Then two phases of ``--seconds`` each on the same pages: people with a small think time
   (``--load-think``), then as fast as they can (no thinking). Latency: from just before a
   play's or pass's ``POST /api/action`` is sent to the moment the first view with a newer
   ``seq`` has arrived at *every* open page of the table over its WebSocket (timestamped with
   ``time.perf_counter()`` as this process's reader takes it; views are parsed only for
   ``seq`` then, the whole view only when the page decides).

It prints the figures and rewrites the ``bench.web`` section of ``bench/results/bot.md``.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import gc
import json
import logging
import os
import random
import re
import sys
import tempfile
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import aiohttp

from bench.botrun import (
    RESULTS,
    machine_lines,
    markdown_table,
    percentile,
    started,
    write_section,
)
from bot.config import Settings
from bot.edge.app import build_application, running_application
from bot.game import paowang
from bot.game.players import make_player
from bot.service import GameService
from bot.service.tables import Table
from fakebot import FakeTelegram, RequestRecord
from fakebot.miniapp import init_data_for

ROOT = Path(__file__).resolve().parent.parent
SECTION = "bench.web"
WEBAPP_URL = "https://cards.example/t/"
GOAL_CALLS_PER_ACTION = 0.5
GOAL_P99 = 0.100
TELEGRAM_OVERALL = 30.0  # calls a second, Telegram's overall limit for a bot
ASSUMED_SECONDS_PER_ACTION = 3.0  # a busy table: someone decides every 3 s on average
VARIANT_ARG = {"shuangkou": "双扣", "paowang": "刨王"}
HUMANS = {"shuangkou": 4, "paowang": 5}
NO_CHAT = ("getUpdates", "getMe", "setMyCommands", "deleteWebhook", "getWebhookInfo")
SEQ = re.compile(r'"seq":(\d+)')
KEYBOARDS_ROW = "4 humans, human pace"
GROUP_BASE = -1_005_000_000_000
USER_BASE = 300_000


def seeds_in_order(seeds: Sequence[int]) -> Callable[[], int]:
    """A seed source giving ``seeds`` in order, then the last one again."""
    queue = list(seeds)

    def next_seed() -> int:
        return queue.pop(0) if len(queue) > 1 else queue[0]

    return next_seed


def playable_seeds(count: int, seed: int) -> list[int]:
    """``count`` fixed seeds whose 刨王 deal does not end at once (all four jokers in one hand)."""
    rng = random.Random(seed)
    seeds: list[int] = []
    while len(seeds) < count:
        candidate = rng.getrandbits(62)
        if not paowang.Game.deal(candidate).over:
            seeds.append(candidate)
    return seeds


class GcPauses:
    """The garbage collector's pauses in this process: (generation, seconds) each."""

    def __init__(self) -> None:
        self.pauses: list[tuple[int, float]] = []
        self._began = 0.0

    def __enter__(self) -> GcPauses:
        gc.callbacks.append(self._on_gc)
        return self

    def __exit__(self, *_: object) -> None:
        gc.callbacks.remove(self._on_gc)

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._began = time.perf_counter()
        else:
            self.pauses.append((info["generation"], time.perf_counter() - self._began))

    def take(self) -> list[float]:
        """[collections, full ones, the longest pause s], and forget them."""
        pauses, self.pauses = self.pauses, []
        full = sum(1 for generation, _ in pauses if generation == 2)
        return [len(pauses), full, max((p for _, p in pauses), default=0.0)]


# ---- a page: the live socket, timestamped, parsed lazily -----------------------------------


class Page:
    """One person's open page: the live socket's messages with their arrival times and
    ``seq`` (the only thing parsed as they arrive), and the page's action calls."""

    def __init__(
        self, session: aiohttp.ClientSession, base: str, init_data: str, game_id: int
    ) -> None:
        self.session = session
        self.base = base
        self.init_data = init_data
        self.game_id = game_id
        self.times: list[float] = []  # arrival, perf_counter
        self.seqs: list[int] = []
        self.latest = ""
        self.changed = asyncio.Event()
        self.first = asyncio.Event()
        self.odd: list[str] = []  # messages that are no view (a refusal)
        self.backwards = 0  # views older than one received before
        self._socket: aiohttp.ClientWebSocketResponse | None = None
        self._reader: asyncio.Task[None] | None = None

    async def open(self) -> None:
        self._socket = await self.session.ws_connect(f"{self.base}api/live")
        await self._socket.send_str(json.dumps({"auth": self.init_data, "game": self.game_id}))
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self._socket is not None
        async for message in self._socket:
            at = time.perf_counter()
            if message.type != aiohttp.WSMsgType.TEXT:
                break
            found = SEQ.search(message.data)
            if found is None:
                self.odd.append(message.data[:200])
                continue
            seq = int(found.group(1))
            if self.seqs and seq < self.seqs[-1]:
                self.backwards += 1
            self.times.append(at)
            self.seqs.append(seq)
            self.latest = message.data
            self.changed.set()
            self.first.set()

    async def close(self) -> None:
        if self._socket is not None:
            await self._socket.close()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader

    @property
    def seq(self) -> int:
        return self.seqs[-1] if self.seqs else -1

    def view(self) -> dict[str, Any]:
        view: dict[str, Any] = json.loads(self.latest)
        return view

    def arrived(self, seq: int, after: float) -> float | None:
        """When the first view with ``seq`` or newer arrived (at or after ``after``)."""
        start = bisect.bisect_left(self.times, after)
        for index in range(start, len(self.seqs)):
            if self.seqs[index] >= seq:
                return self.times[index]
        return None

    async def act(self, kind: str, cards: Sequence[int] = ()) -> tuple[int, dict[str, Any]]:
        async with self.session.post(
            f"{self.base}api/action",
            json={"game": self.game_id, "kind": kind, "cards": list(cards)},
            headers={"Authorization": f"tma {self.init_data}"},
        ) as response:
            return response.status, await response.json()


@dataclass
class Act:
    """One action a page sent."""

    table: int  # the table's index in the run
    kind: str
    seq: int  # the view's seq it was decided on
    sent: float  # perf_counter just before the request
    answered: float
    status: int
    accepted: bool
    message: str = ""


Decide = Callable[[dict[str, Any]], tuple[str, list[int]]]


@dataclass
class Person:
    """A human on a page: waits for their turn in the views, thinks, decides, posts."""

    table: int
    page: Page
    decide: Decide
    think: tuple[float, float]
    rng: random.Random
    acts: list[Act]
    deadline: float = float("inf")  # perf_counter: no new action after it
    gate_answered: bool = False
    acted_on: int = -1  # the seq of the last view acted on

    async def play(self) -> None:
        page = self.page
        while True:
            await page.changed.wait()
            page.changed.clear()
            if time.perf_counter() >= self.deadline:
                return
            view = page.view()
            if view["status"] != "playing":
                return
            me = view["me"]
            if view["gate"]:
                if (me["reveal"] or me["ready"]) and not self.gate_answered:
                    kind, _ = self.decide(view)
                    act = await self._send(view, kind, [])
                    self.gate_answered = act.accepted
                continue
            if view["turn"] != view["seat"] or me["auto_pass"] or view["seq"] <= self.acted_on:
                continue
            if not me["legal"] and not me["can_pass"]:
                continue
            low, high = self.think
            if high > 0:
                await asyncio.sleep(self.rng.uniform(low, high))
            if time.perf_counter() >= self.deadline:
                return
            kind, cards = self.decide(view)
            act = await self._send(view, kind, cards)
            if act.accepted:
                self.acted_on = view["seq"]
            else:  # refused (too fast, say): look again in a moment
                await asyncio.sleep(0.2)
                page.changed.set()

    async def _send(self, view: dict[str, Any], kind: str, cards: list[int]) -> Act:
        sent = time.perf_counter()
        status, body = await self.page.act(kind, cards)
        act = Act(
            self.table,
            kind,
            int(view["seq"]),
            sent,
            time.perf_counter(),
            status,
            status == 200 and bool(body.get("accepted")),
            str(body.get("message") or body.get("error") or ""),
        )
        self.acts.append(act)
        return act


def json_policy(rng: random.Random) -> Decide:
    """Decide from the page's view alone: 亮王 half the time, else the cheapest legal play, or
    不出 a quarter of the times it may (always when nothing is legal)."""

    def decide(view: dict[str, Any]) -> tuple[str, list[int]]:
        me = view["me"]
        if view["gate"]:
            if me["reveal"]:
                return ("reveal" if rng.random() < 0.5 else "decline"), []
            return "ready", []
        if me["can_pass"] and (not me["legal"] or rng.random() < 0.25):
            return "pass", []
        return "play", list(me["legal"][0]["cards"])

    return decide


def brain_policy(table: Table, seat: int, seed: int) -> Decide:
    """The bot's AI player's choice from the seat's own view (what the page shows)."""
    brain = make_player("ai", seed=seed)

    def decide(view: dict[str, Any]) -> tuple[str, list[int]]:
        me = view["me"]
        seat_view = table.engine.view(seat)
        if view["gate"]:
            if me["reveal"]:
                return ("reveal" if brain.choose_reveal(seat_view) else "decline"), []
            return "ready", []
        choice = brain.choose(seat_view)
        if choice is None and me["can_pass"]:
            return "pass", []
        if choice is None:
            return "play", list(me["legal"][0]["cards"])
        return "play", [int(card) for card in choice.cards]

    return decide


# ---- the world: groups, people, lobbies, the games' pages -----------------------------------


@dataclass
class TableSpec:
    index: int
    variant: str

    @property
    def group(self) -> int:
        return GROUP_BASE - self.index

    @property
    def people(self) -> list[int]:
        return [USER_BASE + 10 * self.index + n for n in range(HUMANS[self.variant])]


def add_world(fake: FakeTelegram, specs: Sequence[TableSpec]) -> None:
    for spec in specs:
        fake.add_group(spec.group, f"牌桌{spec.index + 1}", members=spec.people)
        for n, user_id in enumerate(spec.people):
            fake.add_user(user_id, f"玩家{spec.index + 1}-{n + 1}", language_code="zh-hans")


def game_of(fake: FakeTelegram, user_id: int) -> int | None:
    """The game of the newest 🃏 牌桌 button in the user's private chat, as a page opens it."""
    for message in reversed(fake.chat(user_id).bot_messages):
        for button in message.buttons:
            app = button.get("web_app")
            if app:
                return int(parse_qs(urlsplit(app["url"]).query)["game"][0])
    return None


async def start_table(fake: FakeTelegram, spec: TableSpec, timeout: float = 120.0) -> int:
    """/start, /newgame, 加入, 开始 as the people would; the game id from the hand messages."""
    people = spec.people
    for user_id in people:
        await fake.send_text(user_id, user_id, "/start")
    await fake.wait_for(
        lambda: all(fake.chat(u).bot_messages for u in people), timeout, what="hellos"
    )
    await fake.send_text(people[0], spec.group, f"/newgame {VARIANT_ARG[spec.variant]}")
    lobby = await fake.wait_for_message(spec.group, contains="等待玩家", timeout=timeout)
    for user_id in people[1:]:
        await (await fake.press(user_id, spec.group, lobby.message_id, "加入")).answered(timeout)
    await (await fake.press(people[0], spec.group, lobby.message_id, "开始")).answered(timeout)
    games = await fake.wait_for(
        lambda: all(game_of(fake, u) for u in people) and {game_of(fake, u) for u in people},
        timeout,
        what="every hand message with its 🃏 牌桌 button",
    )
    assert len(games) == 1, games
    return int(next(iter(games)))


async def open_pages(
    fake: FakeTelegram,
    session: aiohttp.ClientSession,
    base: str,
    spec: TableSpec,
    game_id: int,
    timeout: float = 60.0,
) -> list[Page]:
    pages = [
        Page(session, base, init_data_for(fake.token, u, f"玩家{u}"), game_id) for u in spec.people
    ]
    for page in pages:
        await page.open()
    async with asyncio.timeout(timeout):
        for page in pages:
            await page.first.wait()
    return pages


# ---- part 1: calls per action -------------------------------------------------------------


@dataclass
class GameCalls:
    spec: TableSpec
    seed: int
    game_id: int = 0
    actions: int = 0
    page_plays: int = 0  # plays and passes sent by pages
    gate_answers: int = 0
    auto_passes: int = 0  # 要不起 passes the bot made
    seconds: float = 0.0  # from every page open to the result
    boxes: Counter[str] = field(default_factory=Counter)
    refused: int = 0  # page actions not accepted

    @property
    def calls(self) -> int:
        return sum(self.boxes.values())


def box_of(record: RequestRecord, group: int) -> str:
    where = "group" if record.chat_id == group else "private"
    if record.status == 429:
        return f"{where} 429"
    names = {
        "sendMessage": "send",
        "editMessageText": "edit",
        "editMessageReplyMarkup": "edit",
        "deleteMessage": "delete",
    }
    return f"{where} {names.get(record.method, record.method)}"


def web_settings(fake: FakeTelegram, db_path: Path, **overrides: Any) -> dict[str, Any]:
    """The bot's defaults, pointed at the fake, with the web table on a free local port."""
    return {
        "telegram_bot_token": fake.token,
        "telegram_api_base_url": fake.base_url,
        "database_path": str(db_path),
        "webapp_url": WEBAPP_URL,
        "web_listen": "127.0.0.1",
        "web_port": 0,
        **overrides,
    }


async def run_calls(
    games: int, think: tuple[float, float], seed: int
) -> tuple[list[GameCalls], dict[str, int]]:
    """Every game at once, each in its own group; returns them and the window's calls that
    name no chat (by method, getUpdates left out)."""
    specs = [TableSpec(n, "shuangkou") for n in range(games)]
    specs += [TableSpec(games + n, "paowang") for n in range(games)]
    seeds = playable_seeds(len(specs), seed)
    results = [GameCalls(spec, s) for spec, s in zip(specs, seeds, strict=True)]
    async with FakeTelegram() as fake:
        add_world(fake, specs)
        with tempfile.TemporaryDirectory(prefix="bench-web-") as folder:
            settings = Settings(**web_settings(fake, Path(folder) / "bot.sqlite3"))
            application = build_application(settings, new_seed=seeds_in_order(seeds))
            async with running_application(application) as application:
                service: GameService = application.bot_data["service"]
                port = application.bot_data["web"].port
                for result in results:  # in order: each game gets its seed
                    result.game_id = await start_table(fake, result.spec)
                connector = aiohttp.TCPConnector(limit=0)
                async with aiohttp.ClientSession(connector=connector) as session:
                    base = f"http://127.0.0.1:{port}/"
                    first = len(fake.requests)
                    await asyncio.gather(
                        *(_calls_game(fake, service, session, base, r, think) for r in results)
                    )
                    await asyncio.sleep(1.0)  # the last requests finish
                    last = len(fake.requests)
            window = fake.requests[first:last]
            no_chat = Counter(
                r.method for r in window if r.chat_id is None and r.method != "getUpdates"
            )
    return results, dict(no_chat)


async def _calls_game(
    fake: FakeTelegram,
    service: GameService,
    session: aiohttp.ClientSession,
    base: str,
    result: GameCalls,
    think: tuple[float, float],
) -> None:
    spec = result.spec
    table = service.tables[result.game_id]
    pages = await open_pages(fake, session, base, spec, result.game_id)
    first = len(fake.requests)
    seq0 = table.seq
    began = time.monotonic()
    acts: list[Act] = []
    rng = random.Random(result.seed)
    persons = []
    for page, user_id in zip(pages, spec.people, strict=True):
        seat = table.seat_of(user_id)
        assert seat is not None
        decide = brain_policy(table, seat, rng.randrange(1 << 30))
        persons.append(Person(spec.index, page, decide, think, random.Random(user_id), acts))
    await asyncio.gather(*(p.play() for p in persons))
    await fake.wait_for_message(spec.group, contains="🏆", timeout=120)
    assert table.channel is not None
    await table.channel.drain()
    await asyncio.sleep(1.0)
    result.seconds = time.monotonic() - began
    for page in pages:
        await page.close()
    chats = {spec.group, *spec.people}
    for record in fake.requests[first:]:
        if record.chat_id in chats:
            result.boxes[box_of(record, spec.group)] += 1
    result.actions = table.seq - seq0
    accepted = [a for a in acts if a.accepted]
    result.page_plays = sum(1 for a in accepted if a.kind in ("play", "pass"))
    result.gate_answers = sum(1 for a in accepted if a.kind in ("reveal", "decline", "ready"))
    result.refused = sum(1 for a in acts if not a.accepted)
    # every seat is a page: what the pages did not send (nor answer at the gate, which
    # logs a reveal or not) the bot did, 要不起
    reveals = sum(1 for a in accepted if a.kind in ("reveal", "decline"))
    result.auto_passes = result.actions - result.page_plays - reveals


# ---- part 2: 50 tables at once, the bot in a child process ----------------------------------


def _rss() -> int:
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _bot_process(config_path: str) -> int:
    config = json.loads(Path(config_path).read_text(encoding="utf-8"))
    logging.basicConfig(level=logging.WARNING, format="bot: %(levelname)s %(name)s: %(message)s")
    asyncio.run(_serve(config))
    return 0


async def _serve(config: dict[str, Any]) -> None:
    """The bot, answering this process's questions on stdin with one JSON line each."""
    application = build_application(
        Settings(**config["settings"]), new_seed=seeds_in_order(config["seeds"])
    )
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    lags: list[float] = []

    async def watch_loop() -> None:  # how late the bot's event loop wakes a sleeper
        while True:
            before = time.perf_counter()
            await asyncio.sleep(0.01)
            lags.append(time.perf_counter() - before - 0.01)

    async with running_application(application):
        web = application.bot_data["web"]
        watcher = asyncio.create_task(watch_loop())
        statements = [0]

        def count_statement(_sql: str) -> None:  # runs on aiosqlite's thread
            statements[0] += 1

        await application.bot_data["db"]._connection.set_trace_callback(count_statement)
        renders: list[float] = []  # seconds of each view_for (a live view or an answer's)
        render = web.view_for

        def timed_render(*args: Any, **kwargs: Any) -> Any:
            before = time.perf_counter()
            try:
                return render(*args, **kwargs)
            finally:
                renders.append(time.perf_counter() - before)

        web.view_for = timed_render
        gc_pauses = GcPauses().__enter__()
        print(json.dumps({"port": web.port}), flush=True)
        while True:
            line = (await reader.readline()).decode().strip()
            if not line or line == "stop":
                break
            answer: dict[str, Any] = {"pages": web.live.count(), "cpu": time.process_time()}
            answer["lag"] = [percentile(lags, 50), percentile(lags, 99), max(lags, default=0.0)]
            answer["statements"] = statements[0]
            answer["gc"] = gc_pauses.take()
            answer["renders"] = [len(renders), percentile(renders, 50), percentile(renders, 99)]
            lags.clear()
            renders.clear()
            if line in ("measure", "trace on", "trace off"):
                gc.collect()
                answer["rss"] = _rss()
                if tracemalloc.is_tracing():
                    answer["traced"] = tracemalloc.get_traced_memory()[0]
                if line == "trace on":
                    tracemalloc.start(8)
                if line == "trace off" and tracemalloc.is_tracing():
                    stats = tracemalloc.take_snapshot().statistics("filename")
                    answer["by_file"] = [
                        [_short(s.traceback[0].filename), s.size] for s in stats[:6]
                    ]
                    tracemalloc.stop()
            print(json.dumps(answer), flush=True)
        watcher.cancel()


def _short(filename: str) -> str:
    root = str(ROOT) + os.sep
    if filename.startswith(root):
        return filename[len(root) :]
    return filename.rsplit("site-packages/", 1)[-1]


class BotProcess:
    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process

    async def ask(self, line: str) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(line.encode() + b"\n")
        await self.process.stdin.drain()
        answer = await asyncio.wait_for(self.process.stdout.readline(), 60)
        result: dict[str, Any] = json.loads(answer)
        return result


@dataclass
class Phase:
    name: str
    think: tuple[float, float]
    seconds: float = 0.0
    acts: list[Act] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)  # s, accepted plays and passes
    later: list[float] = field(default_factory=list)  # the same but each table's first
    undelivered: int = 0  # plays whose newer view had not reached every page by the end
    actions: int = 0  # table.seq moved by (every table, from the pages' views)
    finished_tables: int = 0
    cpu: float = 0.0  # the bot process's CPU seconds
    bot_lag: list[float] = field(default_factory=list)  # its event loop late by: p50, p99, max
    statements: int = 0  # SQL statements the bot ran
    renders: list[float] = field(default_factory=list)  # views rendered: count, p50 s, p99 s
    bot_gc: list[float] = field(default_factory=list)  # collections, full ones, longest s
    own_gc: list[float] = field(default_factory=list)
    own_cpu: float = 0.0  # this process's (the fake and the pages)
    lags: list[float] = field(default_factory=list)  # this process's event loop, late by
    calls: Counter[str] = field(default_factory=Counter)  # the bot's Bot API calls, by kind
    worst: list[tuple[float, int, int, str]] = field(default_factory=list)


@dataclass
class LoadResult:
    specs: list[TableSpec]
    pages: int = 0
    setup_seconds: float = 0.0
    memory: dict[str, Any] = field(default_factory=dict)
    phases: list[Phase] = field(default_factory=list)
    odd: list[str] = field(default_factory=list)
    backwards: int = 0
    view_bytes: list[int] = field(default_factory=list)  # each page's last view
    strings_bytes: list[int] = field(default_factory=list)  # of it, the strings table


async def run_load(tables: int, paowang_share: float, phases: list[Phase], seed: int) -> LoadResult:
    count_paowang = round(tables * paowang_share)
    specs = [TableSpec(n, "paowang" if n < count_paowang else "shuangkou") for n in range(tables)]
    result = LoadResult(specs)
    async with FakeTelegram() as fake:
        add_world(fake, specs)
        with tempfile.TemporaryDirectory(prefix="bench-web-load-") as folder:
            settings = web_settings(
                fake,
                Path(folder) / "bot.sqlite3",
                turn_seconds=900.0,  # no time-outs: the pages decide every turn
                reveal_seconds=900.0,
            )
            config = Path(folder) / "config.json"
            seeds = playable_seeds(tables, seed)
            config.write_text(json.dumps({"settings": settings, "seeds": seeds}), "utf-8")
            process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "bench.web",
                "--bot-process",
                str(config),
                cwd=ROOT,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
            )
            assert process.stdin is not None and process.stdout is not None
            try:
                hello = await asyncio.wait_for(process.stdout.readline(), 60)
                port = int(json.loads(hello)["port"])
                await _load(fake, BotProcess(process), port, result, phases)
                process.stdin.write(b"stop\n")
                await process.stdin.drain()
                await asyncio.wait_for(process.wait(), 60)
            finally:
                if process.returncode is None:
                    process.kill()
                    await process.wait()
    return result


async def _load(
    fake: FakeTelegram, bot: BotProcess, port: int, result: LoadResult, phases: list[Phase]
) -> None:
    specs = result.specs
    began = time.monotonic()
    gate = asyncio.Semaphore(10)

    async def start(spec: TableSpec) -> int:
        async with gate:
            return await start_table(fake, spec, timeout=300)

    games = await asyncio.gather(*(start(spec) for spec in specs))
    result.setup_seconds = time.monotonic() - began
    await asyncio.sleep(3.0)  # the deal's messages and the first prompts go out
    base = f"http://127.0.0.1:{port}/"
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as session:
        before = await bot.ask("trace on")
        opening = asyncio.Semaphore(20)

        async def pages_of(spec: TableSpec, game_id: int) -> list[Page]:
            async with opening:
                return await open_pages(fake, session, base, spec, game_id)

        tables = await asyncio.gather(*(pages_of(s, g) for s, g in zip(specs, games, strict=True)))
        await asyncio.sleep(1.0)
        after = await bot.ask("trace off")
        result.pages = sum(len(p) for p in tables)
        gc.collect()
        gc.freeze()  # the setup's objects stay out of this process's collections
        result.memory = {"before": before, "after": after}
        rng = random.Random(1)
        for phase in phases:
            await _phase(fake, bot, tables, phase, rng)
            result.phases.append(phase)
        for pages in tables:
            for page in pages:
                result.odd += page.odd
                result.backwards += page.backwards
                view = page.view()
                result.view_bytes.append(len(page.latest.encode()))
                strings = json.dumps(view.get("strings"), ensure_ascii=False, separators=(",", ":"))
                result.strings_bytes.append(len(strings.encode()))
                await page.close()


async def _phase(
    fake: FakeTelegram,
    bot: BotProcess,
    tables: list[list[Page]],
    phase: Phase,
    rng: random.Random,
) -> None:
    seqs = [max(p.seq for p in pages) for pages in tables]
    first = len(fake.requests)
    answer = await bot.ask("cpu")
    cpu, statements = answer["cpu"], answer["statements"]
    own_cpu = time.process_time()
    own_gc = GcPauses()
    own_gc.__enter__()
    start = time.perf_counter()

    async def watch_loop() -> None:  # how late this process's event loop wakes a sleeper
        while True:
            before = time.perf_counter()
            await asyncio.sleep(0.01)
            phase.lags.append(time.perf_counter() - before - 0.01)

    watcher = asyncio.create_task(watch_loop())
    deadline = start + phase.seconds
    persons = [
        Person(n, page, json_policy(random.Random(rng.random())), phase.think, rng, phase.acts)
        for n, pages in enumerate(tables)
        for page in pages
    ]
    for person in persons:
        person.deadline = deadline
        person.page.changed.set()  # look at the latest view now
    tasks = [asyncio.create_task(p.play()) for p in persons]
    await asyncio.sleep(phase.seconds)
    await asyncio.sleep(2.0)  # actions sent before the deadline are answered and pushed
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    watcher.cancel()
    own_gc.__exit__()
    phase.seconds = time.perf_counter() - start
    phase.own_cpu = time.process_time() - own_cpu
    answer = await bot.ask("cpu")
    phase.cpu = answer["cpu"] - cpu
    phase.bot_lag = answer["lag"]
    phase.statements = answer["statements"] - statements
    phase.renders = answer["renders"]
    phase.bot_gc = answer["gc"]
    phase.own_gc = own_gc.take()
    for record in fake.requests[first:]:
        if record.method == "getUpdates":
            continue
        where = "group" if (record.chat_id or 0) < 0 else "private" if record.chat_id else "none"
        phase.calls[where if record.status != 429 else f"{where} 429"] += 1
    for n, pages in enumerate(tables):
        end = max(p.seq for p in pages)
        phase.actions += end - seqs[n]
        if any(p.view()["status"] == "finished" for p in pages):
            phase.finished_tables += 1
    seen: set[int] = set()
    for act in phase.acts:
        if not act.accepted or act.kind not in ("play", "pass"):
            continue
        first_of_table = act.table not in seen
        seen.add(act.table)
        arrivals = [page.arrived(act.seq + 1, act.sent) for page in tables[act.table]]
        if any(a is None for a in arrivals):
            phase.undelivered += 1
            continue
        latest = max(a for a in arrivals if a is not None)
        phase.latencies.append(latest - act.sent)
        if not first_of_table:
            phase.later.append(latest - act.sent)
        phase.worst.append((latest - act.sent, act.table, act.seq, act.kind))
    phase.worst = sorted(phase.worst, reverse=True)[:5]


# ---- the report ----------------------------------------------------------------------------


def keyboards_figure(path: Path = RESULTS) -> dict[str, float] | None:
    """``bench.bot_calls``' 4-human game, from its section of the results file."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return None
    section = re.search(
        r"<!-- bench\.bot_calls:start -->(.*?)<!-- bench\.bot_calls:end -->", text, re.DOTALL
    )
    if section is None:
        return None
    header: list[str] = []
    for line in section.group(1).splitlines():
        cells = [c.strip().strip("*") for c in line.strip().strip("|").split("|")]
        if cells and cells[0] == "game":
            header = cells
        elif header and cells and cells[0] == KEYBOARDS_ROW and len(cells) == len(header):
            row = dict(zip(header, cells, strict=True))
            actions = int(row["actions (by humans; 要不起 of them)"].split()[0])
            return {
                "per_action": float(row["action calls / action"]),
                "selection_presses": float(row["selection presses"]),
                "per_press": float(row["selection calls / press"]),
                "actions": actions,
                "minutes": float(row["min"]),
            }
    return None


def _tables_at(per_action: float, seconds: float = ASSUMED_SECONDS_PER_ACTION) -> str:
    return f"{TELEGRAM_OVERALL * seconds / per_action:,.0f}" if per_action else "∞"


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def _kib(value: float) -> str:
    return f"{value / 1024:,.1f} KiB"


BOX_COLUMNS = (
    ("group send", "group sends"),
    ("group edit", "group edits"),
    ("group delete", "group deletes"),
    ("private send", "private sends"),
    ("private edit", "private edits"),
)


def calls_report(results: list[GameCalls], no_chat: dict[str, int]) -> list[str]:
    header = [
        "game",
        "actions (page plays; 要不起 by the bot; 亮王 answers)",
        "s / action",
        *(name for _, name in BOX_COLUMNS),
        "other (429s)",
        "calls",
        "calls / action",
    ]
    rows = []
    totals: dict[str, GameCalls] = {}
    for result in results:
        name = f"{VARIANT_ARG[result.spec.variant]} #{result.spec.index + 1}"
        rows.append(_calls_row(name, result))
        total = totals.setdefault(result.spec.variant, GameCalls(result.spec, 0))
        total.actions += result.actions
        total.page_plays += result.page_plays
        total.auto_passes += result.auto_passes
        total.gate_answers += result.gate_answers
        total.seconds += result.seconds
        total.boxes.update(result.boxes)
        total.refused += result.refused
    for variant, total in totals.items():
        count = sum(1 for r in results if r.spec.variant == variant)
        rows.append(_calls_row(f"**{VARIANT_ARG[variant]}, all {count}**", total, bold=True))
    lines = [markdown_table(header, rows), ""]
    refused = sum(r.refused for r in results)
    lines.append(
        f"Page actions refused: {refused}. Requests in the window naming no chat (getUpdates "
        f"left out): {', '.join(f'{k} {v}' for k, v in sorted(no_chat.items())) or 'none'}."
    )
    return lines


def _calls_row(name: str, result: GameCalls, *, bold: bool = False) -> list[str]:
    b = result.boxes
    known = {key for key, _ in BOX_COLUMNS}
    other = sum(v for k, v in b.items() if k not in known)
    limited = sum(v for k, v in b.items() if k.endswith("429"))
    per = result.calls / result.actions if result.actions else 0.0
    figure = f"{per:.2f}"
    return [
        name,
        f"{result.actions} ({result.page_plays}; {result.auto_passes}; {result.gate_answers})",
        f"{result.seconds / result.actions:.2f}" if result.actions else "–",
        *(str(b[key]) for key, _ in BOX_COLUMNS),
        f"{other} ({limited})",
        str(result.calls),
        f"**{figure}**" if bold else figure,
    ]


def capacity_lines(results: list[GameCalls], keyboards: dict[str, float] | None) -> list[str]:
    seconds = ASSUMED_SECONDS_PER_ACTION
    header = ["how people play", "calls / action", f"busy tables at {TELEGRAM_OVERALL:g} calls/s"]
    rows = []
    if keyboards:
        rows.append(
            [
                "keyboards, 4 humans (`bench.bot_calls`, action calls only)",
                f"{keyboards['per_action']:.2f}",
                _tables_at(keyboards["per_action"]),
            ]
        )
        everything = (
            keyboards["per_action"]
            + keyboards["selection_presses"] * keyboards["per_press"] / keyboards["actions"]
        )
        rows.append(
            [
                "keyboards, 4 humans, with the selection calls (提示, card toggles)",
                f"{everything:.2f}",
                _tables_at(everything),
            ]
        )
    private_rate = 0.0
    for variant in ("shuangkou", "paowang"):
        chosen = [r for r in results if r.spec.variant == variant]
        actions = sum(r.actions for r in chosen)
        calls = sum(r.calls for r in chosen)
        if not actions:
            continue
        per = calls / actions
        rows.append(
            [
                f"pages, {HUMANS[variant]} humans, {VARIANT_ARG[variant]} (all calls)",
                f"{per:.2f}",
                _tables_at(per),
            ]
        )
        private = sum(v for r in chosen for k, v in r.boxes.items() if k.startswith("private"))
        private_rate = max(private_rate, private / actions)
    lines = [
        f"Busy tables one bot can hold under Telegram's {TELEGRAM_OVERALL:g} calls a second "
        f"overall, assuming an action every {seconds:g} s at each table (a human decides "
        f"every {seconds:g} s on average): {TELEGRAM_OVERALL:g} × {seconds:g} / "
        "(calls per action).",
        "",
        markdown_table(header, rows),
        "",
    ]
    if keyboards:
        pace = keyboards["minutes"] * 60 / keyboards["actions"]
        lines.append(
            f"The keyboards figure was measured at {pace:.2f} s an action, the pages' games "
            "at the s / action above. Group messages are paced by time, not by actions (at "
            "most one request every 3 s per group: the bot's 20 a minute), so a slower table "
            "spends more of them per action, but never more than 0.33 a second. With pages a "
            "table therefore costs at most 0.33 group calls a second plus "
            f"{private_rate:.2f} private calls per action (the most of either variant above), "
            f"whatever the pace: {TELEGRAM_OVERALL:g} calls a second hold at least "
            f"{TELEGRAM_OVERALL / (1 / 3 + private_rate / seconds):,.0f} busy tables at an "
            f"action every {seconds:g} s, even if every group got its full 20 a minute."
        )
    return lines


def load_report(result: LoadResult) -> list[str]:
    counts = Counter(s.variant for s in result.specs)
    lines = [
        f"{len(result.specs)} tables at once ({counts['shuangkou']} 双扣 with 4 humans, "
        f"{counts['paowang']} 刨王 with 5), {result.pages} pages, each with its live socket "
        f"open the whole run; lobbies and deals took {result.setup_seconds:.0f} s (setup, not "
        "measured). Phases one after the other on the same pages, the games going on.",
        "",
    ]
    header = [
        "phase",
        "plays and passes timed",
        "p50 ms",
        "p95 ms",
        "p99 ms",
        "max ms",
        "POST answered p50 / p99 ms",
        "not at every page by the end",
    ]
    rows = []
    for phase in result.phases:
        plays = [a for a in phase.acts if a.kind in ("play", "pass") and a.accepted]
        answered = [a.answered - a.sent for a in plays]
        firsts: set[int] = set()
        later = []
        for act in plays:
            if act.table in firsts:
                later.append(act.answered - act.sent)
            firsts.add(act.table)
        for name, values, posts in (
            (f"{phase.name}: all", phase.latencies, answered),
            (f"{phase.name}: all but each table's first", phase.later, later),
        ):
            rows.append(
                [
                    name,
                    str(len(values)),
                    _ms(percentile(values, 50)),
                    _ms(percentile(values, 95)),
                    f"**{_ms(percentile(values, 99))}**",
                    _ms(max(values, default=float("nan"))),
                    f"{_ms(percentile(posts, 50))} / {_ms(percentile(posts, 99))}",
                    str(phase.undelivered) if values is phase.latencies else "",
                ]
            )
    lines += [
        markdown_table(header, rows),
        "",
        "*Each table's first*: its first play after the pages opened. It used to await the "
        "edit that retires the hand prompt sent before the page was open; the prompt is now "
        "retired when the page opens. The second row leaves that play out of each table.",
        "",
    ]
    header = [
        "phase",
        "s",
        "plays + passes sent (refused: too fast)",
        "table actions / s",
        "bot: CPU; loop late p99 / max ms; GC runs (full), longest ms",
        "SQL statements / action",
        "views rendered / action; ms each p50 / p99",
        "this process: CPU; loop late p99 / max ms; GC runs (full), longest ms",
        "bot calls / action (group; private; 429s)",
    ]
    rows = []
    for phase in result.phases:
        plays = [a for a in phase.acts if a.kind in ("play", "pass")]
        refused = sum(1 for a in plays if not a.accepted)
        calls = sum(v for k, v in phase.calls.items())
        limited = sum(v for k, v in phase.calls.items() if k.endswith("429"))
        actions = phase.actions or 1
        count, r50, r99 = phase.renders
        rows.append(
            [
                phase.name,
                f"{phase.seconds:.0f}",
                f"{len(plays)} ({refused})",
                f"{phase.actions / phase.seconds:.1f}",
                f"{phase.cpu / phase.seconds:.0%} of a core; "
                f"{_ms(phase.bot_lag[1])} / {_ms(phase.bot_lag[2])}; "
                f"{phase.bot_gc[0]:.0f} ({phase.bot_gc[1]:.0f}), {_ms(phase.bot_gc[2])}",
                f"{phase.statements / actions:.1f}",
                f"{count / actions:.1f}; {_ms(r50)} / {_ms(r99)}",
                f"{phase.own_cpu / phase.seconds:.0%} of a core; "
                f"{_ms(percentile(phase.lags, 99))} / {_ms(max(phase.lags, default=0.0))}; "
                f"{phase.own_gc[0]:.0f} ({phase.own_gc[1]:.0f}), {_ms(phase.own_gc[2])}",
                f"{calls / actions:.2f} ({phase.calls['group']}; {phase.calls['private']}; "
                f"{limited})",
            ]
        )
    lines += [
        markdown_table(header, rows),
        "",
        "Table actions: every step of `seq` (the bot's 要不起 passes too). In the bot process: "
        "SQL statements counted by SQLite's trace callback; views rendered = calls of "
        "`WebTable.view_for` (each page's live view and each POST's answer), timed by "
        "wrapping it (it runs under the table's lock for the live views); *loop late* = how "
        "much later than asked a 10 ms sleep wakes, in each process; GC = the collector's "
        "runs in the phase and its longest pause.",
        "",
    ]
    for phase in result.phases:
        worst = ", ".join(
            f"{_ms(s)} ms (table {t + 1}, {k} at seq {q})" for s, t, q, k in phase.worst[:3]
        )
        lines.append(
            f"- {phase.name}: {len(phase.latencies)} plays and passes timed; "
            f"{phase.finished_tables} of {len(result.specs)} games had ended by the phase's end; "
            f"slowest: {worst or 'none'}"
        )
    gate = [
        a.answered - a.sent
        for phase in result.phases
        for a in phase.acts
        if a.kind in ("reveal", "decline", "ready") and a.accepted
    ]
    if gate:
        lines.append(
            f"- 亮王 gate answers (刨王; not in the latency above, a 知道了 changes no `seq`): "
            f"{len(gate)}, `POST /api/action` answered in p50 {_ms(percentile(gate, 50))} / "
            f"p99 {_ms(percentile(gate, 99))} / max {_ms(max(gate))} ms"
        )
    lines.append(
        f"- Live messages that were no view: {len(result.odd)}"
        + (f" ({result.odd[0]!r})" if result.odd else "")
        + f"; views older than one the page had already received: {result.backwards}"
    )
    if result.view_bytes:
        size = sum(result.view_bytes) / len(result.view_bytes)
        strings = sum(result.strings_bytes) / len(result.strings_bytes)
        lines.append(
            f"- A live view is {size / 1024:.1f} KiB of JSON on average (each page's last), "
            f"{strings / 1024:.1f} KiB of it the page's strings table (first view only)"
        )
    before, after = result.memory.get("before", {}), result.memory.get("after", {})
    if before and after and result.pages:
        rss = (after["rss"] - before["rss"]) / result.pages
        traced = after.get("traced", 0) / result.pages
        top = ", ".join(f"{name} {_kib(size)}" for name, size in after.get("by_file", [])[:4])
        lines += [
            "",
            f"Memory per open connection, in the bot process: **{_kib(rss)}** of RSS "
            f"((RSS with all {after['pages']} pages connected, each with its first view − RSS "
            f"just before the first connected: {before['rss'] / 2**20:,.1f} → "
            f"{after['rss'] / 2**20:,.1f} MiB) / {result.pages}); **{_kib(traced)}** of Python "
            "allocations still live (tracemalloc, started just before the first page connected "
            f"and stopped once all had, / {result.pages}). Biggest by file: {top}.",
        ]
    return lines


def report(
    calls: list[GameCalls],
    no_chat: dict[str, int],
    load: LoadResult | None,
    start: tuple[str, str, str],
    command: str,
    think: tuple[float, float],
) -> str:
    keyboards = keyboards_figure()
    lines = [
        "## The web table: calls per action, live-view latency, memory (`bench.web`)",
        "",
        f"`{command}`",
        "",
        *machine_lines(start),
        "- The bot with its default settings (group budget 20 a minute; the overall rate "
        "limiter at 30 a second; 1.2 s before a 要不起 pass) and the web table on 127.0.0.1; "
        "the fake with Telegram's limits (20 a minute per group, 1 a second per private chat "
        "with 3 at once, 30 a second overall). Every human plays on a page: signed initData, "
        "the game from the 🃏 牌桌 button of their hand message, the live WebSocket open, "
        "actions as `POST /api/action`; pages decide from the views they receive",
        "",
        "### Bot API calls per action, every seat on a page",
        "",
        f"All {len(calls)} games at once, each in its own group, one bot in this process; "
        f"fixed seeds. Each person thinks {think[0]:g}–{think[1]:g} s (uniform) before a "
        "decision; what to play is the bot's AI player's choice from the seat's view. Counted: "
        "every request the bot made for the game's group or its players' private chats, from "
        "the moment every page of the game had its first view to the result sent and the "
        "group's channel drained (the lobby, the deal and the first prompt come before); a 429 "
        "answer counts as a call. Per action = per step of `table.seq`: plays and passes from "
        "the pages, the bot's 要不起 passes (双扣), the 亮王 answers (刨王).",
        "",
        *calls_report(calls, no_chat),
        "",
        *capacity_lines(calls, keyboards),
        "",
    ]
    if load is not None:
        lines += [
            "### Many tables at once: live-view latency and memory",
            "",
            "The bot in a child process (`--bot-process`), so its event loop serves only the "
            "bot; the fake and every page in this one; the 2 cores shared. Latency: from just "
            "before a play's or pass's `POST /api/action` is sent to the moment the first view "
            "with a newer `seq` has arrived at every open page of the table (the acting one "
            "included) over its WebSocket, as this process's reader takes it (so this "
            "process's own event loop delay is in it). What to play: the cheapest legal play, "
            "or 不出 a quarter of the times a page may pass; 亮王 half the time. Only plays and "
            "passes are timed (not 亮王 answers).",
            "",
            *load_report(load),
            "",
        ]
    lines += verdict(calls, load)
    return "\n".join(lines)


def verdict(calls: list[GameCalls], load: LoadResult | None) -> list[str]:
    lines = []
    for variant in ("shuangkou", "paowang"):
        chosen = [r for r in calls if r.spec.variant == variant]
        actions = sum(r.actions for r in chosen)
        if not actions:
            continue
        per = sum(r.calls for r in chosen) / actions
        met = "met" if per <= GOAL_CALLS_PER_ACTION else f"**missed** by {per - 0.5:.2f}"
        lines.append(
            f"- Calls per action, {VARIANT_ARG[variant]} on pages: {per:.2f}: goal ≤ "
            f"{GOAL_CALLS_PER_ACTION:g} {met}."
        )
    if load is not None:
        goal = GOAL_P99 * 1000
        for phase in load.phases:
            for which, values in (
                ("", phase.latencies),
                (", each table's first left out", phase.later),
            ):
                p99 = percentile(values, 99)
                met = (
                    "met" if p99 <= GOAL_P99 else f"**missed** by {(p99 - GOAL_P99) * 1000:.0f} ms"
                )
                lines.append(
                    f"- Latency to every page, {phase.name}{which}: p99 {_ms(p99)} ms: goal ≤ "
                    f"{goal:g} ms {met}."
                )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.web", description=__doc__)
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
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("--bot-process", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.bot_process:
        return _bot_process(args.bot_process)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    start = started()
    began = time.monotonic()
    calls: list[GameCalls] = []
    no_chat: dict[str, int] = {}
    think = (float(args.think[0]), float(args.think[1]))
    if args.only != "load":
        print(f"calls: {args.games} games of each variant ...", file=sys.stderr, flush=True)
        calls, no_chat = asyncio.run(run_calls(args.games, think, args.seed))
    load = None
    if args.only != "calls":
        print(f"latency: {args.tables} tables ...", file=sys.stderr, flush=True)
        low, high = args.load_think
        phases = [
            Phase(f"think {low:g}–{high:g} s", (low, high), args.seconds),
            Phase("as fast as they can", (0.0, 0.0), args.seconds),
        ]
        load = asyncio.run(run_load(args.tables, args.paowang_share, phases, args.seed))
    given = list(argv if argv is not None else sys.argv[1:])
    command = " ".join([".venv/bin/python -m bench.web", *given])
    body = report(calls, no_chat, load, start, command, think)
    print(body)
    print(f"(run took {time.monotonic() - began:.0f} s)", file=sys.stderr)
    if not args.no_write:
        write_section(SECTION, body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
