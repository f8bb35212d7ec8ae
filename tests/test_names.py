"""Play names: each game's own, in both languages, from one place (bot/presentation/names.py)."""

from __future__ import annotations

import pytest

from bot.cli.terminal import combo_label
from bot.game import paowang, paowang_combos, shuangkou
from bot.game.cards import parse_cards
from bot.presentation.names import beaten_in_trick, play_name
from bot.presentation.render import play_button_label, play_html
from bot.presentation.strings import CATALOG, LANGUAGES

# 刨王: cards (and whether their player revealed) -> the name players read, zh and en
PAOWANG_NAMES = [
    ("7", False, "单张", "single"),
    ("7 7", False, "对牌", "pair"),
    ("4 5 6", False, "单顺", "straight"),
    ("4 4 5 5 6 6", False, "双顺", "pair straight"),
    ("7 7 7", False, "三路", "three of a kind (三路)"),
    ("小王", False, "单小王", "small joker"),
    ("7 7 7 7", False, "四路", "four of a kind (四路)"),
    ("4 4 A", False, "小幺", "4 4 A (小幺)"),
    ("7 7 7 7 7", False, "五路", "five of a kind (五路)"),
    ("大王", False, "大王", "big joker"),
    ("7 7 7 7 7 7", False, "六路", "six of a kind (六路)"),
    ("小王 小王", False, "双小王", "two small jokers"),
    ("4 4 4 A", False, "中幺", "4 4 4 A (中幺)"),
    ("大王 小王", False, "大王+小王", "big + small joker"),
    ("7 7 7 7 7 7 7", False, "七路", "seven of a kind (七路)"),
    ("大王", True, "大王·亮", "big joker, revealed"),
    ("7 7 7 7 7 7 7 7", False, "八路", "eight of a kind (八路)"),
    ("大王 小王 小王", False, "大王+双小王", "big + two small jokers"),
    ("4 4 4 4 A", False, "老幺", "4 4 4 4 A (老幺)"),
    ("大王 小王", True, "大王+小王·亮", "big + small joker, revealed"),
    ("大王 大王", False, "双大王", "two big jokers"),
    ("大王 小王 小王", True, "大王+双小王·亮", "big + two small jokers, revealed"),
    ("4 4 4 4 4 A", False, "老老幺", "five 4s + A (老老幺)"),
    ("大王 大王 小王", False, "双大王+小王", "two big + small joker"),
    ("4 4 4 4 4 4 A", False, "老老幺", "six 4s + A (老老幺)"),
    ("大王 大王 小王 小王", False, "双大王+双小王", "all four jokers"),
    ("大王 大王", True, "双大王·亮", "two big jokers, revealed"),
    ("4 4 4 4 4 4 4 A", False, "老老幺", "seven 4s + A (老老幺)"),
    ("大王 大王 小王", True, "双大王+小王·亮", "two big + small joker, revealed"),
    ("4 4 4 4 4 4 4 4 A", False, "老老幺", "eight 4s + A (老老幺)"),
    ("大王 大王 小王 小王", True, "双大王+双小王·亮", "all four jokers, revealed"),
]
SHUANGKOU_WORDS = ("对子", "顺子", "连对", "炸弹", "天王炸", "三连炸")


@pytest.mark.parametrize(("cards", "revealed", "zh", "en"), PAOWANG_NAMES)
def test_every_paowang_play_has_its_own_name(cards: str, revealed: bool, zh: str, en: str) -> None:
    combo = paowang.classify(parse_cards(cards), revealed=revealed)
    assert combo is not None
    assert play_name("zh", "paowang", combo) == zh
    assert play_name("en", "paowang", combo) == en
    assert not any(word in zh for word in SHUANGKOU_WORDS)


def test_the_names_cover_all_27_ladder_rows() -> None:
    tiers = set()
    for cards, revealed, _, _ in PAOWANG_NAMES:
        combo = paowang.classify(parse_cards(cards), revealed=revealed)
        assert combo is not None
        tiers.add(combo.tier)
    assert tiers - {0} == set(range(1, paowang_combos.LADDER_ROWS + 1))


def test_a_pair_straight_on_a_straight_is_a_riding_play() -> None:
    straight = paowang.classify(parse_cards("4 5 6"))
    pairs = paowang.classify(parse_cards("5 5 6 6 7 7"))
    lower_pairs = paowang.classify(parse_cards("4 4 5 5 6 6"))
    assert straight is not None and pairs is not None and lower_pairs is not None
    assert paowang.beats(pairs, straight)
    assert play_name("zh", "paowang", pairs, straight) == "骑牌"
    assert "骑牌" in play_name("en", "paowang", pairs, straight)
    # on another 双顺, or leading, it is a 双顺
    assert play_name("zh", "paowang", pairs, lower_pairs) == "双顺"
    assert play_name("zh", "paowang", pairs) == "双顺"
    # what the last play of a trick beat, passes aside
    trick = ((0, straight), (1, None), (2, pairs))
    assert beaten_in_trick(trick) is straight
    assert beaten_in_trick(((0, straight),)) is None


@pytest.mark.parametrize(
    ("cards", "zh", "en"),
    [
        ("5 5", "对子", "pair"),
        ("3 4 5 6 7", "顺子", "straight"),
        ("3 3 4 4 5 5", "连对", "pair straight"),
        ("3 3 3 3", "炸弹", "bomb"),
        ("小王 小王 大王 大王", "天王炸", "four jokers"),
    ],
)
def test_shuangkou_keeps_its_names(cards: str, zh: str, en: str) -> None:
    combo = shuangkou.classify(parse_cards(cards))
    assert combo is not None
    assert play_name("zh", "shuangkou", combo) == zh
    assert play_name("en", "shuangkou", combo) == en


def test_every_renderer_names_paowang_plays_the_same_way() -> None:
    straight = paowang.classify(parse_cards("4 5 6"))
    pairs = paowang.classify(parse_cards("5 5 6 6 7 7"))
    bomb = paowang.classify(parse_cards("4 4 A"))
    assert straight is not None and pairs is not None and bomb is not None
    assert play_html("zh", "paowang", pairs, straight) == "5 5 6 6 7 7（骑牌）"
    assert play_html("zh", "paowang", bomb) == "4 4 A（小幺）"
    assert play_button_label("zh", "paowang", bomb, True) == "出牌：小幺"
    assert play_button_label("zh", "paowang", pairs, True, straight) == "出牌：骑牌"
    assert combo_label("paowang", bomb) == "小幺"
    assert combo_label("paowang", pairs, straight) == "骑牌"


def test_both_languages_have_every_name() -> None:
    zh, en = (CATALOG[lang] for lang in LANGUAGES)
    names = {key for key in zh if key.startswith("kind.")}
    assert names == {key for key in en if key.startswith("kind.")}
    for row in range(1, paowang_combos.LADDER_ROWS + 1):
        assert f"kind.paowang.tier{row}" in names
    for kind in shuangkou.KINDS:
        assert f"kind.shuangkou.{kind}" in names
    for kind in ("single", "pair", "straight", "pair_straight", "riding"):
        assert f"kind.paowang.{kind}" in names


def _view_facing(combo: object, seat: int | None, trick: tuple = ()) -> object:
    """A 刨王 view where seat 1 played ``combo`` and seat 2 (or the group) looks at it."""
    from bot.game.common import SeatView

    return SeatView(
        variant="paowang",
        seat=seat,
        hand=tuple(parse_cards("♠9 ♥J")) if seat is not None else (),
        hand_sizes=(20, 19, 20, 20, 20),
        turn=2,
        on_table=combo,  # type: ignore[arg-type]
        on_table_seat=1,
        trick=trick or ((1, combo),),
        history=trick or ((1, combo),),
        finish_order=(),
        partners=(),
        over=False,
        points=(0, 0, 0, 0, 0),
        revealed=(False, True, False, False, False),
        revealed_jokers=(0, 1, 0, 0, 0),
    )


@pytest.mark.parametrize(("cards", "revealed", "zh", "en"), PAOWANG_NAMES)
def test_the_hand_message_and_the_group_table_name_each_paowang_play(
    cards: str, revealed: bool, zh: str, en: str
) -> None:
    from bot.presentation.render import SeatLabel, hand_text, table_text

    combo = paowang.classify(parse_cards(cards), revealed=revealed)
    labels = [SeatLabel(f"P{n}") for n in range(5)]
    for lang, name in (("zh", zh), ("en", en)):
        hand = hand_text(lang, _view_facing(combo, 2), labels, deciding=True)  # type: ignore[arg-type]
        group = table_text(lang, _view_facing(combo, None), labels, number=3)  # type: ignore[arg-type]
        for shown in (hand, group):
            assert f"（{name}）" in shown, shown
            assert not any(f"（{word}）" in shown for word in SHUANGKOU_WORDS)


def test_the_hand_message_and_the_table_name_a_riding_play() -> None:
    from bot.presentation.render import SeatLabel, hand_text, table_text

    straight = paowang.classify(parse_cards("4 5 6"))
    pairs = paowang.classify(parse_cards("5 5 6 6 7 7"))
    trick = ((0, straight), (1, pairs))
    labels = [SeatLabel(f"P{n}") for n in range(5)]
    hand = hand_text("zh", _view_facing(pairs, 2, trick), labels, deciding=True)  # type: ignore[arg-type]
    group = table_text("zh", _view_facing(pairs, None, trick), labels, number=3)  # type: ignore[arg-type]
    assert "5 5 6 6 7 7（骑牌）" in hand and "5 5 6 6 7 7（骑牌）" in group
