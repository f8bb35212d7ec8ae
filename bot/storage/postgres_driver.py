"""PostgreSQL through asyncpg: the same repositories and migrations as on SQLite.

One connection, as on SQLite, and for the same reason: the bot's writers are serialised by the
database's asyncio lock, so every read-then-write step of the repositories (is a game open in
this chat? which revision are the settings at?) sees the state it then writes over, with no
``SELECT … FOR UPDATE`` and no retries on serialisation failures. One active instance writes
(``bot.storage.lease``), and its lease is held on this very connection: a process that lost the
connection lost the lease with it, and cannot write with a lease it no longer has.

The SQL is the repositories' own; only the markers change (``?`` becomes ``$1``, ``$2``, …).
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Sequence
from typing import Any, Final

import asyncpg

from bot.storage.driver import ConstraintViolation, Dialect, Params, Row
from bot.storage.errors import DatabaseUnavailableError

log = logging.getLogger(__name__)

#: seconds to wait for the server when connecting
CONNECT_TIMEOUT: Final = 10.0
#: seconds to keep asking a server that refuses connections (not up yet) at start
CONNECT_PATIENCE: Final = 30.0
#: the server notices a silent peer (a machine that died without closing its sockets) after
#: about idle + interval × count seconds, and ends its session, releasing its lease
KEEPALIVE: Final = {
    "tcp_keepalives_idle": "4",
    "tcp_keepalives_interval": "2",
    "tcp_keepalives_count": "3",
}

#: what asyncpg raises when the connection is gone (or going: a terminated session's notice
#: can arrive while the next statement is being sent, and asyncpg then says "another operation
#: is in progress"); any other error on a connection that is closed afterwards counts too
_LOST: Final = (
    asyncpg.exceptions.ConnectionDoesNotExistError,
    asyncpg.exceptions.InterfaceError,
    asyncpg.exceptions.InternalClientError,
    asyncpg.exceptions.AdminShutdownError,
    asyncpg.exceptions.CannotConnectNowError,
    ConnectionError,
    OSError,
)


@functools.lru_cache(maxsize=1024)
def numbered(sql: str) -> str:
    """``?`` markers as PostgreSQL's ``$1``, ``$2``, … (a ``?`` inside a quoted string or a
    quoted name stays: the repositories have none, but a migration's comment might)."""
    out: list[str] = []
    count = 0
    quote = ""
    for char in sql:
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "?":
            count += 1
            out.append(f"${count}")
            continue
        out.append(char)
    return "".join(out)


class PostgresConnection:
    dialect: Dialect = "postgresql"

    def __init__(self, connection: Any) -> None:
        #: the asyncpg connection
        self.asyncpg = connection

    async def fetch(self, sql: str, params: Params = ()) -> Sequence[Row]:
        try:
            rows: list[Row] = await self.asyncpg.fetch(numbered(sql), *params)
        except asyncpg.exceptions.IntegrityConstraintViolationError as error:
            if isinstance(error, asyncpg.exceptions.UniqueViolationError):
                raise ConstraintViolation("unique", str(error)) from error
            if isinstance(error, asyncpg.exceptions.ForeignKeyViolationError):
                raise ConstraintViolation("foreign_key", str(error)) from error
            raise ConstraintViolation("other", str(error)) from error
        except _LOST as error:
            raise DatabaseUnavailableError(
                f"the PostgreSQL connection was lost: {error}"
            ) from error
        return rows

    async def execute(self, sql: str) -> None:
        try:
            await self.asyncpg.execute(sql)
        except _LOST as error:
            raise DatabaseUnavailableError(
                f"the PostgreSQL connection was lost: {error}"
            ) from error

    async def begin(self) -> None:
        await self.execute("BEGIN")

    async def commit(self) -> None:
        await self.execute("COMMIT")

    async def rollback(self) -> None:
        if self.asyncpg.is_closed() or not self.asyncpg.is_in_transaction():
            return
        try:
            await self.asyncpg.execute("ROLLBACK")
        except (asyncpg.exceptions.PostgresError, *_LOST):
            log.exception("ROLLBACK failed; the original error follows")

    async def close(self) -> None:
        try:
            await self.asyncpg.close(timeout=5)
        except _LOST:
            self.asyncpg.terminate()

    @property
    def closed(self) -> bool:
        return bool(self.asyncpg.is_closed())


async def connect_postgres(url: str, *, patience: float = CONNECT_PATIENCE) -> PostgresConnection:
    """Connect to the PostgreSQL database at ``url`` (``postgresql://user:pw@host/name``).

    A server that is not up yet (refused, or starting: the bot and its database started
    together) is asked again for ``patience`` seconds, which is safe: nothing was done yet. A
    server that answers no (a wrong password, no such database) is not."""
    loop = asyncio.get_running_loop()
    give_up = loop.time() + patience
    delay = 0.25
    while True:
        try:
            connection = await asyncpg.connect(
                url,
                timeout=CONNECT_TIMEOUT,
                server_settings={"application_name": "cardbot", **KEEPALIVE},
            )
            return PostgresConnection(connection)
        except (OSError, asyncpg.exceptions.CannotConnectNowError) as error:
            if loop.time() + delay > give_up:
                raise _cannot_connect(error) from error
            log.warning("PostgreSQL is not answering yet (%s); trying again", error)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 4.0)
        except (asyncpg.exceptions.PostgresError, TimeoutError, *_LOST) as error:
            raise _cannot_connect(error) from error


def _cannot_connect(error: BaseException) -> DatabaseUnavailableError:
    # asyncpg's messages name the server and the user, never the password
    return DatabaseUnavailableError(
        f"cannot connect to PostgreSQL: {error or type(error).__name__}"
    )
