"""Complete games through the real Application and the fake Bot API server."""

from __future__ import annotations

from typing import Any

import pytest

from fakebot import FakeTelegram
from tests.e2e.driver import (
    GROUP,
    ROOMY_LIMITS,
    bot_settings,
    cards_played,
    cards_shown,
    open_lobby,
    play_out,
    running_bot,
    setup_world,
)


@pytest.fixture
def fake_telegram_options() -> dict[str, Any]:
    return dict(ROOMY_LIMITS)


@pytest.mark.parametrize(
    ("variant", "humans", "computers"),
    [("双扣", 4, 0), ("刨王", 5, 0), ("双扣", 2, 2), ("刨王", 2, 3)],
)
async def test_a_complete_game_through_telegram(
    fake_telegram: FakeTelegram, database_url: str, variant: str, humans: int, computers: int
) -> None:
    """On SQLite and on PostgreSQL (``database_url``)."""
    fake = fake_telegram
    people = setup_world(fake, humans)
    async with running_bot(bot_settings(fake, database_url)) as service:
        lobby = await open_lobby(fake, people, variant, computers)
        game_id = service.by_chat[GROUP]
        # taken before the start: a 刨王 deal with all four jokers in one hand (about one in
        # 160) ends the game, and unregisters the table, at once
        table = service.tables[game_id]
        await (await fake.press(people[0], GROUP, lobby.message_id, "开始")).answered()
        state = await play_out(fake, service, people, game_id, type_every=5)
        result_message = await fake.wait_for_message(GROUP, contains="结果")
        await table.channel.drain()

        result = table.engine.result
        # the settlement is in the group, and every human's rating moved by their delta
        for index, seat in enumerate(table.seats):
            if seat.is_human:
                rating = await service.db.ratings.get(user_id=seat.user_id, game=table.variant.name)
                assert rating.games == 1
                assert rating.score == result.deltas[index]
                assert f"{result.deltas[index]:+d}" in result_message.text
        assert "再来一局" in result_message.labels
        # the table followed the trick lines down: it is among the last few messages,
        # and the result (with its button) is the very last
        visible = [m.message_id for m in fake.chat(GROUP).bot_messages]
        assert visible[-1] == result_message.message_id
        assert table.channel.table_message_id in visible[-(table.channel.follow_after + 2) :]
        assert sum("第" in m.text and "手" in m.text for m in fake.chat(GROUP).bot_messages) == 1
        # no group message ever showed a card that was not played (hands stay hidden)
        shown = cards_shown(fake.sent_to(GROUP))
        played = cards_played(table)
        assert all(count <= played[card] for card, count in shown.items()), (shown, played)
        # every press was answered; nothing was refused; no flood limit was exceeded
        assert not fake.unanswered_callbacks()
        fake.assert_clean()
        assert state.presses > 0
        # the log in the database is the game: replaying it gives the same result
        record = await service.db.games.get(game_id)
        assert record is not None and record.status == "finished"
        replayed = await service.parts.stored.rebuild(record)
        assert replayed.result == result


async def test_four_jokers_in_one_hand_win_at_once_through_telegram(
    fake_telegram: FakeTelegram, tmp_path: Any
) -> None:
    """Seed 66 deals all four jokers to seat 2: the game is over at the deal. Nobody is asked
    anything; the group gets the result, naming 四王, and the scores (+8 / -2 each): the
    one-minute rule does not take away a win the rules score at the deal."""
    fake = fake_telegram
    people = setup_world(fake, 5)
    settings = bot_settings(fake, tmp_path / "bot.sqlite3", min_game_seconds=60.0)
    async with running_bot(settings, deals=[66]) as service:
        lobby = await open_lobby(fake, people, "刨王", 0)
        await (await fake.press(people[0], GROUP, lobby.message_id, "开始")).answered()
        result = await fake.wait_for_message(GROUP, contains="结果")
        assert "结果：王方胜（1 打 4）" in (result.text or "")
        assert "四王：四张王都在 玩家3 手里，直接获胜！" in (result.text or "")
        assert GROUP not in service.by_chat
        for index, user_id in enumerate(people):
            rating = await service.db.ratings.get(user_id=user_id, game="paowang")
            assert (rating.games, rating.score) == (1, 8 if index == 2 else -2)
        assert not fake.unanswered_callbacks()
        fake.assert_clean()
