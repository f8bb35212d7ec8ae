"""The private-chat pacer: a sliding window that counts requests in flight, serves waiters in
order, and drops optional messages rather than queue them. Time is a manual clock: its sleep
moves it, so nothing here waits for real."""

from __future__ import annotations

import asyncio

import pytest

from bot.edge.pacing import PrivatePacer
from fakebot import ManualClock

CHAT = 7


def manual_pacer(per_second: float, burst: int) -> tuple[PrivatePacer, ManualClock]:
    clock = ManualClock()

    async def sleep(seconds: float) -> None:
        await asyncio.sleep(0)  # let the others run first, as a real wait would
        # at least a microsecond: "oldest + period - now", added back to now, can fall short
        # of oldest + period by a rounding error, and a clock that never gets there stalls
        clock.advance(max(seconds, 1e-6))

    return PrivatePacer(per_second, burst, clock=clock, sleep=sleep), clock


async def test_a_request_in_flight_holds_its_place_past_the_period() -> None:
    """One message per 0.11 s: a request held for 0.4 s (a 429 retried inside the rate
    limiter) keeps the next one waiting until it returns, then a period more."""
    pacer, clock = manual_pacer(per_second=10.0, burst=1)
    slow_in_flight = asyncio.Event()
    release_slow = asyncio.Event()
    returned = started_second = 0.0

    async def slow() -> None:
        nonlocal returned
        async with pacer.slot(CHAT):
            slow_in_flight.set()
            await release_slow.wait()
            clock.advance(0.4)  # the request took 0.4 s
            returned = clock()

    async def second() -> None:
        nonlocal started_second
        await slow_in_flight.wait()  # after the slow one took its place
        async with pacer.slot(CHAT):
            started_second = clock()

    slow_task = asyncio.create_task(slow())
    second_task = asyncio.create_task(second())
    await slow_in_flight.wait()
    await asyncio.sleep(0)
    assert pacer.waiting(CHAT) and started_second == 0.0  # held while the slow one flies
    release_slow.set()
    await asyncio.gather(slow_task, second_task)
    assert started_second - returned >= pacer.period >= 0.11


async def test_a_full_window_waits_for_its_oldest_message_to_leave() -> None:
    pacer, clock = manual_pacer(per_second=1.0, burst=3)
    sent: list[float] = []
    for _ in range(5):
        async with pacer.slot(CHAT):
            sent.append(clock())
    start = sent[0]
    assert sent[:3] == [start] * 3  # a burst of three at once
    # then each waits until the oldest is a whole period (3.3 s) old
    assert sent[3] == pytest.approx(start + pacer.period, abs=1e-5)
    assert sent[4] == pytest.approx(start + pacer.period, abs=1e-5)


async def test_waiters_are_served_in_the_order_they_came() -> None:
    pacer, _ = manual_pacer(per_second=100.0, burst=1)
    order: list[int] = []

    async def message(number: int) -> None:
        async with pacer.slot(CHAT):
            order.append(number)

    # each task reaches the pacer in turn (a task runs until its first wait)
    await asyncio.gather(*(message(n) for n in range(8)))
    assert order == list(range(8))


async def test_an_optional_message_is_dropped_rather_than_queued() -> None:
    pacer, _ = manual_pacer(per_second=10.0, burst=1)
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
    pacer, clock = manual_pacer(per_second=1.0, burst=1)
    before = clock()
    # a full window in one chat holds no other
    async with pacer.slot(CHAT), pacer.slot(CHAT + 1) as room:
        assert room
    assert clock() == before  # nobody slept


async def test_a_cancelled_waiter_leaves_nothing_behind() -> None:
    pacer, _ = manual_pacer(per_second=1.0, burst=1)
    async with pacer.slot(CHAT):
        waiter = asyncio.create_task(pacer.slot(CHAT).__aenter__())
        await asyncio.sleep(0)
        waiter.cancel()
        await asyncio.gather(waiter, return_exceptions=True)
    assert len(asyncio.all_tasks()) == 1  # only this test's own task is left
