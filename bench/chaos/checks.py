"""The invariants a chaos run is checked against, read from the bot's database and log."""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from bench.chaos.model import STALL_SECONDS, DbReport
from bot.game.cards import parse_cards
from bot.game.protocol import GameState
from bot.game.variants import VARIANTS, apply_action


def _connect(path: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    connection.row_factory = sqlite3.Row
    return connection


def _deal(row: sqlite3.Row) -> GameState | None:
    variant = VARIANTS[row["variant"]]
    hands = json.loads(row["hands"]) if row["hands"] else None
    if hands:
        return variant.from_hands([parse_cards(" ".join(h)) for h in hands], row["leader"] or 0)
    if row["seed"] is None:
        return None
    return variant.deal(json.loads(row["seed"]), row["leader"])


def check_database(path: Path, *, stopped: float, up_since: float) -> DbReport:
    """Invariants 1, 2 and 5, read from the database after the bot stopped (``stopped``: when
    it was told to; ``up_since``: when it last began to poll, epoch seconds)."""
    report = DbReport()
    with contextlib.closing(_connect(path)) as db:
        for row in db.execute("SELECT * FROM games ORDER BY id").fetchall():
            report.games[row["status"]] += 1
            report.by_variant[row["variant"]] += 1
            actions = db.execute(
                "SELECT seq, seat, kind, cards, at FROM actions WHERE game_id = ? ORDER BY seq",
                (row["id"],),
            ).fetchall()
            results = db.execute(
                "SELECT * FROM results WHERE game_id = ? ORDER BY seat", (row["id"],)
            ).fetchall()
            report.actions += len(actions)
            report.failures += list(_check_game(row, actions, results, report))
            if row["status"] == "playing":
                last = max([row["started_at"] or 0.0, *(a["at"] for a in actions)])
                idle = min(stopped - last, stopped - up_since)
                if idle > STALL_SECONDS:
                    report.stalled.append(_stalled(row, actions, stopped - last, idle))
        report.failures += list(_check_ratings(db))
    return report


def _stalled(row: sqlite3.Row, actions: list[sqlite3.Row], idle: float, up: float) -> str:
    """A game nobody moves any more: who the engine waits for."""
    game = _deal(row)
    waiting = "?"
    if game is not None:
        with contextlib.suppress(Exception):  # a log that does not replay is reported apart
            for action in actions:
                apply_action(game, (action["kind"], action["seat"], action["cards"]))
            seats = json.loads(row["seats"])
            waiting = ", ".join(
                f"seat {s} ({'computer' if seats[s]['is_computer'] else 'human'})"
                for s in game.to_act
            )
    return (
        f"game {row['id']} ({row['variant']}, chat {row['chat_id']}): no action for "
        f"{idle:.0f} s ({up:.0f} s of them with the bot up), {len(actions)} actions; "
        f"waiting for {waiting}"
    )


def _check_game(
    row: sqlite3.Row,
    actions: list[sqlite3.Row],
    results: list[sqlite3.Row],
    report: DbReport,
) -> Iterator[str]:
    name = f"game {row['id']} ({row['variant']}, {row['status']}, chat {row['chat_id']})"
    status = row["status"]
    seqs = [a["seq"] for a in actions]
    if seqs != list(range(len(seqs))):
        yield f"{name}: action seqs are not 0..{len(seqs) - 1}: {seqs}"
    game = _deal(row)
    if game is None:  # a lobby, open or cancelled: never dealt
        if actions:
            yield f"{name}: {len(actions)} actions but no deal"
        if status not in ("lobby", "cancelled"):
            yield f"{name}: no deal"
        return
    report.started += 1
    for action in actions:
        try:
            apply_action(game, (action["kind"], action["seat"], action["cards"]))
        except Exception as error:
            yield (
                f"{name}: the engine refuses stored action seq {action['seq']} "
                f"({action['kind']} by seat {action['seat']}: {action['cards']}): {error!r}"
            )
            return
    fixed = json.loads(row["fixed_scores"] or "[]")
    if any(score is not None for score in fixed):
        report.deserted_games += 1
    if status == "playing" and game.over:
        yield f"{name}: the replay is over but the game is not settled"
    if status == "finished":
        yield from _check_result(name, row, game, results, fixed)


def _check_result(
    name: str,
    row: sqlite3.Row,
    game: GameState,
    results: list[sqlite3.Row],
    fixed: list[int | None],
) -> Iterator[str]:
    result = game.result
    if not game.over or result is None:
        yield f"{name}: finished, but its replay is not over ({len(game.hands)} hands left)"
        return
    if row["outcome"] != result.outcome:
        yield f"{name}: stored outcome {row['outcome']!r}, the replay's {result.outcome!r}"
    if len(results) != game.seats:
        yield f"{name}: {len(results)} result rows for {game.seats} seats"
        return
    stored = [r["delta"] for r in results]
    if stored != list(result.deltas):
        yield f"{name}: stored deltas {stored}, the replay's {list(result.deltas)}"
    short = row["note"] == "short game"
    for seat, r in enumerate(results):
        score = fixed[seat] if seat < len(fixed) else None
        expected = score if score is not None else (0 if short else r["delta"])
        if r["adjusted_delta"] != expected:
            yield (
                f"{name}: seat {seat} applied {r['adjusted_delta']}, expected {expected} "
                f"(delta {r['delta']}, fixed {score}, short {short})"
            )


def _check_ratings(db: sqlite3.Connection) -> Iterator[str]:
    """Each rating is the sum of the player's results: no settlement lost or applied twice."""
    sums = {
        (r["user_id"], r["variant"]): (r["score"], r["games"])
        for r in db.execute(
            "SELECT res.user_id, g.variant, SUM(res.adjusted_delta) AS score, COUNT(*) AS games"
            " FROM results res JOIN games g ON g.id = res.game_id"
            " WHERE res.user_id IS NOT NULL GROUP BY res.user_id, g.variant"
        )
    }
    ratings = {
        (r["user_id"], r["game"]): (r["score"], r["games"])
        for r in db.execute("SELECT user_id, game, score, games FROM ratings")
    }
    for key in sorted(set(sums) | set(ratings)):
        if sums.get(key, (0, 0)) != ratings.get(key, (0, 0)):
            yield (
                f"rating of user {key[0]} in {key[1]}: (score, games) {ratings.get(key)} "
                f"but the results add up to {sums.get(key)}"
            )


def log_errors(path: Path) -> Counter[str]:
    """The bot's log lines (LOG_LEVEL=WARNING), by their first 110 characters, digits as N."""
    found: Counter[str] = Counter()
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return found
    for line in lines:
        if any(level in line for level in (" WARNING ", " ERROR ", " CRITICAL ")):
            shown = re.sub(r"\d+", "N", line.split(" ", 2)[-1])  # without the date and time
            found[shown[:110]] += 1
    return found
