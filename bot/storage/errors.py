"""The storage layer's errors: each one names what was refused, so callers can tell people why.

All are :class:`StorageError`; the drivers' own exceptions (``sqlite3.Error``, asyncpg's) never
escape the repositories for the cases listed here, so the service layer does not depend on the
driver.
"""

from __future__ import annotations


class StorageError(Exception):
    """Base class of everything this package raises on purpose."""


class NotFoundError(StorageError, LookupError):
    """An update or append named a row that does not exist (a player, a game)."""


class DuplicateActionError(StorageError):
    """An action with this ``(game_id, seq)`` is already in the log.

    This is the guard against applying one action twice (a double click, a retried update):
    the second append fails instead of silently forking the log.
    """

    def __init__(self, game_id: int, seq: int) -> None:
        super().__init__(f"game {game_id} already has an action with seq {seq}")
        self.game_id = game_id
        self.seq = seq


class OpenGameExistsError(StorageError):
    """A chat may hold one lobby or game in progress at a time."""

    def __init__(self, chat_id: int) -> None:
        super().__init__(f"chat {chat_id} already has a lobby or a game in progress")
        self.chat_id = chat_id


class ResultsAlreadyRecordedError(StorageError):
    """A game's results are written once; a second write would double-count ratings."""

    def __init__(self, game_id: int) -> None:
        super().__init__(f"the results of game {game_id} are already recorded")
        self.game_id = game_id


class SchemaVersionError(StorageError):
    """The database was written by a newer version of the bot than this one: its schema
    version ``found`` is past the ``known`` migrations, and an older bot must not touch it."""

    def __init__(self, found: int, known: int) -> None:
        super().__init__(
            f"the database was written by a newer version of the bot (schema version {found}; "
            f"this bot knows up to {known}): upgrade the bot rather than opening it with an "
            f"older one"
        )
        self.found = found
        self.known = known


class DatabaseUnavailableError(StorageError):
    """The connection to the database was lost (PostgreSQL restarted, the network went away).

    The unit of work that met it did not happen: PostgreSQL rolls back a transaction whose
    connection ends, so an action is in the log whole or not at all. The connection is not
    reopened behind the caller's back: an instance that lost it may also have lost its lease
    (``bot.storage.lease``), and only a fresh start can tell."""
