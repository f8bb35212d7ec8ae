"""Fixtures for the storage tests: a fresh database per test, on a fake clock: a SQLite file,
then a PostgreSQL database (``database_url``, from tests/conftest.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest

from bot.storage import Database, GameRecord, SeatRecord, open_database


class FakeClock:
    """A clock the test moves by hand, so stored times are exact."""

    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "bot.sqlite3"


@pytest.fixture
async def db(database_url: str, clock: FakeClock) -> AsyncIterator[Database]:
    database = await open_database(database_url, clock=clock)
    try:
        yield database
    finally:
        await database.close()


async def add_players(db: Database, *user_ids: int) -> None:
    for user_id in user_ids:
        await db.players.upsert(user_id=user_id, name=f"player {user_id}")


def human_seats(*user_ids: int) -> list[SeatRecord]:
    return [SeatRecord(user_id=user_id, name=f"player {user_id}") for user_id in user_ids]


async def new_game(
    db: Database,
    *,
    chat_id: int = -100,
    variant: str = "shuangkou",
    users: Sequence[int] = (1, 2, 3, 4),
    seed: int | None = 7,
    status: str = "lobby",
) -> GameRecord:
    return await db.games.create(
        chat_id=chat_id,
        variant=variant,
        opener_id=users[0] if users else None,
        seats=human_seats(*users),
        seed=seed,
        status=status,
    )
