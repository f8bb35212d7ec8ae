"""Achievements: things to chase, judged from what the log already holds.

Each is earned once per player, by the game that first meets it, when the game ends (in the
transaction that stores it) or, for the games that ended before achievements existed, at the
next start in the order the games ended (``skill.catch_up``): the same games earn the same
ones either way. A game a player deserted, a short game (the one-minute rule) and a cancelled
game earn nothing. The player is told privately when earning one (never the group: its budget
is the game's), and /stats lists them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from bot.game.cards import parse_cards
from bot.game.common import Action, Outcome, Result, WinHow
from bot.game.replay import replay
from bot.game.shuangkou_combos import classify
from bot.game.variants import VARIANTS
from bot.storage import ActionRecord, Database, GameRecord, ResultRow
from bot.storage.skills import COMPUTER, SkillRecord

#: every achievement, in the order /stats lists them (the keys are stored: never rename one)
KEYS: Final[tuple[str, ...]] = (
    "first_win_shuangkou",
    "first_win_paowang",
    "shuangkou",  # a 双扣: the partners out first and second
    "sanlianzha",  # 三连炸 played
    "siwang",  # 四王: 天王炸 played in 双扣, or all four in one hand in 刨王
    "daxue",  # 大雪 won
    "kangqi",  # 扛旗 won
    "shuangfei",  # 双飞 won
    "man140",  # 满140 won
    "one_vs_four",  # 刨王 won alone against four
    "streak_5",
    "streak_10",
    "games_100",
    "upset",  # beat a stronger team (by the skill ratings before the game)
)
#: the longest streak judged
LONGEST: Final = 10


def replayed(
    record: GameRecord, log: Sequence[ActionRecord]
) -> tuple[Result | None, dict[int, set[str]]]:
    """The game's result by the engine, and the kinds of 双扣 bomb each seat played."""
    bombs: dict[int, set[str]] = {}
    if record.variant == "shuangkou":
        for action in log:
            if action.kind == "play" and action.cards:
                combo = classify(parse_cards(action.cards))
                if combo is not None:
                    bombs.setdefault(action.seat, set()).add(combo.kind)
    seed = int(record.seed) if record.seed is not None else None
    if seed is None and record.hands is None:
        return None, bombs
    actions = [Action.from_log(a.kind, a.seat, a.cards) for a in log]
    try:
        game = replay(VARIANTS[record.variant], seed, record.leader, record.hands, actions)
    except Exception:  # a log this engine refuses earns what its results alone tell
        return None, bombs
    return game.result, bombs


def _ordinal(record: SkillRecord | None) -> float:
    return 0.0 if record is None else record.mu - 3 * record.sigma


async def judge(
    db: Database,
    record: GameRecord,
    rows: Sequence[ResultRow],
    known: Mapping[int, SkillRecord],
) -> dict[int, list[str]]:
    """Note what each player of an ended game earned with it; the new ones by user id.
    ``known``: the skill ratings of its players before the game."""
    if record.status != "finished" or record.note == "short game" or not rows:
        return {}
    result, bombs = replayed(record, await db.actions.list(record.id))
    variant = record.variant
    players = [
        COMPUTER if seat.is_computer or seat.user_id is None else seat.user_id
        for seat in record.seats
    ]
    newly: dict[int, list[str]] = {}
    at = record.finished_at if record.finished_at is not None else record.created_at
    for row in rows:
        user = row.user_id
        if user is None or record.seats[row.seat].is_computer or row.escaped:
            continue
        won = row.won
        keys: list[str] = []
        if won:
            keys.append(f"first_win_{variant}")
        played = bombs.get(row.seat, set())
        if "triple_bomb" in played:
            keys.append("sanlianzha")
        if "joker_bomb" in played:
            keys.append("siwang")
        if result is not None and won:
            if result.outcome == Outcome.SHUANGKOU:
                keys.append("shuangkou")
            if result.outcome == Outcome.DAXUE:
                keys.append("daxue")
            keys += {
                WinHow.FLAG: ["kangqi"],
                WinHow.SWEEP: ["shuangfei"],
                WinHow.POINTS: ["man140"],
                WinHow.FOUR_JOKERS: ["siwang"],
            }.get(result.how, [])
            if variant == "paowang" and len(result.winners) == 1 and len(rows) == 5:
                keys.append("one_vs_four")
        count, recent = await db.achievements.results_before(user, record.id, LONGEST - 1)
        if count + 1 >= 100:
            keys.append("games_100")
        if won:
            streak = 1
            for earlier in recent:
                if earlier is not True:
                    break
                streak += 1
            keys += [f"streak_{n}" for n in (5, 10) if streak >= n]
            mine = [p for p, r in zip(players, rows, strict=True) if r.won]
            theirs = [p for p, r in zip(players, rows, strict=True) if not r.won]
            if theirs and _mean(mine, known) < _mean(theirs, known):
                keys.append("upset")
        for key in dict.fromkeys(keys):  # in order, once
            if await db.achievements.earn(user, key, record.id, at):
                newly.setdefault(user, []).append(key)
    return newly


def _mean(players: Sequence[int], known: Mapping[int, SkillRecord]) -> float:
    return sum(_ordinal(known.get(p)) for p in players) / len(players)
