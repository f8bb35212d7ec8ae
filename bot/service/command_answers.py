"""Answers to commands in a group: never silence, and never at the game's expense.

A command's answer in a group is optional for the group's budget (the messenger drops it
when only the reserve is left, so that the game's own posts always find room). Dropping it
used to be the end of it: five players typing /rank after a result, whose posts had spent the
minute, got nothing at all. Now an answer the group has no room for goes

1. to the asker's private chat, when they have one with the bot (a private chat has its own
   pace and no shared budget); else
2. into a short queue per group that waits for room in the group's window and then sends
   everything waiting as one message: repeats merge (five /rank: one message with five
   blocks; five /history: one list).

The queue is short on purpose (``QUEUE_LIMIT`` answers a group): the group's command throttle
keeps floods out before they get here, and a queue that grew would answer minutes late.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from bot.presentation.keyboards import Keyboard
from bot.service.base import Delivery, Messages

log = logging.getLogger(__name__)

#: answers waiting in one group at most; one more is refused (logged) rather than queued
QUEUE_LIMIT = 20
#: a merged answer stays under Telegram's 4,096 characters (HTML tags are never cut)
MERGED_MAX = 4000
#: how answers are joined when several go out in one message
SEPARATOR = "\n\n"
#: seconds between two looks at a full group's window
RECHECK = 1.0


@dataclass(frozen=True, slots=True)
class _Waiting:
    body: str
    reply_to: int | None
    markup: Keyboard | None


def merge(waiting: list[_Waiting]) -> list[_Waiting]:
    """Waiting answers as few messages as they fit in: identical bodies once, in order, each
    message under ``MERGED_MAX`` characters and with at most one keyboard (a second, different
    one starts a message of its own). Each message replies to its first answer's command."""
    messages: list[_Waiting] = []
    seen: set[str] = set()
    for answer in waiting:
        if answer.body in seen:
            continue
        seen.add(answer.body)
        if messages:
            last = messages[-1]
            fits = len(last.body) + len(SEPARATOR) + len(answer.body) <= MERGED_MAX
            keyboards_agree = (
                last.markup is None or answer.markup is None or last.markup == answer.markup
            )
            if fits and keyboards_agree:
                messages[-1] = _Waiting(
                    last.body + SEPARATOR + answer.body,
                    last.reply_to,
                    last.markup or answer.markup,
                )
                continue
        messages.append(answer)
    return messages


class CommandAnswers:
    """Sends the answers to commands typed in groups (see the module's docstring)."""

    def __init__(
        self,
        messenger: Messages,
        *,
        can_message: Callable[[int], Awaitable[bool]],
        queue_limit: int = QUEUE_LIMIT,
    ) -> None:
        self.messenger = messenger
        self.can_message = can_message
        self.queue_limit = queue_limit
        self._queues: dict[int, list[_Waiting]] = {}
        self._flushers: dict[int, asyncio.Task[None]] = {}
        #: answers that found no room and no private chat, since the start (repeats too)
        self.queued = 0
        #: set whenever an answer is queued or sent from the queue (who watches clears it)
        self.changed = asyncio.Event()

    async def answer(
        self,
        chat_id: int,
        user_id: int | None,
        body: str,
        *,
        reply_to: int | None = None,
        markup: Keyboard | None = None,
        private_note: str = "",
    ) -> Delivery:
        """Answer a command typed in the group ``chat_id`` by ``user_id``. ``private_note``
        goes above the answer when it is sent to the asker's private chat instead (which
        group it answers). Returns how it went: OK (sent, here or privately) or SKIPPED
        (queued for the group's next room; or, the queue full, not at all)."""
        if not body:
            return Delivery.OK
        if not self._queues.get(chat_id):  # nothing waits: the group's room decides
            sent = await self.messenger.send(
                chat_id, body, markup, reply_to=reply_to, optional=True
            )
            if sent.delivery is not Delivery.SKIPPED:
                return sent.delivery
        if user_id is not None and user_id > 0 and await self.can_message(user_id):
            private_body = f"{private_note}\n\n{body}" if private_note else body
            sent = await self.messenger.send(user_id, private_body, markup)
            if sent.delivery is Delivery.OK:
                return Delivery.OK
        self._enqueue(chat_id, _Waiting(body, reply_to, markup))
        return Delivery.SKIPPED

    def waiting(self, chat_id: int) -> int:
        """How many answers wait for room in the group."""
        return len(self._queues.get(chat_id, ()))

    def _enqueue(self, chat_id: int, answer: _Waiting) -> None:
        self.queued += 1
        self.changed.set()
        queue = self._queues.setdefault(chat_id, [])
        if any(waiting.body == answer.body for waiting in queue):
            return  # the same answer waits already: it will answer both
        if len(queue) >= self.queue_limit:
            log.warning("group %s: %d answers wait already; one more dropped", chat_id, len(queue))
            return
        queue.append(answer)
        flusher = self._flushers.get(chat_id)
        if flusher is None or flusher.done():
            self._flushers[chat_id] = asyncio.create_task(
                self._flush(chat_id), name=f"command-answers:{chat_id}"
            )

    async def _flush(self, chat_id: int) -> None:
        """Wait for room in the group's window, then send what waits, merged."""
        messenger = self.messenger
        queue = self._queues[chat_id]
        try:
            while queue:
                # the room an optional message needs: the reserve stays the game's
                wait = messenger.group_wait(
                    chat_id, messenger.group_budget - messenger.group_reserve
                )
                if wait > 0:
                    # looked at again each second: the window may free early (a 429's wait
                    # ended, a restored window's slack ran out), and answers are late already
                    await asyncio.sleep(min(wait, RECHECK))
                    continue
                first, *rest = merge(queue)
                taken = len(queue)
                sent = await messenger.send(
                    chat_id, first.body, first.markup, reply_to=first.reply_to, optional=True
                )
                if sent.delivery is Delivery.SKIPPED:  # the game took the room meanwhile
                    continue
                del queue[:taken]
                # what did not fit in the first message waits for the next room
                queue[:0] = rest
                self.changed.set()
        except Exception:  # never lose the loop to one failed send: what waits is dropped
            log.exception("group %s: queued answers could not be sent", chat_id)
            queue.clear()
        finally:
            if not queue:
                self._queues.pop(chat_id, None)
                self._flushers.pop(chat_id, None)

    async def close(self) -> None:
        """Stop waiting (the bot stops): answers still queued are not sent."""
        flushers = list(self._flushers.values())
        for flusher in flushers:
            flusher.cancel()
        for flusher in flushers:
            with contextlib.suppress(asyncio.CancelledError):
                await flusher
        self._flushers.clear()
        self._queues.clear()
