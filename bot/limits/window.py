"""One sliding window of requests: at most ``limit`` in any ``period`` seconds, measured the way
Telegram's side sees it.

The rules, each for a reason:

- a sliding window, not a token bucket: a bucket lets a full burst through on top of a full
  window, and Telegram counts windows;
- a request holds its place while it is in flight and counts from when it returned: one held
  back (a 429 retried, a slow network) may reach Telegram late, and counted from when it left
  here it would let the next ones through too early;
- first come, first served (an ``asyncio.Lock`` is fair): a waiter cannot be overtaken
  indefinitely.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager


class FlightWindow:
    """At most ``limit`` requests in flight or returned within the last ``period`` seconds."""

    def __init__(
        self,
        limit: int,
        period: float,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        """``clock`` and ``sleep`` are the time the window is measured in, and the way to wait
        in it (tests pass a manual clock whose sleep moves it)."""
        self.limit = max(1, limit)
        self.period = period
        self.clock = clock
        self.sleep = sleep
        self.returned_at: list[float] = []  # recent requests, newest last
        self.in_flight = 0
        self._queue = asyncio.Lock()
        self._returned = asyncio.Event()

    @property
    def waiting(self) -> bool:
        """Whether a request is queued for a place."""
        return self._queue.locked()

    def busy(self) -> bool:
        """Whether anything is in flight, queued, or still inside the window."""
        now = self.clock()
        return (
            self.in_flight > 0
            or self.waiting
            or any(now - t < self.period for t in self.returned_at)
        )

    def fill(self) -> None:
        """Count the window as full now (after a restart, for a chat the process before may
        have just sent a burst to)."""
        self.returned_at = [self.clock()] * self.limit

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Hold a place for one request, made inside the block."""
        async with self._queue:
            await self._wait_for_room()
            self.in_flight += 1
        try:
            yield
        finally:
            self.in_flight -= 1
            self.returned_at.append(self.clock())
            self._returned.set()

    async def _wait_for_room(self) -> None:
        while True:
            now = self.clock()
            self.returned_at = [t for t in self.returned_at if now - t < self.period]
            if len(self.returned_at) + self.in_flight < self.limit:
                return
            # room comes when the oldest request leaves the window, or when one in flight
            # returns (it may then leave the window later, but it is counted now)
            timeout = min(self.returned_at) + self.period - now if self.returned_at else None
            self._returned.clear()
            await self._returned_or(timeout)

    async def _returned_or(self, timeout: float | None) -> None:
        """Wait until a request in flight returns, or ``timeout`` seconds pass."""
        if timeout is None:
            await self._returned.wait()
            return
        returned = asyncio.ensure_future(self._returned.wait())
        slept = asyncio.ensure_future(self.sleep(timeout))
        try:
            await asyncio.wait((returned, slept), return_when=asyncio.FIRST_COMPLETED)
        finally:  # also when this task is cancelled: leave nothing behind
            returned.cancel()
            slept.cancel()
