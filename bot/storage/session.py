"""What a repository needs of the database: statements, units of work and a clock.

Repositories depend on this protocol, not on :class:`~bot.storage.database.Database`, which
composes them: the arrows point one way (database -> repositories -> session protocol).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

Params = Sequence[Any]


class Session(Protocol):
    """One connection's statements, inside the units of work the database opens."""

    clock: Callable[[], float]

    def transaction(self) -> AbstractAsyncContextManager[None]:
        """A unit of work that writes (``BEGIN IMMEDIATE`` ... ``COMMIT``; nested: savepoint)."""
        ...

    def reading(self) -> AbstractAsyncContextManager[None]:
        """A unit of work that only reads."""
        ...

    async def execute(self, sql: str, params: Params = ()) -> None: ...
    async def fetch_one(self, sql: str, params: Params = ()) -> sqlite3.Row | None: ...
    async def fetch_all(self, sql: str, params: Params = ()) -> list[sqlite3.Row]: ...
    async def write(self, sql: str, params: Params = ()) -> list[sqlite3.Row]:
        """One statement as a unit of work of its own, and its ``RETURNING`` rows."""
        ...
