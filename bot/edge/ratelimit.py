"""The bot's rate limiter: Telegram's overall limit of about 30 messages a second, and its
"retry after" answers, for every request the bot makes.

PTB's AIORateLimiter is a leaky bucket counted when a request leaves, and a request that met a
429 pauses the others only after they took their place in the bucket; so after a pause they all
leave at once (bench.chaos saw 31 reach Telegram within one second). Here:

- the overall limit is a ``FlightWindow``: a sliding window whose places are held while a
  request is in flight and until a period after it returned, so however late a request
  reaches Telegram, no more than the limit can arrive within any one period;
- a 429 pauses the chat it came for, and a paused request waits *before* it takes a place;
- groups' and private chats' own limits are paced by the service (GroupChannel and
  PrivatePacer), which knows what each message is worth and can drop the optional ones.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from contextlib import AbstractAsyncContextManager, nullcontext
from typing import Any, Protocol

from telegram.error import RetryAfter
from telegram.ext import BaseRateLimiter

from bot.limits.window import FlightWindow

log = logging.getLogger(__name__)

_Result = bool | dict[str, Any] | list[dict[str, Any]]

#: the one period Telegram's overall limit is counted in
OVERALL_PERIOD = 1.0


class CallObserver(Protocol):
    """Told of each Bot API request and each flood wait (the metrics)."""

    def called(self, method: str) -> None: ...

    def flood_wait(self, method: str, retried: bool) -> None: ...


class WindowRateLimiter(BaseRateLimiter[int]):
    """At most ``overall_per_second`` - 1 requests to chats reach Telegram in any second;
    a request that gets a 429 is retried up to ``max_retries`` times (``rate_limit_args``
    overrides it per call), after the wait Telegram asked for."""

    def __init__(
        self,
        overall_per_second: float,
        *,
        max_retries: int = 3,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        observer: CallObserver | None = None,
    ) -> None:
        # one below the limit: Telegram's clock and ours may not cut seconds the same way
        limit = max(1, int(overall_per_second * OVERALL_PERIOD) - 1)
        self.overall = FlightWindow(limit, OVERALL_PERIOD, clock=clock, sleep=sleep)
        self.max_retries = max_retries
        self.clock = clock
        self.sleep = sleep
        self._paused_until: dict[int | str, float] = {}
        self.observer = observer

    async def initialize(self) -> None:
        """Nothing to set up."""

    async def shutdown(self) -> None:
        """Nothing to release."""

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, _Result]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> _Result:
        chat_id = data.get("chat_id")
        key = chat_id if isinstance(chat_id, int | str) else None
        retries = self.max_retries if rate_limit_args is None else rate_limit_args
        for attempt in range(retries + 1):
            await self._wait_out_pause(key)
            place: AbstractAsyncContextManager[None] = (
                self.overall.slot() if key is not None else nullcontext()
            )
            try:
                async with place:
                    if self.observer is not None:
                        self.observer.called(endpoint)
                    return await callback(*args, **kwargs)
            except RetryAfter as exc:
                if self.observer is not None:
                    self.observer.flood_wait(endpoint, retried=attempt < retries)
                if attempt == retries:
                    raise
                wait = exc.retry_after
                seconds = wait if isinstance(wait, int) else wait.total_seconds()
                log.info("%s to %s: flood wait of %s s", endpoint, chat_id, seconds)
                await self._pause(key, seconds + 0.1)
        raise AssertionError("unreachable: the last attempt returns or raises")

    async def _pause(self, key: int | str | None, seconds: float) -> None:
        """Pause the chat's requests (this one waits out the pause before its next attempt);
        a request to no chat just waits."""
        if key is None:
            await self.sleep(seconds)
            return
        self._paused_until[key] = max(self._paused_until.get(key, 0.0), self.clock() + seconds)

    async def _wait_out_pause(self, key: int | str | None) -> None:
        if key is None:
            return
        while (until := self._paused_until.get(key)) is not None:
            now = self.clock()
            if now >= until:
                del self._paused_until[key]
                return
            await self.sleep(until - now)
