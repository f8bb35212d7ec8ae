"""The end of a game: the rules' scores with the bot's adjustments, ratings, the result text.

The bot's adjustments (shared/rules): a game under ``min_game_seconds`` changes no score; a
player who abandoned it (逃跑) gets the escape penalty instead of the table's score.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bot.game.levels import level_for
from bot.render import place_name, variant_name
from bot.service.replay import replay
from bot.service.tables import Table
from bot.storage import Database, RatingChange, ResultRow
from bot.strings import text

ESCAPE_PENALTY_SHUANGKOU = -20


@dataclass
class Settlement:
    rows: list[ResultRow] = field(default_factory=list)
    short_game: bool = False
    before_after: dict[int, tuple[Any, Any]] = field(default_factory=dict)  # user -> ratings


def escape_penalty(table: Table, index: int) -> int:
    """What 逃跑 costs the player of seat ``index`` (a negative score change)."""
    if table.variant.name == "paowang":
        # The engine prices an escape on a game still running (it refuses a finished
        # one, and this runs once the game is over). What the price depends on, the
        # teams and the 亮王 doubling, is settled by the 亮王 answers: price it there.
        answers = [action for action in table.log if action[0] in ("reveal", "decline")]
        start = replay(table.variant, table.seed, table.leader, None, answers)
        return int(table.variant.module.escape_penalty(start, index))
    return ESCAPE_PENALTY_SHUANGKOU


async def settle(db: Database, table: Table, *, now: float, min_game_seconds: float) -> Settlement:
    """Record the results and apply the ratings of a finished game.

    Runs inside the transaction that logs the game's last action, so a game is never
    finished without its scores, nor scored twice.
    """
    result = table.game.result
    short = now - (table.started_at or now) < min_game_seconds
    rows: list[ResultRow] = []
    changes: list[RatingChange] = []
    for index, seat in enumerate(table.seats):
        delta = int(result.deltas[index])
        adjusted = escape_penalty(table, index) if seat.escaped else delta
        if short:
            adjusted = 0
        won = index in result.winners
        rows.append(ResultRow(index, seat.user_id, delta, adjusted, won, seat.escaped))
        if seat.is_human and seat.user_id is not None:
            changes.append(RatingChange(seat.user_id, adjusted, won and not seat.escaped))
    await db.results.record(
        game_id=table.game_id,
        rows=rows,
        outcome=result.outcome,
        note="short game" if short else None,
    )
    before_after = await db.ratings.apply(game=table.variant.name, changes=changes)
    await db.games.update(table.game_id, status="finished", finished_at=now, deadline=None)
    settlement = Settlement(rows, short)
    for change, pair in zip(changes, before_after, strict=True):
        settlement.before_after[change.user_id] = pair
    return settlement


def result_text(table: Table, settlement: Settlement) -> str:
    """The group's result message: outcome, order, each score change, totals, level-ups."""
    lang = table.lang
    result = table.game.result
    labels = table.labels()
    lines = [
        text(
            lang,
            "result.title",
            variant=variant_name(lang, table.variant.name),
            outcome=text(lang, f"outcome.{result.outcome}"),
        )
    ]
    if result.instant:
        lines.append(text(lang, "result.instant"))
    order = " › ".join(
        f"{place_name(lang, n + 1)} {labels[seat].html()}"
        for n, seat in enumerate(result.finish_order)
    )
    if order:
        lines.append(text(lang, "result.order", order=order))
    if result.side_points is not None:
        win, lose = result.side_points
        lines.append(text(lang, "result.side_points", win=win, lose=lose))
    if result.revealed:
        lines.append(text(lang, "result.revealed"))
    level_ups = []
    for row in settlement.rows:
        seat = table.seats[row.seat]
        name = labels[row.seat].html() + (text(lang, "result.escaped") if row.escaped else "")
        delta = f"{row.adjusted_delta:+d}"
        pair = settlement.before_after.get(seat.user_id or 0) if seat.is_human else None
        if pair is None:
            lines.append(text(lang, "result.row_computer", name=name, delta=delta))
            continue
        before, after = pair
        level_after = level_for(table.variant.name, after.score)
        level_before = level_for(table.variant.name, before.score)
        lines.append(
            text(
                lang,
                "result.row",
                name=name,
                delta=delta,
                score=after.score,
                title=level_after.title,
            )
        )
        if level_after.level > level_before.level:
            level_ups.append(
                text(lang, "result.level_up", name=labels[row.seat].html(), title=level_after.title)
            )
    lines += level_ups
    if settlement.short_game:
        lines.append(text(lang, "result.short_game"))
    return "\n".join(lines)
