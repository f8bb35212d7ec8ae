"""等级 titles: the ladder of each game, from a total score to a level and title."""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

# Lower bounds of levels 1.. (level 0 is everything below the first bound).
_SHUANGKOU = (
    (0, "弹壳"), (100, "钢刀"), (300, "连弩"), (600, "火枪"), (1000, "铁铳"), (1500, "弩炮"),
    (2100, "火炮"), (2800, "土枪"), (3600, "驳壳式"), (4500, "长步枪"), (5500, "冲锋枪"),
    (6600, "轻机枪"), (7800, "重机枪"), (9100, "手榴弹"), (10500, "手雷"), (12000, "火箭筒"),
    (13600, "迫击炮"), (15300, "榴弹炮"), (17100, "火箭炮"), (19000, "飞弹"), (21000, "洲际导弹"),
    (23100, "核反应弹"), (25300, "生化核弹"), (27600, "生物核弹"), (30000, "氢弹"),
)
_PAOWANG = (
    (0, "小学生"), (200, "初中生"), (500, "高中生"), (960, "大专生"), (1600, "本科生"),
    (2600, "研究生"), (4200, "博士"), (6400, "博士后"), (9800, "讲师"), (15000, "副教授"),
    (22600, "教授"), (34000, "博士导师"), (51200, "大师"), (80000, "宗师"),
)
_BOTTOM = {"shuangkou": "炮灰", "paowang": "幼儿园"}
_LADDERS = {"shuangkou": _SHUANGKOU, "paowang": _PAOWANG}


@dataclass(frozen=True, slots=True)
class Level:
    level: int
    title: str
    next_title: str | None  # None at the top
    next_score: int | None  # the score where the next title starts; None at the top

    def to_next(self, score: int) -> int | None:
        """Points still missing to reach the next title."""
        return None if self.next_score is None else self.next_score - score


def level_for(game: str, score: int) -> Level:
    """The level and title for ``score`` in ``game`` ("shuangkou" or "paowang").

    A range's lower bound belongs to it: 100 in 双扣 is 钢刀, 0 is 弹壳.
    """
    ladder = _LADDERS[game]
    bounds = [bound for bound, _ in ladder]
    level = bisect_right(bounds, score)
    title = _BOTTOM[game] if level == 0 else ladder[level - 1][1]
    if level < len(ladder):
        next_score, next_title = ladder[level]
        return Level(level, title, next_title, next_score)
    return Level(level, title, None, None)


def titles(game: str) -> list[tuple[int, str, int | None]]:
    """Every title of ``game`` as (level, title, lower bound or None for the bottom)."""
    rows: list[tuple[int, str, int | None]] = [(0, _BOTTOM[game], None)]
    rows += [(i + 1, title, bound) for i, (bound, title) in enumerate(_LADDERS[game])]
    return rows
