"""The bot's side of a load run: the bot in its own process, instrumented, and what it measured."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import time
import tracemalloc
from collections import Counter
from dataclasses import asdict
from pathlib import Path
from typing import Any

from bench.harness import (
    GcPauses,
    child_config,
    count_statements,
    rss,
    short_name,
    stdin_lines,
)
from bot.edge.app import running_application


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


def _memory() -> dict[str, int]:
    traced = tracemalloc.get_traced_memory()[0] if tracemalloc.is_tracing() else 0
    return {"rss": rss(), "traced": traced}


async def _serve(config: dict[str, Any]) -> dict[str, Any]:
    from bot.config import Settings
    from bot.edge.app import build_application
    from bot.edge.metrics import UpdateTimings, instrument

    application = build_application(Settings(**config["settings"]))
    updates = instrument(application)
    jobs = UpdateTimings()
    reader = await stdin_lines()
    memory: list[dict[str, Any]] = []

    async with running_application(application):
        service = application.bot_data["service"]
        service.deps.scheduler = _TimedScheduler(service.scheduler, jobs)
        statements = await count_statements(application)
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
        with GcPauses() as gc_pauses:
            print("ready", flush=True)
            await reader.readline()
            cpu, wall = time.process_time() - cpu, time.monotonic() - wall
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
        from bot.game.players import decompose, paowang_plan, shuangkou_plan

        whole = paowang_plan.remembered_plan.cache_info()
        plans = {
            "shuangkou": len(shuangkou_plan._DECOMPOSER),
            "paowang": len(paowang_plan._DECOMPOSER),
            "paowang whole hands": whole.currsize,
        }
        limits = {
            "shuangkou": decompose._CACHE_LIMIT, "paowang": decompose._CACHE_LIMIT,
            "paowang whole hands": whole.maxsize,
        }
    return {
        "updates": [asdict(s) for s in updates.samples],
        "jobs": [asdict(s) for s in jobs.samples],
        "memory": {"baseline": baseline, "samples": memory, "after": after},
        "open_tables_after": open_tables,
        "cached_players_after": cached_players,
        "plan_cache_entries": plans,
        "plan_cache_limits": limits,
        "cpu_seconds": cpu,
        "sql_statements": statements[0],
        "gc_pauses": gc_pauses.pauses,
        "wall_seconds": wall,
        "allocations": {
            name: _by_file(snapshots[name], snapshots["baseline"])
            for name in ("peak", "after")
            if name in snapshots
        },
    }


def _by_file(snapshot: tracemalloc.Snapshot, baseline: tracemalloc.Snapshot) -> dict[str, int]:
    """Growth since the baseline by the file that allocated, the biggest first."""
    growth: Counter[str] = Counter()
    for stat in snapshot.compare_to(baseline, "traceback"):
        # the newest frame that is a file (not code made by exec, as dataclasses and named
        # tuples make their methods)
        names = [f.filename for f in reversed(stat.traceback)]
        name = next((n for n in names if not n.startswith("<")), names[0])
        growth[short_name(name)] += stat.size_diff
    return dict(growth.most_common())


def bot_process_main(config_path: str) -> int:
    """The child process: serve until told to stop, then write what was measured."""
    config = child_config(config_path)
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
