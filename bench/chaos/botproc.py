"""The bot of a chaos run: ``python -m bot run`` started, SIGKILLed and started again, stopped.

With ``--standby`` two instances run on one PostgreSQL database: a SIGKILL of the active one
is followed by the standby's takeover (timed from the kill to its first poll), and the killed
one is started again as the new standby."""

from __future__ import annotations

import asyncio
import signal
import time
from collections import Counter

from bench.botrun import bot_env, first_poll, run_bot, terminate
from bench.chaos.model import BOT_ENV, DEAD_FOR, STARTUP_TIMEOUT, BotDown, ChaosState
from bench.chaos.report import counts


class BotControl(ChaosState):
    """The bot's process: its starts (each waits for the first poll), kills and the stop."""

    async def start_bot(self) -> None:
        """Start ``python -m bot run`` and wait for its first poll (it recovered its games)."""
        fake = self.fake
        env = self._env()
        for attempt in range(3):
            since = len(fake.requests)
            begun = time.monotonic()
            process = await run_bot(env, self.log)
            self.process = process
            if await first_poll(fake, process, since, STARTUP_TIMEOUT):
                took = time.monotonic() - begun
                self.ready_wall = time.time()
                self.stats.restart_seconds.append(took)
                made = Counter(r.method for r in fake.requests[since:] if r.method != "getUpdates")
                self.stats.starts.append(
                    f"{took:.1f} s, {sum(made.values())} requests before the first poll"
                    + (f" ({counts(made)})" if made else "")
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

    def _env(self) -> dict[str, str]:
        env = bot_env(self.fake, self.db_path, **BOT_ENV)
        if self.database_url is not None:
            env["DATABASE_URL"] = self.database_url
        return env

    async def start_standby(self) -> None:
        """Start an instance that waits for the lease (it does not poll while it waits)."""
        self.standby = await run_bot(self._env(), self.log)

    async def kill_and_restart(self) -> None:
        if self.standby is not None:
            await self._kill_and_take_over()
            return
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

    async def _kill_and_take_over(self) -> None:
        process, standby = self.process, self.standby
        assert process is not None and standby is not None
        since = len(self.fake.requests)
        killed = time.monotonic()
        process.send_signal(signal.SIGKILL)
        await process.wait()
        self.stats.kills += 1
        try:
            # the killed one can poll no more: the next poll is the standby's, once it holds
            # the lease and has recovered every game
            if not await first_poll(self.fake, standby, since, STARTUP_TIMEOUT):
                self.stats.start_failures.append(
                    f"the standby did not take over (exit code {standby.returncode})"
                )
                raise BotDown("the standby did not take over")
            took = time.monotonic() - killed
            self.ready_wall = time.time()
            self.stats.takeover_seconds.append(took)
            self.stats.starts.append(f"takeover {took:.2f} s after the SIGKILL")
            self.process = standby
            await asyncio.sleep(self.rng.uniform(*DEAD_FOR))  # then the killed one comes back
            await self.start_standby()
        finally:
            self.kill_windows.append((killed, time.monotonic()))

    async def stop_bot(self) -> None:
        standby = self.standby
        running = standby is not None and standby.returncode is None
        if running and standby is not None and not await terminate(standby):
            self.stats.start_failures.append("the standby did not stop within 30 s")
        process = self.process
        if process is None or process.returncode is not None:
            return
        if not await terminate(process):
            self.stats.start_failures.append("the bot did not stop within 30 s of SIGTERM")
