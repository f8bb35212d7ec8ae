"""The group sends of the last minutes: each group's place in Telegram's 20-a-minute limit,
kept across restarts."""

from __future__ import annotations

from bot.storage.session import Session

#: rows older than this are deleted (the limit looks back one minute)
KEEP_SECONDS = 180.0
#: the old rows go every this many records (a delete per send would double the writes)
PRUNE_EVERY = 200


class GroupSendsRepository:
    def __init__(self, db: Session) -> None:
        self._db = db
        self._since_prune = 0

    async def record(self, chat_id: int, at: float) -> None:
        """A message was sent to (or edited in) group ``chat_id`` at ``at`` (epoch seconds)."""
        await self._db.write("INSERT INTO group_sends (chat_id, at) VALUES (?, ?)", (chat_id, at))
        self._since_prune += 1
        if self._since_prune >= PRUNE_EVERY:
            self._since_prune = 0
            await self._db.write("DELETE FROM group_sends WHERE at < ?", (at - KEEP_SECONDS,))

    async def recent(self, since: float) -> dict[int, list[float]]:
        """Every group's sends at ``since`` or later, oldest first."""
        async with self._db.reading():
            rows = await self._db.fetch_all(
                "SELECT chat_id, at FROM group_sends WHERE at >= ? ORDER BY at", (since,)
            )
        sends: dict[int, list[float]] = {}
        for row in rows:
            sends.setdefault(int(row["chat_id"]), []).append(float(row["at"]))
        return sends
