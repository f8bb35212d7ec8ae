"""Start-up that explains itself: the settings, the database and the token are checked before
the bot starts, and each failure is one line on stderr that names the setting or the file,
never the token."""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path

from pydantic import ValidationError
from telegram import Bot
from telegram.error import InvalidToken, NetworkError

from bot.config import Settings
from bot.storage import Database, SchemaVersionError, StorageError, open_database
from bot.storage.driver import locate

#: exit codes: bad settings (as for a missing token), and Telegram out of reach
BAD_SETTINGS = 2
UNREACHABLE = 1


class StartupError(Exception):
    """A reason the bot cannot start, in one line; ``code`` is the exit code."""

    def __init__(self, message: str, code: int = BAD_SETTINGS) -> None:
        super().__init__(message)
        self.code = code


def load_settings() -> Settings | None:
    """The settings, or None after one line per bad setting on stderr (never a value: the
    token is one)."""
    try:
        return Settings()  # type: ignore[call-arg]
    except ValidationError as error:
        for problem in error.errors():
            name = "_".join(str(part) for part in problem["loc"]).upper()
            if problem["type"] == "missing" and name == "TELEGRAM_BOT_TOKEN":
                print(
                    "TELEGRAM_BOT_TOKEN is not set: put the token from @BotFather in the "
                    "environment or in a .env file.",
                    file=sys.stderr,
                )
            else:
                message = str(problem["msg"]).removeprefix("Value error, ")
                print(f"invalid setting {name}: {message}", file=sys.stderr)
        return None


def api_urls(settings: Settings) -> tuple[str, str] | None:
    """(base_url, base_file_url) of a Bot API server other than Telegram's, if one is set."""
    if not settings.telegram_api_base_url:
        return None
    base = settings.telegram_api_base_url.rstrip("/")
    return base, base.rsplit("/", 1)[0] + "/file/bot"


async def open_checked(settings: Settings) -> Database:
    """The database of ``settings``, or :class:`StartupError` naming where it is (never a
    PostgreSQL password) and the setting that said so."""
    where = locate(settings.database)
    named = f"{where.shown!r} ({settings.database_setting})"
    try:
        if where.dialect == "sqlite" and not where.in_memory:
            # tried first without aiosqlite: a connection that fails to open leaves
            # aiosqlite's worker thread posting to the event loop after asyncio.run closed it
            # (a traceback on exit, seen once in a parallel test run)
            Path(where.target).parent.mkdir(parents=True, exist_ok=True)  # as open_database
            sqlite3.connect(where.target).close()
        return await open_database(settings.database)
    except SchemaVersionError as error:
        raise StartupError(
            f"the database {named} was written by a newer "
            f"version of the bot (schema version {error.found}; this bot knows up to "
            f"{error.known}): upgrade the bot; the database was left as it was"
        ) from None
    except (sqlite3.Error, OSError, StorageError) as error:
        raise StartupError(f"cannot open the database {named}: {error}") from None


@contextlib.contextmanager
def only_process(settings: Settings) -> Iterator[None]:
    """Hold the database for this process: one SQLite file serves one bot process.

    Two processes on one file would both poll Telegram (each update going to one of them at
    random) and both run the same tables' timers. The lock is an exclusive ``flock`` on
    ``<database>.lock``, which the system releases when the process ends, however it ends;
    the file names the holder's pid for the message."""
    where = locate(settings.database)
    if where.dialect != "sqlite" or where.in_memory:  # PostgreSQL: the lease decides
        yield
        return
    path = where.target
    lock_path = Path(f"{path}.lock")
    try:
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        handle = lock_path.open("a+")
    except OSError as error:
        raise StartupError(f"cannot open the database {path!r} (DATABASE_PATH): {error}") from None
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip()
            raise StartupError(
                f"another bot process{f' (pid {holder})' if holder.isdigit() else ''} runs on "
                f"the database {path!r} (DATABASE_PATH): one SQLite file serves one process; "
                "stop that one first"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


async def preflight(settings: Settings) -> None:
    """Open the database (and bring it up to date) and ask Telegram who the bot is; raise
    :class:`StartupError` if either fails."""
    db = await open_checked(settings)
    await db.close()
    urls = api_urls(settings)
    bot = (
        Bot(settings.token)
        if urls is None
        else Bot(settings.token, base_url=urls[0], base_file_url=urls[1])
    )
    try:
        async with bot:  # initialize() asks getMe
            pass
    except InvalidToken:
        raise StartupError(
            "Telegram rejected TELEGRAM_BOT_TOKEN: check it with @BotFather (/mybots)."
        ) from None
    except NetworkError as error:
        where = urls[0] if urls else "api.telegram.org"
        reason = str(error).replace(settings.token, "<token>")
        raise StartupError(
            f"cannot reach Telegram's Bot API at {where}: {reason}", UNREACHABLE
        ) from None
