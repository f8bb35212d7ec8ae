"""The chaos makers: the killer of the bot, Telegram's faults, the spammer."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time

from bench.chaos.botproc import BotControl
from bench.chaos.model import (
    ALIVE_AT_LEAST,
    FAULT_GAP,
    FAULT_KINDS,
    FAULT_METHODS,
    FAULT_STRETCH,
    KILLS,
    SPAM_COMMANDS,
    SPAM_GROUP,
    SPAM_SECONDS,
    SPAMMER,
    BotDown,
)


class Makers(BotControl):
    """What goes wrong during the chaos, each on its own schedule until the chaos is over."""

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
