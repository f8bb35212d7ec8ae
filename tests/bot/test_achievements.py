"""Achievements: each one on a game that earns it (real engine games played by the AI and
stored as the bot stores them, or a constructed log), none twice, none for a deserter, a short
game or a cancelled one; the private note; /stats' list; and the same achievements when
everything is computed again from the stored games."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from bot.cli.simulate import next_actor
from bot.game.common import Action, Result, WinHow
from bot.game.players import make_player
from bot.game.variants import VARIANTS
from bot.service.achievements import KEYS
from bot.service.skill import catch_up, take_in
from bot.storage import Database, ResultRow, SeatRecord
from tests.storage.conftest import add_players

PEOPLE = (1, 2, 3, 4, 5)


@pytest.fixture
async def db(database: Database) -> Database:
    """On SQLite, then on PostgreSQL (tests/conftest.py), with the players."""
    await add_players(database, *PEOPLE, 6, 7, 8, 9)
    return database


def played(variant: str, seed: int) -> tuple[list[Action], Result]:
    """A whole game played by the AI: its log and result."""
    game = VARIANTS[variant].deal(seed, None)
    players = [make_player("ai", seed=seed + seat) for seat in range(len(game.hands))]
    log: list[Action] = []
    while not game.over:
        seat = next_actor(game)
        assert seat is not None
        view = game.view(seat)
        if view.reveal_pending:
            action = Action("reveal" if players[seat].choose_reveal(view) else "decline", seat)
        else:
            combo = players[seat].choose(view)
            action = Action("pass", seat) if combo is None else Action.play(seat, combo.cards)
        game.apply(action)
        log.append(action)
    assert game.result is not None
    return log, game.result


def find(variant: str, wanted: Callable[[list[Action], Result], bool]) -> tuple[int, Any, Any]:
    for seed in range(1, 400):
        log, result = played(variant, seed)
        if wanted(log, result):
            return seed, log, result
    raise AssertionError("no such game in 400 seeds")


async def store(
    db: Database,
    variant: str,
    seed: int | None,
    log: Sequence[Action],
    won: Sequence[bool],
    *,
    seats: Sequence[int] = PEOPLE,
    hands: list[list[str]] | None = None,
    note: str | None = None,
    escaped: Sequence[int] = (),
    at: float = 100.0,
) -> int:
    count = len(won)
    game = await db.games.create(
        chat_id=-100,
        variant=variant,
        opener_id=seats[0],
        seats=[SeatRecord(user, f"p{user}") for user in seats[:count]],
        seed=seed,
        hands=hands,
        leader=0 if hands is not None else None,
        status="playing",
    )
    for seq, action in enumerate(log):
        await db.actions.append(
            game_id=game.id, seq=seq, seat=action.seat, kind=action.kind, cards=action.log_text
        )
    rows = [
        ResultRow(seat, seats[seat], 1 if won[seat] else -1, 1 if won[seat] else -1, won[seat],
                  seat in escaped)
        for seat in range(count)
    ]
    await db.results.record(game_id=game.id, rows=rows, outcome="x", note=note)
    await db.games.update(game.id, status="finished", finished_at=at)
    return game.id


async def earned(db: Database, user: int) -> list[str]:
    return [e.key for e in await db.achievements.of_player(user)]


async def test_a_shuangkou_win_earns_the_first_win_and_a_double(db: Database) -> None:
    seed, log, result = find("shuangkou", lambda _, r: r.outcome == "双扣")
    won = [seat in result.winners for seat in range(4)]
    game_id = await store(db, "shuangkou", seed, log, won)
    new = await take_in(db, game_id)
    winner = PEOPLE[result.winners[0]]
    assert new[winner][:2] == ["first_win_shuangkou", "shuangkou"]
    loser = next(PEOPLE[s] for s in range(4) if not won[s])
    assert loser not in new  # nothing earned by losing (the first game is no streak)
    # the same again: nothing new (each is earned once)
    again = await store(db, "shuangkou", seed, log, won, at=200.0)
    assert (await take_in(db, again)).get(winner, []) == []


@pytest.mark.parametrize(
    ("how", "key"),
    [(WinHow.FLAG, "kangqi"), (WinHow.SWEEP, "shuangfei"), (WinHow.POINTS, "man140")],
)
async def test_paowang_wins_by_how_they_were_won(db: Database, how: WinHow, key: str) -> None:
    seed, log, result = find("paowang", lambda _, r: r.how == how)
    won = [seat in result.winners for seat in range(5)]
    new = await take_in(db, await store(db, "paowang", seed, log, won))
    for seat in result.winners:
        assert key in new[PEOPLE[seat]] and "first_win_paowang" in new[PEOPLE[seat]]
    for seat in set(range(5)) - set(result.winners):
        assert key not in new.get(PEOPLE[seat], [])


async def test_one_against_four(db: Database) -> None:
    seed, log, result = find("paowang", lambda _, r: len(r.winners) == 1)
    won = [seat in result.winners for seat in range(5)]
    new = await take_in(db, await store(db, "paowang", seed, log, won))
    assert "one_vs_four" in new[PEOPLE[result.winners[0]]]


async def test_bombs_played_earn_what_they_are(db: Database) -> None:
    """A constructed log: seat 0 leads 三连炸 (333 444 555 ×… as the engine reads it), seat 1
    answers 天王炸; the game is stored as finished with a result (the log alone tells bombs)."""
    triple = "♠3 ♥3 ♣3 ♦3 ♠4 ♥4 ♣4 ♦4 ♠5 ♥5 ♣5 ♦5"
    jokers = "大王 大王 小王 小王"
    log = [Action.from_log("play", 0, triple), Action.from_log("play", 1, jokers)]
    from bot.game.cards import parse_cards
    from bot.game.shuangkou_combos import classify

    assert classify(parse_cards(triple)).kind == "triple_bomb"  # type: ignore[union-attr]
    assert classify(parse_cards(jokers)).kind == "joker_bomb"  # type: ignore[union-attr]
    new = await take_in(db, await store(db, "shuangkou", 5, log, [False, True, False, True]))
    assert "sanlianzha" in new[1] and "siwang" in new[2]


async def test_a_deserter_a_short_game_and_a_cancelled_one_earn_nothing(db: Database) -> None:
    seed, log, result = find("shuangkou", lambda _, r: r.outcome == "双扣")
    won = [seat in result.winners for seat in range(4)]
    winner = result.winners[0]
    short = await store(db, "shuangkou", seed, log, won, note="short game")
    assert await take_in(db, short) == {}
    deserted = await store(db, "shuangkou", seed, log, won, escaped=[winner], at=150.0)
    assert PEOPLE[winner] not in await take_in(db, deserted)
    cancelled = await store(db, "shuangkou", seed, log, won, at=160.0)
    await db.games.update(cancelled, status="cancelled")
    assert await take_in(db, cancelled) == {}


async def test_streaks_games_and_upsets_from_the_history(db: Database) -> None:
    """Player 1 (with 3) beats 2 and 4 ten times in a row: streaks of 5 and 10. Then 2 and 4,
    rated far below by now, beat them: an upset. Nobody has 100 games."""
    for n in range(10):
        game_id = await store(db, "shuangkou", 1, [], [True, False, True, False], at=10.0 + n)
        new = await take_in(db, game_id)
        if n == 4:
            assert "streak_5" in new[1] and "streak_5" in new[3]
        if n == 9:
            assert "streak_10" in new[1]
    upset = await store(db, "shuangkou", 1, [], [False, True, False, True], at=30.0)
    new = await take_in(db, upset)
    assert "upset" in new[2] and "upset" in new[4]
    assert "games_100" not in await earned(db, 1)


async def test_a_hundred_games(db: Database) -> None:
    for n in range(100):
        await store(db, "shuangkou", 1, [], [n % 2 == 0, n % 2 == 1] * 2, at=float(n))
    await catch_up(db)
    assert "games_100" in await earned(db, 1)
    [hundredth] = [e for e in await db.achievements.of_player(1) if e.key == "games_100"]
    assert hundredth.at == 99.0


async def test_computed_again_the_same_achievements(db: Database) -> None:
    seed, log, result = find("paowang", lambda _, r: r.how == WinHow.FLAG)
    await store(db, "paowang", seed, log, [s in result.winners for s in range(5)])
    for n in range(6):
        await store(db, "shuangkou", 1, [], [True, False, True, False], at=200.0 + n)
    await catch_up(db)
    before = {user: await earned(db, user) for user in PEOPLE}
    async with db.transaction():
        await db.execute("DELETE FROM achievements")
    await db.skills.forget_all()
    await catch_up(db)
    assert {user: await earned(db, user) for user in PEOPLE} == before
    assert set().union(*before.values()) <= set(KEYS)


async def test_earners_are_told_privately_and_stats_lists_them(db: Database) -> None:
    from bot.game.variants import SHUANGKOU
    from tests.bot.harness import running_service
    from tests.bot.test_service import GROUP, _humans_and_computers, _play_humans

    async with running_service(db) as (service, messenger):
        # until a game has winners: a 平扣 has none, and the deals are random (about 29% of
        # all-AI deals end 平扣, so six tries failed about once in 1,800 runs)
        for _ in range(20):
            table, people = await _humans_and_computers(service, messenger, SHUANGKOU, 4)
            await _play_humans(service, messenger, table, people)
            await table.channel.drain()
            if table.engine.result.winners:
                break
        assert table.engine.result.winners, "twenty 平扣 in a row"
        earned_by = table.settlement.earned
        winners = [p for p in people if p.user_id in earned_by]
        assert winners and all("first_win_shuangkou" in earned_by[p.user_id] for p in winners)
        for person in people:
            private = "\n".join(messenger.everything_shown(person.user_id))
            assert ("新成就" in private) == (person in winners)
            if person in winners:
                assert "双扣首胜" in private
        assert "新成就" not in "\n".join(messenger.everything_shown(GROUP))  # never the group
        answer = await service.stats(winners[0])
        count = len(earned_by[winners[0].user_id])
        assert f"🏅 成就（{count}/{len(KEYS)}）：双扣首胜" in answer.text


async def test_daxue_and_four_jokers_in_paowang(db: Database) -> None:
    seed, log, result = find("paowang", lambda _, r: r.outcome == "大雪")
    won = [s in result.winners for s in range(5)]
    new = await take_in(db, await store(db, "paowang", seed, log, won))
    assert all("daxue" in new[PEOPLE[s]] for s in result.winners)
    seed, log, result = find("paowang", lambda _, r: r.how == WinHow.FOUR_JOKERS)
    assert log == []  # 四王 in one hand: the game is won at the deal
    new = await take_in(
        db, await store(db, "paowang", seed, log, [s in result.winners for s in range(5)], at=300.0)
    )
    assert all("siwang" in new[PEOPLE[s]] for s in result.winners)


async def test_taking_the_games_in_again_awards_nothing_twice(db: Database) -> None:
    for n in range(6):
        await store(db, "shuangkou", 1, [], [True, False, True, False], at=float(n))
    await catch_up(db)
    before = await db.achievements.of_player(1)
    assert [e.key for e in before] == ["first_win_shuangkou", "streak_5"]
    await db.skills.forget_all()  # as after a restart that takes every game in again
    for game_id in await db.skills.waiting():
        async with db.transaction():
            assert await take_in(db, game_id) == {}  # nothing new to tell anyone
    assert await db.achievements.of_player(1) == before
