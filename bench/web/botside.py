"""The bot's side of ``bench.web``'s latency part: the bot in its own process, answering what it
measured on each question from the parent."""

from __future__ import annotations

import asyncio
import gc
import json
import time
import tracemalloc
from typing import Any

from bench.botrun import percentile
from bench.harness import (
    GcPauses,
    child_config,
    count_statements,
    rss,
    short_name,
    stdin_lines,
    watch_loop,
)
from bench.web.tables import seeds_in_order
from bot.config import Settings
from bot.edge.app import build_application, running_application


def bot_process_main(config_path: str) -> int:
    """The child process: serve until told to stop."""
    asyncio.run(_serve(child_config(config_path)))
    return 0


async def _serve(config: dict[str, Any]) -> None:
    """The bot, answering this process's questions on stdin with one JSON line each."""
    application = build_application(
        Settings(**config["settings"]), new_seed=seeds_in_order(config["seeds"])
    )
    reader = await stdin_lines()
    lags: list[float] = []  # how late the bot's event loop wakes a sleeper

    async with running_application(application):
        web = application.bot_data["web"]
        watcher = asyncio.create_task(watch_loop(lags))
        statements = await count_statements(application)
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
                answer["rss"] = rss()
                if tracemalloc.is_tracing():
                    answer["traced"] = tracemalloc.get_traced_memory()[0]
                if line == "trace on":
                    tracemalloc.start(8)
                if line == "trace off" and tracemalloc.is_tracing():
                    stats = tracemalloc.take_snapshot().statistics("filename")
                    answer["by_file"] = [
                        [short_name(s.traceback[0].filename), s.size] for s in stats[:6]
                    ]
                    tracemalloc.stop()
            print(json.dumps(answer), flush=True)
        watcher.cancel()
