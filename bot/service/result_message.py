"""A finished table's result message: the facts the service holds, as the presentation's
:class:`~bot.presentation.result_message.ResultSheet`, rendered there."""

from __future__ import annotations

from bot.presentation.result_message import (
    ResultSheet,
    ScoreRow,
    desertion_rule,
    outcome_text,
)
from bot.presentation.result_message import result_text as sheet_text
from bot.service.tables import Settlement, Table


def result_sheet(table: Table, settlement: Settlement) -> ResultSheet:
    rows = []
    for row in settlement.rows:
        seat = table.seats[row.seat]
        pair = settlement.before_after.get(seat.user_id or 0) if seat.is_human else None
        scores = None if pair is None else (pair[0].score, pair[1].score)
        rows.append(ScoreRow(row.seat, row.adjusted_delta, row.escaped, scores))
    return ResultSheet(
        lang=table.lang,
        variant=table.variant.name,
        result=table.result,
        labels=table.labels(),
        deserters=tuple(i for i, seat in enumerate(table.seats) if seat.escaped),
        fixed_scores=tuple(table.fixed_scores),
        by_desertion=settlement.by_desertion,
        short_game=settlement.short_game,
        rows=tuple(rows),
    )


def result_text(table: Table, settlement: Settlement) -> str:
    """The group's result message: outcome, how, order, each score change, level-ups."""
    return sheet_text(result_sheet(table, settlement))


__all__ = ["desertion_rule", "outcome_text", "result_sheet", "result_text"]
