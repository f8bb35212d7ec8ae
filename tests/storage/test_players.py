"""Players: upsert from Telegram's data, the /lang choice, whether the private chat works."""

from __future__ import annotations

import pytest

from bot.storage import Database, NotFoundError, PlayerRecord
from tests.storage.conftest import FakeClock


async def test_an_unknown_player_is_none(db: Database) -> None:
    assert await db.players.get(42) is None


async def test_upsert_creates_a_player(db: Database, clock: FakeClock) -> None:
    player = await db.players.upsert(
        user_id=42, name="张三", username="zhang", language_code="zh-hans"
    )
    assert player == PlayerRecord(
        user_id=42,
        name="张三",
        username="zhang",
        language=None,
        telegram_language="zh-hans",
        can_message=False,
        created_at=clock.now,
    )
    assert await db.players.get(42) == player


async def test_upsert_follows_telegram_but_keeps_the_bots_own_knowledge(
    db: Database, clock: FakeClock
) -> None:
    created = await db.players.upsert(user_id=42, name="张三", username="zhang", language_code="zh")
    await db.players.set_language(user_id=42, language="en")
    await db.players.set_can_message(user_id=42, can_message=True)
    clock.advance(60)

    # a new name, the username removed, and no language_code in this update
    player = await db.players.upsert(user_id=42, name="张三丰")
    assert player.name == "张三丰"
    assert player.username is None
    assert player.telegram_language == "zh"  # Telegram omitted it: keep the last one seen
    assert player.language == "en"
    assert player.can_message is True
    assert player.created_at == created.created_at


async def test_upsert_takes_a_new_language_code(db: Database) -> None:
    await db.players.upsert(user_id=42, name="Ann", language_code="en")
    player = await db.players.upsert(user_id=42, name="Ann", language_code="de")
    assert player.telegram_language == "de"


async def test_set_language_and_back(db: Database) -> None:
    await db.players.upsert(user_id=42, name="Ann")
    player = await db.players.set_language(user_id=42, language="zh")
    assert player.language == "zh"
    player = await db.players.set_language(user_id=42, language=None)
    assert player.language is None
    assert await db.players.get(42) == player


async def test_set_can_message(db: Database) -> None:
    await db.players.upsert(user_id=42, name="Ann")
    assert (await db.players.set_can_message(user_id=42, can_message=True)).can_message is True
    assert (await db.players.set_can_message(user_id=42, can_message=False)).can_message is False
    player = await db.players.get(42)
    assert player is not None and player.can_message is False


async def test_setting_an_unknown_player_is_a_clear_error(db: Database) -> None:
    with pytest.raises(NotFoundError, match="42"):
        await db.players.set_language(user_id=42, language="en")
    with pytest.raises(NotFoundError, match="42"):
        await db.players.set_can_message(user_id=42, can_message=True)


async def test_telegram_sized_ids_fit(db: Database) -> None:
    big = 2**52 + 12345  # Telegram ids may use up to 52 significant bits
    await db.players.upsert(user_id=big, name="big")
    player = await db.players.get(big)
    assert player is not None and player.user_id == big
