"""What :class:`~bot.storage.database.Database` needs of a database driver, and where to find one.

Two drivers sit behind this: SQLite through aiosqlite (``sqlite_driver``, the embedded default)
and PostgreSQL through asyncpg (``postgres_driver``). Both run the repositories' SQL as written,
with ``?`` markers; both turn a refused constraint into :class:`ConstraintViolation` and a
database that went away into :class:`~bot.storage.errors.DatabaseUnavailableError`, so nothing
above the drivers knows which one runs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol
from urllib.parse import urlsplit, urlunsplit

from bot.storage.errors import StorageError

Dialect = Literal["sqlite", "postgresql"]
Params = Sequence[Any]


class Row(Protocol):
    """A result row, read by column name or position (``sqlite3.Row``, ``asyncpg.Record``)."""

    def __getitem__(self, key: int | str, /) -> Any: ...


class ConstraintViolation(StorageError):
    """The database refused a write: a ``unique`` key (primary keys included) or a
    ``foreign_key`` it breaks. The repositories turn it into the error that names the case."""

    def __init__(self, kind: Literal["unique", "foreign_key", "other"], message: str) -> None:
        super().__init__(message)
        self.kind = kind


class Connection(Protocol):
    """One connection, used by one unit of work at a time (the database's lock sees to that)."""

    dialect: Dialect

    async def fetch(self, sql: str, params: Params = ()) -> Sequence[Row]:
        """Run one statement (``?`` markers) and return its rows."""
        ...

    async def begin(self) -> None:
        """Start a transaction that writes (SQLite takes its write lock here)."""
        ...

    async def commit(self) -> None: ...

    async def rollback(self) -> None:
        """Roll back the open transaction; nothing when the driver already rolled it back."""
        ...

    async def close(self) -> None: ...


@dataclass(frozen=True)
class DatabaseLocation:
    """Where the database is: a SQLite file (or ``:memory:``) or a PostgreSQL URL."""

    dialect: Dialect
    #: the SQLite path, or the PostgreSQL URL as given (password included: never log it)
    target: str

    @property
    def shown(self) -> str:
        """For messages and logs: the path, or the URL without its password."""
        if self.dialect == "sqlite":
            return self.target
        parts = urlsplit(self.target)
        if parts.password is None:
            return self.target
        netloc = parts.netloc.rsplit("@", 1)[1]
        user = parts.username or ""
        return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc}"))

    @property
    def in_memory(self) -> bool:
        return self.dialect == "sqlite" and self.target in ("", ":memory:")


_SQLITE_URL = re.compile(r"sqlite://(?:/(?P<path>.*))?")


def locate(location: str) -> DatabaseLocation:
    """Read ``DATABASE_URL`` (or a bare SQLite path, as ``DATABASE_PATH`` gives it).

    ``postgresql://user:password@host:5432/name`` (or ``postgres://``) is PostgreSQL;
    ``sqlite:///relative.sqlite3``, ``sqlite:////absolute/path.sqlite3`` and ``sqlite://``
    (in memory) are SQLite, as SQLAlchemy spells them; anything without a scheme is a path.
    """
    if location.startswith(("postgresql://", "postgres://")):
        return DatabaseLocation("postgresql", location)
    if location.startswith("sqlite:"):
        match = _SQLITE_URL.fullmatch(location)
        if match is None:
            raise ValueError(f"not a SQLite URL (sqlite:///path): {location!r}")
        return DatabaseLocation("sqlite", match["path"] or ":memory:")
    if "://" in location:
        scheme = location.split("://", 1)[0]
        raise ValueError(
            f"unknown database scheme {scheme!r}: use sqlite:///path or postgresql://…"
        )
    return DatabaseLocation("sqlite", location)
