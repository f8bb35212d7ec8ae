"""A group's /settings: only the changes are stored, each under compare-and-set."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from bot.storage import Database, open_database
from bot.storage.group_settings import GroupSettingsRecord


async def test_a_group_that_never_changed_anything_has_no_changes(db: Database) -> None:
    record = await db.group_settings.get(-5)
    assert (record.chat_id, record.changes, record.revision) == (-5, {}, 0)


async def test_changes_add_up_and_count_the_revision(db: Database) -> None:
    first = await db.group_settings.change(-5, "turn_seconds", 30, revision=0, by=9, at=1.0)
    assert first is not None and first.revision == 1
    second = await db.group_settings.change(-5, "language", "en", revision=1, by=9, at=2.0)
    assert second is not None
    assert second.changes == {"turn_seconds": 30, "language": "en"}
    stored = await db.group_settings.get(-5)
    assert (stored.changes, stored.revision) == (second.changes, 2)
    # another group is untouched
    assert (await db.group_settings.get(-6)).revision == 0


async def test_a_change_from_an_outdated_menu_is_refused_and_changes_nothing(
    db: Database,
) -> None:
    assert await db.group_settings.change(-5, "auto_pass", False, revision=0, by=9, at=1.0)
    assert await db.group_settings.change(-5, "auto_pass", True, revision=0, by=8, at=2.0) is None
    stored = await db.group_settings.get(-5)
    assert (stored.changes, stored.revision) == ({"auto_pass": False}, 1)


async def test_two_admins_at_once_one_wins(db: Database) -> None:
    results = await asyncio.gather(
        db.group_settings.change(-5, "turn_seconds", 20, revision=0, by=1, at=1.0),
        db.group_settings.change(-5, "turn_seconds", 90, revision=0, by=2, at=1.0),
    )
    winners = [result for result in results if result is not None]
    assert len(winners) == 1
    assert (await db.group_settings.get(-5)).changes == winners[0].changes


async def test_the_settings_survive_reopening(db_path: Path) -> None:
    db = await open_database(db_path)
    try:
        await db.group_settings.change(-5, "default_variant", "paowang", revision=0, by=1, at=1)
    finally:
        await db.close()
    db = await open_database(db_path)
    try:
        record = await db.group_settings.get(-5)
        assert (record.changes, record.revision) == ({"default_variant": "paowang"}, 1)
    finally:
        await db.close()


async def test_a_read_that_started_before_a_change_does_not_put_the_old_settings_back(
    db: Database,
) -> None:
    """The service keeps each group's settings in memory: a first read (a lobby opening
    after a restart) that is still under way when an admin's change lands must not leave
    the settings from before the change in memory, for every later game to play by."""
    from types import SimpleNamespace

    from bot.config import Settings
    from bot.service.group_settings import GroupSettings

    deps: Any = SimpleNamespace(db=db, settings=Settings(telegram_bot_token="1:x"))
    people: Any = None  # the menu's language is not asked here
    settings = GroupSettings(deps, people)
    reading, release = asyncio.Event(), asyncio.Event()
    real_get = db.group_settings.get

    async def slow_get(chat_id: int) -> GroupSettingsRecord:
        record = await real_get(chat_id)
        reading.set()
        await release.wait()
        return record

    db.group_settings.get = slow_get  # type: ignore[method-assign]
    first_read = asyncio.create_task(settings.options(-5))
    await reading.wait()  # it read the group before any change
    db.group_settings.get = real_get  # type: ignore[method-assign]
    changed = await db.group_settings.change(-5, "turn_seconds", 30, revision=0, by=9, at=1.0)
    assert changed is not None
    settings._records[-5] = changed  # what GroupSettings._change keeps
    release.set()
    await first_read
    assert (await settings.options(-5)).turn_seconds == 30
    assert (await settings.record(-5)).revision == 1
