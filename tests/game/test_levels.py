"""等级 titles of both games (rules/shuangkou.md and rules/paowang.md, "等级 titles")."""

from __future__ import annotations

import pytest

from bot.game.levels import level_for, titles

#: (level, title, lower bound) straight from the rules' tables
SHUANGKOU = [
    (1, "弹壳", 0), (2, "钢刀", 100), (3, "连弩", 300), (4, "火枪", 600), (5, "铁铳", 1000),
    (6, "弩炮", 1500), (7, "火炮", 2100), (8, "土枪", 2800), (9, "驳壳式", 3600),
    (10, "长步枪", 4500), (11, "冲锋枪", 5500), (12, "轻机枪", 6600), (13, "重机枪", 7800),
    (14, "手榴弹", 9100), (15, "手雷", 10500), (16, "火箭筒", 12000), (17, "迫击炮", 13600),
    (18, "榴弹炮", 15300), (19, "火箭炮", 17100), (20, "飞弹", 19000), (21, "洲际导弹", 21000),
    (22, "核反应弹", 23100), (23, "生化核弹", 25300), (24, "生物核弹", 27600),
    (25, "氢弹", 30000),
]
PAOWANG = [
    (1, "小学生", 0), (2, "初中生", 200), (3, "高中生", 500), (4, "大专生", 960),
    (5, "本科生", 1600), (6, "研究生", 2600), (7, "博士", 4200), (8, "博士后", 6400),
    (9, "讲师", 9800), (10, "副教授", 15000), (11, "教授", 22600), (12, "博士导师", 34000),
    (13, "大师", 51200), (14, "宗师", 80000),
]
LADDERS = [("shuangkou", "炮灰", SHUANGKOU), ("paowang", "幼儿园", PAOWANG)]


@pytest.mark.parametrize(("game", "bottom", "ladder"), LADDERS)
def test_every_row_lower_bound_belongs_to_its_range(
    game: str, bottom: str, ladder: list[tuple[int, str, int]]
) -> None:
    for i, (level, title, bound) in enumerate(ladder):
        at = level_for(game, bound)
        assert (at.level, at.title) == (level, title)
        below = level_for(game, bound - 1)  # the last point of the range below
        assert below.title == (ladder[i - 1][1] if i else bottom)
        assert below.next_title == title and below.next_score == bound
        assert below.to_next(bound - 1) == 1


@pytest.mark.parametrize(
    ("score", "title"),
    [(100, "钢刀"), (99, "弹壳"), (0, "弹壳"), (-1, "炮灰"), (-500, "炮灰"), (250, "钢刀"),
     (29999, "生物核弹"), (30000, "氢弹"), (10**9, "氢弹")],
)
def test_shuangkou_titles(score: int, title: str) -> None:
    assert level_for("shuangkou", score).title == title


@pytest.mark.parametrize(
    ("score", "title"),
    [(-1, "幼儿园"), (0, "小学生"), (199, "小学生"), (200, "初中生"), (959, "高中生"),
     (960, "大专生"), (79999, "大师"), (80000, "宗师"), (10**9, "宗师")],
)
def test_paowang_titles(score: int, title: str) -> None:
    assert level_for("paowang", score).title == title


def test_next_title_and_distance() -> None:
    level = level_for("shuangkou", 250)
    assert (level.level, level.next_title, level.next_score, level.to_next(250)) == (
        2, "连弩", 300, 50,
    )
    bottom = level_for("shuangkou", -30)
    assert (bottom.level, bottom.next_title, bottom.to_next(-30)) == (0, "弹壳", 30)
    paowang = level_for("paowang", 1000)
    assert (paowang.title, paowang.next_title, paowang.to_next(1000)) == ("大专生", "本科生", 600)


@pytest.mark.parametrize(("game", "top"), [("shuangkou", "氢弹"), ("paowang", "宗师")])
def test_the_top_title_has_no_next(game: str, top: str) -> None:
    level = level_for(game, 10**7)
    assert level.title == top
    assert level.next_title is None and level.next_score is None and level.to_next(10**7) is None


@pytest.mark.parametrize(("game", "bottom", "ladder"), LADDERS)
def test_titles_lists_the_whole_ladder(
    game: str, bottom: str, ladder: list[tuple[int, str, int]]
) -> None:
    assert titles(game) == [(0, bottom, None), *ladder]
