"""Pacing messages to private chats under Telegram's limit of about one a second per chat.

The bot's rate limiter paces the bot as a whole and the service's GroupChannel paces groups,
so the messenger asks this pacer for a place before each message to a private chat. Each chat
is a sliding window of ``burst`` messages per ``period`` (a ``FlightWindow``: Telegram allows a
few at once, then about one a second). On top of it, an *optional* message (an answer to typed
text, say) is dropped rather than queued behind another waiter: someone typing faster than the
chat's pace must not build a queue that a hand prompt, sent with the table locked, would wait
behind.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

from bot.limits.window import FlightWindow

#: forget idle chats once this many are known
_SWEEP_AT = 10_000


@dataclass
class _Chat:
    window: FlightWindow
    users: int = 0  # callers inside slot(): waiting, in flight, or about to be


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
        """``clock`` and ``sleep`` are the time the windows are measured in, and the way to
        wait in them (tests pass a manual clock whose sleep moves it)."""
        self.burst = max(1, burst)
        # a tenth more than the window itself: requests can reach Telegram closer together
        # than they left here
        self.period = 1.1 * self.burst / per_second
        self.clock = clock
        self.sleep = sleep
        self._chats: dict[int, _Chat] = {}

    def _chat(self, chat_id: int) -> _Chat:
        chat = self._chats.get(chat_id)
        if chat is None:
            window = FlightWindow(self.burst, self.period, clock=self.clock, sleep=self.sleep)
            chat = self._chats[chat_id] = _Chat(window)
        return chat

    @asynccontextmanager
    async def slot(self, chat_id: int, *, optional: bool = False) -> AsyncIterator[bool]:
        """Hold a place in the chat's window for one request, made inside the block.

        Yields True; or False at once, holding nothing, for an ``optional`` message that
        would have to queue behind another message waiting for this chat.
        """
        chat = self._chat(chat_id)
        chat.users += 1  # from here until the end the sweep keeps this chat's object
        try:
            if optional and chat.window.waiting:
                yield False
                return
            async with chat.window.slot():
                yield True
        finally:
            chat.users -= 1
            if len(self._chats) > _SWEEP_AT:
                self._sweep()

    def assume_full(self, chat_id: int) -> None:
        """Count the chat's window as full now: after a restart, for the players of the
        recovered tables, whom the process before may have just sent a burst."""
        self._chat(chat_id).window.fill()

    def _sweep(self) -> None:
        self._chats = {
            chat_id: chat
            for chat_id, chat in self._chats.items()
            if chat.users or chat.window.busy()
        }

    def waiting(self, chat_id: int) -> bool:
        """Whether a message is queued for this chat (for tests and metrics)."""
        chat = self._chats.get(chat_id)
        return chat is not None and chat.window.waiting
