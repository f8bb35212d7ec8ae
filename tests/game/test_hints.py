"""提示's order: leading, the lowest cards first in the largest shape they make, bombs last;
answering, the cheapest answer first."""

from __future__ import annotations

from bot.game.cards import parse_cards
from bot.game.shuangkou_combos import classify
from bot.game.shuangkou_plays import legal_plays
from bot.game.variants import BOMB_KINDS, hint_order


def test_a_lead_offers_the_lowest_cards_in_their_largest_shape_first_and_bombs_last() -> None:
    hand = parse_cards("♠3 ♥3 ♠4 ♥4 ♠5 ♥5 ♠6 ♠7 ♠9 ♥9 ♣9 ♦9 ♠K")
    plays = sorted(legal_plays(hand, None), key=hint_order(True))
    first = plays[0]
    assert min(card >> 3 for card in first.cards) == 3
    from_the_three = [
        p for p in plays if min(c >> 3 for c in p.cards) == 3 and p.kind not in BOMB_KINDS
    ]
    assert len(first.cards) == max(len(p.cards) for p in from_the_three)
    assert len(first.cards) > 2  # a run from the 3, not the single 3
    singles = [p for p in plays if len(p.cards) == 1]
    assert plays.index(singles[0]) > 0
    bombs = [n for n, p in enumerate(plays) if p.kind in BOMB_KINDS]
    assert bombs and min(bombs) > max(n for n, p in enumerate(plays) if p.kind not in BOMB_KINDS)


def test_an_answer_offers_the_cheapest_first() -> None:
    hand = parse_cards("♠4 ♠8 ♠K ♠9 ♥9 ♣9 ♦9")
    on = classify(parse_cards("♥3"))
    assert on is not None
    plays = sorted(legal_plays(hand, on), key=hint_order(False))
    assert [format(p.cards[0] >> 3) for p in plays[:3]] == ["4", "8", "9"]
    assert plays[-1].kind in BOMB_KINDS
