"""Fair update processing: no chat can take the bot from the others.

PTB processes updates concurrently up to a bound, first come, first served. When one group
floods the bot (300 commands in 10 s) and each answer waits for that group's 20-a-minute
budget, the flood holds every slot and the other groups' presses wait behind it for minutes.

:class:`FairUpdateProcessor` gives every chat a lane of its own: the updates of one chat are
processed one at a time and in order (a player's presses and typed plays keep their order),
and at most ``per_chat`` of them wait; at most ``per_user`` updates of one person wait across
all chats. What comes beyond is shed at once: a button press is answered so that the client
stops spinning, anything else is dropped. A busy chat then costs the others nothing but a few
slots of a large global bound.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any

from telegram import Update
from telegram.error import TelegramError
from telegram.ext import BaseUpdateProcessor

log = logging.getLogger(__name__)

#: updates in progress or waiting, all chats together
MAX_CONCURRENT = 4096
#: updates of one chat in progress or waiting
PER_CHAT = 32
#: updates of one person in progress or waiting, all chats together
PER_USER = 16
#: answers to shed presses in flight at once, all chats together: each is one request, and a
#: flood's hundreds at once grow the HTTP connection pool, whose bookkeeping per request grows
#: with it (bench.presses: the player on turn waited 1-3 s for the CPU they took)
SHED_ANSWERS = 4


@dataclass
class _Lane:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    count: int = 0  # updates in progress or waiting for the lock


class FairUpdateProcessor(BaseUpdateProcessor):
    """One lane per chat, in order; bounded per chat and per person; the rest shed."""

    def __init__(
        self,
        max_concurrent_updates: int = MAX_CONCURRENT,
        *,
        per_chat: int = PER_CHAT,
        per_user: int = PER_USER,
    ) -> None:
        super().__init__(max_concurrent_updates)
        self.per_chat = per_chat
        self.per_user = per_user
        self.shed = 0  # updates dropped so far (for tests and metrics)
        self.shed_answers = asyncio.Semaphore(SHED_ANSWERS)
        self._lanes: dict[int, _Lane] = {}
        self._users: dict[int, int] = {}

    async def initialize(self) -> None:
        pass

    async def shutdown(self) -> None:
        pass

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        chat_id, user_id = _keys(update)
        if chat_id is None:
            await coroutine
            return
        lane = self._lanes.setdefault(chat_id, _Lane())
        waiting = self._users.get(user_id, 0) if user_id is not None else 0
        if lane.count >= self.per_chat or waiting >= self.per_user:
            if lane.count == 0:
                del self._lanes[chat_id]
            _close(coroutine)
            self.shed += 1
            async with self.shed_answers:
                await _shed(update)
            return
        lane.count += 1
        if user_id is not None:
            self._users[user_id] = waiting + 1
        try:
            async with lane.lock:  # fair: first come, first served
                await coroutine
        finally:
            lane.count -= 1
            if lane.count == 0:
                del self._lanes[chat_id]
            if user_id is not None:
                left = self._users[user_id] - 1
                if left:
                    self._users[user_id] = left
                else:
                    del self._users[user_id]


def _keys(update: object) -> tuple[int | None, int | None]:
    """(the chat whose lane the update takes, the person who sent it); no chat: no lane."""
    if not isinstance(update, Update):
        return None, None
    if update.chat_member is not None:
        # no lane: it only updates the member cache (no request to Telegram), and a ban must
        # take effect now, not after the group's queued answers that wait for its pace
        return None, None
    user = update.effective_user
    chat = update.effective_chat
    user_id = user.id if user is not None else None
    if chat is not None:
        return chat.id, user_id
    return user_id, user_id  # an inline query and the like: the person's own lane


def _close(coroutine: Awaitable[Any]) -> None:
    close = getattr(coroutine, "close", None)
    if close is not None:
        close()  # never to be awaited: say so, or Python warns that it never was


async def _shed(update: object) -> None:
    """A shed press still gets its answer (an empty one), so the client stops spinning."""
    if isinstance(update, Update) and update.callback_query is not None:
        try:
            await update.callback_query.answer()
        except TelegramError as error:
            log.info("could not answer a shed press: %s", error)
