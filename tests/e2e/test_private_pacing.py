"""Answers to what a user types in their private chat keep to Telegram's pace for that chat.

The fake here has Telegram's own limits (about one message a second per private chat, three
at once) and records every message past them. Command and text answers go out through the
same paced messenger as the hand messages, so a burst of typing gets every answer and no 429.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from fakebot import FakeTelegram
from tests.e2e.driver import bot_settings, running_bot, setup_world


async def test_a_burst_of_typing_is_answered_at_the_chats_pace(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    """Commands are always answered; answers to typed text are optional: one that would
    queue behind another message for the chat is dropped, so fast typing builds no queue."""
    fake = fake_telegram
    (person,) = setup_world(fake, 1)
    commands = {"/start": "把我加进群", "/help": "命令", "/rank": " 的等级", "/rules": "牌型"}
    typed = ["你好", "33 44", "不出", "🂡"]
    lines = [line for pair in zip(commands, typed, strict=True) for line in pair]
    async with running_bot(bot_settings(fake, tmp_path / "bot.sqlite3")):
        chat = fake.chat(person)
        await asyncio.gather(*(fake.send_text(person, person, line) for line in lines))

        def shown(words: str) -> int:
            return sum(words in m.text for m in chat.bot_messages)

        await fake.wait_for(
            lambda: all(shown(words) for words in commands.values()) and shown("没有进行中的牌局"),
            30,
            what="every command answered, and some typed text",
        )
    assert all(shown(words) == 1 for words in commands.values())
    assert 1 <= shown("没有进行中的牌局") <= len(typed)
    assert fake.limit_violations == []  # nothing went past the chat's pace, so no 429
    fake.assert_clean()
