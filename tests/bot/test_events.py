"""The event bus: a table's events are handled breadth first, in subscription order."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from bot.service.events import Blocked, Resumed, TableEvents, TookBack


def _table(game_id: int = 1) -> Any:
    return SimpleNamespace(game_id=game_id)


async def test_an_event_emitted_while_handling_waits_for_the_current_ones_subscribers() -> None:
    bus = TableEvents()
    seen: list[str] = []

    async def first(table: Any, event: TookBack) -> None:
        seen.append(f"first {event.seat}")
        await bus.emit(table, Blocked(event.seat))  # queued: the second handler goes first
        seen.append("first done")

    async def second(_table: Any, event: TookBack) -> None:
        seen.append(f"second {event.seat}")

    async def blocked(_table: Any, event: Blocked) -> None:
        seen.append(f"blocked {event.seat}")

    bus.subscribe(TookBack, first)
    bus.subscribe(TookBack, second)
    bus.subscribe(Blocked, blocked)
    await bus.emit(_table(), TookBack(2))
    assert seen == ["first 2", "first done", "second 2", "blocked 2"]


async def test_a_failed_handler_drops_what_was_queued_and_the_next_emit_starts_afresh() -> None:
    bus = TableEvents()
    seen: list[str] = []

    async def failing(table: Any, _event: Resumed) -> None:
        await bus.emit(table, Blocked(0))
        raise RuntimeError("the database is locked")

    async def blocked(_table: Any, event: Blocked) -> None:
        seen.append(f"blocked {event.seat}")

    bus.subscribe(Resumed, failing)
    bus.subscribe(Blocked, blocked)
    with pytest.raises(RuntimeError):
        await bus.emit(_table(), Resumed())
    assert seen == []
    await bus.emit(_table(), Blocked(3))
    assert seen == ["blocked 3"]


async def test_tables_do_not_share_a_queue() -> None:
    bus = TableEvents()
    seen: list[tuple[int, int]] = []

    async def took_back(table: Any, event: TookBack) -> None:
        if table.game_id == 1:
            await bus.emit(_table(2), TookBack(9))  # another table's event: handled now
        seen.append((table.game_id, event.seat))

    bus.subscribe(TookBack, took_back)
    await bus.emit(_table(1), TookBack(0))
    assert seen == [(2, 9), (1, 0)]
