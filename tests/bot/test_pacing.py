"""The private-chat pacer: a sliding window that counts requests in flight, serves waiters in
order, and drops optional messages rather than queue them."""

from __future__ import annotations

import asyncio
import time

from bot.service.pacing import PrivatePacer

CHAT = 7


async def test_a_request_in_flight_holds_its_place_past_the_period() -> None:
    """One message per 0.11 s: a request held for 0.4 s (a 429 retried inside the rate
    limiter) keeps the next one waiting until it returns, then a period more."""
    pacer = PrivatePacer(per_second=10.0, burst=1)
    returned = 0.0
    started_second = 0.0

    async def slow() -> None:
        nonlocal returned
        async with pacer.slot(CHAT):
            await asyncio.sleep(0.4)
            returned = time.monotonic()

    async def second() -> None:
        nonlocal started_second
        await asyncio.sleep(0.01)  # after the slow one took its place
        async with pacer.slot(CHAT):
            started_second = time.monotonic()

    await asyncio.gather(slow(), second())
    assert started_second - returned >= 0.1


async def test_waiters_are_served_in_the_order_they_came() -> None:
    pacer = PrivatePacer(per_second=100.0, burst=1)
    order: list[int] = []

    async def message(number: int) -> None:
        async with pacer.slot(CHAT):
            order.append(number)

    # each task reaches the pacer in turn (a task runs until its first wait)
    await asyncio.gather(*(message(n) for n in range(8)))
    assert order == list(range(8))


async def test_an_optional_message_is_dropped_rather_than_queued() -> None:
    pacer = PrivatePacer(per_second=10.0, burst=1)
    outcomes: list[tuple[str, bool]] = []

    async def send(name: str, optional: bool) -> None:
        async with pacer.slot(CHAT, optional=optional) as room:
            outcomes.append((name, room))

    async with pacer.slot(CHAT):  # the window is full
        first = asyncio.create_task(send("prompt", False))  # waits for room
        await asyncio.sleep(0)
        assert pacer.waiting(CHAT)
        await send("answer", True)  # someone waits already: dropped at once
    await first
    await send("answer later", True)  # nobody waits: it waits its turn and goes
    assert outcomes == [("answer", False), ("prompt", True), ("answer later", True)]


async def test_other_chats_do_not_wait() -> None:
    pacer = PrivatePacer(per_second=1.0, burst=1)
    async with pacer.slot(CHAT):
        async with asyncio.timeout(0.5):  # a full window in one chat holds no other
            async with pacer.slot(CHAT + 1) as room:
                assert room
