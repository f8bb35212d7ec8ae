from bench import engine
from bot.game import shuangkou
from bot.game.cards import format_cards, parse_cards


def test_cards_round_trip() -> None:
    cards = parse_cards("♠3 ♥10 小王 大王")
    assert parse_cards(format_cards(cards)) == cards


def test_a_dealt_game_has_27_cards_each() -> None:
    game = shuangkou.Game.deal(seed=7)
    assert [len(hand) for hand in game.hands] == [27, 27, 27, 27]


def test_the_engine_benchmark_runs() -> None:
    report = engine.run(hands=30, games=2, rounds=1, seed=1, peer=False)
    assert "## 双扣" in report and "turns/s" in report
