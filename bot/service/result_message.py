"""The group's result message: how the game was won, the order, each score change.

刨王's result says how (满140, 扛旗 + 90, 双飞, 四王), then 小雪/大雪 and 亮王's ×2, or 逃跑
when a desertion ended the scoring; 双扣's names 双扣/单扣/平扣.
"""

from __future__ import annotations

from bot.game.common import Outcome, Result, WinHow
from bot.game.levels import level_for
from bot.presentation.render import SeatLabel, place_name, variant_name
from bot.presentation.strings import Lang, text
from bot.service.tables import Settlement, Table


def outcome_text(lang: Lang, result: Result, seats: int) -> str:
    """The result's headline: 双扣/单扣/平扣, or which 刨王 side won, N against M."""
    if result.outcome in (Outcome.SHUANGKOU, Outcome.DANKOU, Outcome.PINGKOU):
        return text(lang, f"outcome.{result.outcome}")
    if not result.winners:  # 刨王 without sides (no 大王 dealt: hand-made positions only)
        return text(lang, "outcome.no_sides")
    winners = len(result.winners)
    # the 王 side is the side of the 大王 holders: one or two seats
    wang_won = winners <= 2
    wang = winners if wang_won else seats - winners
    side = text(lang, "side.wang" if wang_won else "side.other")
    return text(lang, "outcome.paowang", side=side, wang=wang, other=seats - wang)


def how_lines(lang: Lang, result: Result, labels: list[SeatLabel]) -> list[str]:
    """刨王: how the side won, the snow, 亮王's ×2 and the points each side took."""
    if not result.how:
        return []
    if result.how == WinHow.FOUR_JOKERS:
        return [text(lang, "how.four_jokers", name=labels[result.winners[0]].html())]
    if result.how == WinHow.FLAG:
        lines = [text(lang, "how.flag", name=labels[result.finish_order[0]].html())]
    else:
        lines = [text(lang, f"how.{result.how}")]
    if result.side_points is not None:
        win, lose = result.side_points
        if result.outcome in (Outcome.XIAOXUE, Outcome.DAXUE):
            lines.append(text(lang, f"result.snow.{result.outcome}", lose=lose))
        if result.revealed:
            lines.append(text(lang, "result.revealed"))
        lines.append(text(lang, "result.side_points", win=win, lose=lose))
    return lines


def desertion_rule(lang: Lang, fixed: list[int | None]) -> str:
    """刨王's 逃跑 rule as it applied: whether the other side scored its win."""
    counted = any(score is not None and score > 0 for score in fixed)
    others = "desertion.others_win" if counted else "desertion.others_nothing"
    return text(lang, "desertion.rule", others=text(lang, others))


def result_text(table: Table, settlement: Settlement) -> str:
    """The group's result message: outcome, how, order, each score change, level-ups."""
    lang = table.lang
    result = table.result
    labels = table.labels()
    outcome = outcome_text(lang, result, table.size)
    variant = variant_name(lang, table.variant.name)
    lines: list[str] = []
    if settlement.by_desertion:
        names = "、".join(labels[i].html() for i, seat in enumerate(table.seats) if seat.escaped)
        escape_outcome = text(lang, "outcome.escape")
        lines.append(text(lang, "result.title", variant=variant, outcome=escape_outcome))
        lines.append(text(lang, "result.deserted", names=names))
        lines.append(desertion_rule(lang, table.fixed_scores))
        lines.append(text(lang, "result.played_out", outcome=outcome))
    else:
        lines.append(text(lang, "result.title", variant=variant, outcome=outcome))
        lines += how_lines(lang, result, labels)
    order = " › ".join(
        f"{place_name(lang, n + 1)} {labels[seat].html()}"
        for n, seat in enumerate(result.finish_order)
    )
    if order:
        lines.append(text(lang, "result.order", order=order))
    lines += _score_lines(table, settlement)
    if settlement.short_game:
        deserted = any(seat.escaped for seat in table.seats)
        lines.append(text(lang, "result.short_game_deserted" if deserted else "result.short_game"))
    return "\n".join(lines)


def _score_lines(table: Table, settlement: Settlement) -> list[str]:
    """Each seat's score change (with the total and title of humans), then level-ups."""
    lang = table.lang
    labels = table.labels()
    lines: list[str] = []
    level_ups: list[str] = []
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
    return lines + level_ups


__all__ = ["desertion_rule", "outcome_text", "result_text"]
