"""The state the fake keeps and exposes to tests: users, chats, messages, the request log.

Why plain dataclasses: tests read them directly (``fake.chat(-100).last_message.text``) and
assert on them, so they carry what a Telegram user would see (current text, keyboard, whether
the message was deleted) plus the history a test needs (every version, edit counts).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class FakeUser:
    """A human Telegram user the test acts as."""

    id: int
    first_name: str
    username: str | None = None
    language_code: str | None = "zh-hans"
    last_name: str | None = None
    started: bool = False  # has pressed Start in the private chat with the bot
    blocked: bool = False  # has blocked the bot

    def to_api(self) -> dict[str, Any]:
        """The ``User`` object as the Bot API sends it."""
        data: dict[str, Any] = {"id": self.id, "is_bot": False, "first_name": self.first_name}
        if self.last_name:
            data["last_name"] = self.last_name
        if self.username:
            data["username"] = self.username
        if self.language_code:
            data["language_code"] = self.language_code
        return data


@dataclass
class TextVersion:
    """One text a chat showed: a send or an edit (what ``fake.sent_to`` is built from)."""

    message_id: int
    text: str
    kind: str  # "send" or "edit"
    time: float
    reply_markup: dict[str, Any] | None = None


@dataclass
class FakeMessage:
    """The current state of one message in a chat (the bot's or a user's)."""

    chat_id: int
    message_id: int
    sender_id: int
    from_bot: bool
    date: int
    text: str | None = None
    entities: list[dict[str, Any]] = field(default_factory=list)
    caption: str | None = None
    caption_entities: list[dict[str, Any]] = field(default_factory=list)
    reply_markup: dict[str, Any] | None = None  # inline keyboards only, as Telegram shows
    kind: str = "text"  # "text", or the send method for other messages ("sendPhoto")
    #: sendPhoto: the uploaded picture's bytes (None when sent by file_id or URL) and its
    #: size in pixels (width, height; None when unknown)
    photo: bytes | None = None
    photo_size: tuple[int, int] | None = None
    reply_to: int | None = None
    edit_count: int = 0
    edit_date: int | None = None
    deleted: bool = False
    versions: list[str] = field(default_factory=list)  # every text/caption it has shown

    @property
    def rows(self) -> list[list[dict[str, Any]]]:
        """The inline keyboard's rows of buttons (empty without a keyboard)."""
        if not self.reply_markup:
            return []
        return [list(row) for row in self.reply_markup.get("inline_keyboard", [])]

    @property
    def buttons(self) -> list[dict[str, Any]]:
        """Every button of the inline keyboard, row by row."""
        return [button for row in self.rows for button in row]

    @property
    def labels(self) -> list[str]:
        """Every button label, row by row, flat: ``"加入" in message.labels``."""
        return [button["text"] for button in self.buttons]

    @property
    def keyboard(self) -> list[list[str]]:
        """The labels as rows, the way the keyboard looks (used in failure messages)."""
        return [[button["text"] for button in row] for row in self.rows]

    def find_button(
        self,
        label: str | Callable[[str], bool] | None = None,
        *,
        data: str | None = None,
        contains: str | None = None,
    ) -> dict[str, Any] | None:
        """The first button matching an exact label, a label predicate, a label substring, or
        exact callback data; None if there is none."""
        for button in self.buttons:
            text = button["text"]
            if data is not None and button.get("callback_data") != data:
                continue
            if contains is not None and contains not in text:
                continue
            if isinstance(label, str) and text != label:
                continue
            if callable(label) and not label(text):
                continue
            return button
        return None


@dataclass
class FakeChat:
    """A private chat (id = the user's id) or a group (negative id) and what it shows."""

    id: int
    type: str  # "private", "group" or "supergroup"
    title: str | None = None
    user: FakeUser | None = None  # the other side of a private chat
    username: str | None = None
    owner: int | None = None
    admins: set[int] = field(default_factory=set)
    members: set[int] = field(default_factory=set)
    bot_is_admin: bool = False
    bot_member: bool = True
    messages: list[FakeMessage] = field(default_factory=list)
    history: list[TextVersion] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)
    sends: int = 0  # successful bot sends
    edits: int = 0  # successful bot edits (text, caption or keyboard)
    deletes: int = 0  # successful bot deletions
    next_message_id: int = 1
    _by_id: dict[int, FakeMessage] = field(default_factory=dict, repr=False)

    @property
    def is_private(self) -> bool:
        return self.type == "private"

    def to_api(self) -> dict[str, Any]:
        """The ``Chat`` object as the Bot API embeds it in messages."""
        data: dict[str, Any] = {"id": self.id, "type": self.type}
        if self.is_private and self.user is not None:
            data["first_name"] = self.user.first_name
            if self.user.last_name:
                data["last_name"] = self.user.last_name
            if self.user.username:
                data["username"] = self.user.username
        else:
            data["title"] = self.title or ""
            if self.username:
                data["username"] = self.username
        return data

    def add_message(self, message: FakeMessage) -> FakeMessage:
        self.messages.append(message)
        self._by_id[message.message_id] = message
        return message

    def message(self, message_id: int) -> FakeMessage | None:
        """The message with this id, deleted or not; None if it never existed."""
        return self._by_id.get(message_id)

    @property
    def bot_messages(self) -> list[FakeMessage]:
        """The bot's messages still visible in the chat, oldest first."""
        return [m for m in self.messages if m.from_bot and not m.deleted]

    @property
    def last_message(self) -> FakeMessage | None:
        """The bot's most recent message that is still visible (None if there is none)."""
        visible = self.bot_messages
        return visible[-1] if visible else None

    @property
    def texts(self) -> list[str]:
        """Every text the bot has shown in this chat, sends and edits, in order."""
        return [version.text for version in self.history]


@dataclass
class RequestRecord:
    """One HTTP request the bot made and what the fake answered."""

    method: str  # canonical name when known, else as requested
    raw: dict[str, Any]  # the form values as received
    time: float  # the fake's clock
    params: dict[str, Any] = field(default_factory=dict)  # decoded, after validation
    chat_id: int | None = None
    status: int | None = None  # None: still in progress, or the client went away
    response: Any = None  # the JSON body sent back
    fault: str | None = None  # the injected fault that answered it, if any

    @property
    def ok(self) -> bool:
        return self.status == 200

    @property
    def result(self) -> Any:
        return self.response.get("result") if isinstance(self.response, dict) else None


@dataclass
class Rejection:
    """A request the fake refused because the bot got something wrong (4xx, not 403/429)."""

    method: str
    status: int
    description: str
    kind: str
    params: dict[str, Any]
    time: float

    def __str__(self) -> str:
        return f"{self.method}: {self.status} {self.description} ({self.kind}) {self.params}"


@dataclass
class LimitViolation:
    """A message over a flood limit (answered 429 when limits are enforced)."""

    method: str
    chat_id: int | None
    scope: str  # "group", "private" or "global"
    limit: int
    period: float
    retry_after: int
    time: float

    def __str__(self) -> str:
        return (
            f"{self.method} to {self.chat_id}: over the {self.scope} limit of {self.limit} "
            f"per {self.period:g}s (retry after {self.retry_after}s)"
        )


@dataclass
class Fault:
    """A failure the test asked for with ``fake.inject``; ``fired`` counts its uses."""

    method: str
    kind: str
    times: int
    chat_id: int | None = None
    retry_after: int = 1
    hold: float = 60.0
    performed: bool = False
    fired: int = 0

    @property
    def exhausted(self) -> bool:
        return self.fired >= self.times


@dataclass(frozen=True)
class CallbackAnswer:
    """What the bot passed to answerCallbackQuery."""

    text: str | None
    show_alert: bool
    url: str | None
    cache_time: int | None


@dataclass
class CallbackResult:
    """A button press the test made; await :meth:`answered` for the bot's answer."""

    query_id: str
    user_id: int
    chat_id: int
    message_id: int
    data: str
    update_id: int
    _future: asyncio.Future[CallbackAnswer] = field(repr=False)
    created: float = 0.0
    refused: list[str] = field(default_factory=list)  # answers the fake rejected

    @property
    def is_answered(self) -> bool:
        return self._future.done()

    @property
    def answer(self) -> CallbackAnswer | None:
        """The answer if the bot has given it, else None."""
        return self._future.result() if self._future.done() else None

    async def answered(self, timeout: float = 10.0) -> CallbackAnswer:
        """Wait for the bot's answerCallbackQuery; TimeoutError names the press."""
        try:
            async with asyncio.timeout(timeout):
                return await asyncio.shield(self._future)
        except TimeoutError:
            raise TimeoutError(
                f"the bot did not answer callback query {self.query_id} (user {self.user_id} "
                f"pressed {self.data!r} on message {self.message_id} in chat {self.chat_id}) "
                f"within {timeout}s"
                + (f"; refused answers: {self.refused}" if self.refused else "")
            ) from None
