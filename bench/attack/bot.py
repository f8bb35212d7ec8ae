"""The bot under attack: ``python -m bot run`` in a child process, and what /proc says of it."""

from __future__ import annotations

import asyncio
import contextlib
import resource
from pathlib import Path
from typing import IO

from bench.botrun import ProcSample, bot_env, first_poll, free_port, proc_sample, run_bot, terminate
from bench.web.tables import WEBAPP_URL
from fakebot import FakeTelegram

STARTUP_TIMEOUT = 120.0
BOT_ENV = {
    "WEBAPP_URL": WEBAPP_URL,
    "WEB_LISTEN": "127.0.0.1",
    "TURN_SECONDS": "900",  # people take their time; no timer moves a game during a run
    "REVEAL_SECONDS": "900",
}


class BotRun:
    """``python -m bot run`` on the run's database, its stderr appended to the run's log."""

    def __init__(self, fake: FakeTelegram, folder: Path) -> None:
        self.fake = fake
        self.db_path = folder / "bot.sqlite3"
        self.log_path = folder / "bot.log"
        self.process: asyncio.subprocess.Process | None = None
        self.port = 0
        self.nofile: int | None = None

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def log_size(self) -> int:
        try:
            return self.log_path.stat().st_size
        except OSError:
            return 0

    async def start(self, nofile: int | None = None) -> None:
        """Start the bot (with at most ``nofile`` open files) and wait for its first poll."""
        fake = self.fake
        self.port = free_port()
        self.nofile = nofile
        env = bot_env(fake, self.db_path, WEB_PORT=str(self.port), **BOT_ENV)

        def limit_files() -> None:  # runs in the child, before it becomes the bot
            if nofile is not None:
                resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

        since = len(fake.requests)
        log: IO[bytes]
        with open(self.log_path, "ab") as log:
            self.process = await run_bot(
                env, log, stdin=asyncio.subprocess.DEVNULL, preexec_fn=limit_files
            )
        if not await first_poll(fake, self.process, since, STARTUP_TIMEOUT):
            await self.stop()
            raise RuntimeError(f"the bot did not start; see {self.log_path}")

    async def stop(self) -> None:
        process, self.process = self.process, None
        if process is None or process.returncode is not None:
            return
        await terminate(process)


class Monitor:
    """The bot process's open files and memory, sampled every 0.5 s: the peaks."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.first = proc_sample(pid)
        self.peak_files = self.first.files
        self.peak_rss = self.first.rss
        self._task = asyncio.create_task(self._watch())

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(0.5)
            self._note(proc_sample(self.pid))

    def _note(self, sample: ProcSample) -> None:
        self.peak_files = max(self.peak_files, sample.files)
        self.peak_rss = max(self.peak_rss, sample.rss)

    async def stop(self) -> ProcSample:
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        last = proc_sample(self.pid)
        self._note(last)
        return last
