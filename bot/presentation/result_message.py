"""The group's result message: how the game was won, the order, each score change.

刨王's result says how (满140, 扛旗 + 90, 双飞, 四王), then 小雪/大雪 and 亮王's ×2, or 逃跑
when a desertion ended the scoring; 双扣's names 双扣/单扣/平扣. The service gives the facts
as a :class:`ResultSheet`; the group, the replay's last step and the web table's result
screen all show this same text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.game.common import Outcome, Result, WinHow
from bot.game.levels import level_for
from bot.presentation.render import SeatLabel, place_name, variant_name
from bot.presentation.strings import Lang, text


@dataclass(frozen=True, slots=True)
class ScoreRow:
    """One seat's line: the score change applied, and a human's score before and after."""

    seat: int
    delta: int
    escaped: bool
    scores: tuple[int, int] | None  # None: a computer seat (no score, no title)


@dataclass(frozen=True, slots=True)
class ResultSheet:
    """What a result message says, as facts: the game, its result, who sat where, who
    deserted, and how each seat was scored."""

    lang: Lang
    variant: str
    result: Result
    labels: Sequence[SeatLabel]
    deserters: tuple[int, ...]
    #: the scores desertions fixed (刨王's 逃跑 rule), per seat
    fixed_scores: Sequence[int | None]
    #: every score was fixed by a desertion: the game's own result changed none (刨王)
    by_desertion: bool
    short_game: bool
    rows: tuple[ScoreRow, ...]


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


def result_text(sheet: ResultSheet) -> str:
    """The group's result message: outcome, how, order, each score change, level-ups."""
    lang, result, labels = sheet.lang, sheet.result, list(sheet.labels)
    outcome = outcome_text(lang, result, len(labels))
    variant = variant_name(lang, sheet.variant)
    lines: list[str] = []
    if sheet.by_desertion:
        names = "、".join(labels[i].html() for i in sheet.deserters)
        escape_outcome = text(lang, "outcome.escape")
        lines.append(text(lang, "result.title", variant=variant, outcome=escape_outcome))
        lines.append(text(lang, "result.deserted", names=names))
        lines.append(desertion_rule(lang, list(sheet.fixed_scores)))
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
    lines += _score_lines(sheet)
    if sheet.short_game:
        key = "result.short_game_deserted" if sheet.deserters else "result.short_game"
        lines.append(text(lang, key))
    return "\n".join(lines)


def _score_lines(sheet: ResultSheet) -> list[str]:
    """Each seat's score change (with the total and title of humans), then level-ups."""
    lang, labels = sheet.lang, sheet.labels
    lines: list[str] = []
    level_ups: list[str] = []
    for row in sheet.rows:
        name = labels[row.seat].html() + (text(lang, "result.escaped") if row.escaped else "")
        delta = f"{row.delta:+d}"
        if row.scores is None:
            lines.append(text(lang, "result.row_computer", name=name, delta=delta))
            continue
        before, after = row.scores
        level_after = level_for(sheet.variant, after)
        level_before = level_for(sheet.variant, before)
        lines.append(
            text(lang, "result.row", name=name, delta=delta, score=after, title=level_after.title)
        )
        if level_after.level > level_before.level:
            level_ups.append(
                text(lang, "result.level_up", name=labels[row.seat].html(), title=level_after.title)
            )
    return lines + level_ups
