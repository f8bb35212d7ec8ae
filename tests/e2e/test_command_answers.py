"""Every command gets an answer, even when the group's minute is spent (by a result, say):
privately for those who started the bot, else one merged message when the group has room."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from fakebot import FakeTelegram
from tests.e2e.driver import GROUP, bot_settings, running_bot, setup_world


@pytest.fixture
def fake_telegram_options() -> dict[str, Any]:
    return {
        "group_messages_per_minute": 20,  # Telegram's own: the bot must stay under it
        "private_messages_per_second": 2000.0,
        "global_messages_per_second": 1000.0,
    }


async def _until(answers: Any, predicate: Callable[[], bool]) -> None:
    """Wait until ``predicate`` holds of the bot's command answers (their ``changed`` event)."""
    async with asyncio.timeout(10):
        while not predicate():
            answers.changed.clear()
            if predicate():
                return
            await answers.changed.wait()


def _spend_the_groups_minute(service: Any) -> None:
    """As a game's result does: the group's window is full but for the game's reserve."""
    messenger = service.messenger
    for _ in range(messenger.group_budget - messenger.group_reserve):
        messenger._count_group(GROUP)


async def test_five_rank_after_a_spent_minute_are_all_answered(
    fake_telegram: FakeTelegram, tmp_path
) -> None:
    fake = fake_telegram
    people = setup_world(fake, 5)
    async with running_bot(bot_settings(fake, tmp_path / "bot.sqlite3")) as service:
        starters, strangers = people[:2], people[2:]
        for user_id in starters:  # they have a private chat with the bot
            await fake.send_text(user_id, user_id, "/start")
            await fake.wait_for_message(user_id, contains="/newgame")
        _spend_the_groups_minute(service)
        before = len(fake.chat(GROUP).bot_messages)
        for user_id in people:
            await fake.send_text(user_id, GROUP, "/rank")
        for index, user_id in enumerate(starters):
            answer = await fake.wait_for_message(user_id, contains="的等级")
            assert f"玩家{index + 1}" in answer.text
            assert "牌友群" in answer.text  # which group it answers
        answers = service.answers
        await _until(answers, lambda: answers.queued == len(strangers))
        assert answers.waiting(GROUP) == len(strangers)
        assert len(fake.chat(GROUP).bot_messages) == before  # nothing squeezed in meanwhile

        service.messenger._group_times[GROUP].clear()  # the minute has passed
        merged = await fake.wait_for_message(GROUP, contains="玩家5")
        assert all(f"玩家{index + 1} 的等级" in merged.text for index in range(2, 5))
        assert merged.text.count("的等级") == len(strangers)
        await _until(answers, lambda: answers.waiting(GROUP) == 0)
        assert len(fake.chat(GROUP).bot_messages) == before + 1  # one message for three
    assert not fake.limit_violations
    fake.assert_clean()


async def test_history_repeated_in_a_busy_group_is_answered_once(
    fake_telegram: FakeTelegram, tmp_path
) -> None:
    fake = fake_telegram
    people = setup_world(fake, 3)
    async with running_bot(bot_settings(fake, tmp_path / "bot.sqlite3")) as service:
        _spend_the_groups_minute(service)
        for user_id in people:
            await fake.send_text(user_id, GROUP, "/history")
        answers = service.answers
        await _until(answers, lambda: answers.queued == len(people))
        assert answers.waiting(GROUP) == 1  # the same list, once
        service.messenger._group_times[GROUP].clear()
        await fake.wait_for_message(GROUP, contains="还没有打完的牌局")
        await _until(answers, lambda: answers.waiting(GROUP) == 0)
        answers = [m for m in fake.chat(GROUP).bot_messages if "还没有打完的牌局" in m.text]
        assert len(answers) == 1
    fake.assert_clean()
