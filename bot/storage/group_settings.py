"""Group settings: what a group's admins changed in /settings, one row per group."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from bot.storage.session import Session


@dataclass(frozen=True, slots=True)
class GroupSettingsRecord:
    """A group's changes (name -> value; the rest is the environment's) and how many
    changes were made so far."""

    chat_id: int
    changes: dict[str, Any] = field(default_factory=dict)
    revision: int = 0


class GroupSettingsRepository:
    def __init__(self, db: Session) -> None:
        self._db = db

    async def get(self, chat_id: int) -> GroupSettingsRecord:
        """The group's changes; none (revision 0) for a group that never made one."""
        async with self._db.reading():
            row = await self._db.fetch_one(
                "SELECT changes, revision FROM group_settings WHERE chat_id = ?", (chat_id,)
            )
        if row is None:
            return GroupSettingsRecord(chat_id)
        return GroupSettingsRecord(chat_id, dict(json.loads(row["changes"])), int(row["revision"]))

    async def chosen(self, name: str, value: object) -> list[int]:
        """The groups whose admins set ``name`` to ``value`` (JSON is read here, in Python:
        the groups that changed anything are few)."""
        async with self._db.reading():
            rows = await self._db.fetch_all("SELECT chat_id, changes FROM group_settings")
        return sorted(
            int(row["chat_id"]) for row in rows if json.loads(row["changes"]).get(name) == value
        )

    async def change(
        self, chat_id: int, name: str, value: Any, *, revision: int, by: int, at: float
    ) -> GroupSettingsRecord | None:
        """Set one option if the group's settings are still at ``revision`` (the menu that
        was pressed shows them); returns the new record, or None when another change came
        first (the caller answers "outdated" and shows the menu anew)."""
        async with self._db.transaction():
            current = await self.get(chat_id)
            if current.revision != revision:
                return None
            changes = {**current.changes, name: value}
            encoded = json.dumps(changes, ensure_ascii=False, sort_keys=True)
            await self._db.execute(
                "INSERT INTO group_settings (chat_id, changes, revision, updated_at, updated_by)"
                " VALUES (?, ?, ?, ?, ?)"
                " ON CONFLICT (chat_id) DO UPDATE SET changes = excluded.changes,"
                " revision = excluded.revision, updated_at = excluded.updated_at,"
                " updated_by = excluded.updated_by",
                (chat_id, encoded, revision + 1, at, by),
            )
        return GroupSettingsRecord(chat_id, changes, revision + 1)
