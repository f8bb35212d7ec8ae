"""The messenger's pacing of private chats, with a stand-in for PTB's Bot."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from bot.service.outbox import Delivery, Messenger

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
