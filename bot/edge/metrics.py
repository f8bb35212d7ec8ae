"""Optional latency instrumentation: the bot's own time per update (benchmarks, diagnostics).

Nothing here runs unless :func:`instrument` is called on an application (``bench.load`` does);
the bot itself never calls it, so an uninstrumented bot pays nothing.

What one sample measures: from the moment PTB starts processing an update (a handler in the
first group, before every other handler) to the moment the last handler group is done with it
(a handler in the last group), minus the time its API calls spent waiting inside the rate
limiter. The handlers await every call they make (the callback answer, the presser's hand
message, the next player's prompt), so the end is the end of the update's last API call. Group
table edits and posts are not in it: the group's channel sends them later, on its own task,
paced.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from telegram import Update
from telegram.ext import Application, BaseRateLimiter, ContextTypes, TypeHandler

#: the groups of the opening and the closing handler: before and after every group the bot
#: uses (a group runs only its first matching handler: sharing one with the bot's own, such
#: as the member cache's note of who pressed, would leave those updates untimed)
FIRST_GROUP = -1_000_000
LAST_GROUP = 1_000_000


@dataclass(slots=True)
class UpdateSample:
    """One update (or timer job): what it was; its seconds from start to end, less the rate
    limiter's waits; those waits; the part of ``seconds`` spent in API requests (encoding, the
    round trip to the Bot API, decoding); how many API calls it made."""

    kind: str
    started: float  # time.perf_counter() at the start
    seconds: float
    limiter_wait: float
    api_seconds: float
    calls: int


@dataclass(slots=True)
class _Span:
    kind: str
    started: float
    task: asyncio.Task[Any] | None
    limiter_wait: float = 0.0
    api_seconds: float = 0.0
    calls: int = 0

    def sample(self) -> UpdateSample:
        elapsed = time.perf_counter() - self.started - self.limiter_wait
        return UpdateSample(
            self.kind, self.started, elapsed, self.limiter_wait, self.api_seconds, self.calls
        )


@dataclass
class UpdateTimings:
    """The samples of an instrumented application, oldest first."""

    samples: list[UpdateSample] = field(default_factory=list)


_span: ContextVar[_Span | None] = ContextVar("bot_metrics_span", default=None)


def update_kind(update: object) -> str:
    """A short name for what an update is: ``button:<act>``, ``command``, ``text`` or ``other``."""
    if isinstance(update, Update):
        if update.callback_query is not None:
            parts = (update.callback_query.data or "").split(":")
            return f"button:{parts[2]}" if len(parts) == 4 else "button:?"
        message = update.effective_message
        if message is not None and message.text:
            return "command" if message.text.startswith("/") else "text"
    return "other"


class _TimedRateLimiter(BaseRateLimiter[Any]):
    """Wraps the bot's rate limiter: adds the time a call of an open update spent in the
    limiter, outside the HTTP request itself, to that update's span."""

    def __init__(self, inner: BaseRateLimiter[Any]) -> None:
        self.inner = inner

    async def initialize(self) -> None:
        await self.inner.initialize()

    async def shutdown(self) -> None:
        await self.inner.shutdown()

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, bool | dict[str, Any] | list[dict[str, Any]]]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: Any,
    ) -> bool | dict[str, Any] | list[dict[str, Any]]:
        span = _span.get()
        if span is None or span.task is not asyncio.current_task():
            return await self.inner.process_request(
                callback, args, kwargs, endpoint, data, rate_limit_args
            )
        entered = time.perf_counter()
        inside = 0.0

        async def timed(*a: Any, **k: Any) -> bool | dict[str, Any] | list[dict[str, Any]]:
            nonlocal inside
            start = time.perf_counter()
            try:
                return await callback(*a, **k)
            finally:
                inside += time.perf_counter() - start

        try:
            return await self.inner.process_request(
                timed, args, kwargs, endpoint, data, rate_limit_args
            )
        finally:
            span.limiter_wait += time.perf_counter() - entered - inside
            span.api_seconds += inside
            span.calls += 1


@contextlib.asynccontextmanager
async def measure(kind: str, timings: UpdateTimings) -> AsyncIterator[None]:
    """Time a block of work of the current task (a timer job, say) like an update."""
    span = _Span(kind, time.perf_counter(), asyncio.current_task())
    token = _span.set(span)
    try:
        yield
    finally:
        _span.reset(token)
        timings.samples.append(span.sample())


def instrument(application: Application) -> UpdateTimings:  # type: ignore[type-arg]
    """Time every update ``application`` processes; call before ``initialize()``."""
    timings = UpdateTimings()

    async def begin(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        _span.set(_Span(update_kind(update), time.perf_counter(), asyncio.current_task()))

    async def end(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        span = _span.get()
        if span is None:
            return
        _span.set(None)
        timings.samples.append(span.sample())

    application.add_handler(TypeHandler(object, begin), group=FIRST_GROUP)
    application.add_handler(TypeHandler(object, end), group=LAST_GROUP)
    bot = application.bot
    limiter = getattr(bot, "rate_limiter", None)
    if limiter is not None:
        bot._rate_limiter = _TimedRateLimiter(limiter)
    return timings
