"""Pacing messages to private chats under Telegram's limit of about one a second per chat.

AIORateLimiter paces groups and the bot as a whole, not private chats, so the messenger asks
this pacer for a place before each message to one. The rules, each for a reason:

- a sliding window of ``burst`` messages per ``period``: Telegram allows a few at once, then
  about one a second, and a token bucket would allow a burst on top of a full window;
- a message holds its place while its request is in flight and counts from when the request
  returned: one the rate limiter held back and retried after a 429 reached Telegram late,
  and counted from its first attempt it would let the next ones through too early;
- first come, first served per chat (an ``asyncio.Lock`` is fair): a waiter cannot be
  overtaken indefinitely;
- an *optional* message (an answer to typed text, say) is dropped rather than queued behind
  another waiter: someone typing faster than the chat's pace must not build a queue that a
  hand prompt, sent with the table locked, would wait behind.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

#: forget idle chats once this many are known
_SWEEP_AT = 10_000


@dataclass
class _Chat:
    returned_at: list[float] = field(default_factory=list)  # recent requests, newest last
    in_flight: int = 0
    users: int = 0  # callers inside slot(): waiting, in flight, or about to be
    queue: asyncio.Lock = field(default_factory=asyncio.Lock)
    returned: asyncio.Event = field(default_factory=asyncio.Event)


class PrivatePacer:
    """At most ``burst`` messages to one private chat in any ``period`` seconds."""

    def __init__(
        self,
        per_second: float,
        burst: int,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        """``clock`` and ``sleep`` are the time the window is measured in, and the way to wait
        in it (tests pass a manual clock whose sleep moves it)."""
        self.burst = max(1, burst)
        # a tenth more than the window itself: requests can reach Telegram closer together
        # than they left here
        self.period = 1.1 * self.burst / per_second
        self.clock = clock
        self.sleep = sleep
        self._chats: dict[int, _Chat] = {}

    @asynccontextmanager
    async def slot(self, chat_id: int, *, optional: bool = False) -> AsyncIterator[bool]:
        """Hold a place in the chat's window for one request, made inside the block.

        Yields True; or False at once, holding nothing, for an ``optional`` message that
        would have to queue behind another message waiting for this chat.
        """
        chat = self._chats.get(chat_id)
        if chat is None:
            chat = self._chats[chat_id] = _Chat()
        chat.users += 1  # from here until the end the sweep keeps this chat's object
        try:
            if optional and chat.queue.locked():
                yield False
                return
            async with chat.queue:
                await self._wait_for_room(chat)
                chat.in_flight += 1
            try:
                yield True
            finally:
                chat.in_flight -= 1
                chat.returned_at.append(self.clock())
                chat.returned.set()
        finally:
            chat.users -= 1
            if len(self._chats) > _SWEEP_AT:
                self._sweep()

    def assume_full(self, chat_id: int) -> None:
        """Count the chat's window as full now: after a restart, for the players of the
        recovered tables, whom the process before may have just sent a burst."""
        chat = self._chats.setdefault(chat_id, _Chat())
        now = self.clock()
        chat.returned_at = [now] * self.burst

    async def _wait_for_room(self, chat: _Chat) -> None:
        while True:
            now = self.clock()
            chat.returned_at = [t for t in chat.returned_at if now - t < self.period]
            if len(chat.returned_at) + chat.in_flight < self.burst:
                return
            # room comes when the oldest message leaves the window, or when a request in
            # flight returns (it may then leave the window later, but it is counted now)
            timeout = min(chat.returned_at) + self.period - now if chat.returned_at else None
            chat.returned.clear()
            await self._returned_or(chat, timeout)

    async def _returned_or(self, chat: _Chat, timeout: float | None) -> None:
        """Wait until a request in flight returns, or ``timeout`` seconds pass."""
        if timeout is None:
            await chat.returned.wait()
            return
        returned = asyncio.ensure_future(chat.returned.wait())
        slept = asyncio.ensure_future(self.sleep(timeout))
        try:
            await asyncio.wait((returned, slept), return_when=asyncio.FIRST_COMPLETED)
        finally:  # also when this task is cancelled: leave nothing behind
            returned.cancel()
            slept.cancel()

    def _sweep(self) -> None:
        now = self.clock()
        self._chats = {
            chat_id: chat
            for chat_id, chat in self._chats.items()
            if chat.users or any(now - t < self.period for t in chat.returned_at)
        }

    def waiting(self, chat_id: int) -> bool:
        """Whether a message is queued for this chat (for tests and metrics)."""
        chat = self._chats.get(chat_id)
        return chat is not None and chat.queue.locked()
