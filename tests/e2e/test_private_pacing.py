"""Answers to what a user types in their private chat keep to Telegram's pace for that chat.

The fake here has Telegram's own limits (about one message a second per private chat, three
at once) and records every message past them. Command and text answers go out through the
same paced messenger as the hand messages, so a burst of typing gets every answer and no 429.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.e2e.driver import bot_settings, running_bot, setup_world
from tests.fakebot import FakeTelegram


async def test_a_burst_of_typing_is_answered_at_the_chats_pace(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    fake = fake_telegram
    (person,) = setup_world(fake, 1)
    typed = ["/start", "你好", "33 44", "/help", "不出", "/rank", "🂡", "/rules"]
    async with running_bot(bot_settings(fake, tmp_path / "bot.sqlite3")):
        chat = fake.chat(person)
        await asyncio.gather(*(fake.send_text(person, person, line) for line in typed))
        await fake.wait_for(
            lambda: len(chat.bot_messages) >= len(typed) or None,
            30,
            what="an answer to each line",
        )
    assert len(chat.bot_messages) == len(typed)
    assert fake.limit_violations == []  # nothing went past the chat's pace, so no 429
    fake.assert_clean()
