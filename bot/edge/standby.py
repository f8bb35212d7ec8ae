"""Several instances on one PostgreSQL database, exactly one of them active.

The active instance holds the database's lease (``Database.take_lease``: an advisory lock on
its own connection). The others wait as standbys: they have opened the database and checked
its schema, but take no updates, run no timers and serve no pages; every ``STANDBY_POLL``
seconds they ask for the lease again. When the active instance dies its connection ends, the
server frees the lock, and the next standby to ask takes over: it recovers every table from the
log and starts polling (or serving the webhook) as any instance does at start.

An active instance that loses its connection has lost the lease with it (another instance may
already be active), so it stops at once, with exit code 1, for its supervisor to start it again
as a standby: ``Heartbeat`` notices within ``HEARTBEAT`` + ``HEARTBEAT_TIMEOUT`` seconds even
when nothing else touches the database. Writes could not go through anyway; what the heartbeat
adds is that the dead instance stops talking to Telegram.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, MutableMapping
from typing import Any, Final

from bot.edge.observe import Metrics
from bot.storage import Database

log = logging.getLogger(__name__)

#: seconds between a standby's requests for the lease
STANDBY_POLL: Final = 1.0
#: seconds between the active instance's checks of its connection, and how long one may take
HEARTBEAT: Final = 2.0
HEARTBEAT_TIMEOUT: Final = 5.0


class StandbyStopped(Exception):
    """A standby was asked to stop (SIGTERM) before it became active."""


async def wait_until_active(
    db: Database, *, stopping: asyncio.Event | None = None, poll: float = STANDBY_POLL
) -> bool:
    """Hold the lease, waiting as long as another instance does; False if ``stopping`` was
    set first (a standby asked to stop)."""
    if await db.take_lease():
        return True
    log.warning(
        "standby: another instance is active on the database %s; taking over when it stops",
        db.location.shown,
    )
    while stopping is None or not stopping.is_set():
        if stopping is None:
            await asyncio.sleep(poll)
        else:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stopping.wait(), poll)
                return False
        if await db.take_lease():
            log.warning("standby: the lease is ours; this instance is active now")
            return True
    return False


async def become_active(
    bot_data: MutableMapping[str, Any], db: Database, metrics: Metrics | None
) -> None:
    """Hold the database's lease before anything that acts (PostgreSQL; on SQLite it is held
    at once), waiting as a standby while another instance is active; then watch the
    connection. Raises :class:`StandbyStopped` when asked to stop while waiting (SIGTERM sets
    ``bot_data["stopping"]``). /healthz says active once the tables are recovered too (the end
    of the application's start)."""
    if metrics is not None:
        metrics.set_active(False)
    stopping: asyncio.Event | None = bot_data.get("stopping")
    if not await wait_until_active(db, stopping=stopping):
        raise StandbyStopped
    if db.dialect != "postgresql":
        return

    def lost() -> None:
        bot_data["lease_lost"] = True
        if metrics is not None:
            metrics.set_active(False)
        if stopping is not None:
            stopping.set()

    heartbeat = Heartbeat(db, lost)
    heartbeat.start()
    bot_data["heartbeat"] = heartbeat


class Heartbeat:
    """Checks the active instance's connection every ``interval`` seconds and calls
    ``on_lost`` once when it is gone."""

    def __init__(
        self,
        db: Database,
        on_lost: Callable[[], None],
        *,
        interval: float = HEARTBEAT,
        timeout: float = HEARTBEAT_TIMEOUT,
    ) -> None:
        self._db = db
        self._on_lost = on_lost
        self._interval = interval
        self._timeout = timeout
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._beat(), name="heartbeat")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _beat(self) -> None:
        while True:
            await asyncio.sleep(self._interval)
            try:
                await asyncio.wait_for(self._db.ping(), self._timeout)
            except Exception as error:  # any failure: the lease can no longer be trusted
                log.error(
                    "lost the database connection, and with it the lease (%s): stopping, "
                    "to start again as a standby",
                    error or type(error).__name__,
                )
                self._on_lost()
                return
