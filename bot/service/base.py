"""The service's small shared types: what it answers, who acts, how it schedules."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import Enum
from typing import Protocol

from bot.presentation.keyboards import Keyboard
from bot.presentation.safe_names import HUMAN_MARK, safe_name
from bot.presentation.strings import Lang


@dataclass(frozen=True, slots=True)
class Reply:
    """What to answer the person who acted (a callback answer or a chat reply)."""

    text: str = ""
    alert: bool = False
    url: str | None = None
    accepted: bool = False  # a game action was taken (a typed play needs no chat reply then)
    reply_to: int | None = None  # answer as a reply to this message (e.g. the open lobby)


#: Told the answer to a press as soon as it is known, while the table goes on rendering it
#: (edits and prompts that wait for the chats' pace): the person is answered at once.
EarlyAnswer = Callable[[Reply], None]


def answer_early(early: EarlyAnswer | None, reply: Reply) -> Reply:
    """Give ``reply`` to ``early`` (if any) and return it."""
    if early is not None:
        early(reply)
    return reply


@dataclass(frozen=True, slots=True)
class UserInfo:
    """A person as they enter the service; ``name`` is made safe to show (see
    :func:`bot.presentation.safe_names.safe_name`) whatever way they came in."""

    user_id: int
    name: str
    username: str | None = None
    language_code: str | None = None

    def __post_init__(self) -> None:
        fallback = f"{HUMAN_MARK}{str(self.user_id)[-4:]}"
        object.__setattr__(self, "name", safe_name(self.name, fallback))


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


class MemberCheck(Protocol):
    """Whether a user is a member of a group (cached Telegram calls in the app); None: not
    known now (the lookups' budget is spent), to be refused with "try again". ``recheck``
    asks again past a remembered "not a member" (a join by link)."""

    def __call__(
        self, chat_id: int, user_id: int, *, recheck: bool = False
    ) -> Awaitable[bool | None]: ...




class Delivery(Enum):
    OK = "ok"
    GONE = "gone"  # the message to edit was deleted
    BLOCKED = "blocked"  # 403: the user blocked the bot or never started it
    FAILED = "failed"
    SKIPPED = "skipped"  # an optional message the chat's pace had no room for
    UNKNOWN = "unknown"  # a send timed out after it was made: it may or may not have arrived


@dataclass(frozen=True, slots=True)
class Sent:
    delivery: Delivery
    message_id: int | None = None


class Messages(Protocol):
    """How the service sends, edits and deletes messages, and asks each chat's pace (the
    edge's ``Messenger`` in the app: it alone talks to Telegram)."""

    group_budget: int
    group_reserve: int

    async def send(
        self,
        chat_id: int,
        text: str,
        markup: Keyboard | None = None,
        *,
        notify: bool = True,
        reply_to: int | None = None,
        optional: bool = False,
    ) -> Sent: ...

    async def send_photo(
        self,
        chat_id: int,
        photo: bytes,
        caption: str | None = None,
        *,
        filename: str = "picture.png",
        reply_to: int | None = None,
        optional: bool = False,
    ) -> Sent: ...

    async def edit(
        self, chat_id: int, message_id: int, text: str, markup: Keyboard | None = None
    ) -> Delivery: ...

    async def clear_buttons(self, chat_id: int, message_id: int) -> Delivery: ...

    async def delete(self, chat_id: int, message_id: int) -> Delivery: ...

    async def shows_unchanged(
        self, chat_id: int, message_id: int, markup: Keyboard | None
    ) -> bool: ...

    def newest_sent(self, chat_id: int) -> int: ...

    def sent_here(self, chat_id: int, message_id: int) -> bool: ...

    def group_room(self, chat_id: int) -> int: ...

    def group_wait(self, chat_id: int, budget: int, window: float = ...) -> float: ...

    def assume_private_full(self, chat_id: int) -> None: ...

    async def restore_group_windows(self) -> None: ...
