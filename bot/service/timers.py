"""One timer per table: the turn timer, the 亮王 gate's, a computer's short delay.

A timer carries the table's action count: one that fires after anything else happened does
nothing. A job that fails is retried after ``retry_delay``: the same job if nothing was
applied (the database refused the write, say), otherwise the flow moves the table on from
the action that did go through.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from bot.service.base import timer_name
from bot.service.hub import Hub
from bot.service.tables import Table

log = logging.getLogger(__name__)

Job = Callable[[Table], Awaitable[None]]


class Timers:
    def __init__(self, hub: Hub) -> None:
        self.hub = hub

    def arm(self, table: Table, delay: float, job: Job) -> None:
        """Run ``job`` under the table's lock in ``delay`` seconds, unless anything happens
        at the table first (replaces the table's previous timer)."""
        seq = table.seq
        game_id = table.game_id
        hub = self.hub

        async def fire() -> None:
            current = hub.registry.get(game_id)
            if current is None:
                return
            async with current.lock:
                if current.seq != seq or current.status != "playing":
                    return  # something happened since: this timer is stale
                try:
                    await job(current)
                except Exception:
                    # never leave the table waiting for a timer that is gone
                    retry = hub.retry_delay
                    log.exception("timer of table %s failed; again in %.0f s", game_id, retry)
                    if current.seq == seq:  # nothing was applied (the write was refused, say)
                        self.arm(current, retry, job)
                    else:  # the action went through, what follows it did not: move on
                        self.arm(current, retry, hub.flow.advance)

        hub.scheduler.schedule(timer_name(game_id), delay, fire)

    def cancel(self, table: Table) -> None:
        self.hub.scheduler.cancel(timer_name(table.game_id))
