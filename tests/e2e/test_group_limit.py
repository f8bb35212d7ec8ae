"""At Telegram's real group limit (20 messages a minute, edits included) a game at full speed
with computer seats never exceeds it: the table's output is paced and merged."""

from __future__ import annotations

from typing import Any

import pytest

from fakebot import FakeTelegram
from tests.e2e.driver import GROUP, bot_settings, open_lobby, play_out, running_bot, setup_world


@pytest.fixture
def fake_telegram_options() -> dict[str, Any]:
    return {
        "group_messages_per_minute": 20,
        "private_messages_per_second": 200.0,
        "global_messages_per_second": 1000.0,
    }


async def test_full_speed_game_stays_under_the_group_limit(
    fake_telegram: FakeTelegram, tmp_path
) -> None:
    fake = fake_telegram
    people = setup_world(fake, 1)
    settings = bot_settings(fake, tmp_path / "bot.sqlite3")
    assert settings.group_messages_per_minute == 20
    async with running_bot(settings) as service:
        lobby = await open_lobby(fake, people, "双扣", 3)
        game_id = service.by_chat[GROUP]
        await (await fake.press(people[0], GROUP, lobby.message_id, "开始")).answered()
        table = service.tables[game_id]
        await play_out(fake, service, people, game_id)
        result = await fake.wait_for_message(GROUP, contains="结果", timeout=60)
        await table.channel.drain()
        assert f"{table.engine.result.deltas[0]:+d}" in result.text
    group = fake.chat(GROUP)
    times = sorted(v.time for v in group.history)
    busiest = max(sum(1 for t in times if start <= t < start + 60) for start in times)
    assert busiest <= 20, busiest
    assert not fake.limit_violations
    fake.assert_clean()
    # the whole game was shown: every trick and player-out line reached the group
    assert any("出完了" in text for text in fake.sent_to(GROUP))
