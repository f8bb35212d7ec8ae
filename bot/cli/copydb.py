"""``python -m bot copy-db --from URL --to URL``: move a grown database elsewhere (SQLite to
PostgreSQL, usually), then prove the copy: the same rows per table, every game's log the
same, and every finished game replayed by the engine to the result stored for it.

Stop the bot first: rows written during the copy might be missed. The source is brought to
this bot's schema version first, as starting the bot on it would; the target must be empty
(a fresh database: its schema is created here).
"""

from __future__ import annotations

import asyncio
import sys
from typing import TextIO

from bot.game.common import Action
from bot.game.replay import replay
from bot.game.variants import VARIANTS
from bot.storage import Database, GameRecord, StorageError, open_database
from bot.storage.copy import copy_database, counts
from bot.storage.driver import locate


async def copy_db(source_url: str, target_url: str, out: TextIO = sys.stdout) -> int:
    """0 when the copy is whole and checked; 1 (after saying why) otherwise."""
    try:
        source = await open_database(source_url)
    except (StorageError, OSError) as error:
        print(f"cannot open the source {locate(source_url).shown}: {error}", file=out)
        return 1
    try:
        try:
            target = await open_database(target_url)
        except (StorageError, OSError) as error:
            print(f"cannot open the target {locate(target_url).shown}: {error}", file=out)
            return 1
        try:
            return await _copy_and_check(source, target, out)
        finally:
            await target.close()
    finally:
        await source.close()


async def _copy_and_check(source: Database, target: Database, out: TextIO) -> int:
    print(f"copying {source.location.shown} to {target.location.shown}", file=out)
    try:
        copied = await copy_database(source, target)
    except StorageError as error:
        print(f"refused: {error}", file=out)
        return 1
    problems: list[str] = []
    before, after = await counts(source), await counts(target)
    for table, rows in copied.items():
        print(f"  {table}: {rows} rows", file=out)
        if not before[table] == after[table] == rows:
            problems.append(f"{table}: {before[table]} rows in the source, {after[table]} copied")
    checked = 0
    for game_id in await _game_ids(target):
        problem = await _check_game(source, target, game_id)
        if problem is not None:
            problems.append(problem)
        checked += 1
    if problems:
        print(f"the copy does not match ({len(problems)} problems):", file=out)
        for problem in problems[:20]:
            print(f"  {problem}", file=out)
        return 1
    print(
        f"checked: the same rows in every table; {checked} games with the same log, every "
        "finished one replayed to its stored result",
        file=out,
    )
    return 0


async def _game_ids(db: Database) -> list[int]:
    async with db.reading():
        rows = await db.fetch_all("SELECT id FROM games ORDER BY id")
    return [int(row[0]) for row in rows]


async def _check_game(source: Database, target: Database, game_id: int) -> str | None:
    record = await target.games.get(game_id)
    if record is None or record != await source.games.get(game_id):
        return f"game {game_id}: the record differs"
    log = await target.actions.list(game_id)
    if log != await source.actions.list(game_id):
        return f"game {game_id}: the action log differs"
    results = await target.results.for_game(game_id)
    if results != await source.results.for_game(game_id):
        return f"game {game_id}: the results differ"
    if record.status != "finished" or not results:
        return None
    return _replays_to_its_result(record, [Action.from_log(a.kind, a.seat, a.cards) for a in log],
                                  [row.delta for row in results])


def _replays_to_its_result(
    record: GameRecord, actions: list[Action], deltas: list[int]
) -> str | None:
    seed = int(record.seed) if record.seed is not None else None
    try:
        game = replay(VARIANTS[record.variant], seed, record.leader, record.hands, actions)
    except Exception as error:  # an engine refusing the stored log is what this looks for
        return f"game {record.id}: its log does not replay ({error})"
    result = game.result
    if result is None:
        return f"game {record.id}: stored as finished, but its log does not finish it"
    if record.outcome is not None and record.outcome != result.outcome:
        return f"game {record.id}: replayed outcome {result.outcome}, stored {record.outcome}"
    fixed = record.fixed_scores
    for seat, stored in enumerate(deltas):
        if seat < len(fixed) and fixed[seat] is not None:
            continue  # a desertion fixed this seat's score
        if stored != result.deltas[seat]:
            return (
                f"game {record.id}: seat {seat} replays to {result.deltas[seat]}, stored {stored}"
            )
    return None


def main(source_url: str, target_url: str) -> int:
    return asyncio.run(copy_db(source_url, target_url))
