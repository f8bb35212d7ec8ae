"""The invariants checked after a load run, from the bot's database and the fake's records."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.botrun import plain
from bench.load.people import Scenario, TableRun
from bot.game import paowang, shuangkou
from bot.game.cards import parse_cards
from bot.game.common import Event
from bot.game.variants import VARIANTS, auto_passes
from bot.presentation.render import SeatLabel, event_lines, table_text
from fakebot import FakeTelegram

ENGINES: dict[str, Any] = {"shuangkou": shuangkou, "paowang": paowang}
EVENT_PREFIXES = ("✔", "🏃", "👑")


@dataclass
class CheckReport:
    problems: list[str] = field(default_factory=list)  # the invariants, and every press answered
    api_problems: list[str] = field(default_factory=list)  # requests refused, limits exceeded
    refused: Counter[str] = field(default_factory=Counter)  # "method status kind" -> count
    violations: int = 0
    games: int = 0
    finished: int = 0
    actions: int = 0
    human_actions: int = 0
    by_variant: Counter[str] = field(default_factory=Counter)


def _tokens(cards: str | None) -> list[str]:
    return sorted((cards or "").split())


def _replay(
    variant: str, seed: int, leader: int | None, log: Sequence[tuple[str, int, str | None]]
) -> tuple[Any, list[list[Event]]]:
    """The game rebuilt from its deal and log with the engine alone; the events per action."""
    module = ENGINES[variant]
    game = module.Game.deal(seed, leader=leader)
    events: list[list[Event]] = []
    for kind, seat, cards in log:
        if kind == "play":
            events.append(game.play(seat, parse_cards(cards or "")))
        elif kind == "pass":
            events.append(game.pass_turn(seat))
        elif kind in ("reveal", "decline"):
            events.append(game.reveal(seat, kind == "reveal"))
        else:
            raise ValueError(f"unknown action {kind!r}")
    return game, events


def check_games(db_path: Path, scenario: Scenario, fake: FakeTelegram) -> CheckReport:
    """Every game finished; its stored log replays through the engine, matches what its humans
    saw accepted and what its group was shown; its settlement matches the replay."""
    report = CheckReport()
    problems = report.problems
    for human in scenario.humans:
        problems += human.problems
    report.api_problems += [str(r) for r in fake.rejections]
    report.api_problems += [str(v) for v in fake.limit_violations]
    report.refused.update(f"{r.method} {r.status} ({r.kind})" for r in fake.rejections)
    report.violations = len(fake.limit_violations)
    problems += [f"unanswered press {c.data!r}" for c in fake.unanswered_callbacks()]
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    db.row_factory = sqlite3.Row
    try:
        for table in scenario.tables:
            report.games += 1
            where = f"table {table.index} ({table.spec.variant}, game {table.game_id})"
            try:
                _check_one(db, table, fake, report, where)
            except Exception as error:
                problems.append(f"{where}: {type(error).__name__}: {error}")
    finally:
        db.close()
    return report


def _check_one(
    db: sqlite3.Connection, table: TableRun, fake: FakeTelegram, report: CheckReport, where: str
) -> None:
    problems = report.problems
    row = db.execute("SELECT * FROM games WHERE id = ?", (table.game_id,)).fetchone()
    if row is None or row["status"] != "finished":
        problems.append(f"{where}: not finished ({row['status'] if row else 'missing'})")
        return
    report.finished += 1
    report.by_variant[table.spec.variant] += 1
    seats = json.loads(row["seats"])
    log_rows = db.execute(
        "SELECT seq, seat, kind, cards FROM actions WHERE game_id = ? ORDER BY seq",
        (table.game_id,),
    ).fetchall()
    if [r["seq"] for r in log_rows] != list(range(len(log_rows))):
        problems.append(f"{where}: the log's seq has gaps or repeats")
    log = [(r["kind"], r["seat"], r["cards"]) for r in log_rows]
    report.actions += len(log)
    seed = json.loads(row["seed"])
    game, events = _replay(table.spec.variant, seed, row["leader"], log)
    forced = auto_passes(VARIANTS[table.spec.variant], seed, row["leader"], log)
    if not game.over or game.result is None:
        problems.append(f"{where}: the replayed log does not end the game")
        return

    # what each human saw accepted is exactly their seats' part of the log, in order, less
    # the passes the bot made for them because they could not beat the table
    seat_of = {s["user_id"]: i for i, s in enumerate(seats) if not s["is_computer"]}
    for human in table.players:
        seat = seat_of.get(human.user_id)
        logged = [
            (k, _tokens(c)) for n, (k, s, c) in enumerate(log) if s == seat and n not in forced
        ]
        seen = [(k, _tokens(c)) for k, c in human.actions]
        report.human_actions += len(logged)
        if logged != seen:
            problems.append(f"{where}: seat {seat} logged {logged} but its human saw {seen}")
    # the group's event lines (tricks, players out, 亮王) are the replay's, in order
    labels = [SeatLabel(s["name"], bool(s["is_computer"])) for s in seats]
    expected = [plain(line) for batch in events for line in event_lines("zh", batch, labels)]
    chat = fake.chat(table.group_id)
    shown = [
        line
        for version in chat.history
        if version.kind == "send"
        for line in version.text.split("\n")
        if line.startswith(EVENT_PREFIXES)
    ]
    if shown != expected:
        problems.append(f"{where}: group lines {shown} != replay {expected}")
    # the final table, below its title (whose number is the bot's own count of turns)
    final = plain(table_text("zh", game.view(None), labels, number=0)).split("\n")[1:]
    table_message = next(
        (m for m in reversed(chat.bot_messages) if m.text and "本局结束" in m.text), None
    )
    shown_final = table_message.text.split("\n")[1:] if table_message and table_message.text else []
    if shown_final != final:
        problems.append(f"{where}: final table {shown_final} != the replay's {final}")

    # the settlement: rows as the replay says, ratings moved by exactly those deltas
    result = game.result
    if sum(result.deltas) != 0:
        problems.append(f"{where}: deltas {result.deltas} do not sum to 0")
    if row["outcome"] != result.outcome:
        problems.append(f"{where}: outcome {row['outcome']} != {result.outcome}")
    rows = db.execute(
        "SELECT * FROM results WHERE game_id = ? ORDER BY seat", (table.game_id,)
    ).fetchall()
    if [(r["delta"], r["adjusted_delta"]) for r in rows] != [(d, d) for d in result.deltas]:
        problems.append(f"{where}: results {[tuple(r) for r in rows]} != {result.deltas}")
    human_seats = [i for i, s in enumerate(seats) if not s["is_computer"]]
    rating_sum = 0
    for index in human_seats:
        rating = db.execute(
            "SELECT score, games FROM ratings WHERE user_id = ? AND game = ?",
            (seats[index]["user_id"], table.spec.variant),
        ).fetchone()
        if rating is None or rating["games"] != 1 or rating["score"] != result.deltas[index]:
            problems.append(f"{where}: seat {index} rating {rating and tuple(rating)}")
            continue
        rating_sum += rating["score"]
    if rating_sum != sum(result.deltas[i] for i in human_seats):
        problems.append(f"{where}: ratings sum {rating_sum} != the humans' deltas")
