"""Sending to Telegram: the messenger that turns API errors into outcomes and keeps every
chat's pace (a group's one budget, a private chat's window). The service knows it only as
:class:`bot.service.base.Messages`; each table's paced channel to its group is
:mod:`bot.service.group_channel`."""

from __future__ import annotations

import asyncio
import bisect
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Protocol

from telegram import Bot, InlineKeyboardMarkup, InputFile, LinkPreviewOptions, ReplyParameters
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter, TimedOut

from bot.edge.pacing import PrivatePacer
from bot.service import MAX_TEXT, Delivery, Sent

log = logging.getLogger(__name__)

#: Telegram's group limit counts the messages of the last minute
GROUP_WINDOW = 60.0
#: message ids remembered per group, to tell the bot's own from the others' (a lost send)
KNOWN_PER_GROUP = 64
#: a logged group send is written down before it leaves and, after a restart, nobody knows
#: when it came back: the restored window counts it from this much later (bench.chaos saw a
#: log write 0.2 s ahead of the send, and a restored window that let the 21st in 60 s through)
RESTORED_SLACK = 2.0


def _maybe_sent(error: TimedOut) -> bool:
    """Whether a timed-out request may have reached Telegram: all but PTB's pool time-out,
    which says the request was not sent."""
    return "not* sent" not in str(error).lower()


class _Skipped(Exception):
    """An optional message was not sent: its private chat already has one waiting."""


class GroupLog(Protocol):
    """Where the group sends are written down, so that a restart knows each group's window
    (the storage's ``group_sends`` in the app)."""

    async def record(self, chat_id: int, at: float) -> None: ...
    async def recent(self, since: float) -> dict[int, list[float]]: ...


class Messenger:
    """The only place that calls Telegram's send/edit methods for the game service.

    Every message to a group comes out of one budget, ``group_budget`` sends and edits in
    any 60 s: the game's posts and table wait for room; optional ones (answers to commands)
    are dropped when fewer than ``group_reserve`` places are left, so that no burst of
    commands queues for minutes or starves the game. With a ``group_log`` the budget
    survives restarts.

    Flood waits (429) are honoured by the bot's rate limiter (``bot.edge.ratelimit``); transient
    failures (5xx, a connection that failed) are retried a few times here. A send that timed
    out after it was made is not sent again: Telegram may have delivered it, and a second
    copy is worse than a missing one (the caller's next render replaces it). 403 and "not
    found" come back as outcomes.
    """

    def __init__(
        self,
        bot: Bot,
        *,
        retries: int = 3,
        private_per_second: float = 1.0,
        private_burst: int = 3,
        group_budget: int = 20,
        group_reserve: int = 5,
        group_log: GroupLog | None = None,
    ) -> None:
        self.bot = bot
        self.retries = retries
        self.calls = 0
        self.group_budget = group_budget
        self.group_reserve = min(group_reserve, group_budget - 1)
        self.group_log = group_log
        self._group_times: dict[int, deque[float]] = {}
        self._private = PrivatePacer(private_per_second, private_burst)
        # messages this bot edited to have no buttons, the newest 10,000: (chat, message)
        self._stripped: dict[tuple[int, int], None] = {}
        # the newest messages this bot is known to have sent in each group (ids, ascending)
        self._sent_in_group: dict[int, deque[int]] = {}

    def _count_group(self, chat_id: int) -> float:
        """Take a place in the group's window for a request leaving now; returns its time."""
        now = time.monotonic()
        times = self._group_times.setdefault(chat_id, deque())
        # pruned here as well as in group_wait, which only groups with a game call
        while times and now - times[0] >= GROUP_WINDOW:
            times.popleft()
        bisect.insort(times, now)  # restored times may lie ahead (RESTORED_SLACK)
        if len(self._group_times) > 10_000:  # forget idle groups now and then
            self._group_times = {
                c: t for c, t in self._group_times.items() if t and now - t[-1] < GROUP_WINDOW
            }
        return now

    def _group_returned(self, chat_id: int, sent_at: float) -> None:
        """The request that left at ``sent_at`` came back: it counts from now. One that waited
        in the rate limiter (a 429's ``retry_after``) or in a slow connection reached Telegram
        late, and counted from when it left it would free its place too early."""
        times = self._group_times.get(chat_id)
        if times is None:
            return
        try:
            times.remove(sent_at)
        except ValueError:  # forgotten meanwhile (an idle group's sweep)
            return
        bisect.insort(times, time.monotonic())

    async def restore_group_windows(self) -> None:
        """Start from the group sends of the last minute as logged (after a restart)."""
        if self.group_log is None:
            return
        wall, now = time.time(), time.monotonic()
        for chat_id, times in (await self.group_log.recent(wall - GROUP_WINDOW)).items():
            self._group_times[chat_id] = deque(
                sorted(now - (wall - at) + RESTORED_SLACK for at in times)
            )

    def assume_private_full(self, chat_id: int) -> None:
        """After a restart: the private chat may have just had a burst (see PrivatePacer)."""
        self._private.assume_full(chat_id)

    def group_room(self, chat_id: int) -> int:
        """How many more messages the group's window takes now."""
        times = self._group_times.get(chat_id)
        if not times:
            return self.group_budget
        now = time.monotonic()
        while times and now - times[0] >= GROUP_WINDOW:
            times.popleft()
        return self.group_budget - len(times)

    def group_wait(self, chat_id: int, budget: int, window: float = GROUP_WINDOW) -> float:
        """Seconds until one more message fits ``budget`` messages per ``window`` in a group.

        Sends and edits both count, as Telegram counts them: a sliding window, because a
        token bucket would allow a burst on top of a full window.
        """
        times = self._group_times.get(chat_id)
        if not times:
            return 0.0
        now = time.monotonic()
        while times and now - times[0] >= window:
            times.popleft()
        if len(times) < budget:
            return 0.0
        return times[len(times) - budget] + window - now

    async def _attempt(
        self, make: Callable[[], Awaitable[object]], chat_id: int | None, optional: bool
    ) -> object:
        """One request; with ``chat_id``, a message to that chat, paced as the chat needs."""
        if chat_id is not None and chat_id > 0:  # a private chat
            async with self._private.slot(chat_id, optional=optional) as room:
                if not room:
                    raise _Skipped
                self.calls += 1
                return await make()
        if chat_id is not None:  # a group: one budget for everything sent there
            if optional:
                if self.group_room(chat_id) <= self.group_reserve:
                    raise _Skipped
            else:
                while (wait := self.group_wait(chat_id, self.group_budget)) > 0:
                    await asyncio.sleep(wait)
            # counted with no await after the check: nothing else can take the place
            sent_at = self._count_group(chat_id)
            try:
                if self.group_log is not None:
                    await self.group_log.record(chat_id, time.time())
                self.calls += 1
                return await make()
            finally:
                self._group_returned(chat_id, sent_at)
        self.calls += 1
        return await make()

    async def _call(
        self,
        make: Callable[[], Awaitable[object]],
        chat_id: int | None = None,
        *,
        optional: bool = False,
        repeatable: bool = True,
    ) -> tuple[Delivery, object]:
        """Make a request, retrying transient failures. With ``chat_id``, every attempt is a
        message to that chat and takes its place in the chat's pace first; an ``optional``
        one is skipped rather than wait (for a private chat: behind another message; for a
        group: for its budget). A request that is not ``repeatable`` (a send) is not retried
        after a time-out that may have come after Telegram took it."""
        delay = 0.2
        for attempt in range(self.retries + 1):
            try:
                return Delivery.OK, await self._attempt(make, chat_id, optional)
            except _Skipped:
                return Delivery.SKIPPED, None
            except Forbidden:
                return Delivery.BLOCKED, None
            except RetryAfter as error:  # the rate limiter ran out of retries: wait and go on
                wait = error.retry_after
                seconds = wait.total_seconds() if hasattr(wait, "total_seconds") else wait
                await asyncio.sleep(float(seconds))
            except BadRequest as error:
                message = error.message.lower()
                if "not modified" in message:
                    return Delivery.OK, None
                if "not found" in message or "can't be edited" in message:
                    return Delivery.GONE, None
                log.warning("Telegram refused a request: %s", error.message)
                return Delivery.FAILED, None
            except TimedOut as error:
                if not repeatable and _maybe_sent(error):
                    log.warning("a send timed out; not sent again: %s", error)
                    return Delivery.UNKNOWN, None
                log.info("transient Telegram error (attempt %d): %s", attempt + 1, error)
                await asyncio.sleep(delay)
                delay *= 2
            except NetworkError as error:
                log.info("transient Telegram error (attempt %d): %s", attempt + 1, error)
                await asyncio.sleep(delay)
                delay *= 2
        return Delivery.FAILED, None

    async def send(
        self,
        chat_id: int,
        text: str,
        markup: InlineKeyboardMarkup | None = None,
        *,
        notify: bool = True,
        reply_to: int | None = None,
        optional: bool = False,
    ) -> Sent:
        """Send a message (HTML); ``reply_to`` makes it a reply to that message, if it
        still exists. An ``optional`` one (an answer to typed text) is skipped when the
        private chat already has a message waiting for its pace."""
        reply = ReplyParameters(reply_to, allow_sending_without_reply=True) if reply_to else None
        delivery, message = await self._call(
            lambda: self.bot.send_message(
                chat_id,
                text[:MAX_TEXT],
                parse_mode=ParseMode.HTML,
                reply_markup=markup,
                disable_notification=not notify,
                link_preview_options=LinkPreviewOptions(is_disabled=True),
                reply_parameters=reply,
            ),
            chat_id,
            optional=optional,
            repeatable=False,
        )
        message_id = getattr(message, "message_id", None)
        if message_id is not None and chat_id < 0:
            self._remember_sent(chat_id, int(message_id))
        return Sent(delivery, message_id)

    def _remember_sent(self, chat_id: int, message_id: int) -> None:
        sent = self._sent_in_group.setdefault(chat_id, deque(maxlen=KNOWN_PER_GROUP))
        sent.append(message_id)
        if len(self._sent_in_group) > 10_000:  # forget the group heard from longest ago
            del self._sent_in_group[next(iter(self._sent_in_group))]

    def newest_sent(self, chat_id: int) -> int:
        """The id of the newest message this bot knows it sent to the group (0: none)."""
        sent = self._sent_in_group.get(chat_id)
        return max(sent) if sent else 0

    def sent_here(self, chat_id: int, message_id: int) -> bool:
        """Whether this bot knows it sent ``message_id`` to the group (lately)."""
        return message_id in self._sent_in_group.get(chat_id, ())

    async def shows_unchanged(
        self, chat_id: int, message_id: int, markup: InlineKeyboardMarkup | None
    ) -> bool:
        """Whether ``message_id`` is this bot's own message with exactly ``markup``: an edit
        to the same keyboard changes nothing, and Telegram answers "not modified" only for a
        message the bot may edit (someone else's "can't be edited", a deleted one "not
        found"). Finds a message whose send timed out after it arrived."""

        async def probe() -> bool:
            try:
                await self.bot.edit_message_reply_markup(chat_id, message_id, reply_markup=markup)
            except BadRequest as error:
                return "not modified" in error.message.lower()
            return False  # it was the bot's, with other buttons (now these): not the one

        delivery, found = await self._call(probe, chat_id)
        return delivery is Delivery.OK and found is True

    async def send_photo(
        self,
        chat_id: int,
        photo: bytes,
        caption: str | None = None,
        *,
        filename: str = "picture.png",
        reply_to: int | None = None,
        optional: bool = False,
    ) -> Sent:
        """Send a picture (uploaded), with an HTML ``caption`` (at most 1,024 characters
        once parsed: longer ones are the caller's to send as a message of their own).
        Paced like :meth:`send`: in a group it comes out of the group's budget, and an
        ``optional`` one is dropped rather than queued."""
        reply = ReplyParameters(reply_to, allow_sending_without_reply=True) if reply_to else None
        delivery, message = await self._call(
            lambda: self.bot.send_photo(
                chat_id,
                InputFile(photo, filename=filename),
                caption=caption,
                parse_mode=ParseMode.HTML if caption else None,
                reply_parameters=reply,
            ),
            chat_id,
            optional=optional,
            repeatable=False,
        )
        return Sent(delivery, getattr(message, "message_id", None))

    async def edit(
        self, chat_id: int, message_id: int, text: str, markup: InlineKeyboardMarkup | None = None
    ) -> Delivery:
        delivery, _ = await self._call(
            lambda: self.bot.edit_message_text(
                text[:MAX_TEXT],
                chat_id=chat_id,
                message_id=message_id,
                parse_mode=ParseMode.HTML,
                reply_markup=markup,
                link_preview_options=LinkPreviewOptions(is_disabled=True),
            ),
            chat_id,
        )
        self._stripped.pop((chat_id, message_id), None)
        if delivery is Delivery.OK and markup is None:
            self._remember_stripped(chat_id, message_id)
        return delivery

    def _remember_stripped(self, chat_id: int, message_id: int) -> None:
        self._stripped[(chat_id, message_id)] = None
        if len(self._stripped) > 10_000:  # the oldest first: a dict keeps insertion order
            del self._stripped[next(iter(self._stripped))]

    async def clear_buttons(self, chat_id: int, message_id: int) -> Delivery:
        """Remove a message's inline keyboard (an outdated message someone pressed)."""
        if (chat_id, message_id) in self._stripped:
            # this bot already took them off (a second tap on a message just retired):
            # clearing again would be an identical edit, which Telegram refuses
            return Delivery.OK
        delivery, _ = await self._call(
            lambda: self.bot.edit_message_reply_markup(chat_id, message_id, reply_markup=None),
            chat_id,
        )
        if delivery is Delivery.OK:
            self._remember_stripped(chat_id, message_id)
        return delivery

    async def delete(self, chat_id: int, message_id: int) -> Delivery:
        delivery, _ = await self._call(lambda: self.bot.delete_message(chat_id, message_id))
        return delivery
