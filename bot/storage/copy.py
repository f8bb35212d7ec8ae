"""Copy one database into another, whichever each is (SQLite to PostgreSQL, or back).

Table by table in the order the foreign keys need, rows in primary-key order, in one
transaction on the target: the copy is whole or absent. The columns are read from the source
itself, so a column a later migration adds is copied without a change here; a table this module
does not know makes it refuse (a migration that adds a table must add it to :data:`TABLES`, and
``tests/test_copy_db.py`` fails until it does). Values are converted by the column's declared
type: SQLite keeps a BOOLEAN as 0/1 and may keep a whole DOUBLE PRECISION as an integer, which
PostgreSQL's driver takes only as bool and float.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from bot.storage.database import Database
from bot.storage.errors import StorageError

#: every table, parents before children, with the order its rows are read in
TABLES: Final[tuple[tuple[str, str], ...]] = (
    ("players", "user_id"),
    ("ratings", "user_id, game"),
    ("games", "id"),
    ("actions", "game_id, seq"),
    ("results", "game_id, seat"),
    ("group_sends", "chat_id, at"),
    ("group_settings", "chat_id"),
    ("skills", "player, game"),
    ("skill_games", "game_id"),
    ("season_announcements", "chat_id, season"),
    ("achievements", "user_id, key"),
)
#: the schema's own bookkeeping, not data (the target has its own, from its migrations)
_NOT_DATA: Final = {"cardbot_schema"}
PAGE: Final = 1000


class CopyRefused(StorageError):
    """The copy cannot start: the target holds data, the schemas differ, or a table is unknown."""


@dataclass(frozen=True)
class Column:
    name: str
    declared: str  # the declared type, upper case: BIGINT, BOOLEAN, DOUBLE PRECISION, ...

    def converter(self) -> Callable[[Any], Any]:
        if "BOOL" in self.declared:
            return bool
        if "DOUBLE" in self.declared or "REAL" in self.declared or "FLOAT" in self.declared:
            return float
        if "INT" in self.declared:
            return int
        return lambda value: value


async def tables_of(db: Database) -> set[str]:
    async with db.reading():
        if db.dialect == "postgresql":
            rows = await db.fetch_all(
                "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
            )
        else:
            rows = await db.fetch_all(
                "SELECT name FROM sqlite_master WHERE type = 'table'"
                " AND name NOT LIKE 'sqlite_%'"
            )
    return {str(row[0]) for row in rows} - _NOT_DATA


async def columns_of(db: Database, table: str) -> list[Column]:
    async with db.reading():
        if db.dialect == "postgresql":
            rows = await db.fetch_all(
                "SELECT column_name, data_type FROM information_schema.columns"
                " WHERE table_schema = current_schema() AND table_name = ?"
                " ORDER BY ordinal_position",
                (table,),
            )
            return [Column(str(row[0]), str(row[1]).upper()) for row in rows]
        # the table name is one of TABLES, never input: PRAGMA takes no parameters
        rows = await db.fetch_all(f"PRAGMA table_info({table})")
    return [Column(str(row["name"]), str(row["type"]).upper()) for row in rows]


async def counts(db: Database) -> dict[str, int]:
    """Rows per table."""
    found: dict[str, int] = {}
    async with db.reading():
        for table, _ in TABLES:
            row = await db.fetch_one(f"SELECT COUNT(*) FROM {table}")
            found[table] = int(row[0]) if row is not None else 0
    return found


async def copy_database(
    source: Database, target: Database, *, progress: Callable[[str, int], None] | None = None
) -> dict[str, int]:
    """Copy every row of ``source`` into the empty ``target`` (both at the same schema
    version); the rows copied per table."""
    if await source.schema_version() != await target.schema_version():
        raise CopyRefused("the two databases are at different schema versions")
    known = {table for table, _ in TABLES}
    for db, role in ((source, "source"), (target, "target")):
        unknown = await tables_of(db) - known
        if unknown:
            raise CopyRefused(f"the {role} has tables this bot cannot copy: {sorted(unknown)}")
    filled = {table: n for table, n in (await counts(target)).items() if n}
    if filled:
        raise CopyRefused(f"the target is not empty: {filled}")
    copied: dict[str, int] = {}
    async with target.transaction():
        for table, order in TABLES:
            columns = await columns_of(source, table)
            names = ", ".join(column.name for column in columns)
            convert = [column.converter() for column in columns]
            insert = (
                f"INSERT INTO {table} ({names})"
                f" VALUES ({', '.join('?' for _ in columns)})"
            )
            copied[table] = 0
            while True:
                async with source.reading():
                    rows = await source.fetch_all(
                        f"SELECT {names} FROM {table} ORDER BY {order} LIMIT ? OFFSET ?",
                        (PAGE, copied[table]),
                    )
                for row in rows:
                    values = [
                        None if row[i] is None else convert[i](row[i])
                        for i in range(len(columns))
                    ]
                    await target.execute(insert, values)
                copied[table] += len(rows)
                if progress is not None:
                    progress(table, copied[table])
                if len(rows) < PAGE:
                    break
        if target.dialect == "postgresql":
            # the identity column goes on after the copied ids, not from 1
            await target.execute(
                "SELECT setval(pg_get_serial_sequence('games', 'id'),"
                " COALESCE((SELECT MAX(id) FROM games), 0) + 1, false)"
            )
    return copied
