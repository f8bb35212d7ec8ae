"""The end of a game: the rules' scores with the bot's adjustments, and ratings.

The bot's adjustments (shared/rules): a player who abandons a game (逃跑) fixes scores at that
moment (``GameState.desertion_scores``: in 双扣 the deserter's own, in 刨王 everyone's), and
those replace the game's result; a game under ``min_game_seconds`` changes no score except
a deserter's penalty, which always applies.
"""

from __future__ import annotations

from bot.service.skill import take_in as rate_skills
from bot.service.tables import Settlement, Table
from bot.storage import Database, Rating, RatingChange, ResultRow


def scored_by_desertion(table: Table) -> bool:
    """A desertion fixed every seat's score: the game no longer counts (刨王's 逃跑)."""
    fixed = table.fixed_scores
    return bool(fixed) and all(score is not None for score in fixed)


async def charge_deserters(db: Database, table: Table) -> bool:
    """A game cancelled after a desertion: the deserters' penalties still apply (a cancel
    would otherwise let the deserter, or a friend who may cancel, undo them); nobody else
    scores. Returns whether anybody was charged."""
    rows = [
        ResultRow(index, seat.user_id, 0, int(table.fixed_scores[index] or 0), False, True)
        for index, seat in enumerate(table.seats)
        if seat.escaped and index < len(table.fixed_scores)
    ]
    if not rows:
        return False
    await db.results.record(
        game_id=table.game_id, rows=rows, outcome="cancelled", note="cancelled after 逃跑"
    )
    changes = [
        RatingChange(row.user_id, row.adjusted_delta, False)
        for row, seat in ((row, table.seats[row.seat]) for row in rows)
        if seat.is_human and row.user_id is not None
    ]
    await apply_ratings(db, table, changes)
    await rate_skills(db, table.game_id)
    return True


async def apply_ratings(
    db: Database, table: Table, changes: list[RatingChange]
) -> list[tuple[Rating, Rating]]:
    """Apply a game's rating changes and write down each player's score after it (for the
    result screen after a restart and the score over time); returns (before, after) each."""
    pairs = await db.ratings.apply(game=table.variant.name, changes=changes)
    scores = {
        change.user_id: after.score for change, (_, after) in zip(changes, pairs, strict=True)
    }
    await db.results.note_scores_after(table.game_id, scores)
    return pairs


def score_rows(table: Table, *, short: bool) -> list[ResultRow]:
    """Each seat's result: the rules' delta and the delta the bot applies."""
    result = table.result
    fixed = table.fixed_scores
    rows = []
    for index, seat in enumerate(table.seats):
        delta = int(result.deltas[index])
        score = fixed[index] if index < len(fixed) else None
        adjusted = delta if score is None else score
        if short and not seat.escaped:
            adjusted = 0
        won = score > 0 if score is not None else index in result.winners
        rows.append(ResultRow(index, seat.user_id, delta, adjusted, won, seat.escaped))
    return rows


async def settle(db: Database, table: Table, *, now: float, min_game_seconds: float) -> Settlement:
    """Record the results and apply the ratings of a finished game.

    Runs inside the transaction that logs the game's last action, so a game is never
    finished without its scores, nor scored twice.
    """
    # 四王 is scored by the rules as a win at the deal: the one-minute rule (against quick
    # games played for points) cannot apply to a game that never had a move
    short = now - (table.started_at or now) < min_game_seconds and not table.result.instant
    rows = score_rows(table, short=short)
    changes = [
        RatingChange(seat.user_id, row.adjusted_delta, row.won and not seat.escaped)
        for row, seat in zip(rows, table.seats, strict=True)
        if seat.is_human and seat.user_id is not None
    ]
    await db.results.record(
        game_id=table.game_id,
        rows=rows,
        outcome=table.result.outcome,
        note="short game" if short else None,
    )
    before_after = await apply_ratings(db, table, changes)
    await db.games.update(table.game_id, status="finished", finished_at=now, deadline=None)
    earned = await rate_skills(db, table.game_id)  # the skill ratings read the stored game
    settlement = Settlement(rows, short, by_desertion=scored_by_desertion(table), earned=earned)
    for change, pair in zip(changes, before_after, strict=True):
        settlement.before_after[change.user_id] = pair
    return settlement


def settlement_of(table: Table, rows: list[ResultRow], note: str | None) -> Settlement:
    """A finished game's settlement as it was stored (a restart forgot the one in memory):
    each player's score before and after from the scores written down after it."""
    settlement = Settlement(
        rows, note == "short game", by_desertion=scored_by_desertion(table)
    )
    game = table.variant.name
    for row in rows:
        if row.user_id is None or row.score_after is None:
            continue
        before = Rating(row.user_id, game, score=row.score_after - row.adjusted_delta)
        after = Rating(row.user_id, game, score=row.score_after)
        settlement.before_after[row.user_id] = (before, after)
    return settlement
