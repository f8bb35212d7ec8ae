"""Games: the lobby, then the table; the deal and the bot's bookkeeping, not the play itself."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final, TypedDict, Unpack

from bot.storage.codec import (
    check_status,
    encode_counts,
    encode_flags,
    encode_hands,
    encode_message_ids,
    encode_optional_counts,
    encode_options,
    encode_seats,
    encode_seed,
    game_from_row,
    loads,
)
from bot.storage.errors import NotFoundError, OpenGameExistsError
from bot.storage.models import OPEN_STATUSES, GameRecord, GameStatus, SeatRecord
from bot.storage.session import Session

_COLUMNS: Final = (
    "id, chat_id, variant, status, opener_id, seats, seed, leader, hands, created_at,"
    " started_at, finished_at, table_message_id, lobby_message_id, hand_message_ids,"
    " takeover, timeouts, escaped, deadline, previous_game_id, outcome, note, fixed_scores,"
    " options"
)
_OPEN: Final = "status IN ('lobby', 'playing')"


def _optional_int(value: Any) -> int | None:
    return None if value is None else int(value)


def _optional_float(value: Any) -> float | None:
    return None if value is None else float(value)


#: what games.update accepts: field -> how its value is stored. Column names come from here
#: only, so building the UPDATE from them is safe.
_ENCODERS: Final[dict[str, Callable[[Any], Any]]] = {
    "status": check_status,
    "seats": encode_seats,
    "seed": encode_seed,
    "leader": _optional_int,
    "hands": encode_hands,
    "started_at": _optional_float,
    "finished_at": _optional_float,
    "table_message_id": _optional_int,
    "lobby_message_id": _optional_int,
    "hand_message_ids": encode_message_ids,
    "takeover": encode_flags,
    "timeouts": encode_counts,
    "escaped": encode_flags,
    "fixed_scores": encode_optional_counts,
    "deadline": _optional_float,
    "previous_game_id": _optional_int,
    "options": encode_options,
}
#: per-seat lists and the value a new seat starts with
_PER_SEAT: Final[dict[str, Any]] = {
    "takeover": False,
    "timeouts": 0,
    "escaped": False,
    "fixed_scores": None,
}
UPDATABLE_FIELDS: Final = frozenset(_ENCODERS)


class Bookkeeping(TypedDict, total=False):
    """What :meth:`GamesRepository.save` may store: the bookkeeping the service writes on
    every turn (no ``seats`` or ``status``: those need :meth:`~GamesRepository.update`)."""

    started_at: float | None
    finished_at: float | None
    table_message_id: int | None
    lobby_message_id: int | None
    hand_message_ids: Mapping[int, int]
    takeover: Sequence[bool]
    timeouts: Sequence[int]
    escaped: Sequence[bool]
    fixed_scores: Sequence[int | None]
    deadline: float | None
    leader: int | None
    seed: int | str | None
    previous_game_id: int | None


class GameChanges(Bookkeeping, total=False):
    """The fields of a game that :meth:`GamesRepository.update` may change, typed: the
    bookkeeping, and the seats, the status and an explicit deal."""

    status: GameStatus
    seats: Sequence[SeatRecord]
    hands: Sequence[Sequence[str]] | None
    options: Mapping[str, Any] | None


class GamesRepository:
    def __init__(self, db: Session) -> None:
        self._db = db

    async def create(
        self,
        *,
        chat_id: int,
        variant: str,
        opener_id: int | None,
        seats: Sequence[SeatRecord],
        seed: int | str | None,
        leader: int | None = None,
        hands: Sequence[Iterable[object]] | None = None,
        status: str = "lobby",
        previous_game_id: int | None = None,
    ) -> GameRecord:
        """A new lobby (or, with ``status="playing"``, a table dealt straight away).

        Raises :class:`OpenGameExistsError` when the chat already has a lobby or a game in
        progress. Per-seat flags start as "no takeover, no timeouts, not escaped".
        """
        status = check_status(status)
        seat_count = len(seats)
        async with self._db.transaction():
            if status in OPEN_STATUSES:
                await self._check_no_open_game(chat_id)
            if previous_game_id is not None and await self.get(previous_game_id) is None:
                raise NotFoundError(f"no game {previous_game_id} to follow")
            row = await self._db.fetch_one(
                "INSERT INTO games (chat_id, variant, status, opener_id, seats, seed, leader,"
                " hands, created_at, hand_message_ids, takeover, timeouts, escaped,"
                " previous_game_id)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " RETURNING id",
                (
                    chat_id, variant, status, opener_id, encode_seats(seats),
                    encode_seed(seed), leader, encode_hands(hands), self._db.clock(),
                    encode_message_ids({}), encode_flags([False] * seat_count),
                    encode_counts([0] * seat_count), encode_flags([False] * seat_count),
                    previous_game_id,
                ),
            )
            assert row is not None  # RETURNING always gives the new row
            game = await self.get(int(row["id"]))
        assert game is not None
        return game

    async def get(self, game_id: int) -> GameRecord | None:
        async with self._db.reading():
            row = await self._db.fetch_one(f"SELECT {_COLUMNS} FROM games WHERE id = ?", (game_id,))
        return None if row is None else game_from_row(row)

    async def open_in_chat(self, chat_id: int) -> GameRecord | None:
        """The chat's lobby or game in progress (a unique index keeps it to one at most)."""
        async with self._db.reading():
            row = await self._db.fetch_one(
                f"SELECT {_COLUMNS} FROM games WHERE chat_id = ? AND {_OPEN}", (chat_id,)
            )
        return None if row is None else game_from_row(row)

    async def unfinished(self) -> list[GameRecord]:
        """Every lobby and game in progress, oldest first: what a restart must bring back."""
        async with self._db.reading():
            rows = await self._db.fetch_all(
                f"SELECT {_COLUMNS} FROM games WHERE {_OPEN} ORDER BY id"
            )
        return [game_from_row(row) for row in rows]

    async def update(self, game_id: int, **fields: Unpack[GameChanges]) -> GameRecord:
        """Change some fields (any of :data:`UPDATABLE_FIELDS`); returns the updated game.

        When ``seats`` changes (a lobby filling up) and the per-seat lists are not given, they
        are cut or padded to the new number of seats, so they always have one entry per seat.
        """
        unknown = set(fields) - UPDATABLE_FIELDS
        if unknown:
            raise TypeError(
                f"games.update() got unknown fields {sorted(unknown)};"
                f" it accepts {sorted(UPDATABLE_FIELDS)}"
            )
        values = {name: _ENCODERS[name](value) for name, value in fields.items()}
        async with self._db.transaction():
            current = await self._db.fetch_one(
                "SELECT chat_id, status, takeover, timeouts, escaped, fixed_scores"
                " FROM games WHERE id = ?",
                (game_id,),
            )
            if current is None:
                raise NotFoundError(f"no game {game_id}")
            if "seats" in fields:
                seat_count = len(fields["seats"])
                for name, blank in _PER_SEAT.items():
                    if name not in fields:
                        stored = list(loads(current[name]))[:seat_count]
                        stored += [blank] * (seat_count - len(stored))
                        values[name] = _ENCODERS[name](stored)
            reopening = values.get("status") in OPEN_STATUSES
            if reopening and current["status"] not in OPEN_STATUSES:
                await self._check_no_open_game(int(current["chat_id"]))
            if values:
                assignments = ", ".join(f"{name} = ?" for name in values)
                await self._db.execute(
                    f"UPDATE games SET {assignments} WHERE id = ?", (*values.values(), game_id)
                )
            game = await self.get(game_id)
        assert game is not None
        return game

    async def save(self, game_id: int, **fields: Unpack[Bookkeeping]) -> None:
        """Store some of the table's bookkeeping, in one statement and nothing more.

        For the fields the service writes on every turn (hand message ids, the deadline, the
        per-seat flags, message ids); ``seats`` and ``status`` need :meth:`update`'s checks.
        Raises :class:`NotFoundError` for an unknown game.
        """
        checked = {"seats", "status"} & set(fields)
        unknown = set(fields) - UPDATABLE_FIELDS
        if checked or unknown:
            raise TypeError(
                f"games.save() cannot set {sorted(checked | unknown)}; use games.update()"
            )
        if not fields:
            return
        values = {name: _ENCODERS[name](value) for name, value in fields.items()}
        assignments = ", ".join(f"{name} = ?" for name in values)
        rows = await self._db.write(
            f"UPDATE games SET {assignments} WHERE id = ? RETURNING id",
            (*values.values(), game_id),
        )
        if not rows:
            raise NotFoundError(f"no game {game_id}")

    async def _check_no_open_game(self, chat_id: int) -> None:
        # The unique index would refuse the row anyway; asking first gives a clear error
        # instead of the driver's IntegrityError.
        row = await self._db.fetch_one(
            f"SELECT id FROM games WHERE chat_id = ? AND {_OPEN}", (chat_id,)
        )
        if row is not None:
            raise OpenGameExistsError(chat_id)
