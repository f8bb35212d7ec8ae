"""The design's central fact: a game is its deal plus its log, and replaying the log restores it.

A 双扣 game is played by a simple rule (lead or beat with the first legal play, else pass), each
action stored the way the service stores it, the database closed and reopened, and the log
replayed through a freshly dealt engine: every hand, the turn and the table must match.
"""

from __future__ import annotations

from pathlib import Path

from bot.game import shuangkou
from bot.game.cards import format_cards, parse_cards
from bot.storage import SeatRecord, open_database


def replay(seed: int, actions: list[tuple[int, str, str | None]]) -> shuangkou.Game:
    game = shuangkou.Game.deal(seed=seed)
    for seat, kind, cards in actions:
        if kind == "play":
            game.play(seat, parse_cards(cards or ""))
        else:
            game.pass_turn(seat)
    return game


async def test_a_game_comes_back_from_its_seed_and_log(tmp_path: Path) -> None:
    path = tmp_path / "bot.sqlite3"
    seed = 2024
    db = await open_database(path)
    record = await db.games.create(
        chat_id=-100,
        variant="shuangkou",
        opener_id=None,
        seats=[SeatRecord(None, f"电脑{seat}", True) for seat in range(4)],
        seed=seed,
        status="playing",
    )
    live = shuangkou.Game.deal(seed=seed)
    seq = 0
    while not live.over and seq < 80:
        seat = live.turn
        assert seat is not None
        plays = shuangkou.legal_plays(live.hands[seat], live.on_table)
        async with db.transaction():  # the action is on disk before anyone hears of it
            if plays:
                cards = format_cards(plays[0].cards)
                live.play(seat, plays[0].cards)
                await db.actions.append(
                    game_id=record.id, seq=seq, seat=seat, kind="play", cards=cards
                )
            else:
                live.pass_turn(seat)
                await db.actions.append(game_id=record.id, seq=seq, seat=seat, kind="pass")
            await db.games.update(record.id, deadline=float(seq))
        seq += 1
    await db.close()

    db = await open_database(path)
    try:
        [stored] = await db.games.unfinished()
        assert stored.seed == seed
        log = await db.actions.list(stored.id)
        assert [action.seq for action in log] == list(range(seq))
        restored = replay(stored.seed, [(a.seat, a.kind, a.cards) for a in log])
    finally:
        await db.close()
    assert restored.hands == live.hands
    assert restored.turn == live.turn
    assert restored.on_table == live.on_table
    assert restored.history == live.history
    assert restored.over == live.over
