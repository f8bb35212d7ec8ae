"""A table's paced channel to its group: merged posts and one live table message, under the
group's limit (the messenger's budget)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from bot.presentation.keyboards import Keyboard
from bot.presentation.strings import MAX_TEXT
from bot.service.base import Delivery, Messages

log = logging.getLogger(__name__)

#: ids looked at for a table message that may have arrived although its send timed out (each
#: look is an edit: it counts against the group's limit)
LOST_TABLE_PROBES = 3


@dataclass
class _Post:
    text: str
    markup: Keyboard | None


class GroupChannel:
    """A group's game output: posts (tricks, players out, results) and one live table message.

    One worker sends at most one request per ``interval`` seconds: all pending posts merged
    into one message, or else one edit of the table rendered from the latest state. So a
    fast game never floods the group, and no edit repeats the current text. After
    ``follow_after`` posts the table is sent again below them (and the old one deleted), so
    it stays in view.
    """

    follow_after = 3

    def __init__(
        self,
        messenger: Messages,
        chat_id: int,
        *,
        interval: float,
        budget: int,
        render_table: Callable[[], str],
        on_table_message: Callable[[int], Awaitable[None]] | None = None,
        table_message_id: int | None = None,
        on_change: Callable[[], None] | None = None,
        table_markup: Keyboard | None = None,
        unhurried: Callable[[], bool] | None = None,
    ) -> None:
        self.messenger = messenger
        self.chat_id = chat_id
        self.interval = interval
        self.budget = budget
        self.render_table = render_table
        self.on_table_message = on_table_message
        self.table_message_id = table_message_id
        self.on_change = on_change
        self.table_markup = table_markup  # buttons under the table message (the web table)
        #: when true, the group is only watching (every player follows on the web table):
        #: half the pace, half the group's share of the bot's calls
        self.unhurried = unhurried
        self._posts: list[_Post] = []
        self._posts_since_table = 0
        self._table_next = False
        self._follow = True
        self._dirty = False
        self._last_table = ""
        self._next_at = 0.0
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._closed = False
        self._task: asyncio.Task[None] | None = None
        #: after a table send that timed out: the newest message id known before it
        self._lost_after: int | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name=f"group-channel:{self.chat_id}")

    def post(self, text: str, markup: Keyboard | None = None) -> None:
        if text:
            self._posts.append(_Post(text, markup))
            self._kick()

    def stop_following(self) -> None:
        """From now on the table stays where it is (the result should be the last message)."""
        self._follow = False

    def table_changed(self) -> None:
        """The table's state changed: re-render the table message (and tell ``on_change``)."""
        self._dirty = True
        self._kick()
        if self.on_change is not None:
            self.on_change()

    def _kick(self) -> None:
        self._idle.clear()
        self._wake.set()
        self.start()

    async def drain(self) -> None:
        """Wait until everything queued has been sent."""
        await self._idle.wait()

    async def close(self) -> None:
        await self.drain()
        self._closed = True
        self._wake.set()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _run(self) -> None:
        while not self._closed:
            await self._wake.wait()
            self._wake.clear()
            while self._posts or self._dirty:
                wait = max(
                    self._next_at - time.monotonic(),
                    self.messenger.group_wait(self.chat_id, self.budget),
                )
                if wait > 0:
                    await asyncio.sleep(wait)  # pacing to the group's limit
                try:
                    await self._send_one()
                except Exception:  # one table's failure must never stop its channel
                    log.exception("group channel %s failed to send", self.chat_id)
                slow = self.unhurried is not None and self.unhurried()
                self._next_at = time.monotonic() + self.interval * (2 if slow else 1)
            self._idle.set()

    async def _send_one(self) -> None:
        # posts and table updates take turns, so a busy table still shows its state
        if self._posts and not (self._dirty and self._table_next):
            self._table_next = True
            posts, self._posts = self._posts, []
            markup = next((p.markup for p in reversed(posts) if p.markup is not None), None)
            text = "\n".join(p.text for p in posts)
            while len(text) > MAX_TEXT:  # very long backlogs: keep the newest lines
                text = text.split("\n", 1)[1]
            await self.messenger.send(self.chat_id, text, markup, notify=False)
            self._posts_since_table += 1
            if self._follow and self._posts_since_table >= self.follow_after:
                self._dirty = True  # the table has scrolled away: bring it down
            return
        self._dirty = False
        self._table_next = False
        text = self.render_table()
        moving = (
            self._follow
            and self.table_message_id is not None
            and self._posts_since_table >= self.follow_after
        )
        if moving and self.table_message_id is not None:
            # a fresh table message below the posts; deleting does not count against limits
            old = self.table_message_id
            self.table_message_id = None
            self._last_table = ""
            await self.messenger.delete(self.chat_id, old)
        if text == self._last_table:
            return
        if self.table_message_id is not None:
            delivery = await self.messenger.edit(
                self.chat_id, self.table_message_id, text, self.table_markup
            )
            if delivery is not Delivery.GONE:
                self._last_table = text
                return
        newest_before = self.messenger.newest_sent(self.chat_id)
        sent = await self.messenger.send(self.chat_id, text, self.table_markup, notify=False)
        if sent.delivery is Delivery.UNKNOWN and self._lost_after is None:
            # it may have arrived: the next table sent tells where to look for it
            self._lost_after = newest_before
        if sent.message_id is not None:
            self.table_message_id = sent.message_id
            self._last_table = text
            self._posts_since_table = 0
            if self.on_table_message is not None:
                await self.on_table_message(sent.message_id)
            if self._lost_after is not None:
                lost_after, self._lost_after = self._lost_after, None
                await self._delete_lost_table(lost_after, sent.message_id)

    async def _delete_lost_table(self, after: int, before: int) -> None:
        """A table message whose send timed out may have arrived all the same, between the
        newest message known before it and the table just sent: two tables would show. Of
        the ids in between that are not the bot's known messages (most are people's), the
        nearest few are probed; the one that is the bot's, with the table's buttons, goes."""
        messenger = self.messenger
        candidates = [
            message_id
            for message_id in range(before - 1, after, -1)
            if not messenger.sent_here(self.chat_id, message_id)
        ][:LOST_TABLE_PROBES]
        for message_id in candidates:
            if await messenger.shows_unchanged(self.chat_id, message_id, self.table_markup):
                await messenger.delete(self.chat_id, message_id)
                return
