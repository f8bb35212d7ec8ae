"""What a repository needs of the database: statements, units of work and a clock.

Repositories depend on this protocol, not on :class:`~bot.storage.database.Database`, which
composes them: the arrows point one way (database -> repositories -> session protocol).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Protocol

from bot.storage.driver import Dialect, Params, Row

__all__ = ["Params", "Row", "Session"]


class Session(Protocol):
    """One connection's statements, inside the units of work the database opens."""

    clock: Callable[[], float]
    #: ``sqlite`` or ``postgresql``: for the few statements that differ (the migrations')
    dialect: Dialect

    def transaction(self) -> AbstractAsyncContextManager[None]:
        """A unit of work that writes (``BEGIN`` ... ``COMMIT``; nested: savepoint)."""
        ...

    def reading(self) -> AbstractAsyncContextManager[None]:
        """A unit of work that only reads."""
        ...

    async def execute(self, sql: str, params: Params = ()) -> None: ...
    async def fetch_one(self, sql: str, params: Params = ()) -> Row | None: ...
    async def fetch_all(self, sql: str, params: Params = ()) -> list[Row]: ...
    async def write(self, sql: str, params: Params = ()) -> list[Row]:
        """One statement as a unit of work of its own, and its ``RETURNING`` rows."""
        ...
