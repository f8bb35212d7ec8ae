"""The bot's rate limiter: however late requests reach Telegram and however its 429s fall, no
more than the overall limit arrive within any one second. Time is a manual clock whose sleep
moves it; "arrival" is the moment the callback (the HTTP request) runs."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest
from telegram.error import RetryAfter

from bot.edge.ratelimit import OVERALL_PERIOD, WindowRateLimiter
from fakebot import ManualClock


def manual_limiter(
    per_second: float, max_retries: int = 3
) -> tuple[WindowRateLimiter, ManualClock]:
    clock = ManualClock()

    async def sleep(seconds: float) -> None:
        await asyncio.sleep(0)  # let the others run first, as a real wait would
        clock.advance(max(seconds, 1e-6))

    return WindowRateLimiter(per_second, max_retries=max_retries, clock=clock, sleep=sleep), clock


def most_within_a_period(times: list[float]) -> int:
    times = sorted(times)
    most = start = 0
    for end, t in enumerate(times):
        while t - times[start] >= OVERALL_PERIOD:
            start += 1
        most = max(most, end - start + 1)
    return most


async def test_late_requests_never_let_more_than_the_limit_arrive_within_a_second() -> None:
    """200 requests to 200 chats at once, each spending a random 0–2 s on the way there
    and as long back: the arrivals of any one second stay under 30."""
    limiter, clock = manual_limiter(30)
    rng = random.Random(7)
    arrivals: list[float] = []

    async def request(out: float, back: float) -> bool:
        clock.advance(out)
        arrivals.append(clock())
        await limiter.sleep(back)
        return True

    async def send(chat_id: int) -> Any:
        out, back = rng.uniform(0, 2), rng.uniform(0, 2)
        return await limiter.process_request(
            request, (out, back), {}, "sendMessage", {"chat_id": chat_id}, None
        )

    results = await asyncio.gather(*(send(chat) for chat in range(1, 201)))
    assert results == [True] * 200
    assert len(arrivals) == 200
    assert most_within_a_period(arrivals) <= 29


async def test_a_429_pauses_its_chat_and_the_others_do_not_burst_after_it() -> None:
    """The first request to the group gets "retry after 2": it is sent again no sooner; the
    100 requests to other chats meanwhile keep within the limit (PTB's AIORateLimiter let
    them take their places during the pause and then sent them all at once)."""
    limiter, clock = manual_limiter(30)
    group = -100
    attempts: list[float] = []
    arrivals: list[float] = []
    start = clock()

    async def group_request() -> bool:
        attempts.append(clock())
        arrivals.append(clock())
        if len(attempts) == 1:
            raise RetryAfter(2)
        return True

    async def private_request() -> bool:
        arrivals.append(clock())
        await limiter.sleep(0.05)
        return True

    first = asyncio.create_task(
        limiter.process_request(group_request, (), {}, "sendMessage", {"chat_id": group}, None)
    )
    others = [
        limiter.process_request(private_request, (), {}, "sendMessage", {"chat_id": c}, None)
        for c in range(1, 101)
    ]
    assert all(await asyncio.gather(*others))
    assert await first is True
    assert len(attempts) == 2 and attempts[1] - attempts[0] >= 2.0
    assert attempts[0] - start < 0.1  # it went first
    assert most_within_a_period(arrivals) <= 29


async def test_a_request_waiting_out_its_chats_pause_holds_no_place() -> None:
    """While a group waits out a long flood wait, 60 requests to other chats all get through
    in about two seconds: a paused request takes no place in the window."""
    limiter, clock = manual_limiter(30)
    manual_sleep = limiter.sleep
    long_wait_over = asyncio.Event()

    async def sleep(seconds: float) -> None:  # the long flood wait ends when the test says
        if seconds >= 10:
            await long_wait_over.wait()
        await manual_sleep(seconds)

    limiter.sleep = sleep
    tries = 0

    async def flooded() -> bool:
        nonlocal tries
        tries += 1
        if tries == 1:
            raise RetryAfter(30)
        return True

    async def quick() -> bool:
        return True

    paused = asyncio.create_task(
        limiter.process_request(flooded, (), {}, "editMessageText", {"chat_id": -5}, None)
    )
    await asyncio.sleep(0)
    begun = clock()
    done = await asyncio.gather(
        *(
            limiter.process_request(quick, (), {}, "sendMessage", {"chat_id": c}, None)
            for c in range(1, 61)
        )
    )
    assert all(done) and clock() - begun < 3.0
    assert tries == 1 and not paused.done()  # still waiting out its 30 s
    long_wait_over.set()
    assert await paused is True and tries == 2


async def test_retries_stop_after_the_limit_and_the_429_is_raised() -> None:
    limiter, _ = manual_limiter(30, max_retries=3)
    tries = 0

    async def always_flooded() -> bool:
        nonlocal tries
        tries += 1
        raise RetryAfter(1)

    with pytest.raises(RetryAfter):
        await limiter.process_request(always_flooded, (), {}, "sendMessage", {"chat_id": 1}, None)
    assert tries == 4
    tries = 0
    with pytest.raises(RetryAfter):  # rate_limit_args overrides the retries of one call
        await limiter.process_request(always_flooded, (), {}, "sendMessage", {"chat_id": 1}, 1)
    assert tries == 2


async def test_requests_to_no_chat_take_no_place() -> None:
    """getUpdates, answerCallbackQuery and the like are not messages: with the window full of
    requests in flight, they still go at once."""
    limiter, _ = manual_limiter(3)  # two places
    release = asyncio.Event()

    async def held() -> bool:
        await release.wait()
        return True

    async def poll() -> list[Any]:
        return []

    in_flight = [
        asyncio.create_task(
            limiter.process_request(held, (), {}, "sendMessage", {"chat_id": c}, None)
        )
        for c in (1, 2)
    ]
    await asyncio.sleep(0)
    assert limiter.overall.in_flight == 2
    assert await limiter.process_request(poll, (), {}, "getUpdates", {"timeout": 10}, None) == []
    answered = await limiter.process_request(
        poll, (), {}, "answerCallbackQuery", {"callback_query_id": "1"}, None
    )
    assert answered == []
    release.set()
    assert all(await asyncio.gather(*in_flight))


async def test_the_observer_hears_every_request_flood_wait_and_retry() -> None:
    """What the metrics count: two 429s then success is three requests, two flood waits and
    two retries; a 429 on the last allowed attempt is a flood wait without a retry."""
    heard: list[tuple[str, str, bool]] = []

    class Observer:
        def called(self, method: str) -> None:
            heard.append(("call", method, False))

        def flood_wait(self, method: str, retried: bool) -> None:
            heard.append(("flood", method, retried))

    limiter, _ = manual_limiter(30, max_retries=2)
    limiter.observer = Observer()
    answers = [RetryAfter(1), RetryAfter(1), None]

    async def request() -> bool:
        answer = answers.pop(0)
        if answer is not None:
            raise answer
        return True

    assert await limiter.process_request(request, (), {}, "sendMessage", {"chat_id": 5}, None)
    assert heard == [
        ("call", "sendMessage", False), ("flood", "sendMessage", True),
        ("call", "sendMessage", False), ("flood", "sendMessage", True),
        ("call", "sendMessage", False),
    ]
    heard.clear()

    async def always_flooded() -> bool:
        raise RetryAfter(1)

    with pytest.raises(RetryAfter):
        await limiter.process_request(always_flooded, (), {}, "editMessageText", {"chat_id": 5}, 0)
    assert heard == [("call", "editMessageText", False), ("flood", "editMessageText", False)]
