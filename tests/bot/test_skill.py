"""Skill ratings (openskill, Weng-Lin Plackett-Luce): each kind of stored result rated as the
issue says, the numbers checked against openskill called directly; games that do not count;
the computers as a player of their own; and everything computed again from scratch giving
the same numbers, on SQLite and on PostgreSQL."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from openskill.models import PlackettLuce

from bot.game.variants import PAOWANG, SHUANGKOU
from bot.presentation.callbacks import Act, Callback, decode
from bot.presentation.rank_text import TopBoard
from bot.service.queries import top_text
from bot.service.skill import MODEL, catch_up, match_of, shown
from bot.storage import Database, ResultRow, SeatRecord
from bot.storage.skills import COMPUTER, SkillRecord
from tests.bot.harness import running_service, user, wait_until
from tests.bot.test_service import _computers_only, _humans_and_computers, _play_humans
from tests.storage.conftest import add_players

DIRECT = PlackettLuce()  # openskill itself, beside the bot's use of it


def fresh(players: int) -> list[Any]:
    """A team of newcomers: one rating object each (openskill updates objects in place, so a
    list holding one object twice would be rated twice)."""
    return [DIRECT.rating() for _ in range(players)]


@pytest.fixture
def db(database: Database) -> Database:
    """On SQLite, then on PostgreSQL (tests/conftest.py)."""
    return database


async def ended(
    db: Database,
    variant: str,
    seats: Sequence[int | None],
    won: Sequence[bool],
    *,
    escaped: Sequence[int] = (),
    status: str = "finished",
    note: str | None = None,
    chat_id: int = -100,
) -> int:
    """A game stored as ended: ``seats`` user ids (None: a computer), who won, who deserted."""
    await add_players(db, *[user for user in seats if user is not None])
    game = await db.games.create(
        chat_id=chat_id,
        variant=variant,
        opener_id=None,
        seats=[
            SeatRecord(user, f"p{user}", is_computer=user is None) for user in seats
        ],
        seed=1,
        status="playing",
    )
    rows = [
        ResultRow(seat, user, 1 if won[seat] else -1, 1 if won[seat] else -1, won[seat],
                  seat in escaped)
        for seat, user in enumerate(seats)
    ]
    await db.results.record(game_id=game.id, rows=rows, outcome="x", note=note)
    await db.games.update(game.id, status=status, finished_at=float(game.id))
    return game.id


async def skill(db: Database, player: int, game: str) -> SkillRecord | None:
    return (await db.skills.get_many(game, [player])).get(player)


def close(record: SkillRecord | None, mu: float, sigma: float) -> bool:
    return record is not None and record.mu == pytest.approx(mu) and record.sigma == pytest.approx(
        sigma
    )


async def test_a_shuangkou_win_moves_both_partnerships_as_openskill_does(db: Database) -> None:
    await ended(db, "shuangkou", [1, 2, 3, 4], [True, False, True, False])
    assert await catch_up(db) == 1
    [[w1, w2], [l1, _]] = DIRECT.rate([fresh(2), fresh(2)], ranks=[1, 2])
    assert close(await skill(db, 1, "shuangkou"), w1.mu, w1.sigma)
    assert close(await skill(db, 3, "shuangkou"), w2.mu, w2.sigma)
    assert close(await skill(db, 2, "shuangkou"), l1.mu, l1.sigma)
    assert (await skill(db, 4, "shuangkou")).rated == 1  # type: ignore[union-attr]
    assert shown(await skill(db, 1, "shuangkou")) > shown(None) > shown(
        await skill(db, 2, "shuangkou")
    ) - 100  # a newcomer shows 1000


async def test_a_pingkou_is_a_draw(db: Database) -> None:
    await ended(db, "shuangkou", [1, 2, 3, 4], [False] * 4)
    await catch_up(db)
    [[a, _], [b, _]] = DIRECT.rate([fresh(2), fresh(2)], ranks=[1, 1])
    assert close(await skill(db, 1, "shuangkou"), a.mu, a.sigma)
    assert close(await skill(db, 2, "shuangkou"), b.mu, b.sigma)
    assert a.mu == pytest.approx(25.0)


async def test_paowang_rates_the_sides_as_they_stood_at_the_end(db: Database) -> None:
    """1 against 4: the lone winner against the other four, after an earlier game that gave
    them different ratings going in."""
    await ended(db, "paowang", [1, 2, 3, 4, 5], [True, True, False, False, False])
    await catch_up(db)
    before = {p: await skill(db, p, "paowang") for p in (1, 2, 3, 4, 5)}
    await ended(db, "paowang", [3, 1, 2, 4, 5], [True, False, False, False, False])
    await catch_up(db)

    def prior(player: int):  # type: ignore[no-untyped-def]
        record = before[player]
        assert record is not None
        return DIRECT.rating(mu=record.mu, sigma=record.sigma)

    [[alone], losers] = DIRECT.rate(
        [[prior(3)], [prior(p) for p in (1, 2, 4, 5)]], ranks=[1, 2]
    )
    assert close(await skill(db, 3, "paowang"), alone.mu, alone.sigma)
    for player, new in zip((1, 2, 4, 5), losers, strict=True):
        assert close(await skill(db, player, "paowang"), new.mu, new.sigma)
    assert (await skill(db, 3, "paowang")).rated == 2  # type: ignore[union-attr]


async def test_a_deserter_alone_loses(db: Database) -> None:
    """逃跑: the deserter against everyone else, and only the deserter moves (the game went
    on with a computer in the seat; nobody else is rated for it)."""
    await ended(db, "shuangkou", [1, 2, 3, 4], [True, False, True, False], escaped=[1])
    await ended(db, "paowang", [5, 6, 7, 8, 9], [False] * 5, escaped=[0], status="cancelled",
                chat_id=-200)
    assert await catch_up(db) == 2
    [[left], _] = DIRECT.rate([fresh(1), fresh(3)], ranks=[2, 1])
    assert close(await skill(db, 2, "shuangkou"), left.mu, left.sigma)
    assert all([await skill(db, p, "shuangkou") is None for p in (1, 3, 4)])
    assert (await skill(db, 5, "paowang")) is not None
    assert all([await skill(db, p, "paowang") is None for p in (6, 7, 8, 9)])


async def test_short_and_cancelled_games_are_not_rated(db: Database) -> None:
    await ended(db, "shuangkou", [1, 2, 3, 4], [True, False, True, False], note="short game")
    await ended(db, "shuangkou", [1, 2, 3, 4], [True, False, True, False], status="cancelled",
                chat_id=-200)
    assert await catch_up(db) == 2
    assert await db.skills.of_player(1) == {}
    assert await db.skills.waiting() == []  # looked at once: not again


async def test_computers_are_a_player_of_their_own(db: Database) -> None:
    # two people with a computer partner each? no: the people together, two computers against
    await ended(db, "shuangkou", [1, None, 2, None], [True, False, True, False])
    await catch_up(db)
    computer = await skill(db, COMPUTER, "shuangkou")
    [[w, _], [lost, _]] = DIRECT.rate([fresh(2), fresh(2)], ranks=[1, 2])
    assert close(computer, lost.mu, lost.sigma) and computer.rated == 1  # type: ignore[union-attr]
    assert close(await skill(db, 1, "shuangkou"), w.mu, w.sigma)
    # a computer on each side: it played itself, its rating stays
    await ended(db, "shuangkou", [1, None, None, 2], [True, False, True, False])
    await catch_up(db)
    assert await skill(db, COMPUTER, "shuangkou") == computer


async def test_the_match_of_a_game_in_progress_is_none(db: Database) -> None:
    game_id = await ended(db, "shuangkou", [1, 2, 3, 4], [True, False, True, False],
                          status="playing")
    record = await db.games.get(game_id)
    assert record is not None
    assert match_of(record, await db.results.for_game(game_id)) is None
    assert MODEL.rating().mu == 25.0


async def test_games_played_through_the_service_give_the_numbers_computed_again(
    db: Database,
) -> None:
    """Rated at each game's end, in the transaction that stores it; then every rating forgotten
    and computed again from the stored games: the very same numbers."""
    async with running_service(db) as (service, messenger):
        for variant, humans in ((SHUANGKOU, 2), (PAOWANG, 3), (SHUANGKOU, 4)):
            table, people = await _humans_and_computers(service, messenger, variant, humans)
            await _play_humans(service, messenger, table, people)
            await table.channel.drain()
        table = await _computers_only(service, PAOWANG)
        await wait_until(lambda: table.status == "finished", messenger.changed)
        await table.channel.drain()
    assert await db.skills.waiting() == []  # each taken in as it ended
    before = await everything(db)
    assert len(before) >= 5 and max(r.rated for r in before) >= 2
    await db.skills.forget_all()
    assert await catch_up(db) == 4
    assert await everything(db) == before


async def everything(db: Database) -> list[SkillRecord]:
    async with db.reading():
        rows = await db.fetch_all("SELECT player, game FROM skills ORDER BY player, game")
    found = []
    for row in rows:
        record = await skill(db, int(row["player"]), str(row["game"]))
        assert record is not None
        found.append(record)
    return found


async def test_the_skill_board_ranks_by_skill_and_names_the_unranked(db: Database) -> None:
    """Ten games: 1 and 2 always beat 3 and 4; 5 played one game. The board lists the four
    with ten rated games by skill, the winners first, and names 5 as unranked; 等级's board
    is the other button's."""
    for _ in range(10):
        await ended(db, "shuangkou", [1, 3, 2, 4], [True, False, True, False])
    await ended(db, "shuangkou", [5, 3, 1, 4], [False, True, False, True])
    await catch_up(db)
    board = await top_text(db, -100, "zh", TopBoard.SKILL)
    lines = board.split("\n")
    assert lines[0] == "<b>本群绍兴双扣技术榜</b>"
    ranked = [line.split(" · ")[0].split(". ")[1] for line in lines[1:5]]
    assert set(ranked[:2]) == {"player 1", "player 2"}
    assert set(ranked[2:]) == {"player 3", "player 4"}
    assert "未定级（评定不足 10 局）：player 5" in board
    levels = await top_text(db, -100, "zh", TopBoard.LEVEL)
    assert "本群绍兴双扣排行" in levels and "技术" not in levels


async def test_a_top_press_without_its_message_changes_nothing(db: Database) -> None:
    async with running_service(db) as (service, messenger):
        person = user(1)
        for data in (Callback(0, 0, Act.TOP, 1), Callback(0, 0, Act.TOP, 7)):
            reply = await service.on_top_press(person, -100, None, data)
            assert "过期" in reply.text
        assert not messenger.messages
    assert decode("0:0:o:1") == Callback(0, 0, Act.TOP, 1)


async def test_the_board_across_groups_counts_only_the_groups_that_opted_in(
    db: Database,
) -> None:
    for chat, (a, b, c, d) in ((-100, (1, 2, 3, 4)), (-200, (5, 6, 7, 8)), (-300, (9, 10, 11, 12))):
        for _ in range(10):
            await ended(db, "shuangkou", [a, b, c, d], [True, False, True, False], chat_id=chat)
    await catch_up(db)
    for chat in (-100, -200):
        await db.group_settings.change(chat, "shared_top", True, revision=0, by=1, at=1.0)
    board = await top_text(db, -100, "zh", TopBoard.SHARED)
    assert board.startswith("<b>跨群绍兴双扣技术榜</b>（2 个群）")
    names = {line.split(" · ")[0].split(". ")[1] for line in board.split("\n") if ". " in line}
    assert names == {f"player {n}" for n in range(1, 9)}  # not group -300's
    async with running_service(db) as (service, _):
        refused = await service.on_top_press(user(9), -300, 7, Callback(0, 0, Act.TOP, 2))
        assert "过期" in refused.text  # -300 never opted in
