"""Part 2 of ``bench.web``: many tables of pages at once, the bot in a child process; the live
views' latency to every page, and what the bot spent."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import random
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from bench.harness import BotProcess, GcPauses, bot_process, watch_loop
from bench.pgcluster import LIKE_SQLITE, create_database, throwaway_cluster
from bench.web.pages import Act, Page, Person, json_policy
from bench.web.tables import (
    TableSpec,
    add_world,
    open_pages,
    playable_seeds,
    start_table,
    web_settings,
)
from fakebot import FakeTelegram


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


async def run_load(
    tables: int, paowang_share: float, phases: list[Phase], seed: int, database: str = "sqlite"
) -> LoadResult:
    """The latency part on ``database`` (``postgresql``: a throwaway local cluster)."""
    count_paowang = round(tables * paowang_share)
    specs = [TableSpec(n, "paowang" if n < count_paowang else "shuangkou") for n in range(tables)]
    result = LoadResult(specs)
    async with FakeTelegram() as fake:
        add_world(fake, specs)
        with (
            tempfile.TemporaryDirectory(prefix="bench-web-load-") as folder,
            contextlib.ExitStack() as stack,
        ):
            where: dict[str, str] = {}
            if database == "postgresql":
                cluster = stack.enter_context(throwaway_cluster(LIKE_SQLITE))
                where["database_url"] = await create_database(cluster, "bench")
            settings = web_settings(
                fake,
                Path(folder) / "bot.sqlite3",
                turn_seconds=900.0,  # no time-outs: the pages decide every turn
                reveal_seconds=900.0,
                **where,
            )
            config = {"settings": settings, "seeds": playable_seeds(tables, seed)}
            async with bot_process("bench.web", Path(folder), config) as bot:
                port = int(json.loads(await bot.hello())["port"])
                await _load(fake, bot, port, result, phases)
                await bot.stop(60)
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
    watcher = asyncio.create_task(watch_loop(phase.lags))
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
