"""The harness ``bench.load`` and ``bench.web`` share: the bot in a child process, what it costs
there (memory, collector pauses, loop lag, SQL statements), and lobbies opened as people do
(``bench.bot_calls`` opens its lobby with it too).

The parent writes the child's config as JSON and starts ``python -m <bench> --bot-process
CONFIG``; the child answers on stdout, one line at a time, and stops at ``stop`` on stdin. What
the lines say is each benchmark's own business.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import os
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from bench.botrun import ROOT
from fakebot import FakeMessage, FakeTelegram

VARIANT_ARG = {"shuangkou": "双扣", "paowang": "刨王"}


#: the databases a benchmark can run the bot on, as its report names them
DATABASE_NAMES = {"sqlite": "SQLite", "postgresql": "PostgreSQL"}


def add_databases_option(parser: Any, runs: str) -> None:
    """``--databases sqlite postgresql``: run ``runs`` on each (PostgreSQL: a throwaway
    local cluster, bench/pgcluster.py)."""
    parser.add_argument(
        "--databases",
        nargs="+",
        choices=tuple(DATABASE_NAMES),
        default=["sqlite"],
        help=f"run {runs} on each (PostgreSQL: a throwaway local cluster)",
    )


def fake_settings(fake: FakeTelegram, db_path: Path, **overrides: Any) -> dict[str, Any]:
    """The bot's settings (``Settings`` keywords) pointed at the fake, plus ``overrides``."""
    return {
        "telegram_bot_token": fake.token,
        "telegram_api_base_url": fake.base_url,
        "database_path": str(db_path),
        **overrides,
    }


async def open_lobby(
    fake: FakeTelegram,
    group: int,
    variant: str,
    people: list[int],
    opener: int,
    timeout: float,
) -> FakeMessage:
    """/start by each of ``people``, /newgame by ``opener``, 加入 by the others of them: the
    lobby message. ``opener`` may be no one of ``people`` (a table of computers only)."""
    for user_id in people:
        await fake.send_text(user_id, user_id, "/start")
    await fake.wait_for(
        lambda: all(fake.chat(u).bot_messages for u in people), timeout, what="hellos"
    )
    await fake.send_text(opener, group, f"/newgame {VARIANT_ARG[variant]}")
    lobby = await fake.wait_for_message(group, contains="等待玩家", timeout=timeout)
    for user_id in people:
        if user_id != opener:
            await (await fake.press(user_id, group, lobby.message_id, "加入")).answered(timeout)
    return lobby


# ---- the parent's side ---------------------------------------------------------------------


class BotProcess:
    """The bot's child process, seen from the benchmark: lines to its stdin, lines back."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process

    @property
    def returncode(self) -> int | None:
        return self.process.returncode

    async def hello(self, timeout: float = 60.0) -> bytes:
        """The first line the bot writes, once it is ready."""
        assert self.process.stdout is not None
        return await asyncio.wait_for(self.process.stdout.readline(), timeout)

    async def ask(self, line: str) -> dict[str, Any]:
        """Send one line; the JSON line that answers it."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(line.encode() + b"\n")
        await self.process.stdin.drain()
        answer = await asyncio.wait_for(self.process.stdout.readline(), 60)
        result: dict[str, Any] = json.loads(answer)
        return result

    async def stop(self, timeout: float) -> None:
        """Tell the bot to stop and wait for it to exit."""
        assert self.process.stdin is not None
        self.process.stdin.write(b"stop\n")
        await self.process.stdin.drain()
        await asyncio.wait_for(self.process.wait(), timeout)


@contextlib.asynccontextmanager
async def bot_process(
    module: str, folder: Path, config: dict[str, Any]
) -> AsyncIterator[BotProcess]:
    """``python -m <module> --bot-process CONFIG`` with ``config`` written into ``folder``;
    killed on the way out if it has not exited by then."""
    path = folder / "config.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        module,
        "--bot-process",
        str(path),
        cwd=ROOT,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        yield BotProcess(process)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


# ---- the child's side ----------------------------------------------------------------------


def child_config(config_path: str) -> dict[str, Any]:
    """The config the parent wrote; the child's log lines marked as the bot's (they share the
    terminal with the parent's)."""
    config: dict[str, Any] = json.loads(Path(config_path).read_text(encoding="utf-8"))
    logging.basicConfig(level=logging.WARNING, format="bot: %(levelname)s %(name)s: %(message)s")
    return config


async def stdin_lines() -> asyncio.StreamReader:
    """This process's stdin, read without blocking the event loop."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    return reader


async def count_statements(application: Any) -> list[int]:
    """The SQL statements the bot runs from now on (BEGIN and COMMIT included), counted at the
    database's driver, whichever it is: a one-item list, so the count can be read as it grows."""
    statements = [0]
    connection = application.bot_data["db"]._connection

    def counted(call: Any) -> Any:
        async def counting(*args: Any) -> Any:
            statements[0] += 1
            return await call(*args)

        return counting

    for name in ("fetch", "begin", "commit", "rollback"):
        setattr(connection, name, counted(getattr(connection, name)))
    return statements


def rss() -> int:
    """This process's resident memory, bytes."""
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def short_name(filename: str) -> str:
    """A source file's name as the report shows it: from the repository, or from
    site-packages for a library."""
    root = str(ROOT) + os.sep
    if filename.startswith(root):
        return filename[len(root) :]
    return filename.rsplit("site-packages/", 1)[-1]


class GcPauses:
    """The garbage collector's pauses in this process while entered: (generation, when it
    began by ``perf_counter``, seconds) each."""

    def __init__(self) -> None:
        self.pauses: list[tuple[int, float, float]] = []
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
            self.pauses.append((info["generation"], self._began, time.perf_counter() - self._began))

    def take(self) -> list[float]:
        """[collections, full ones, the longest pause s], and forget them."""
        pauses, self.pauses = self.pauses, []
        full = sum(1 for generation, _, _ in pauses if generation == 2)
        return [len(pauses), full, max((p for _, _, p in pauses), default=0.0)]


async def watch_loop(lags: list[float], period: float = 0.01) -> None:
    """Until cancelled: how much later than asked the event loop wakes a ``period`` sleep,
    appended to ``lags`` (the loop's own delay, which every timing in it includes)."""
    while True:
        before = time.perf_counter()
        await asyncio.sleep(period)
        lags.append(time.perf_counter() - before - period)
