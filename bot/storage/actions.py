"""The action log: every accepted action of a game, in order. Replaying it through the engine,
from the game's deal, gives the game back exactly."""

from __future__ import annotations

import builtins
from collections.abc import Iterable

from bot.storage.codec import action_from_row, encode_cards
from bot.storage.driver import ConstraintViolation
from bot.storage.errors import DuplicateActionError, NotFoundError
from bot.storage.models import ActionRecord
from bot.storage.session import Session


class ActionsRepository:
    def __init__(self, db: Session) -> None:
        self._db = db

    async def append(
        self,
        *,
        game_id: int,
        seq: int,
        seat: int,
        kind: str,
        cards: str | Iterable[object] | None = None,
        at: float | None = None,
    ) -> ActionRecord:
        """Add one action to the log. Call it (in the service's transaction) before telling
        anyone about the action: what was announced is then always on disk.

        ``cards`` is card text (``"♠3 ♥3"``); the engine's Card values are accepted too.
        ``at`` defaults to now. Raises :class:`DuplicateActionError` if ``seq`` is taken, and
        :class:`NotFoundError` for an unknown game.
        """
        record = ActionRecord(
            seq=int(seq),
            seat=int(seat),
            kind=kind,
            cards=encode_cards(cards),
            at=self._db.clock() if at is None else float(at),
        )
        # One statement, atomic by itself (or part of the caller's transaction), and no
        # look-up first: this runs for every action. The foreign key refuses an unknown
        # game, the primary key a seq that is taken.
        try:
            await self._db.write(
                "INSERT INTO actions (game_id, seq, seat, kind, cards, at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (game_id, record.seq, record.seat, record.kind, record.cards, record.at),
            )
        except ConstraintViolation as error:
            if error.kind == "foreign_key":
                raise NotFoundError(f"no game {game_id}") from error
            if error.kind == "unique":
                raise DuplicateActionError(game_id, record.seq) from error
            raise
        return record

    async def list(self, game_id: int) -> builtins.list[ActionRecord]:
        """The game's log in seq order (empty for an unknown game)."""
        async with self._db.reading():
            rows = await self._db.fetch_all(
                "SELECT seq, seat, kind, cards, at FROM actions WHERE game_id = ? ORDER BY seq",
                (game_id,),
            )
        return [action_from_row(row) for row in rows]
