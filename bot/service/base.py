"""The service's small shared types: what it answers, who acts, how it schedules."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from bot.strings import Lang


@dataclass(frozen=True, slots=True)
class Reply:
    """What to answer the person who acted (a callback answer or a chat reply)."""

    text: str = ""
    alert: bool = False
    url: str | None = None
    accepted: bool = False  # a game action was taken (a typed play needs no chat reply then)
    reply_to: int | None = None  # answer as a reply to this message (e.g. the open lobby)


@dataclass(frozen=True, slots=True)
class UserInfo:
    user_id: int
    name: str
    username: str | None = None
    language_code: str | None = None


class Scheduler(Protocol):
    """One timer per name, replaced when set again (PTB's JobQueue in the app)."""

    def schedule(
        self, name: str, delay: float, callback: Callable[[], Awaitable[None]]
    ) -> None: ...
    def cancel(self, name: str) -> None: ...


def timer_name(game_id: int) -> str:
    return f"table:{game_id}"


def seat_language(value: str | None) -> Lang:
    return "en" if value == "en" else "zh"
