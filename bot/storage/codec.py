"""Between Python values and column values: JSON for the structured fields, rows to records.

JSON text columns keep the schema small and portable (PostgreSQL could use ``jsonb`` later
without the repositories' callers noticing). ``ensure_ascii=False`` keeps 中文 names readable
when someone opens the database by hand.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from bot.storage.models import (
    GAME_STATUSES,
    ActionRecord,
    GameRecord,
    GameStatus,
    PlayerRecord,
    Rating,
    ResultRow,
    SeatRecord,
)
from bot.storage.session import Row


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def loads(text: str | None) -> Any:
    return None if text is None else json.loads(text)


# -- encoders (Python value -> column) ---------------------------------------------------------


def encode_options(options: Mapping[str, Any] | None) -> str | None:
    """The settings a game was dealt with (group_options), or None: the environment's."""
    return None if options is None else dumps(dict(options))


def encode_seats(seats: Iterable[SeatRecord]) -> str:
    return dumps(
        [
            {
                "user_id": seat.user_id,
                "name": seat.name,
                "is_computer": bool(seat.is_computer),
                "language": seat.language,
            }
            for seat in seats
        ]
    )


def encode_seed(seed: int | str | None) -> str | None:
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, int | str):
        raise TypeError(f"a seed is an int or a str, not {type(seed).__name__}")
    return dumps(seed)


def encode_hands(hands: Sequence[Iterable[object]] | None) -> str | None:
    """Hands as lists of card texts. Accepts texts or the engine's Card values (``str(card)`` is
    the card's text), so the storage layer needs no import from the engine."""
    if hands is None:
        return None
    if isinstance(hands, str):
        raise TypeError("hands are a list of hands, one list of cards per seat")
    encoded: list[list[str]] = []
    for hand in hands:
        if isinstance(hand, str):  # one hand written as text: '♠3 ♥3'
            encoded.append(hand.split())
        else:
            encoded.append([card if isinstance(card, str) else str(card) for card in hand])
    return dumps(encoded)


def encode_cards(cards: str | Iterable[object] | None) -> str | None:
    if cards is None or isinstance(cards, str):
        return cards
    return " ".join(str(card) for card in cards)


def encode_message_ids(ids: Mapping[int, int]) -> str:
    # JSON object keys are strings; decode_message_ids turns them back into seats.
    return dumps({str(int(seat)): int(message) for seat, message in ids.items()})


def encode_flags(values: Iterable[bool]) -> str:
    return dumps([bool(value) for value in values])


def encode_counts(values: Iterable[int]) -> str:
    return dumps([int(value) for value in values])


def encode_optional_counts(values: Iterable[int | None]) -> str:
    return dumps([None if value is None else int(value) for value in values])


def check_status(status: str) -> GameStatus:
    if status not in GAME_STATUSES:
        raise ValueError(f"unknown game status {status!r}; one of {', '.join(GAME_STATUSES)}")
    return status


# -- decoders (row -> record) ------------------------------------------------------------------


def player_from_row(row: Row) -> PlayerRecord:
    return PlayerRecord(
        user_id=int(row["user_id"]),
        name=row["name"],
        username=row["username"],
        language=row["language"],
        telegram_language=row["telegram_language"],
        can_message=bool(row["can_message"]),
        created_at=float(row["created_at"]),
    )


def rating_from_row(row: Row) -> Rating:
    return Rating(
        user_id=int(row["user_id"]),
        game=row["game"],
        score=int(row["score"]),
        games=int(row["games"]),
        wins=int(row["wins"]),
    )


def seats_from_json(text: str) -> tuple[SeatRecord, ...]:
    return tuple(
        SeatRecord(
            user_id=seat.get("user_id"),
            name=seat.get("name", ""),
            is_computer=bool(seat.get("is_computer", False)),
            language=seat.get("language"),
        )
        for seat in loads(text)
    )


def game_from_row(row: Row) -> GameRecord:
    hands = loads(row["hands"])
    return GameRecord(
        id=int(row["id"]),
        chat_id=int(row["chat_id"]),
        variant=row["variant"],
        status=check_status(row["status"]),
        opener_id=_int_or_none(row["opener_id"]),
        seats=seats_from_json(row["seats"]),
        seed=loads(row["seed"]),
        leader=_int_or_none(row["leader"]),
        hands=None if hands is None else [list(hand) for hand in hands],
        created_at=float(row["created_at"]),
        started_at=_float_or_none(row["started_at"]),
        finished_at=_float_or_none(row["finished_at"]),
        table_message_id=_int_or_none(row["table_message_id"]),
        lobby_message_id=_int_or_none(row["lobby_message_id"]),
        hand_message_ids={int(seat): int(m) for seat, m in loads(row["hand_message_ids"]).items()},
        takeover=tuple(bool(flag) for flag in loads(row["takeover"])),
        timeouts=tuple(int(count) for count in loads(row["timeouts"])),
        escaped=tuple(bool(flag) for flag in loads(row["escaped"])),
        deadline=_float_or_none(row["deadline"]),
        previous_game_id=_int_or_none(row["previous_game_id"]),
        outcome=row["outcome"],
        note=row["note"],
        fixed_scores=tuple(
            None if score is None else int(score) for score in loads(row["fixed_scores"])
        ),
        options=loads(row["options"]),
    )


def action_from_row(row: Row) -> ActionRecord:
    return ActionRecord(
        seq=int(row["seq"]),
        seat=int(row["seat"]),
        kind=row["kind"],
        cards=row["cards"],
        at=float(row["at"]),
    )


def result_from_row(row: Row) -> ResultRow:
    return ResultRow(
        seat=int(row["seat"]),
        user_id=_int_or_none(row["user_id"]),
        delta=int(row["delta"]),
        adjusted_delta=int(row["adjusted_delta"]),
        won=bool(row["won"]),
        escaped=bool(row["escaped"]),
        score_after=_int_or_none(row["score_after"]),
    )


def _int_or_none(value: Any) -> int | None:
    return None if value is None else int(value)


def _float_or_none(value: Any) -> float | None:
    return None if value is None else float(value)
