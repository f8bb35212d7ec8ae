"""The group's result message says how the game was won (刨王: 满140, 扛旗 + 90, 双飞, 四王,
the snow, 亮王's ×2, the points; or 逃跑), and 双扣's 双扣/单扣/平扣."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from bot.game.common import Result
from bot.game.variants import PAOWANG, SHUANGKOU, Variant
from bot.service.result_message import result_text
from bot.service.tables import Seat, Settlement, Table
from bot.storage import ResultRow


def table_with(variant: Variant, result: Result, fixed: list[int | None] | None = None) -> Table:
    seats = [Seat(None, f"电脑{n + 1}", is_computer=True) for n in range(variant.seats)]
    table = Table(
        game_id=1,
        chat_id=-1,
        chat_title="g",
        variant=variant,
        opener_id=None,
        lang="zh",
        seats=seats,
        status="playing",
    )
    table.engine = SimpleNamespace(result=result)
    table.fixed_scores = fixed or [None] * variant.seats
    return table


def settled(table: Table, *, short: bool = False, by_desertion: bool = False) -> Settlement:
    result = table.engine.result
    fixed = table.fixed_scores
    rows = [
        ResultRow(
            seat,
            None,
            result.deltas[seat],
            fixed[seat] if fixed[seat] is not None else result.deltas[seat],
            seat in result.winners,
            table.seats[seat].escaped,
        )
        for seat in range(table.size)
    ]
    return Settlement(rows, short, by_desertion=by_desertion)


def paowang_result(how: str, **fields: object) -> Result:
    values: dict[str, object] = {
        "outcome": "win",
        "finish_order": (1, 0),
        "deltas": (2, 2, 2, -3, -3),
        "winners": (0, 1, 2),
        "side_points": (150, 50),
        "how": how,
    }
    values.update(fields)
    return Result(**values)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("result", "lines"),
    [
        (
            paowang_result("points"),
            ["结果：无王方胜（2 打 3）", "满140", "赢方 150 分，输方 50 分"],
        ),
        (
            paowang_result("flag", finish_order=(1,), side_points=(95, 60)),
            ["扛旗 + 90：🤖 电脑2 扛旗", "赢方 95 分，输方 60 分"],
        ),
        (
            paowang_result(
                "sweep",
                outcome="小雪",
                winners=(3, 4),
                deltas=(-8, -8, -8, 12, 12),
                multiplier=4,
                revealed=True,
                side_points=(30, 10),
            ),
            ["结果：王方胜（2 打 3）", "双飞", "小雪 ×2：输方只拿到 10 分", "亮王 ×2"],
        ),
        (
            paowang_result(
                "points",
                outcome="大雪",
                winners=(2,),
                deltas=(-8, -8, 32, -8, -8),
                multiplier=4,
                side_points=(160, 0),
            ),
            ["结果：王方胜（1 打 4）", "满140", "大雪 ×4：输方一分未得"],
        ),
        (
            paowang_result(
                "four_jokers",
                finish_order=(),
                winners=(3,),
                deltas=(-2, -2, -2, 8, -2),
                side_points=(0, 0),
                instant=True,
            ),
            ["结果：王方胜（1 打 4）", "四王：四张王都在 🤖 电脑4 手里，直接获胜！"],
        ),
        (
            paowang_result("flag", winners=(0, 1, 2, 3), deltas=(2, 2, 2, 2, -8)),
            ["结果：无王方胜（1 打 4）", "扛旗 + 90"],
        ),
    ],
)
def test_a_paowang_result_says_how_it_was_won(result: Result, lines: list[str]) -> None:
    table = table_with(PAOWANG, result)
    shown = result_text(table, settled(table))
    for line in lines:
        assert line in shown, (line, shown)
    assert "逃跑" not in shown
    if not result.revealed:
        assert "亮王" not in shown
    if result.outcome == "win":
        assert "雪" not in shown


def test_a_paowang_result_after_a_desertion_says_逃跑() -> None:
    table = table_with(PAOWANG, paowang_result("points"), fixed=[-12, 0, 2, 2, 2])
    table.seats[0].escaped = True
    shown = result_text(table, settled(table, by_desertion=True))
    assert "结果：逃跑" in shown
    assert "🚪 🤖 电脑1 逃跑" in shown
    assert "另一方每人按赢 1 局计分" in shown
    assert "牌局本身（不计分）：无王方胜（2 打 3）" in shown
    assert "🤖 电脑1（逃跑）：-12" in shown and "🤖 电脑3：+2" in shown


@pytest.mark.parametrize("outcome", ["双扣", "单扣", "平扣"])
def test_a_shuangkou_result_names_its_outcome_and_the_order(outcome: str) -> None:
    result = Result(outcome, (0, 2, 1, 3), (4, -4, 4, -4), (0, 2))
    table = table_with(SHUANGKOU, result)
    shown = result_text(table, settled(table))
    assert f"结果：{outcome}" in shown
    assert "名次：上游 🤖 电脑1 › 二游 🤖 电脑3 › 三游 🤖 电脑2 › 四游 🤖 电脑4" in shown
    assert "满140" not in shown and "逃跑" not in shown


def test_the_one_minute_rule_line_mentions_the_deserters_penalty() -> None:
    result = Result("单扣", (0, 1, 2, 3), (2, -2, 2, -2), (0, 2))
    table = table_with(SHUANGKOU, result, fixed=[None, -20, None, None])
    table.seats[1].escaped = True
    assert "除逃跑扣分外，不计分" in result_text(table, settled(table, short=True))
    table.seats[1].escaped = False
    assert "本局不足一分钟，不计分。" in result_text(table, settled(table, short=True))
