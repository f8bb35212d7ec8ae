"""Replays as pure functions: recorded games (computer players through the real engines)
stepped trick by trick from their deal and log, and each step rendered."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from bot.game.cards import Card, format_cards, parse_cards
from bot.game.common import Action, Result
from bot.game.players import make_player
from bot.game.protocol import GameState
from bot.game.replay import replay
from bot.game.variants import VARIANTS
from bot.presentation.callbacks import Act, decode
from bot.presentation.history_text import history_message, result_summary
from bot.presentation.render import SeatLabel
from bot.presentation.replay_view import (
    replay_steps,
    step_json,
    step_keyboard,
    step_text,
)
from bot.storage.history import HistoryGame, HistorySeat

SEEDS = range(12)


def record_game(variant: str, seed: int) -> tuple[list[Action], GameState]:
    """A whole game of computer players (random and greedy), as the bot logs it."""
    game = VARIANTS[variant].deal(seed, None)
    players = [
        make_player("random" if s % 2 else "greedy", seed=seed * 10 + s)
        for s in range(game.seats)
    ]
    log: list[Action] = []
    while not game.over:
        seat = game.to_act[0]
        view = game.view(seat)
        if view.reveal_pending:
            action = Action.answer(seat, players[seat].choose_reveal(view))
        else:
            combo = players[seat].choose(view)
            action = Action.pass_(seat) if combo is None else Action.play(seat, combo.cards)
        game.apply(action)
        log.append(action)
        assert len(log) < 5000
    return log, game


def labels_for(variant: str) -> list[SeatLabel]:
    seats = VARIANTS[variant].seats
    return [SeatLabel(f"P{seat + 1}", is_computer=seat == seats - 1) for seat in range(seats)]


@pytest.mark.parametrize("variant", ["shuangkou", "paowang"])
@pytest.mark.parametrize("seed", SEEDS)
def test_stepping_a_recorded_game_ends_at_its_real_result(variant: str, seed: int) -> None:
    log, played = record_game(variant, seed)
    steps = replay_steps(VARIANTS[variant], seed, None, None, log)
    dealt = VARIANTS[variant].deal(seed, None)
    first = steps[0]
    # the deal: every hand as dealt, nothing played, who leads
    assert first.hands == tuple(tuple(sorted(hand)) for hand in dealt.hands)
    assert first.plays == () and first.taker is None
    assert first.cards_left == (108 if variant == "shuangkou" else 100)
    # the end: the engine's own result, only at the last step
    last = steps[-1]
    assert played.result is not None
    assert last.over and not any(step.over for step in steps[:-1])
    assert last.finish_order == played.result.finish_order
    assert last.hands == tuple(tuple(sorted(hand)) for hand in played.hands)
    assert last.leader is None
    if variant == "paowang":
        assert last.points == tuple(played.view(None).points)
    # every step is one trick: its plays are the log's plays and passes, in order, and the
    # hands count down by exactly the cards played in it, seat by seat
    logged = [(a.seat, a.log_text) for a in log if a.kind in ("play", "pass")]
    stepped = [
        (seat, None if combo is None else format_cards(list(combo.cards)))
        for step in steps
        for seat, combo in step.plays
    ]
    assert [(s, c and Counter(parse_cards(c))) for s, c in stepped] == [
        (s, c and Counter(parse_cards(c))) for s, c in logged
    ]
    for before, after in itertools.pairwise(steps):
        assert after.number == before.number + 1
        assert after.plays, after.number
        played_by: dict[int, Counter[Card]] = {}
        for seat, combo in after.plays:
            if combo is not None:
                played_by.setdefault(seat, Counter()).update(combo.cards)
        assert before.cards_left - after.cards_left == sum(
            sum(c.values()) for c in played_by.values()
        )
        for seat in range(len(after.hands)):
            gone = Counter(before.hands[seat]) - Counter(after.hands[seat])
            assert gone == played_by.get(seat, Counter()), (after.number, seat)
            assert not Counter(after.hands[seat]) - Counter(before.hands[seat])
        # a trick that ended is taken by the last seat that played in it
        if not after.over or after.taker is not None:
            last_play = [seat for seat, combo in after.plays if combo is not None][-1]
            assert after.taker == last_play
        if variant == "paowang" and after.taker is not None:
            gained = [a - b for a, b in zip(after.points, before.points, strict=True)]
            assert gained[after.taker] == after.trick_points
            assert sum(gained) == after.trick_points
    # replaying the log directly gives the same state as the last step
    again = replay(VARIANTS[variant], seed, None, None, log)
    assert again.result == played.result


def test_a_game_from_explicit_hands_replays_the_same() -> None:
    log, played = record_game("shuangkou", 3)
    dealt = VARIANTS["shuangkou"].deal(3, None)
    hands = [[str(card) for card in hand] for hand in dealt.hands]
    leader = dealt.turn
    from_seed = replay_steps(VARIANTS["shuangkou"], 3, None, None, log)
    from_hands = replay_steps(VARIANTS["shuangkou"], None, leader, hands, log)
    assert [s.hands for s in from_hands] == [s.hands for s in from_seed]
    assert from_hands[-1].finish_order == played.result.finish_order  # type: ignore[union-attr]


def test_paowang_reveals_belong_to_the_deal() -> None:
    for seed in SEEDS:
        log, _ = record_game("paowang", seed)
        answers = [a for a in log if a.kind in ("reveal", "decline")]
        if not answers:
            continue
        steps = replay_steps(VARIANTS["paowang"], seed, None, None, log)
        first = steps[0]
        revealed = {a.seat for a in answers if a.kind == "reveal"}
        assert {s for s, jokers in enumerate(first.revealed) if jokers} == revealed
        assert set(first.declined) == {a.seat for a in answers if a.kind == "decline"}
        text = step_text(
            "zh", game_id=5, variant="paowang", when="", labels=labels_for("paowang"),
            steps=steps, index=0,
        )
        for seat in revealed:
            assert f"P{seat + 1} 亮王" in text
        return
    pytest.fail("no recorded 刨王 game had a 亮王 answer")


def test_a_game_won_at_the_deal_is_one_step() -> None:
    seed = next(s for s in range(100_000) if VARIANTS["paowang"].deal(s, None).over)
    steps = replay_steps(VARIANTS["paowang"], seed, None, None, [])
    assert len(steps) == 1 and steps[0].over
    markup = step_keyboard("zh", game_id=9, index=0, count=1)
    assert markup.inline_keyboard == ()


@pytest.mark.parametrize("variant", ["shuangkou", "paowang"])
def test_every_step_renders_every_hand_and_the_result_at_the_end(variant: str) -> None:
    log, played = record_game(variant, 1)
    steps = replay_steps(VARIANTS[variant], 1, None, None, log)
    labels = labels_for(variant)
    for index, step in enumerate(steps):
        body = step_text(
            "zh", game_id=77, variant=variant, when="2024-01-02 03:04", labels=labels,
            steps=steps, index=index, result_html="RESULT-HERE" if step.over else "",
        )
        assert "#77" in body
        assert len(body) < 4096
        for seat, label in enumerate(labels):
            assert label.name in body
            if step.hands[seat]:
                assert format_cards(list(step.hands[seat])) in body
        if index == 0:
            assert "发牌" in body and "先出" in body
        else:
            assert f"第 {index}/{len(steps) - 1} 轮" in body
            for seat, combo in step.plays:
                who = labels[seat].html()
                shown = "不出" if combo is None else format_cards(sorted(combo.cards))
                assert f"{who}：{shown}" in body
        assert ("RESULT-HERE" in body) == (index == len(steps) - 1)
        view = step_json(
            "en", game_id=77, variant=variant, when="", labels=labels, steps=steps, index=index
        )
        assert [len(s["hand"]) for s in view["seats"]] == [len(h) for h in step.hands]
        assert [p["seat"] for p in view["plays"]] == [s for s, _ in step.plays]
        assert view["step"] == index and view["steps"] == len(steps)
    assert played.over


def test_the_keyboard_only_offers_moves_that_go_somewhere() -> None:
    def moves(index: int, count: int) -> list[tuple[str, int, int]]:
        markup = step_keyboard("zh", game_id=123456789012, index=index, count=count)
        found = []
        for row in markup.inline_keyboard:
            for button in row:
                data = button.callback_data
                assert isinstance(data, str) and len(data.encode()) <= 64
                callback = decode(data)
                assert callback is not None and callback.act is Act.REPLAY
                assert callback.game_id == 123456789012 and callback.version == index
                assert callback.arg is not None
                found.append((button.text, callback.version, callback.arg))
        return found

    assert moves(0, 30) == [("▶", 0, 1), ("⏭", 0, 29)]
    assert moves(1, 30) == [("◀", 1, 0), ("▶", 1, 2), ("⏭", 1, 29)]
    assert moves(15, 30) == [("⏮", 15, 0), ("◀", 15, 14), ("▶", 15, 16), ("⏭", 15, 29)]
    assert moves(28, 30) == [("⏮", 28, 0), ("◀", 28, 27), ("▶", 28, 29)]
    assert moves(29, 30) == [("⏮", 29, 0), ("◀", 29, 28)]
    with_web = step_keyboard("zh", game_id=1, index=0, count=2, web_url="https://x/?replay=1")
    assert with_web.inline_keyboard[-1][0].web_app is not None


def _seat(seat: int, name: str, won: bool, *, computer: bool = False, escaped: bool = False,
          delta: int = 0, user: int | None = None) -> HistorySeat:
    return HistorySeat(seat, user, name, computer, won, escaped, delta)


def test_history_lines_say_who_won_and_how() -> None:
    double = HistoryGame(
        12, -1, "shuangkou", "finished", 1_700_000_000.0, "双扣", None,
        (_seat(0, "甲", True, user=1, delta=4), _seat(1, "电脑1", False, computer=True),
         _seat(2, "丙", True, user=3, delta=4), _seat(3, "丁", False, user=4, delta=-4)),
    )
    line = result_summary("zh", double)
    assert line == "双扣：甲、丙 胜"
    draw_seats = tuple(_seat(s, name, False) for s, name in enumerate("甲乙丙丁"))
    draw = HistoryGame(13, -1, "shuangkou", "finished", 0.0, "平扣", None, draw_seats)
    assert result_summary("zh", draw) == "平扣"
    snow = HistoryGame(
        14, -1, "paowang", "finished", 0.0, "小雪", "short game",
        tuple(_seat(s, f"P{s}", s in (1, 3), escaped=s == 4) for s in range(5)),
    )
    summary = result_summary("zh", snow)
    assert summary.startswith("王方胜（2 打 3）·小雪：P1、P3 胜")
    assert "P4 逃跑" in summary and "不计分" in summary
    assert "the 王 side won" in result_summary("en", snow)
    body, markup = history_message("zh", [double, snow], group=False, user_id=3)
    assert "#12" in body and "2023-11-15 06:13" in body and "你 +4" in body
    assert markup is not None
    assert [b.text for b in markup.inline_keyboard[0]] == ["▶ #12", "▶ #14"]
    cancelled = HistoryGame(
        15, -1, "paowang", "cancelled", 0.0, "cancelled", None,
        (_seat(0, "甲", False, escaped=True),),
    )
    body, markup = history_message("zh", [cancelled], group=False)
    assert "牌局取消" in body and markup is None  # a cancelled game has no replay
    body, markup = history_message("en", [], group=True)
    assert "no finished games" in body and markup is None


def test_result_heads_match_the_result_screen() -> None:
    # the history's 刨王 side is the result screen's own rule (the 王 side is 1 or 2 seats)
    from bot.service.result_message import outcome_text

    for winners in [(0,), (0, 1), (0, 1, 2), (0, 1, 2, 3)]:
        game = HistoryGame(
            1, -1, "paowang", "finished", 0.0, "win", None,
            tuple(_seat(s, f"P{s}", s in winners) for s in range(5)),
        )
        expected = outcome_text("zh", Result("win", (), (), winners), 5)
        assert result_summary("zh", game).startswith(expected)


def test_a_long_history_fits_one_message_and_keeps_the_newest_games() -> None:
    # 20 刨王 games of five players with the longest names a player may have (24 characters):
    # the whole list would pass Telegram's 4,096 characters (and be cut inside its HTML), so
    # the oldest games give way, with their buttons
    name = "W" * 23 + "…"
    games = [
        HistoryGame(
            100 + n, -1, "paowang", "finished", 1_700_000_000.0 - n, "小雪", "short game",
            tuple(_seat(s, name, s != 0, escaped=s == 1, user=s + 1, delta=5) for s in range(5)),
        )
        for n in range(20)
    ]
    for lang in ("zh", "en"):
        body, markup = history_message(lang, games, group=False, user_id=1)
        assert len(body) <= 4096
        shown = [line.split()[0] for line in body.splitlines() if line.startswith("<b>#")]
        assert 5 < len(shown) < 20
        assert shown == [f"<b>#{game.game_id}</b>" for game in games[: len(shown)]]
        assert markup is not None
        buttons = [b.text for row in markup.inline_keyboard for b in row]
        assert buttons == [f"▶ #{game.game_id}" for game in games[: len(shown)]]
