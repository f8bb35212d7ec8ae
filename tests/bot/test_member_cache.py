"""The member cache with a fake clock and a fake Telegram: expiry, one lookup for many asks,
the lookups' own budget, the size bound, and what updates teach it."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.edge.handlers.member_cache import RETRY_SECONDS, MemberCache, Standing

GROUP = -1001
MEMBER = Standing(member=True, admin=False)
ADMIN = Standing(member=True, admin=True)
LEFT = Standing(member=False, admin=False)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Telegram:
    """getChatMember as a dict, counting calls; ``hold`` keeps every call waiting."""

    def __init__(self, members: dict[int, Standing] | None = None) -> None:
        self.members = members or {}
        self.calls: Counter[tuple[int, int]] = Counter()
        self.hold: asyncio.Event | None = None
        self.failing = False

    async def fetch(self, chat_id: int, user_id: int) -> Standing | None:
        self.calls[chat_id, user_id] += 1
        if self.hold is not None:
            await self.hold.wait()
        if self.failing:
            return None
        return self.members.get(user_id, LEFT)


async def until(condition: Any) -> None:
    """Let the other tasks run until ``condition()`` holds (no clock involved)."""
    for _ in range(1000):
        if condition():
            return
        await asyncio.sleep(0)
    raise AssertionError("never happened")


def cache_for(telegram: Telegram, clock: Clock, **overrides: Any) -> MemberCache:
    values: dict[str, Any] = {
        "member_seconds": 600.0,
        "nonmember_seconds": 60.0,
        "admin_seconds": 30.0,
        "per_second": 1.0,
        "burst": 100,
        "size": 1000,
        "clock": clock,
    }
    values.update(overrides)
    return MemberCache(telegram.fetch, **values)


async def test_answers_are_kept_until_they_expire() -> None:
    clock, telegram = Clock(), Telegram({1: MEMBER})
    cache = cache_for(telegram, clock)
    assert await cache.is_member(GROUP, 1) is True
    assert await cache.is_member(GROUP, 2) is False
    clock.now += 59
    assert await cache.is_member(GROUP, 1) is True
    assert await cache.is_member(GROUP, 2) is False
    assert cache.lookups == 2
    clock.now += 2  # "not a member" is believed a minute: someone may have joined
    telegram.members[2] = MEMBER
    assert await cache.is_member(GROUP, 2) is True
    assert cache.lookups == 3
    clock.now += 600  # a member ten minutes
    telegram.members[1] = LEFT
    assert await cache.is_member(GROUP, 1) is False
    assert telegram.calls == {(GROUP, 1): 2, (GROUP, 2): 2}


async def test_concurrent_asks_share_one_lookup() -> None:
    clock, telegram = Clock(), Telegram({1: MEMBER})
    telegram.hold = asyncio.Event()
    cache = cache_for(telegram, clock, burst=1)
    asks = [asyncio.create_task(cache.is_member(GROUP, 1)) for _ in range(200)]
    admin_ask = asyncio.create_task(cache.is_admin(GROUP, 1))
    await until(lambda: telegram.calls)
    # one waiter going away (a socket closed) does not cancel the others' lookup
    asks[0].cancel()
    telegram.hold.set()
    answers = await asyncio.gather(*asks[1:])
    assert answers == [True] * 199
    assert await admin_ask is False
    assert telegram.calls == {(GROUP, 1): 1}
    assert cache.refused == 0  # the waiters spent no budget of their own


async def test_a_spent_budget_answers_not_known_at_once() -> None:
    clock, telegram = Clock(), Telegram({n: MEMBER for n in range(10)})
    telegram.hold = asyncio.Event()  # Telegram is slow: the refusals must not wait for it
    cache = cache_for(telegram, clock, per_second=2.0, burst=3)
    slow = [asyncio.create_task(cache.is_member(GROUP, n)) for n in range(3)]
    await until(lambda: len(telegram.calls) == 3)
    assert await cache.is_member(GROUP, 3) is None
    assert await cache.is_member(GROUP, 4) is None
    assert cache.refused == 2 and sum(telegram.calls.values()) == 3
    telegram.hold.set()
    assert await asyncio.gather(*slow) == [True, True, True]
    clock.now += 0.5  # the bucket refills at two a second
    assert await cache.is_member(GROUP, 3) is True
    assert await cache.is_member(GROUP, 4) is None
    # cached answers cost nothing
    assert [await cache.is_member(GROUP, n) for n in range(4)] == [True] * 4
    # admin checks do not spend (nor wait for) that budget: /settings works under a flood
    assert await cache.is_admin(GROUP, 5) is False
    assert sum(telegram.calls.values()) == 5


async def test_a_failed_lookup_is_not_repeated_at_once() -> None:
    clock, telegram = Clock(), Telegram({1: ADMIN})
    telegram.failing = True
    cache = cache_for(telegram, clock)
    assert await cache.is_member(GROUP, 1) is None
    assert await cache.is_admin(GROUP, 1) is False  # rights are never assumed
    clock.now += RETRY_SECONDS - 1
    assert await cache.is_member(GROUP, 1) is None
    assert cache.lookups == 1
    telegram.failing = False
    clock.now += 1
    assert await cache.is_member(GROUP, 1) is True
    assert await cache.is_admin(GROUP, 1) is True
    assert cache.lookups == 2


async def test_admin_rights_are_asked_again_sooner() -> None:
    clock, telegram = Clock(), Telegram({1: ADMIN})
    cache = cache_for(telegram, clock)
    assert await cache.is_admin(GROUP, 1) is True
    assert await cache.is_member(GROUP, 1) is True  # the same lookup answered both
    clock.now += 29
    telegram.members[1] = MEMBER  # demoted
    assert await cache.is_admin(GROUP, 1) is True
    clock.now += 1
    assert await cache.is_admin(GROUP, 1) is False
    assert cache.lookups == 2
    # with no admin cache every check asks
    uncached = cache_for(telegram, clock, admin_seconds=0.0)
    for _ in range(3):
        assert await uncached.is_admin(GROUP, 1) is False
    assert uncached.lookups == 3


async def test_the_least_recently_used_go_first() -> None:
    clock, telegram = Clock(), Telegram({n: MEMBER for n in range(10)})
    cache = cache_for(telegram, clock, size=3)
    for n in (1, 2, 3):
        await cache.is_member(GROUP, n)
    await cache.is_member(GROUP, 1)  # 1 is used again: 2 is now the oldest
    await cache.is_member(GROUP, 4)
    assert len(cache) == 3
    assert cache.lookups == 4
    for n in (1, 3, 4):
        await cache.is_member(GROUP, n)
    assert cache.lookups == 4
    await cache.is_member(GROUP, 2)
    assert telegram.calls[GROUP, 2] == 2


async def test_what_updates_say_needs_no_call() -> None:
    clock, telegram = Clock(), Telegram()
    cache = cache_for(telegram, clock)
    cache.seen(GROUP, 1)  # wrote in the group
    assert await cache.is_member(GROUP, 1) is True
    cache.learned(GROUP, 1, LEFT)  # a chat_member update: left, or banned
    assert await cache.is_member(GROUP, 1) is False
    cache.learned(GROUP, 2, ADMIN)  # promoted
    assert await cache.is_admin(GROUP, 2) is True
    assert cache.lookups == 0
    # another group is another question
    assert await cache.is_member(-1002, 1) is False
    assert cache.lookups == 1


async def test_an_update_during_a_lookup_wins() -> None:
    clock, telegram = Clock(), Telegram({1: MEMBER})
    telegram.hold = asyncio.Event()
    cache = cache_for(telegram, clock)
    ask = asyncio.create_task(cache.is_member(GROUP, 1))
    await until(lambda: telegram.calls)
    clock.now += 1
    cache.learned(GROUP, 1, LEFT)  # banned while Telegram was answering the older question
    clock.now += 1
    telegram.hold.set()
    assert await ask is True  # the asker gets the lookup's answer ...
    assert await cache.is_member(GROUP, 1) is False  # ... but the ban is what is kept
    assert cache.lookups == 1


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 30), st.sampled_from([0.0, 0.1, 0.5, 2.0])),
        min_size=1,
        max_size=120,
    ),
    st.integers(1, 8),
)
def test_never_beyond_the_budget_nor_the_size(asks: list[tuple[int, float]], size: int) -> None:
    """However the asks come, membership lookups stay within burst + rate x time, and the
    cache within its size."""

    async def run() -> None:
        clock, telegram = Clock(), Telegram({n: MEMBER for n in range(0, 31, 2)})
        start = clock.now
        cache = cache_for(telegram, clock, per_second=2.0, burst=3, size=size)
        for user, advance in asks:
            clock.now += advance
            answer = await cache.is_member(GROUP, user)
            assert answer in (None, user % 2 == 0)
            assert len(cache) <= size
            assert cache.lookups <= 3 + 2.0 * (clock.now - start)

    asyncio.run(run())


@pytest.mark.parametrize("status", ["left", "kicked"])
def test_standing_of_telegram_statuses(status: str) -> None:
    from telegram import ChatMemberBanned, ChatMemberLeft, ChatMemberMember, User

    from bot.edge.handlers.members import standing_of

    user = User(1, "x", is_bot=False)
    gone = ChatMemberLeft(user) if status == "left" else ChatMemberBanned(user, until_date=None)
    assert standing_of(gone) == LEFT
    assert standing_of(ChatMemberMember(user)) == MEMBER
