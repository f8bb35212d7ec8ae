"""What a play is called, in both games and both languages: the one source of play names.

Every renderer (the group's table, hand messages, the 出牌 button, hints, the terminal game)
names plays through :func:`play_name`. The names themselves are strings
(``bot.presentation.strings``), keyed by variant: 刨王 has names of its own (对牌, 单顺, 双顺,
骑牌, 三路…八路, 小幺…老老幺, its joker entries by their cards), never 双扣's (对子, 顺子, 连对,
炸弹).
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.game.common import Combo
from bot.presentation.strings import Lang, text


def _name_key(combo: Combo, beaten: Combo | None) -> str:
    if combo.tier:  # 刨王's ladder: each row has its own name
        return f"tier{combo.tier}"
    if combo.kind == "pair_straight" and beaten is not None and beaten.kind == "straight":
        return "riding"  # 刨王's 骑牌: a 双顺 played on a 单顺 (双扣 has no such play)
    return combo.kind


def play_name(lang: Lang, variant: str, combo: Combo, beaten: Combo | None = None) -> str:
    """The name of ``combo`` as ``variant``'s players know it; ``beaten`` is the play it was
    played on, if any (a 双顺 on a 单顺 is a 骑牌)."""
    return text(lang, f"kind.{variant}.{_name_key(combo, beaten)}")


def bomb_name(lang: Lang, variant: str, combo: Combo) -> str:
    """A bomb as its moment on the web table names it: 双扣's by its size (五炸, 八炸), the
    others (三连炸, 天王炸, 刨王's ladder rows) by their own names."""
    if variant == "shuangkou" and combo.kind == "bomb":
        return text(lang, "bomb.size", n=text(lang, f"number.{len(combo.cards)}"))
    return play_name(lang, variant, combo)


def beaten_in_trick(trick: Sequence[tuple[int, Combo | None]]) -> Combo | None:
    """The play that the trick's last play beat (the play before it, passes aside)."""
    plays = [combo for _, combo in trick if combo is not None]
    return plays[-2] if len(plays) >= 2 else None
