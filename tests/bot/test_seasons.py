"""Seasons: calendar months and ISO weeks in UTC+8, each season's table rated from its own
games only, /season N, and the end of a season announced once (a restart across it
included), on a fake clock, on SQLite and on PostgreSQL."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import pytest

from bot.service.seasons import ZONE, number_of, numbered, previous, season_at
from bot.storage import Database, ResultRow, SeatRecord
from tests.bot.harness import running_service
from tests.storage.conftest import FakeClock, add_players

GROUP = -100
NOV = datetime(2026, 11, 10, 20, 0, tzinfo=ZONE).timestamp()
DEC = datetime(2026, 12, 2, 20, 0, tzinfo=ZONE).timestamp()
DEC_1_JUST_AFTER = datetime(2026, 12, 1, 0, 0, 5, tzinfo=ZONE).timestamp()


@pytest.fixture
def db(database: Database) -> Database:
    """On SQLite, then on PostgreSQL (tests/conftest.py)."""
    return database


async def played(
    db: Database, at: float, seats: Sequence[int], won: Sequence[bool], chat_id: int = GROUP
) -> None:
    """A 双扣 game of ``seats`` (user ids) that ended at ``at``."""
    await add_players(db, *seats)
    game = await db.games.create(
        chat_id=chat_id,
        variant="shuangkou",
        opener_id=seats[0],
        seats=[SeatRecord(user, f"p{user}") for user in seats],
        seed=1,
        status="playing",
    )
    rows = [
        ResultRow(seat, user, 2 if won[seat] else -2, 2 if won[seat] else -2, won[seat])
        for seat, user in enumerate(seats)
    ]
    await db.results.record(game_id=game.id, rows=rows, outcome="单扣")
    await db.games.update(game.id, status="finished", finished_at=at)


def test_months_and_weeks_begin_at_midnight_in_utc_plus_8() -> None:
    last_of_nov = datetime(2026, 11, 30, 23, 59, 59, tzinfo=ZONE).timestamp()
    assert season_at(last_of_nov, "month").key == "2026-11"
    december = season_at(last_of_nov + 1, "month")
    assert december.key == "2026-12" and december.start == last_of_nov + 1
    assert previous(december).key == "2026-11"
    assert december.end == datetime(2027, 1, 1, tzinfo=ZONE).timestamp()
    week = season_at(DEC, "week")  # 2026-12-02 is a Wednesday
    assert week.key == "2026-W49"
    assert week.start == datetime(2026, 11, 30, tzinfo=ZONE).timestamp()
    assert week.end - week.start == 7 * 86400
    assert numbered(NOV, "month", 2) == december and number_of(NOV, december) == 2
    assert numbered(NOV, "month", 0) is None


async def test_a_season_rates_only_its_own_games(db: Database) -> None:
    """November: 1 and 3 beat 2 and 4 three times. December: the other way round, three
    times. December's table has 2 and 4 on top, November's (season 1) 1 and 3."""
    for _ in range(3):
        await played(db, NOV, [1, 2, 3, 4], [True, False, True, False])
    for _ in range(3):
        await played(db, DEC, [1, 2, 3, 4], [False, True, False, True])
    await played(db, DEC, [5, 2, 6, 4], [True, False, True, False])  # 5 and 6 win one game
    clock = FakeClock(DEC + 3600)
    async with running_service(db, clock=clock) as (service, _):
        now = await service.parts.seasons.answer(GROUP, "zh")
        before = await service.parts.seasons.answer(GROUP, "zh", 1)
        missing = await service.parts.seasons.answer(GROUP, "zh", 3)
    assert now.startswith("🏆 <b>第 2 赛季</b>（2026-12，进行中）")
    lines = now.split("\n")
    assert lines[2].startswith(("1. p2 · 3胜1负0平", "1. p4 · 3胜1负0平"))
    assert lines[4].startswith("3. p1 · 0胜3负0平") or lines[4].startswith("3. p3 · 0胜3负0平")
    assert "未上榜（不足 3 局）：p5、p6" in now
    assert before.startswith("🏆 <b>第 1 赛季</b>（2026-11）")
    assert before.split("\n")[2].startswith(("1. p1 · 3胜0负0平", "1. p3 · 3胜0负0平"))
    assert missing == "没有这个赛季。"


async def test_the_end_of_a_season_is_announced_once(db: Database) -> None:
    for _ in range(3):
        await played(db, NOV, [1, 2, 3, 4], [True, False, True, False])
    await played(db, NOV, [7, 8, 9, 10], [True, False, True, False], chat_id=-300)
    await db.group_settings.change(-300, "season", "off", revision=0, by=1, at=1.0)
    clock = FakeClock(DEC_1_JUST_AFTER)
    async with running_service(db, clock=clock) as (service, messenger):
        assert await service.parts.seasons.announce_due() == 1
        shown = "\n".join(messenger.everything_shown(GROUP))
        assert "第 1 赛季（2026-11）结束" in shown
        assert "绍兴双扣冠军：p1（3胜0负0平" in shown or "绍兴双扣冠军：p3（3胜0负0平" in shown
        assert not messenger.everything_shown(-300)  # that group keeps no seasons
        assert await service.parts.seasons.announce_due() == 0
    # the bot restarts across the end of the season: nothing is announced again
    async with running_service(db, clock=clock) as (service, messenger):
        await service.recover()
        assert "结束" not in "\n".join(messenger.everything_shown(GROUP))
    # a week later the group switched to weekly seasons: last week's end is announced
    await db.group_settings.change(GROUP, "season", "week", revision=0, by=1, at=2.0)
    for _ in range(3):
        await played(db, DEC, [1, 2, 3, 4], [False, True, False, True])
    clock.now = datetime(2026, 12, 7, 0, 0, 1, tzinfo=ZONE).timestamp()
    async with running_service(db, clock=clock) as (service, messenger):
        assert await service.parts.seasons.announce_due() == 1
        assert "（2026-W49）结束" in "\n".join(messenger.everything_shown(GROUP))
