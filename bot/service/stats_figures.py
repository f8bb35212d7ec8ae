"""/stats' figures: what a replay of a game tells (:func:`facts_of`) and a player's record in
each game (:func:`record_of`), as pure functions of their stored games and those facts."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from bot.game.common import Action
from bot.game.replay import replay
from bot.game.variants import VARIANTS
from bot.presentation.stats_text import Partner, Record
from bot.storage.stats import GameLog, PlayedGame

log = logging.getLogger(__name__)


# ---- what a replay tells ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameFacts:
    """What only the play of a game tells: the seat that went out first (上游 / 扛旗; None
    if nobody went out), how 刨王 was won (``Result.how``: "points", "flag", "sweep",
    "four_jokers"; "" for 双扣), the engine's winning seats and the seats that showed a
    大王 (亮王)."""

    first_out: int | None = None
    how: str = ""
    winners: tuple[int, ...] = ()
    revealed: frozenset[int] = frozenset()


def facts_of(game_log: GameLog) -> GameFacts:
    """Replay a game's log through the engine. A game that cannot be replayed (no deal, a
    log the engine refuses) still gives its 亮王s, which the log alone tells."""
    revealed = frozenset(a.seat for a in game_log.actions if a.kind == "reveal")
    variant = VARIANTS.get(game_log.variant)
    if variant is None or (game_log.seed is None and game_log.hands is None):
        return GameFacts(revealed=revealed)
    try:
        seed = int(game_log.seed) if game_log.seed is not None else None
        actions = [Action.from_log(a.kind, a.seat, a.cards) for a in game_log.actions]
        game = replay(variant, seed, game_log.leader, game_log.hands, actions)
    except Exception:  # a record this engine cannot replay: its figures go without
        log.warning("game %d could not be replayed for /stats", game_log.game_id, exc_info=True)
        return GameFacts(revealed=revealed)
    result = game.result
    if result is None:  # a cancelled game, stopped midway
        return GameFacts(revealed=revealed)
    first = result.finish_order[0] if result.finish_order else None
    return GameFacts(first, result.how, tuple(result.winners), revealed)


# ---- the figures ---------------------------------------------------------------------------


def won(game: PlayedGame) -> bool:
    """Whether the game counts as a win for the player (as the ratings count it)."""
    return game.won and not game.escaped


def streaks(results: Iterable[bool]) -> tuple[int, int]:
    """(the current run of wins at the end, the longest run) of a sequence of results."""
    current = best = 0
    for result in results:
        current = current + 1 if result else 0
        best = max(best, current)
    return current, best


def partners_of(game: PlayedGame) -> list[tuple[int, str]]:
    """The people (user id, name) on the player's side in a game they won: 双扣's seat
    across; in 刨王 every other winner (the sides are secret until the result names them)."""
    if not won(game):
        return []
    if game.variant == "shuangkou":
        across = (game.seat + 2) % 4
        mates = [other for other in game.others if other.seat == across]
    else:
        mates = [other for other in game.others if other.won]
    return [(m.user_id, m.name or str(m.user_id)) for m in mates if m.user_id is not None]


def best_partner(games: Iterable[PlayedGame]) -> Partner | None:
    """The person the player won with most (ties: the one won with first)."""
    wins: Counter[int] = Counter()
    names: dict[int, str] = {}
    for game in games:
        for user_id, name in partners_of(game):
            wins[user_id] += 1
            names[user_id] = name
    if not wins:
        return None
    user_id, count = wins.most_common(1)[0]  # most_common keeps first-seen order on ties
    return Partner(user_id, names[user_id], count)


def record_of(variant: str, games: Sequence[PlayedGame], facts: Mapping[int, GameFacts]) -> Record:
    """The player's record in ``variant`` from their ``games`` (in the order they ended;
    other variants' games are left out) and the games' replayed ``facts`` (by game id; a
    game without facts counts in everything but 上游, 扛旗/双飞 and 亮王)."""
    mine = [game for game in games if game.variant == variant]
    won_lost: dict[str, list[int]] = {}
    wins_by: Counter[str] = Counter()
    draws = reveals = firsts = first_known = 0
    for game in mine:
        fact = facts.get(game.game_id)
        if fact is not None and game.seat in fact.revealed:
            reveals += 1
        if game.status != "finished" or game.escaped:
            continue
        outcome = game.outcome or ""
        if outcome == "平扣":
            draws += 1
        elif outcome in ("双扣", "单扣", "小雪", "大雪"):
            won_lost.setdefault(outcome, [0, 0])[0 if won(game) else 1] += 1
        if fact is None:
            continue
        if fact.how and won(game) and game.seat in fact.winners:
            wins_by[fact.how] += 1
        if fact.first_out is not None:
            first_known += 1
            firsts += fact.first_out == game.seat
    current, best = streaks(won(game) for game in mine)
    scores = [game.score_after for game in mine if game.score_after is not None]
    return Record(
        variant=variant,
        games=len(mine),
        wins=sum(won(game) for game in mine),
        escaped=sum(game.escaped for game in mine),
        draws=draws,
        won_lost={key: (pair[0], pair[1]) for key, pair in won_lost.items()},
        wins_by=dict(wins_by),
        reveals=reveals,
        firsts=firsts,
        first_known=first_known,
        current_streak=current,
        best_streak=best,
        best_score=max(scores) if scores else None,
        partner=best_partner(mine),
    )


def records_of(games: Sequence[PlayedGame], facts: Mapping[int, GameFacts]) -> list[Record]:
    """A record per game the player has played at least once, in the bot's order of games."""
    played = {game.variant for game in games}
    return [record_of(name, games, facts) for name in VARIANTS if name in played]
