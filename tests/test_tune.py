"""bench.tune's look-ahead budgets: ``25/8/fast`` is the bot's own AI, ``off`` the AI without it."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.tune import lookahead_factory
from bot.cli.simulate import next_actor
from bot.game import paowang
from bot.game.players import AiPlayer, decide
from bot.game.players.lookahead import (
    CARDS_LEFT,
    LEARNED_MOVES_IN_PLAYOUTS,
    SAMPLES,
    worth_looking,
)
from bot.game.players.sampling import same_play
from bot.game.players.trees import TreeModel


def test_the_bots_budget_decides_as_the_bot_and_off_as_the_ai_without_it() -> None:
    fast = "" if LEARNED_MOVES_IN_PLAYOUTS else "/fast"
    bots_budget = lookahead_factory(f"{CARDS_LEFT['paowang']}/{SAMPLES['paowang']}{fast}")
    off = lookahead_factory("off")
    looked = differed = 0
    for seed in range(6):
        game = paowang.Game.deal(seed)
        players = [AiPlayer(seat) for seat in range(5)]
        while not game.over:
            seat = next_actor(game)
            assert seat is not None
            view = game.view(seat)
            if worth_looking(view):
                looked += 1
                choice = players[seat].choose(view)
                assert same_play(bots_budget(seat, 0).choose(view), choice)
                plain = AiPlayer(seat, lookahead=False).choose(view)
                assert same_play(off(seat, 0).choose(view), plain)
                differed += not same_play(plain, choice)
            decide(players[seat], game, seat)
    assert looked >= 20 and differed >= 1


def test_fast_play_outs_are_the_ai_without_its_learned_moves() -> None:
    fast = lookahead_factory("30/4/fast")(2, 0)
    plain = lookahead_factory("30/4")(2, 0)
    assert (fast.cards, fast.samples) == (plain.cards, plain.samples) == (30, 4)
    assert not fast._playouts._paowang_tuning.learned_moves
    assert plain._playouts._paowang_tuning.learned_moves
    with pytest.raises(ValueError, match="not a look-ahead budget"):
        lookahead_factory("30/4/slow")


def test_the_yardstick_at_a_candidates_table_searches_and_sits_with_it() -> None:
    """--yardstick BOMBS: the search player's play-outs and the other seats both answer the
    bomb question by BOMBS; the plain yardstick keeps today's AI."""
    from bench.search import SearchPlayer
    from bench.search_match import SearchBudget, search_factory
    from bench.tune import bomb_tuning, tuned_factory

    rules = bomb_tuning("rules")
    searcher = search_factory(SearchBudget(), rules)(0, 1)
    table = tuned_factory(rules)(1, 0)
    plain = search_factory(SearchBudget())(0, 1)
    assert isinstance(searcher, SearchPlayer) and isinstance(plain, SearchPlayer)
    assert searcher.rollout._paowang_tuning.learned_bombs is False  # type: ignore[attr-defined]
    assert table._paowang_tuning.learned_bombs is False  # type: ignore[attr-defined]
    assert plain.rollout._paowang_tuning.learned_bombs is True  # type: ignore[attr-defined]


def test_the_yardstick_can_sit_at_a_table_of_another_move_model(tmp_path: Path) -> None:
    """--yardstick-moves MOVES: the table's move model (and the search's play-outs') is a
    file's; the bomb answer stays the one asked for."""
    from bench.search import SearchPlayer
    from bench.search_match import SearchBudget, search_factory
    from bench.train_moves import write
    from bench.tune import yardstick_tuning

    model = TreeModel(-9.0, ())
    path = tmp_path / "moves.py"
    write(model, ["python -m bench.train_moves fit x.jsonl --write"], 1, path)
    tuning = yardstick_tuning("rules", str(path))
    assert tuning.move_model == model and tuning.learned_moves
    assert tuning.learned_bombs is False
    assert yardstick_tuning("committed", "heuristic").learned_moves is False
    searcher = search_factory(SearchBudget(), tuning)(0, 1)
    assert isinstance(searcher, SearchPlayer)
    assert searcher.rollout._paowang_tuning.move_model == model  # type: ignore[attr-defined]


def test_the_second_yardstick_can_be_built_on_the_previous_rounds_move_model(
    tmp_path: Path,
) -> None:
    """bench.players --search-previous-moves MODEL: 刨王's search player starts from and plays
    out with the AI of that move model, and its row says so; 双扣's search is unchanged."""
    from bench.players import search_seats
    from bench.search import SearchPlayer
    from bench.search_match import SearchBudget
    from bench.train_moves import write

    model = TreeModel(-9.0, ())
    path = tmp_path / "round1.py"
    write(model, ["python -m bench.train_moves fit x.jsonl --write"], 1, path)
    factory, title = search_seats("paowang", SearchBudget(), path)
    searcher = factory(0, 1)
    assert isinstance(searcher, SearchPlayer)
    assert searcher.rollout._paowang_tuning.move_model == model  # type: ignore[attr-defined]
    assert title.endswith("play-outs by the AI with move model round1.py)")
    plain_factory, plain_title = search_seats("shuangkou", SearchBudget(), path)
    plain = plain_factory(0, 1)
    assert isinstance(plain, SearchPlayer) and plain_title == SearchBudget().title
    assert plain.rollout._paowang_tuning.move_model is None  # type: ignore[attr-defined]
    # with --search-previous-playouts too, the file still names 刨王's previous AI
    both = SearchBudget(previous_playouts=True)
    on_file, both_title = search_seats("paowang", both, path)
    assert on_file(0, 1).rollout._paowang_tuning.move_model == model  # type: ignore[attr-defined]
    assert both_title == title


def test_a_look_ahead_budget_can_ask_for_a_sure_gain() -> None:
    sure = lookahead_factory("25/8/fast/z1.5")(1, 0)
    assert (sure.cards, sure.samples, sure.sure) == (25, 8, 1.5)
    assert not sure._playouts._paowang_tuning.learned_moves
    assert lookahead_factory("25/8")(1, 0).sure == 0.0  # the bot's: any gain
    for bad in ("25/8/zz", "25/8/z1/fast"):
        with pytest.raises(ValueError, match="not a look-ahead budget"):
            lookahead_factory(bad)


def test_a_look_ahead_budget_can_compare_more_moves_and_be_timed_cold(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from bench.tune import cold_times

    wider = lookahead_factory("25/8/fast/m8/z1")(1, 0)
    assert (wider.moves, wider.sure) == (8, 1.0)
    assert lookahead_factory("25/8/fast")(1, 0).moves == 5  # lookahead.MOVES
    for bad in ("25/8/m0", "25/8/m2.5", "25/8/z1/m3"):
        with pytest.raises(ValueError, match="not a look-ahead budget"):
            lookahead_factory(bad)
    cold_times("25/8/fast", 1, 0)
    printed = capsys.readouterr().out
    assert printed.startswith("25/8/fast: ") and " cold decisions in 1 games, median " in printed


def test_the_shuangkou_yardstick_can_be_built_on_the_previous_rounds_move_model(
    tmp_path: Path,
) -> None:
    """bench.players --search-previous-shuangkou-moves MODEL: 双扣's search player starts from
    and plays out with the 双扣 AI of that move model, and its row says so; 刨王's search is
    unchanged, and with --search-previous-playouts the file still names 双扣's previous AI."""
    from bench.players import search_seats
    from bench.search import SearchPlayer
    from bench.search_match import SearchBudget
    from bench.train_shuangkou import write

    model = TreeModel(-7.0, ())
    path = tmp_path / "sk-round1.py"
    write(model, ["python -m bench.train_shuangkou fit x.jsonl --write"], 1, path)
    factory, title = search_seats("shuangkou", SearchBudget(), None, path)
    searcher = factory(0, 1)
    assert isinstance(searcher, SearchPlayer)
    assert searcher.rollout._shuangkou_moves == model  # type: ignore[attr-defined]
    assert title.endswith("play-outs by the AI with move model sk-round1.py)")
    plain_factory, plain_title = search_seats("paowang", SearchBudget(), None, path)
    plain = plain_factory(0, 1)
    assert isinstance(plain, SearchPlayer) and plain_title == SearchBudget().title
    assert plain.rollout._shuangkou_moves is None  # type: ignore[attr-defined]
    both = SearchBudget(previous_playouts=True)
    on_file, both_title = search_seats("shuangkou", both, None, path)
    assert on_file(0, 1).rollout._shuangkou_moves == model  # type: ignore[attr-defined]
    assert both_title == title
