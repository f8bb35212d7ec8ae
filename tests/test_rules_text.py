"""/rules says what the code does: the figures in the text are the engines' constants, and
刨王's rules use 刨王's names."""

from __future__ import annotations

from bot.game import paowang_scoring, shuangkou
from bot.presentation.strings import text


def test_paowang_rules_state_the_escape_rule_as_coded() -> None:
    zh = text("zh", "rules.paowang")
    assert f"按输{paowang_scoring.ESCAPE_GAMES}局扣分" in zh
    assert f"满{paowang_scoring.ESCAPE_MIN_SECONDS:g}秒" in zh
    assert f"出过{paowang_scoring.ESCAPE_MIN_TURNS}手" in zh
    assert "逃跑扣分照扣" in zh
    en = text("en", "rules.paowang")
    assert f"a loss ×{paowang_scoring.ESCAPE_GAMES}" in en
    assert f"{paowang_scoring.ESCAPE_MIN_SECONDS:g} s old" in en
    assert f"{paowang_scoring.ESCAPE_MIN_TURNS} turns" in en


def test_paowang_rules_use_paowang_names() -> None:
    zh = text("zh", "rules.paowang")
    for name in ("对牌", "单顺", "双顺", "骑牌", "三路", "小幺", "中幺", "扛旗", "双飞"):
        assert name in zh
    for word in ("对子", "顺子", "连对", "炸弹"):
        assert word not in zh


def test_shuangkou_rules_state_the_escape_penalty_as_coded() -> None:
    assert f"逃跑（中途离开）−{-shuangkou.ESCAPE_PENALTY}" in text("zh", "rules.shuangkou")
    assert f"costs {-shuangkou.ESCAPE_PENALTY}" in text("en", "rules.shuangkou")
