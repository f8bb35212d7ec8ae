"""/stats' figures from lists of games: counts, streaks, partners, 上游, titles, the text,
the replayed facts of real engine games, and the picture."""

from __future__ import annotations

import io
import itertools
from pathlib import Path

import pytest
from PIL import Image

from bot.cli.simulate import next_actor
from bot.game.common import Action
from bot.game.players import make_player
from bot.game.variants import VARIANTS
from bot.presentation.stats_chart import cjk_font
from bot.presentation.stats_text import Partner, bands_of, visible_length
from bot.service.stats import CAPTION_LIMIT, PlayerStats, chart_png, stats_text
from bot.service.stats_figures import (
    GameFacts,
    best_partner,
    facts_of,
    record_of,
    records_of,
    streaks,
)
from bot.storage.models import ActionRecord
from bot.storage.stats import GameLog, PlayedGame, SeatResult

ME = 1
GROUP = -100
OTHER_GROUP = -200


def sk(
    game_id: int,
    *,
    won: bool,
    outcome: str = "单扣",
    seat: int = 0,
    partner: int | None = 2,
    escaped: bool = False,
    score: int | None = None,
    chat_id: int = GROUP,
    status: str = "finished",
) -> PlayedGame:
    """A 双扣 game of ME in ``seat``; ``partner`` (a user id, None: a computer) across."""
    others = []
    for other in range(4):
        if other == seat:
            continue
        across = other == (seat + 2) % 4
        user = partner if across else 100 + game_id * 10 + other
        side_won = won if across else (not won and outcome != "平扣")
        name = f"P{user}" if user is not None else None
        others.append(SeatResult(other, user, name, side_won, False))
    return PlayedGame(
        game_id=game_id,
        chat_id=chat_id,
        variant="shuangkou",
        status=status,
        finished_at=float(game_id),
        outcome=outcome,
        seat=seat,
        adjusted_delta=0,
        won=won and outcome != "平扣",
        escaped=escaped,
        score_after=score,
        others=tuple(others),
    )


def pw(
    game_id: int,
    *,
    won: bool,
    mates: tuple[int, ...] = (),
    outcome: str = "win",
    seat: int = 0,
    score: int | None = None,
    escaped: bool = False,
    chat_id: int = GROUP,
) -> PlayedGame:
    """A 刨王 game of ME in ``seat``; ``mates``: the user ids on ME's side (seats 1..)."""
    others = []
    for index, other in enumerate(s for s in range(5) if s != seat):
        if index < len(mates):
            others.append(SeatResult(other, mates[index], f"P{mates[index]}", won, False))
        else:
            others.append(SeatResult(other, None, None, not won, False))
    return PlayedGame(
        game_id=game_id,
        chat_id=chat_id,
        variant="paowang",
        status="finished",
        finished_at=float(game_id),
        outcome=outcome,
        seat=seat,
        adjusted_delta=0,
        won=won,
        escaped=escaped,
        score_after=score,
        others=tuple(others),
    )


# ---- streaks ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("results", "expected"),
    [
        ([], (0, 0)),
        ([False], (0, 0)),
        ([True], (1, 1)),
        ([True, True, False, True], (1, 2)),
        ([True, False, True, True, True], (3, 3)),
        ([True, True, True, False, False], (0, 3)),
        ([False, True, True, False, True, True, True, True, False, True], (1, 4)),
    ],
)
def test_streaks(results: list[bool], expected: tuple[int, int]) -> None:
    assert streaks(results) == expected


def test_streaks_in_a_record_count_draws_and_escapes_as_breaks() -> None:
    games = [
        sk(1, won=True),
        sk(2, won=True),
        sk(3, won=True, outcome="平扣"),  # a draw is no win
        sk(4, won=True),
        sk(5, won=True, escaped=True),  # left: no win, whatever the side did
        sk(6, won=True),
        sk(7, won=True),
    ]
    record = record_of("shuangkou", games, {})
    assert (record.current_streak, record.best_streak) == (2, 2)
    assert record.wins == 5
    assert record.escaped == 1


# ---- 双扣 counts -------------------------------------------------------------------------------


def test_shuangkou_outcomes_by_side() -> None:
    games = [
        sk(1, won=True, outcome="双扣"),
        sk(2, won=False, outcome="双扣"),
        sk(3, won=False, outcome="双扣"),
        sk(4, won=True, outcome="单扣"),
        sk(5, won=True, outcome="单扣"),
        sk(6, won=False, outcome="单扣"),
        sk(7, won=False, outcome="平扣"),
        sk(8, won=False, outcome="平扣"),
        sk(9, won=True, outcome="单扣", escaped=True),  # counted only as 逃跑
        pw(10, won=True),  # another game: not in 双扣's record
    ]
    record = record_of("shuangkou", games, {})
    assert record.games == 9
    assert record.wins == 3
    assert record.won_lost == {"双扣": (1, 2), "单扣": (2, 1)}
    assert record.draws == 2
    assert record.escaped == 1


def test_a_cancelled_game_with_an_escape_is_a_lost_game_and_nothing_else() -> None:
    games = [
        sk(1, won=True, outcome="双扣"),
        sk(2, won=False, outcome="cancelled", escaped=True, status="cancelled", partner=None),
    ]
    record = record_of("shuangkou", games, {2: GameFacts(first_out=0)})
    assert (record.games, record.wins, record.escaped) == (2, 1, 1)
    assert record.won_lost == {"双扣": (1, 0)}
    assert record.first_known == 0  # a cancelled game has no 上游 to count
    assert record.current_streak == 0


# ---- partners --------------------------------------------------------------------------------


def test_shuangkou_partner_is_the_seat_across_in_wins() -> None:
    games = [
        sk(1, won=True, partner=7),
        sk(2, won=True, partner=8, seat=1),  # across from seat 1 is seat 3
        sk(3, won=True, partner=8, seat=3),
        sk(4, won=False, partner=7),  # a loss together does not count
        sk(5, won=False, partner=7),
        sk(6, won=True, partner=None),  # a computer partner is nobody
    ]
    assert best_partner(games) == Partner(8, "P8", 2)
    # the opponents won game 4 together, never with ME
    assert best_partner([sk(4, won=False, partner=7)]) is None


def test_partner_ties_go_to_the_first_won_with() -> None:
    games = [
        sk(1, won=True, partner=9),
        sk(2, won=True, partner=7),
        sk(3, won=True, partner=7),
        sk(4, won=True, partner=9),
    ]
    assert best_partner(games) == Partner(9, "P9", 2)


def test_paowang_partners_are_the_other_winners() -> None:
    games = [
        pw(1, won=True, mates=(7,)),
        pw(2, won=True, mates=(7, 8)),  # 1 打 4 is not possible with mates; 2+3 sides: 3 won
        pw(3, won=False, mates=(8,)),
        pw(4, won=True, mates=(8,)),
        pw(5, won=True, mates=(8,)),
    ]
    record = record_of("paowang", games, {})
    assert record.partner == Partner(8, "P8", 3)


# ---- 刨王 counts, 上游, 亮王 ------------------------------------------------------------------


def test_paowang_wins_by_how_snow_reveals_and_first_out() -> None:
    games = [
        pw(1, won=True, outcome="win"),
        pw(2, won=True, outcome="小雪"),
        pw(3, won=False, outcome="大雪"),
        pw(4, won=True, outcome="大雪", seat=2),
        pw(5, won=False, outcome="win"),
        pw(6, won=True, outcome="win"),  # no facts: counts, but not by how
    ]
    facts = {
        1: GameFacts(first_out=0, how="points", winners=(0, 1), revealed=frozenset({0})),
        2: GameFacts(first_out=3, how="flag", winners=(0, 3, 4), revealed=frozenset()),
        3: GameFacts(first_out=1, how="sweep", winners=(1, 2), revealed=frozenset({0, 1})),
        4: GameFacts(first_out=2, how="sweep", winners=(2, 4), revealed=frozenset({4})),
        5: GameFacts(first_out=None, how="four_jokers", winners=(3,), revealed=frozenset()),
    }
    record = record_of("paowang", games, facts)
    assert (record.games, record.wins) == (6, 4)
    assert record.wins_by == {"points": 1, "flag": 1, "sweep": 1}
    assert record.won_lost == {"小雪": (1, 0), "大雪": (1, 1)}
    assert record.reveals == 2  # games 1 and 3, where seat 0 (ME) revealed
    assert (record.firsts, record.first_known) == (2, 4)  # games 1 and 4 of 1-4


def test_a_win_the_engine_gave_the_other_side_is_not_won_by_how() -> None:
    # 逃跑 in 刨王 fixes every score: ME's row says won while the engine's winners differ
    games = [pw(1, won=True)]
    facts = {1: GameFacts(first_out=3, how="points", winners=(3, 4))}
    assert record_of("paowang", games, facts).wins_by == {}


# ---- best title ------------------------------------------------------------------------------


def test_best_title_is_the_highest_score_reached() -> None:
    games = [
        sk(1, won=True, score=90),
        sk(2, won=True, score=340),
        sk(3, won=False, score=120),
        sk(4, won=False, score=None),
    ]
    record = record_of("shuangkou", games, {})
    assert record.best_score == 340
    assert record.best_title == "连弩"  # 300..599
    assert record_of("shuangkou", [sk(1, won=False, score=-8)], {}).best_title == "炮灰"
    assert record_of("shuangkou", [sk(1, won=False)], {}).best_title is None
    assert record_of("paowang", [pw(1, won=True, score=500)], {}).best_title == "高中生"


def test_records_only_for_games_played() -> None:
    assert [r.variant for r in records_of([pw(1, won=True)], {})] == ["paowang"]
    both = records_of([pw(1, won=True), sk(2, won=True)], {})
    assert [r.variant for r in both] == ["shuangkou", "paowang"]


# ---- the text --------------------------------------------------------------------------------


def test_text_has_the_group_and_overall_sections() -> None:
    games = [
        sk(1, won=True, outcome="双扣", score=4, partner=7),
        sk(2, won=True, outcome="单扣", score=6, chat_id=OTHER_GROUP, partner=7),
        pw(3, won=False, score=1, chat_id=OTHER_GROUP),
    ]
    facts = {1: GameFacts(first_out=0), 2: GameFacts(first_out=1)}
    body = stats_text("zh", "A<b>", games, facts, chat_id=GROUP)
    assert "A&lt;b&gt;" in body  # the name is escaped
    group, overall = body.split("<b>全部</b>")
    assert "绍兴双扣：1局 1胜（胜率 100%）" in group
    assert "通化刨王" not in group
    assert "上游 1（100%）" in group
    assert "绍兴双扣：2局 2胜（胜率 100%）" in overall
    assert "双扣 胜1 负0 · 单扣 胜1 负0" in overall
    assert "上游 1（50%）" in overall
    assert "连胜 当前 2 最长 2" in overall
    assert "最佳搭档：P7（同胜 2）" in overall
    assert "通化刨王：1局 0胜（胜率 0%）" in overall
    assert "上游 0（—）" in overall  # no facts: no 上游 rate
    private = stats_text("en", "A", games, facts)
    assert "This group" not in private and "won 2 of 2 (100%)" in private
    assert visible_length(body) < CAPTION_LIMIT


def test_text_for_a_group_without_games_there() -> None:
    body = stats_text("zh", "A", [sk(1, won=True, chat_id=OTHER_GROUP)], {}, chat_id=GROUP)
    assert "还没有在本群打完的牌局" in body
    assert "绍兴双扣：1局 1胜" in body.split("<b>全部</b>")[1]


def test_visible_length_counts_parsed_text() -> None:
    assert visible_length("<b>ab</b> &lt;c&gt;") == len("ab <c>")


# ---- facts of real games ---------------------------------------------------------------------


def play_logged(variant: str, seed: int) -> tuple[GameLog, object]:
    """A whole game between greedy computers, as the bot logs it; (log, engine result)."""
    engine = VARIANTS[variant]
    game = engine.deal(seed, None)
    players = [make_player("greedy", seed=s) for s in range(engine.seats)]
    actions = []
    while not game.over:
        seat = next_actor(game)
        assert seat is not None
        view = game.view(seat)
        if view.reveal_pending:
            action = Action.answer(seat, True)
        else:
            combo = players[seat].choose(view)
            action = (
                Action.pass_(seat)
                if combo is None
                else Action.play(seat, combo.cards)
            )
        game.apply(action)
        actions.append(action)
    records = tuple(
        ActionRecord(seq, a.seat, a.kind, a.log_text, 0.0) for seq, a in enumerate(actions, 1)
    )
    return GameLog(seed, variant, seed, None, None, records), game.result


@pytest.mark.parametrize("variant", ["shuangkou", "paowang"])
def test_facts_of_a_replayed_game_match_the_engine(variant: str) -> None:
    for seed in (1, 2, 3):
        game_log, result = play_logged(variant, seed)
        facts = facts_of(game_log)
        assert facts.first_out == result.finish_order[0]  # type: ignore[attr-defined]
        assert facts.how == result.how  # type: ignore[attr-defined]
        assert facts.winners == tuple(result.winners)  # type: ignore[attr-defined]
        revealed = {a.seat for a in game_log.actions if a.kind == "reveal"}
        assert facts.revealed == revealed
        if variant == "paowang":
            assert facts.how in ("points", "flag", "sweep")


def test_facts_of_a_broken_log_keep_what_the_log_tells() -> None:
    game_log, _ = play_logged("paowang", 4)
    broken = GameLog(
        game_log.game_id,
        "paowang",
        game_log.seed,
        None,
        None,
        (*game_log.actions[:3], ActionRecord(99, 0, "play", "♠3 ♠3 ♠3 ♠3 ♠3", 0.0)),
    )
    facts = facts_of(broken)
    assert facts.first_out is None and facts.how == ""
    assert facts.revealed == {a.seat for a in game_log.actions[:3] if a.kind == "reveal"}
    assert facts_of(GameLog(1, "shuangkou", None, None, None, ())) == GameFacts()


# ---- the picture -----------------------------------------------------------------------------


def test_bands_cover_the_ladder() -> None:
    bands = bands_of("shuangkou", chinese=True)
    assert bands[0].low is None and bands[0].high == 0 and bands[0].label == "炮灰"
    assert (bands[1].low, bands[1].high, bands[1].label) == (0, 100, "弹壳")
    assert bands[-1].high is None and bands[-1].label == "氢弹"
    assert all(a.high == b.low for a, b in itertools.pairwise(bands))
    assert bands_of("paowang", chinese=False)[2].label == "Lv 2"


@pytest.mark.parametrize("font", ["cjk", None])
def test_chart_is_a_png_of_sensible_size(font: str | None) -> None:
    path: Path | None = cjk_font() if font == "cjk" else None
    if font == "cjk" and path is None:
        pytest.skip("no font with Chinese installed")
    games = [sk(i, won=i % 3 != 0, score=40 * i - 30) for i in range(1, 12)]
    games += [pw(20 + i, won=i % 2 == 0, score=60 * i) for i in range(1, 5)]
    png = chart_png(games, "zh", path)
    assert png is not None and png.startswith(b"\x89PNG")
    image = Image.open(io.BytesIO(png))
    image.load()
    assert image.format == "PNG"
    assert image.width >= 400 and image.height >= 300
    assert len(png) < 1024 * 1024
    # one panel less, one picture smaller
    one = Image.open(io.BytesIO(chart_png(games[:11], "zh", path) or b""))
    assert one.height < image.height


def test_no_chart_without_scores() -> None:
    assert chart_png([sk(1, won=True, score=None)], "zh", None) is None


def test_without_a_chinese_font_the_picture_is_drawn_and_the_log_says_so(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level("WARNING", logger="bot.presentation.stats_chart"):
        assert cjk_font((Path("/nowhere/NoSuchFont.ttc"),)) is None
    assert "no font with Chinese" in caplog.text
    png = chart_png([sk(1, won=True, score=4), pw(2, won=True, score=3)], "zh", None)
    assert png is not None and Image.open(io.BytesIO(png)).width >= 400


# ---- the service's part: cache and failures ----------------------------------------------------


async def test_player_stats_keeps_its_answer_until_the_next_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.service import stats as stats_module
    from bot.storage import ResultRow, SeatRecord, open_database

    db = await open_database(tmp_path / "bot.sqlite3")
    try:
        for user in (1, 2, 3, 4):
            await db.players.upsert(user_id=user, name=f"P{user}")

        async def play(chat_id: int, score: int) -> None:
            game = await db.games.create(
                chat_id=chat_id,
                variant="shuangkou",
                opener_id=1,
                seats=[SeatRecord(user_id=u, name=f"P{u}") for u in (1, 2, 3, 4)],
                seed=7,
                status="playing",
            )
            rows = [
                ResultRow(s, u, 2, 2 if s % 2 == 0 else -2, s % 2 == 0)
                for s, u in enumerate((1, 2, 3, 4))
            ]
            await db.results.record(game_id=game.id, rows=rows, outcome="单扣")
            async with db.transaction():
                await db.results.note_scores_after(game.id, {1: score, 3: score})
            await db.games.update(game.id, status="finished", finished_at=db.clock())

        stats = PlayerStats(db, font=lambda: None)  # no Chinese font: drawn anyway
        none = await stats.answer(user_id=1, name="P1", lang="zh")
        assert none.photo is None and "还没有打完过一局" in none.text
        await play(GROUP, 2)
        first = await stats.answer(user_id=1, name="P1", lang="zh", chat_id=GROUP)
        assert first.photo is not None and stats.drawn == 1
        assert "最佳搭档：P3（同胜 1）" in first.text
        assert await stats.answer(user_id=1, name="P1", lang="zh", chat_id=GROUP) is first
        elsewhere = await stats.answer(user_id=1, name="P1", lang="zh", chat_id=OTHER_GROUP)
        assert elsewhere.photo == first.photo  # no game there: the picture of all games
        assert "还没有在本群打完的牌局" in elsewhere.text and stats.drawn == 2

        def broken(*args: object) -> bytes:
            raise RuntimeError("no picture today")

        await play(OTHER_GROUP, 4)
        monkeypatch.setattr(stats_module, "chart_png", broken)
        failed = await stats.answer(user_id=1, name="P1", lang="zh", chat_id=GROUP)
        assert failed.photo is None and "绍兴双扣：2局 2胜" in failed.text
        monkeypatch.undo()
        retried = await stats.answer(user_id=1, name="P1", lang="zh", chat_id=GROUP)
        assert retried.photo is not None and stats.drawn == 3  # the failure was not kept
        everywhere = await stats.answer(user_id=1, name="P1", lang="zh")
        assert everywhere.photo not in (None, first.photo)  # two games drawn
        assert stats.drawn == 4
    finally:
        await db.close()
