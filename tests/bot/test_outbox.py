"""The messenger's pacing of private chats, with a stand-in for PTB's Bot."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from telegram.error import NetworkError, TimedOut

from bot.edge.outbox import RESTORED_SLACK, Messenger
from bot.service.base import Delivery

CHAT = 42


class SlowBot:
    """Answers send_message after ``delays`` (one per call, then instantly); records when
    each request started and finished."""

    def __init__(self, delays: list[float]) -> None:
        self.delays = list(delays)
        self.started: list[float] = []
        self.finished: list[float] = []
        self.kwargs: list[dict[str, Any]] = []

    async def send_message(self, chat_id: int, text: str, **kwargs: Any) -> Any:
        self.started.append(time.monotonic())
        self.kwargs.append(kwargs)
        if self.delays:
            await asyncio.sleep(self.delays.pop(0))  # a request held back, e.g. after a 429
        self.finished.append(time.monotonic())
        return type("Message", (), {"message_id": len(self.started)})()


async def test_a_late_answer_counts_from_when_it_came_back() -> None:
    """One message per 0.11 s: a request that took 0.3 s (the rate limiter retried it after
    a 429) reached Telegram late, so the next one waits a full period after it returns."""
    bot = SlowBot([0.3])
    messenger = Messenger(bot, private_per_second=10.0, private_burst=1)  # type: ignore[arg-type]
    first = await messenger.send(CHAT, "one")
    second = await messenger.send(CHAT, "two")
    assert first.delivery is Delivery.OK and second.delivery is Delivery.OK
    assert bot.started[1] - bot.finished[0] >= 0.1


async def test_a_reply_names_the_message_it_answers() -> None:
    bot = SlowBot([])
    messenger = Messenger(bot)  # type: ignore[arg-type]
    await messenger.send(-100, "in the group", reply_to=7)
    await messenger.send(CHAT, "in private")
    reply = bot.kwargs[0]["reply_parameters"]
    assert reply.message_id == 7 and reply.allow_sending_without_reply
    assert bot.kwargs[1]["reply_parameters"] is None


class FlakyBot:
    """Each method fails with the next of ``errors`` (then succeeds); records every call."""

    def __init__(self, errors: list[Exception]) -> None:
        self.errors = list(errors)
        self.calls: list[tuple[str, int]] = []

    def _next(self, method: str, chat_id: int) -> None:
        self.calls.append((method, chat_id))
        if self.errors:
            raise self.errors.pop(0)

    async def send_message(self, chat_id: int, text: str, **kwargs: Any) -> Any:
        self._next("send", chat_id)
        return type("Message", (), {"message_id": len(self.calls)})()

    async def edit_message_text(self, text: str, *, chat_id: int, **kwargs: Any) -> Any:
        self._next("edit", chat_id)
        return True


async def test_a_send_that_timed_out_is_not_sent_again_but_an_edit_is() -> None:
    bot = FlakyBot([TimedOut()])
    messenger = Messenger(bot, private_per_second=1000.0)  # type: ignore[arg-type]
    sent = await messenger.send(CHAT, "your turn")
    assert sent.delivery is Delivery.UNKNOWN and sent.message_id is None
    assert bot.calls == [("send", CHAT)]
    bot.errors = [TimedOut()]
    assert await messenger.edit(CHAT, 5, "your turn, again") is Delivery.OK
    assert bot.calls[1:] == [("edit", CHAT), ("edit", CHAT)]
    # a request PTB never sent (its pool was full) is safe to send again
    bot.errors = [TimedOut("Pool timeout: ... Request was *not* sent to Telegram.")]
    assert (await messenger.send(CHAT, "hello")).delivery is Delivery.OK
    assert bot.calls[3:] == [("send", CHAT), ("send", CHAT)]
    # a 5xx or a failed connection means nothing arrived: sent again
    bot.errors = [NetworkError("Bad Gateway")]
    assert (await messenger.send(CHAT, "hello")).delivery is Delivery.OK


async def test_one_budget_for_everything_sent_to_a_group() -> None:
    """The game's messages wait for room; a command's answer is dropped when only the
    reserve is left, never queued."""
    bot = FlakyBot([])
    messenger = Messenger(bot, group_budget=6, group_reserve=2)  # type: ignore[arg-type]
    for n in range(4):
        assert (await messenger.send(-100, f"answer {n}", optional=True)).delivery is Delivery.OK
    dropped = await messenger.send(-100, "one answer too many", optional=True)
    assert dropped.delivery is Delivery.SKIPPED
    # the game's own messages take the reserve
    assert (await messenger.send(-100, "trick")).delivery is Delivery.OK
    assert await messenger.edit(-100, 1, "table") is Delivery.OK
    assert messenger.group_room(-100) == 0
    # a seventh waits for the window: it has not gone out a moment later
    seventh = asyncio.ensure_future(messenger.send(-100, "trick 2"))
    await asyncio.sleep(0.05)
    assert not seventh.done() and len(bot.calls) == 6
    seventh.cancel()
    # other groups have their own budget
    assert (await messenger.send(-200, "hello", optional=True)).delivery is Delivery.OK


class MemoryLog:
    def __init__(self) -> None:
        self.sends: dict[int, list[float]] = {}

    async def record(self, chat_id: int, at: float) -> None:
        self.sends.setdefault(chat_id, []).append(at)

    async def recent(self, since: float) -> dict[int, list[float]]:
        return {c: [t for t in times if t >= since] for c, times in self.sends.items()}


async def test_a_restarted_messenger_knows_the_groups_last_minute() -> None:
    log = MemoryLog()
    before = Messenger(FlakyBot([]), group_budget=5, group_log=log)  # type: ignore[arg-type]
    for n in range(4):
        await before.send(-100, f"post {n}")
    log.sends[-300] = [time.time() - 120]  # two minutes ago: forgotten
    after = Messenger(FlakyBot([]), group_budget=5, group_log=log)  # type: ignore[arg-type]
    assert after.group_room(-100) == 5
    await after.restore_group_windows()
    assert after.group_room(-100) == 1
    assert after.group_room(-300) == 5
    assert after.group_wait(-100, 4) > 50  # the window frees a minute after those sends


async def test_a_restored_send_counts_a_while_past_its_logged_time() -> None:
    """A send is logged before it leaves and nobody knows when it came back: after a
    restart it counts until RESTORED_SLACK after its minute, not to the millisecond."""
    log = MemoryLog()
    log.sends[-100] = [time.time() - 59.0]
    after = Messenger(FlakyBot([]), group_budget=1, group_reserve=0, group_log=log)  # type: ignore[arg-type]
    await after.restore_group_windows()
    assert after.group_wait(-100, 1) > RESTORED_SLACK + 0.5
    # a send made now still lines up behind it
    assert (await after.send(-100, "next", optional=True)).delivery is Delivery.SKIPPED


async def test_a_group_message_counts_from_when_its_request_came_back() -> None:
    """A request held up (a 429's retry_after inside the rate limiter, a slow connection)
    reaches Telegram late: counted from when it left, it would free its place too early."""
    bot = SlowBot([0.3])
    messenger = Messenger(bot, group_budget=1, group_reserve=0)  # type: ignore[arg-type]
    await messenger.send(-100, "held up for 0.3 s")
    assert messenger.group_wait(-100, 1) > 59.9
