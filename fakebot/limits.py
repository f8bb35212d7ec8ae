"""Flood limits as sliding windows, and a clock tests can drive.

Why sliding windows: Telegram's limits are stated as "N messages per period"; a sliding
window is the strictest reading (no period boundary to hide a burst behind), so a bot that
stays inside it in the fake stays inside it on Telegram. Note that a token bucket such as
PTB's ``AIORateLimiter`` (aiolimiter) lets a full bucket through at once and then refills, so
with ``group_max_rate=20`` it can put up to about 2×20 messages into one 60-second window: pace
the bot at half the window's limit or configure the fake accordingly.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

Clock = Callable[[], float]


class ManualClock:
    """A clock that only moves when told: flood-limit tests become exact and instant."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move time forward (never backwards: windows assume monotonic time)."""
        if seconds < 0:
            raise ValueError("a monotonic clock does not go back")
        self.now += seconds


class ScaledClock:
    """Monotonic time running ``factor`` times faster than real time, so a test can compress
    minutes of rate-limit windows into seconds (factor 60: a group's minute lasts 1 s)."""

    def __init__(self, factor: float) -> None:
        if factor <= 0:
            raise ValueError("factor must be positive")
        self.factor = factor
        self._origin = time.monotonic()

    def __call__(self) -> float:
        return (time.monotonic() - self._origin) * self.factor


@dataclass
class SlidingWindow:
    """At most ``limit`` events in any ``period`` seconds."""

    limit: int
    period: float

    def __post_init__(self) -> None:
        self._events: deque[float] = deque()

    def _expire(self, now: float) -> None:
        while self._events and self._events[0] <= now - self.period:
            self._events.popleft()

    def retry_after(self, now: float) -> int | None:
        """None if one more event fits now, else whole seconds until it does (at least 1)."""
        self._expire(now)
        if len(self._events) < self.limit:
            return None
        wait = self._events[len(self._events) - self.limit] + self.period - now
        return max(1, math.ceil(wait))

    def add(self, now: float) -> None:
        self._events.append(now)

    def __len__(self) -> int:
        return len(self._events)


def window_for_rate(per_second: float, burst: int | None = None) -> tuple[int, float]:
    """(limit, period) of a window that averages ``per_second`` and allows ``burst`` at once.

    Without a burst: 30/s -> 30 per 1 s; 0.5/s -> 1 per 2 s."""
    if per_second <= 0:
        raise ValueError("a rate must be positive")
    if burst is None:
        burst = max(1, round(per_second)) if per_second >= 1 else 1
    return burst, burst / per_second


class FloodControl:
    """Telegram's three flood limits: per group chat, per private chat, and per bot."""

    def __init__(
        self,
        *,
        group_messages_per_minute: int,
        private_messages_per_second: float,
        global_messages_per_second: float,
        private_burst: int | None = None,
    ) -> None:
        self.group = (group_messages_per_minute, 60.0)
        self.private = window_for_rate(private_messages_per_second, private_burst)
        self.overall = window_for_rate(global_messages_per_second)
        self._global = SlidingWindow(*self.overall)
        self._chats: dict[int, SlidingWindow] = {}

    def _chat_window(self, chat_id: int) -> tuple[str, SlidingWindow]:
        scope = "private" if chat_id > 0 else "group"
        if chat_id not in self._chats:
            limit, period = self.private if scope == "private" else self.group
            self._chats[chat_id] = SlidingWindow(limit, period)
        return scope, self._chats[chat_id]

    def check(self, chat_id: int | None, now: float) -> list[tuple[str, SlidingWindow, int]]:
        """The windows one more message would overflow: (scope, window, retry_after)."""
        over: list[tuple[str, SlidingWindow, int]] = []
        if chat_id is not None:
            scope, window = self._chat_window(chat_id)
            wait = window.retry_after(now)
            if wait is not None:
                over.append((scope, window, wait))
        wait = self._global.retry_after(now)
        if wait is not None:
            over.append(("global", self._global, wait))
        return over

    def record(self, chat_id: int | None, now: float) -> None:
        """Count one delivered message."""
        if chat_id is not None:
            self._chat_window(chat_id)[1].add(now)
        self._global.add(now)
