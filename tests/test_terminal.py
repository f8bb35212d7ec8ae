"""The terminal game, played whole by feeding lines to injected streams."""

from __future__ import annotations

import io
import re

import pytest

from bot.cli.terminal import TerminalGame, play
from bot.game import shuangkou

# Ask for a hint and play it (an empty line plays the last hint); then "不出", which either
# passes on the next turn or, when leading, is refused and the next hint is played instead.
AUTOPILOT = "提示\n\n不出\n" * 400


def test_a_whole_game_fed_line_by_line() -> None:
    out = io.StringIO()
    assert play("shuangkou", seed=3, stdin=io.StringIO(AUTOPILOT), stdout=out) == 0
    text = out.getvalue()
    assert "seed 3" in text and "你的队友是 座位2" in text
    assert "提示: " in text and "座位0(你) 出 " in text and "座位0(你) 不出" in text
    assert "—— 结算 ——" in text and "等级" in text
    assert "你必须出牌" in text  # the pass refused while leading, in the person's words


def test_the_table_and_hand_are_shown() -> None:
    out = io.StringIO()
    TerminalGame("shuangkou", seed=8, stdin=io.StringIO(""), stdout=out).run()
    text = out.getvalue()
    assert "你的牌 (27 张):" in text and "1:" in text and "27:" in text
    assert re.search(r"座位2: \d+ 张 \[队友\]", text) and "→ 座位0(你)" in text


def test_typed_plays_help_errors_and_leaving() -> None:
    game = shuangkou.Game.deal(8)
    leader = game.turn
    lowest = game.hands[0][0]
    lines = ["?", "x9", "#99", "#1 1", "大王 大王 大王", f"#{1}", "quit"]
    out = io.StringIO()
    terminal = TerminalGame("shuangkou", seed=8, stdin=io.StringIO("\n".join(lines) + "\n"),
                            stdout=out)
    assert terminal.run() == 1
    text = out.getvalue()
    assert "10JQKA" in text  # the help
    assert "看不懂" in text  # x9, #99 and "#1 1"
    assert "你没有这些牌" in text or "不是合法牌型" in text
    assert "你离开了牌局" in text
    if leader == 0:  # "#1" played the lowest card of the hand
        assert f"座位0(你) 出 {lowest}" in text


@pytest.mark.parametrize("typed", ["#٣", "#３", "#²", "#1\u0663", "#03x", "#0"])
def test_a_card_index_is_ascii_digits_only(typed: str) -> None:
    terminal = TerminalGame("shuangkou", seed=8, stdin=io.StringIO(""), stdout=io.StringIO())
    hand = terminal.game.hands[0]
    with pytest.raises(ValueError, match="no card at index"):
        terminal._cards_from(typed, hand)
    assert terminal._cards_from("#3", hand) == [hand[2]]


def test_end_of_input_leaves_the_game() -> None:
    out = io.StringIO()
    assert play("shuangkou", seed=2, stdin=io.StringIO(""), stdout=out) == 1


def test_unknown_game() -> None:
    assert play("mahjong", seed=1) == 2


def test_a_whole_paowang_game_with_the_reveal_prompt() -> None:
    from bot.game import paowang

    assert paowang.Game.deal(0).big_jokers[0] == 1  # the person is dealt a 大王
    out = io.StringIO()
    lines = "y\n" + AUTOPILOT
    assert play("paowang", seed=0, stdin=io.StringIO(lines), stdout=out) == 0
    text = out.getvalue()
    assert "亮王吗?" in text and "座位0(你) 亮王! (1 张大王)" in text
    assert re.search(r"\d+分, 亮王×1\]", text)  # points and the reveal on the table
    assert "—— 结算 ——" in text and "倍数 ×" in text
    assert re.search(r"等级 \d+ (幼儿园|小学生|初中生)", text)


def test_a_declined_reveal_stays_private_to_the_person() -> None:
    out = io.StringIO()
    play("paowang", seed=0, stdin=io.StringIO("n\n" + AUTOPILOT), stdout=out)
    text = out.getvalue()
    assert "你没有亮王" in text and "座位0(你) 亮王" not in text
