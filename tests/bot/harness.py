"""A service-level harness: the real GameService with a recording messenger and asyncio timers.

The end-to-end tests go through the fake Bot API server; these drive the service directly so
that its logic can be tested fast and precisely.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from bot.config import Settings
from bot.service import GameService, UserInfo
from bot.service.base import Delivery, Sent
from bot.storage import Database


@dataclass
class Message:
    chat_id: int
    message_id: int
    text: str
    markup: Any = None
    versions: list[str] = field(default_factory=list)
    markups: list[Any] = field(default_factory=list)  # every keyboard it has shown


class RecordingMessenger:
    """Stands in for :class:`bot.edge.outbox.Messenger`; keeps what each chat shows."""

    def __init__(self) -> None:
        self.messages: dict[tuple[int, int], Message] = {}
        self.blocked: set[int] = set()
        self.calls = 0
        self._ids = itertools.count(1)
        self.changed = asyncio.Event()
        self.assumed_full: set[int] = set()  # private chats recovery counted as just used

    async def send(
        self,
        chat_id: int,
        text: str,
        markup: Any = None,
        *,
        notify: bool = True,
        reply_to: int | None = None,
        optional: bool = False,
    ) -> Sent:
        self.calls += 1
        if chat_id in self.blocked:
            return Sent(Delivery.BLOCKED)
        message = Message(chat_id, next(self._ids), text, markup, [text], [markup])
        self.messages[(chat_id, message.message_id)] = message
        self.changed.set()
        return Sent(Delivery.OK, message.message_id)

    async def edit(self, chat_id: int, message_id: int, text: str, markup: Any = None) -> Delivery:
        self.calls += 1
        message = self.messages.get((chat_id, message_id))
        if message is None:
            return Delivery.GONE
        if message.text == text and message.markup == markup:
            raise AssertionError(f"edit to identical content in {chat_id}: {text[:60]!r}")
        message.text = text
        message.markup = markup
        message.versions.append(text)
        message.markups.append(markup)
        self.changed.set()
        return Delivery.OK

    async def clear_buttons(self, chat_id: int, message_id: int) -> Delivery:
        message = self.messages.get((chat_id, message_id))
        if message is None:
            return Delivery.GONE
        message.markup = None
        return Delivery.OK

    async def delete(self, chat_id: int, message_id: int) -> Delivery:
        self.calls += 1
        return Delivery.OK if self.messages.pop((chat_id, message_id), None) else Delivery.GONE

    def group_wait(self, chat_id: int, budget: int, window: float = 60.0) -> float:
        return 0.0

    def newest_sent(self, chat_id: int) -> int:
        """The newest message id shown in the chat (0: none), as the real outbox knows it."""
        return max((m.message_id for m in self.chat(chat_id)), default=0)

    def assume_private_full(self, chat_id: int) -> None:
        self.assumed_full.add(chat_id)

    def chat(self, chat_id: int) -> list[Message]:
        return [m for (c, _), m in sorted(self.messages.items()) if c == chat_id]

    def everything_shown(self, chat_id: int) -> list[str]:
        return [v for m in self.chat(chat_id) for v in m.versions]


class AsyncioScheduler:
    """Timers as asyncio tasks, one per name; delays can be scaled down for tests."""

    def __init__(self, scale: float = 1.0) -> None:
        self.scale = scale
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self.pending_delays: dict[str, float] = {}

    def schedule(self, name: str, delay: float, callback: Callable[[], Awaitable[None]]) -> None:
        self.cancel(name)
        self.pending_delays[name] = delay

        async def run() -> None:
            await asyncio.sleep(delay * self.scale)
            self.tasks.pop(name, None)
            await callback()

        self.tasks[name] = asyncio.get_running_loop().create_task(run())

    def cancel(self, name: str) -> None:
        task = self.tasks.pop(name, None)
        if task is not None and task is not asyncio.current_task():
            task.cancel()


def settings(**overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "telegram_bot_token": "1:test",
        "computer_delay": 0.0,
        "min_game_seconds": 0.0,
        "group_messages_per_minute": 600_000,
    }
    values.update(overrides)
    return Settings(**values)


def make_service(
    db: Database,
    *,
    clock: Callable[[], float] | None = None,
    seed: int | None = None,
    retry_delay: float = 5.0,
    **overrides: Any,
) -> tuple[GameService, RecordingMessenger, AsyncioScheduler]:
    """The service with a recording messenger; ``seed``: every game is dealt from it;
    ``clock``: the service's clock; ``overrides``: settings."""
    messenger = RecordingMessenger()
    scheduler = AsyncioScheduler()

    async def is_admin(chat_id: int, user_id: int) -> bool:
        return False

    async def is_member(chat_id: int, user_id: int, *, recheck: bool = False) -> bool:
        return True

    service = GameService(
        db=db,
        messenger=messenger,  # type: ignore[arg-type]
        scheduler=scheduler,
        settings=settings(**overrides),
        bot_username="CardTestBot",
        is_admin=is_admin,
        is_member=is_member,
        retry_delay=retry_delay,
        **({"clock": clock} if clock is not None else {}),
        **({"new_seed": lambda: seed} if seed is not None else {}),
    )
    return service, messenger, scheduler


@contextlib.asynccontextmanager
async def running_service(
    db: Database, **options: Any
) -> AsyncIterator[tuple[GameService, RecordingMessenger]]:
    """The service (``make_service(db, **options)``) with a recording messenger; shut down
    and its timers cancelled after."""
    service, messenger, scheduler = make_service(db, **options)
    try:
        yield service, messenger
    finally:
        await service.shutdown()
        for name in list(scheduler.tasks):
            scheduler.cancel(name)


def user(user_id: int, name: str | None = None, lang: str = "zh-hans") -> UserInfo:
    return UserInfo(user_id, name or f"P{user_id}", None, lang)


async def wait_until(
    predicate: Callable[[], bool], changed: asyncio.Event, timeout: float = 20
) -> None:
    async def loop() -> None:
        while not predicate():
            changed.clear()
            if predicate():
                return
            await changed.wait()

    await asyncio.wait_for(loop(), timeout)
