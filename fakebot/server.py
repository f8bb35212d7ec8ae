"""A fake Telegram Bot API server that the real PTB ``Application`` talks to in tests.

Why a server and not a mocked ``Bot``: the end-to-end tests must exercise exactly what runs in
production: PTB's request encoding, its polling loop, its rate limiter and retry handling, and
the bot's handlers. So the fake speaks HTTP on 127.0.0.1, validates every request against the
official spec, keeps the chats' state the way Telegram would (messages, keyboards, edits,
deletions, who started or blocked the bot), enforces flood limits, and lets the test act as
users (type commands, press buttons) and wait for outcomes on conditions rather than sleeps.

Usage::

    async with FakeTelegram(group_messages_per_minute=1000) as fake:
        fake.add_user(1, "Alice")
        fake.add_group(-1001, "牌桌")
        app = Application.builder().token(fake.token).base_url(fake.base_url) \\
            .base_file_url(fake.base_file_url).build()
        ...
        await fake.send_text(1, -1001, "/newgame@CardTestBot 刨王")
        msg = await fake.wait_for_message(-1001, contains="加入")
        press = await fake.press(1, -1001, msg.message_id, "加入")
        answer = await press.answered()
        fake.assert_clean()
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import itertools
import json
import re
import time
from collections.abc import Callable, Iterable
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

import aiohttp
from aiohttp import web

from fakebot import formatting
from fakebot.errors import ApiError, bad_request, forbidden
from fakebot.limits import Clock, FloodControl
from fakebot.models import (
    CallbackAnswer,
    CallbackResult,
    FakeChat,
    FakeMessage,
    FakeUser,
    Fault,
    LimitViolation,
    Rejection,
    RequestRecord,
    TextVersion,
)
from fakebot.spec import ApiSpec, Upload, Validator

FAULTS = ("429", "500", "502", "timeout", "drop", "403_blocked", "400_not_found")

#: Methods that put or change a message in a chat: they count against the flood limits.
COUNTED_METHODS = frozenset(
    {
        "forwardMessage",
        "forwardMessages",
        "copyMessage",
        "copyMessages",
        "editMessageText",
        "editMessageCaption",
        "editMessageMedia",
        "editMessageLiveLocation",
        "stopMessageLiveLocation",
        "editMessageChecklist",
        "editMessageReplyMarkup",
        "stopPoll",
    }
)

#: Update types delivered when the bot does not list any (Telegram's default).
DEFAULT_EXCLUDED_UPDATES = frozenset({"chat_member", "message_reaction", "message_reaction_count"})

_COMMAND_RE = re.compile(r"(?<!\S)/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{3,32})?(?![\w@])")
_NOT_FOUND = {"ok": False, "error_code": 404, "description": "Not Found"}
_BAD_GATEWAY_HTML = (
    "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
    "<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n"
    "</body>\r\n</html>\r\n"
)
_QUERY_TOO_OLD = "query is too old and response timeout expired or query ID is invalid"


def _check_button(button: dict[str, Any], *, private: bool) -> None:
    web_app = button.get("web_app")
    if web_app is not None:
        if not private:
            raise bad_request("BUTTON_TYPE_INVALID", kind="state")
        if not str(web_app.get("url", "")).startswith("https://"):
            raise bad_request("BUTTON_URL_INVALID", kind="prose_limit")


def _counts(method: str) -> bool:
    return method in COUNTED_METHODS or (method.startswith("send") and method != "sendChatAction")


class FakeTelegram:
    """The fake Bot API server plus the Python API tests use to act as Telegram users.

    Limits default to Telegram's (20 messages a minute per group, sends and edits alike; about
    one a second per private chat, with ``private_burst`` messages allowed at once; 30 a second
    overall). Tests that run games at full speed raise them, e.g.
    ``FakeTelegram(group_messages_per_minute=10_000, private_messages_per_second=1000)``.
    With ``enforce_limits=True`` a message over a limit is answered 429 with
    ``parameters.retry_after``; either way it is recorded in :attr:`limit_violations`.
    """

    def __init__(
        self,
        token: str = "123456789:AAFakeTokenForTests_abcdefghijklmno",
        bot_username: str = "CardTestBot",
        *,
        bot_name: str = "Card Test Bot",
        group_messages_per_minute: int = 20,
        private_messages_per_second: float = 1.0,
        global_messages_per_second: float = 30.0,
        private_burst: int | None = 3,
        enforce_limits: bool = True,
        clock: Clock | None = None,
        callback_query_ttl: float | None = None,
        spec: ApiSpec | None = None,
        strict_objects: bool = True,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self.token = token
        self.bot_username = bot_username
        self.bot_name = bot_name
        head = token.split(":", 1)[0]
        self.bot_id = int(head) if head.isdigit() else 1
        self.enforce_limits = enforce_limits
        self.group_messages_per_minute = group_messages_per_minute
        self.private_messages_per_second = private_messages_per_second
        self.global_messages_per_second = global_messages_per_second
        self.clock: Clock = clock or time.monotonic
        self.callback_query_ttl = callback_query_ttl
        self.validator = Validator(spec, strict_objects=strict_objects)
        self.flood = FloodControl(
            group_messages_per_minute=group_messages_per_minute,
            private_messages_per_second=private_messages_per_second,
            global_messages_per_second=global_messages_per_second,
            private_burst=private_burst,
        )
        self.host = host
        self._port = port

        self.users: dict[int, FakeUser] = {}
        self.chats: dict[int, FakeChat] = {}
        self.requests: list[RequestRecord] = []
        self.rejections: list[Rejection] = []
        self.limit_violations: list[LimitViolation] = []
        self.forbidden: list[Rejection] = []  # 403s: the user's doing, not the bot's mistake
        self.conflicts: list[Rejection] = []  # 409s from overlapping getUpdates
        self.faults: list[Fault] = []
        self.fault_log: list[RequestRecord] = []
        self.callbacks: dict[str, CallbackResult] = {}
        self.dropped_updates: list[dict[str, Any]] = []  # excluded by allowed_updates
        self.webhook: dict[str, Any] | None = None
        #: where webhook updates are delivered: the bot's own listener, standing in for the
        #: HTTPS proxy in front of it (the registered URL itself must be https://, as on
        #: Telegram). None: updates wait, as when Telegram cannot reach a webhook.
        self.webhook_target: str | None = None
        self.webhook_deliveries: list[tuple[int, int]] = []  # (update id, HTTP status)
        self._pusher: asyncio.Task[None] | None = None
        self.allowed_updates: list[str] | None = None
        self.closed = False  # close / logOut was called

        self._commands: dict[tuple[str, str], list[dict[str, Any]]] = {}
        self._pending: list[dict[str, Any]] = []
        self._update_ids = itertools.count(1)
        self._query_ids = itertools.count(1)
        self._poll_generation = 0
        self._changed = asyncio.Event()
        self._closing = False
        self._runner: web.AppRunner | None = None
        self._handlers: dict[str, Callable[[dict[str, Any]], Any]] = {
            "getMe": self._get_me,
            "getUpdates": self._get_updates,
            "deleteWebhook": self._delete_webhook,
            "setWebhook": self._set_webhook,
            "getWebhookInfo": self._get_webhook_info,
            "setMyCommands": self._set_my_commands,
            "sendMessage": self._send_message,
            "sendPhoto": self._send_photo,
            "editMessageText": self._edit_message_text,
            "editMessageReplyMarkup": self._edit_message_reply_markup,
            "deleteMessage": self._delete_message,
            "answerCallbackQuery": self._answer_callback_query,
            "getChatMember": self._get_chat_member,
            "close": self._close,
            "logOut": self._close,
        }

    # ------------------------------------------------------------------ lifecycle

    @property
    def port(self) -> int:
        if self._runner is None:
            raise RuntimeError("the fake is not started")
        return self._port

    @property
    def base_url(self) -> str:
        """What to pass to ``ApplicationBuilder.base_url`` (PTB appends token and method)."""
        return f"http://{self.host}:{self.port}/bot"

    @property
    def base_file_url(self) -> str:
        """What to pass to ``ApplicationBuilder.base_file_url``."""
        return f"http://{self.host}:{self.port}/file/bot"

    async def start(self) -> FakeTelegram:
        """Listen on a free port of 127.0.0.1."""
        if self._runner is not None:
            raise RuntimeError("already started")
        self._closing = False
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        runner = web.AppRunner(
            app, handler_cancellation=True, access_log=None, shutdown_timeout=1.0
        )
        await runner.setup()
        site = web.TCPSite(runner, self.host, self._port)
        await site.start()
        self._runner = runner
        self._port = runner.addresses[0][1]
        return self

    async def stop(self) -> None:
        """Release pending long polls and held requests, then close the server."""
        if self._runner is None:
            return
        self._closing = True
        self._notify()
        if self._pusher is not None:
            self._pusher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._pusher
        runner, self._runner = self._runner, None
        await runner.cleanup()

    async def __aenter__(self) -> FakeTelegram:
        return await self.start()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    # ------------------------------------------------------------------ the world

    def add_user(
        self,
        user_id: int,
        first_name: str,
        *,
        username: str | None = None,
        language_code: str | None = "zh-hans",
        last_name: str | None = None,
        started: bool = False,
    ) -> FakeUser:
        """A user, with their (so far silent) private chat whose id is the user id."""
        if user_id <= 0:
            raise ValueError("user ids are positive (group ids are negative)")
        user = FakeUser(
            user_id,
            first_name,
            username=username,
            language_code=language_code,
            last_name=last_name,
            started=started,
        )
        self.users[user_id] = user
        self.chats[user_id] = FakeChat(user_id, "private", user=user)
        return user

    def add_group(
        self,
        chat_id: int,
        title: str,
        *,
        admins: Iterable[int] = (),
        members: Iterable[int] = (),
        owner: int | None = None,
        bot_is_admin: bool = False,
        username: str | None = None,
        chat_type: str | None = None,
    ) -> FakeChat:
        """A group the bot is a member of. ``-100…`` ids are supergroups, other negative ids
        basic groups (override with ``chat_type``). Pinning and deleting others' messages need
        ``bot_is_admin=True``, as on Telegram."""
        if chat_id >= 0:
            raise ValueError("group ids are negative")
        kind = chat_type or ("supergroup" if str(chat_id).startswith("-100") else "group")
        chat = FakeChat(
            chat_id,
            kind,
            title=title,
            username=username,
            owner=owner,
            admins=set(admins),
            members=set(members) | set(admins) | ({owner} if owner else set()),
            bot_is_admin=bot_is_admin,
        )
        self.chats[chat_id] = chat
        return chat

    def user(self, user_id: int) -> FakeUser:
        try:
            return self.users[user_id]
        except KeyError:
            raise KeyError(f"no user {user_id}: call fake.add_user() first") from None

    def chat(self, chat_id: int) -> FakeChat:
        """A chat's state: ``messages``, ``last_message``, ``history``, ``sends``/``edits``."""
        try:
            return self.chats[chat_id]
        except KeyError:
            raise KeyError(
                f"no chat {chat_id}: call fake.add_user() / fake.add_group() first"
            ) from None

    def start_bot(self, user_id: int) -> None:
        """The user has pressed Start (and unblocked the bot): the bot may now message them."""
        user = self.user(user_id)
        user.started = True
        user.blocked = False
        self._notify()

    def block(self, user_id: int) -> None:
        """The user blocks the bot: later messages to them get 403 "bot was blocked by the
        user". Queues the ``my_chat_member`` update Telegram sends."""
        user = self.user(user_id)
        was_member = user.started and not user.blocked
        user.blocked = True
        if was_member:
            self._queue(
                "my_chat_member",
                {
                    "chat": self.chats[user_id].to_api(),
                    "from": user.to_api(),
                    "date": int(time.time()),
                    "old_chat_member": {"status": "member", "user": self._bot_user()},
                    "new_chat_member": {
                        "status": "kicked",
                        "user": self._bot_user(),
                        "until_date": 0,
                    },
                },
            )
        self._notify()

    def join_group(self, user_id: int, chat_id: int) -> None:
        """The user joins the group (``chat_member`` update if the bot is an admin there)."""
        self._change_membership(user_id, chat_id, "member")

    def leave_group(self, user_id: int, chat_id: int) -> None:
        """The user leaves the group (``chat_member`` update if the bot is an admin there)."""
        self._change_membership(user_id, chat_id, "left")

    def ban(self, user_id: int, chat_id: int, *, by: int | None = None) -> None:
        """An admin (``by``, default the user themself) bans the user from the group
        (``chat_member`` update, status "kicked", if the bot is an admin there)."""
        self._change_membership(user_id, chat_id, "kicked", by=by)

    def _change_membership(
        self, user_id: int, chat_id: int, status: str, *, by: int | None = None
    ) -> None:
        chat = self.chat(chat_id)
        if chat.is_private:
            raise ValueError(f"chat {chat_id} is a private chat, not a group")
        user = self.user(user_id).to_api()
        actor = self.user(by).to_api() if by is not None else user
        old = self._member(chat, user_id)
        if status == "member":
            chat.members.add(user_id)
        else:
            chat.members.discard(user_id)
            chat.admins.discard(user_id)
            if chat.owner == user_id:
                chat.owner = None
        # Telegram tells a bot of other people's membership only where it is an admin
        if chat.bot_is_admin:
            new: dict[str, Any] = {"status": status, "user": user}
            if status == "kicked":
                new["until_date"] = 0
            self._queue(
                "chat_member",
                {
                    "chat": chat.to_api(),
                    "from": actor,
                    "date": int(time.time()),
                    "old_chat_member": old,
                    "new_chat_member": new,
                },
            )
        self._notify()

    def delete_message(self, chat_id: int, message_id: int) -> None:
        """A user deletes a message (Telegram tells the bot nothing)."""
        message = self.chat(chat_id).message(message_id)
        if message is None:
            raise KeyError(f"no message {message_id} in chat {chat_id}")
        message.deleted = True
        self._notify()

    def kick_bot(self, chat_id: int) -> None:
        """The bot is removed from a group: sending there gets 403."""
        self.chat(chat_id).bot_member = False
        self._notify()

    # ------------------------------------------------------------------ acting as users

    async def send_text(
        self, user_id: int, chat_id: int, text: str, *, reply_to: int | None = None
    ) -> FakeMessage:
        """The user writes ``text`` in a chat; queues the ``message`` update.

        Commands get their ``bot_command`` entity (``/newgame@CardTestBot 刨王``,
        ``/start payload``); ``/start`` in the private chat marks the user as having started
        the bot (and unblocks it)."""
        user = self.user(user_id)
        chat = self.chat(chat_id)
        if chat.is_private and chat_id != user_id:
            raise ValueError(f"user {user_id} cannot write in the private chat of {chat_id}")
        if not chat.is_private:
            chat.members.add(user_id)
        if chat.is_private and (text == "/start" or text.startswith("/start ")):
            user.started = True
            user.blocked = False
        elif chat.is_private and (not user.started or user.blocked):
            raise ValueError(
                f"user {user_id} has not started the bot (or blocked it): the first thing a "
                "user sends a bot is /start; use send_text(user, user, '/start') or start_bot()"
            )
        entities = [
            {
                "type": "bot_command",
                "offset": formatting.utf16_len(text[: m.start()]),
                "length": formatting.utf16_len(m.group(0)),
            }
            for m in _COMMAND_RE.finditer(text)
        ]
        message = self._new_message(chat, user_id, from_bot=False, text=text, entities=entities)
        if reply_to is not None:
            if chat.message(reply_to) is None:
                raise KeyError(f"no message {reply_to} in chat {chat_id}")
            message.reply_to = reply_to
        self._queue("message", self._message_api(message))
        self._notify()
        return message

    async def press(
        self,
        user_id: int,
        chat_id: int,
        message_id: int | None,
        label: str | Callable[[str], bool] | None = None,
        *,
        data: str | None = None,
        contains: str | None = None,
    ) -> CallbackResult:
        """The user presses a callback button on the message's *current* keyboard.

        Find it by exact ``label``, a label predicate, a ``contains`` substring or exact
        callback ``data`` (the first match wins); ``message_id=None`` means the bot's latest
        visible message in the chat. Await ``result.answered()`` for the bot's answer."""
        chat = self.chat(chat_id)
        message = self._pressable(user_id, chat, message_id)
        if label is None and data is None and contains is None:
            raise ValueError("say which button: label, contains= or data=")
        button = message.find_button(label, data=data, contains=contains)
        if button is None:
            wanted = label if label is not None else (contains or data)
            raise LookupError(
                f"no button {wanted!r} on message {message.message_id} in chat {chat_id}; "
                f"its keyboard is {message.keyboard}"
            )
        if "callback_data" not in button:
            raise ValueError(f"button {button['text']!r} is not a callback button: {button}")
        return self._callback(user_id, chat, message, button["callback_data"])

    async def press_raw(
        self, user_id: int, chat_id: int, message_id: int, data: str
    ) -> CallbackResult:
        """A callback query with arbitrary (forged or stale) data for a message, whatever its
        keyboard shows: for testing that the bot rejects what it did not offer."""
        chat = self.chat(chat_id)
        message = self._pressable(user_id, chat, message_id)
        return self._callback(user_id, chat, message, data)

    def _pressable(self, user_id: int, chat: FakeChat, message_id: int | None) -> FakeMessage:
        self.user(user_id)
        if chat.is_private and chat.id != user_id:
            raise ValueError(f"user {user_id} cannot see the private chat of {chat.id}")
        if message_id is None:
            message = chat.last_message
            if message is None:
                raise LookupError(f"the bot has no visible message in chat {chat.id}")
            return message
        message = chat.message(message_id)
        if message is None:
            raise LookupError(f"no message {message_id} in chat {chat.id}")
        if message.deleted:
            raise LookupError(f"message {message_id} in chat {chat.id} was deleted")
        return message

    def _callback(
        self, user_id: int, chat: FakeChat, message: FakeMessage, data: str
    ) -> CallbackResult:
        if not chat.is_private:
            chat.members.add(user_id)
        query_id = str(4_000_000_000_000_000 + next(self._query_ids) * 7919)
        future: asyncio.Future[CallbackAnswer] = asyncio.get_running_loop().create_future()
        payload = {
            "id": query_id,
            "from": self.user(user_id).to_api(),
            "message": self._message_api(message),
            "chat_instance": str(abs(chat.id) * 31 + 17),
            "data": data,
        }
        update_id = self._queue("callback_query", payload)
        if update_id is None:
            raise RuntimeError(
                f"the bot's allowed_updates {self.allowed_updates} exclude callback_query"
            )
        result = CallbackResult(
            query_id, user_id, chat.id, message.message_id, data, update_id, future, self.clock()
        )
        self.callbacks[query_id] = result
        self._notify()
        return result

    def queue_update(self, kind: str, payload: dict[str, Any]) -> int | None:
        """Queue any other update (``my_chat_member``, ``inline_query``...) as is."""
        update_id = self._queue(kind, payload)
        self._notify()
        return update_id

    # ------------------------------------------------------------------ faults

    def inject(
        self,
        method: str,
        fault: str,
        *,
        times: int = 1,
        chat_id: int | None = None,
        retry_after: int = 1,
        hold: float = 60.0,
        performed: bool = False,
    ) -> Fault:
        """Make the next ``times`` valid calls of ``method`` (to ``chat_id`` if given) fail.

        ``fault``: "429" (with ``retry_after``), "500", "502" (nginx HTML page), "timeout"
        (hold the request ``hold`` seconds, past the client's read timeout, or until the client
        gives up), "drop" (close the connection without answering), "403_blocked", or
        "400_not_found" (the target message is gone: it is marked deleted). With
        ``performed=True`` a "timeout"/"drop" happens *after* the method took effect, the
        way a lost response does. Faults are not rejections: see :attr:`fault_log`."""
        if fault not in FAULTS:
            raise ValueError(f"unknown fault {fault!r}; one of {FAULTS}")
        spec = self.validator.spec.method(method)
        if spec is None:
            raise ValueError(f"{method!r} is not a Bot API method")
        entry = Fault(spec.name, fault, times, chat_id, retry_after, hold, performed)
        self.faults.append(entry)
        return entry

    def clear_faults(self) -> None:
        self.faults.clear()

    def _take_fault(self, method: str, params: dict[str, Any]) -> Fault | None:
        for fault in self.faults:
            if fault.exhausted or fault.method != method:
                continue
            if fault.chat_id is not None and params.get("chat_id") != fault.chat_id:
                continue
            fault.fired += 1
            return fault
        return None

    # ------------------------------------------------------------------ reading state

    def sent_to(self, chat_id: int) -> list[str]:
        """Every text the bot has shown in the chat, sends and edits, oldest first."""
        return self.chat(chat_id).texts

    def calls(self, method: str, *, ok: bool | None = True) -> list[RequestRecord]:
        """The requests of one method (by default only the successful ones)."""
        wanted = method.lower()
        return [
            r for r in self.requests if r.method.lower() == wanted and (ok is None or r.ok == ok)
        ]

    def commands(self, scope: dict[str, Any] | None = None, language_code: str = "") -> list[Any]:
        """The commands the bot set for a scope (default scope) and language."""
        return list(self._commands.get((_scope_key(scope), language_code), []))

    @property
    def pending_updates(self) -> list[dict[str, Any]]:
        """Updates queued and not yet confirmed by the bot's getUpdates offset."""
        return list(self._pending)

    def unanswered_callbacks(self) -> list[CallbackResult]:
        """Presses the bot has not answered (the design says: always answer)."""
        return [c for c in self.callbacks.values() if not c.is_answered]

    def assert_clean(self) -> None:
        """Fail with a readable list if the bot made any request Telegram would refuse or
        exceeded a flood limit."""
        problems = [str(r) for r in self.rejections] + [str(v) for v in self.limit_violations]
        if problems:
            raise AssertionError("the fake Telegram refused requests:\n  " + "\n  ".join(problems))

    # ------------------------------------------------------------------ waiting

    def _notify(self) -> None:
        """Wake every waiter: the state changed. (An Event swapped per change rather than a
        Condition, so synchronous helpers such as block() can notify without a lock.)"""
        event, self._changed = self._changed, asyncio.Event()
        event.set()

    async def wait_for(
        self,
        predicate: Callable[[], Any],
        timeout: float = 10.0,
        *,
        what: str | None = None,
    ) -> Any:
        """Wait until ``predicate()`` is truthy and return its value. It is re-evaluated
        after every handled request and every change a test makes; no polling."""
        try:
            async with asyncio.timeout(timeout):
                while True:
                    changed = self._changed
                    value = predicate()
                    if value:
                        return value
                    await changed.wait()
        except TimeoutError:
            name = what or getattr(predicate, "__qualname__", None) or repr(predicate)
            recent = "\n  ".join(
                f"{r.method} {r.status} {_brief(r.params)}" for r in self.requests[-8:]
            )
            refused = "\n  ".join(str(r) for r in self.rejections[-3:])
            raise TimeoutError(
                f"timed out after {timeout}s waiting for {name}; last requests:\n  {recent}"
                + (f"\nlast rejections:\n  {refused}" if refused else "")
            ) from None

    async def wait_for_message(
        self,
        chat_id: int,
        *,
        contains: str | None = None,
        predicate: Callable[[FakeMessage], bool] | None = None,
        timeout: float = 10.0,
    ) -> FakeMessage:
        """The newest visible bot message in the chat whose current text contains
        ``contains`` and/or satisfies ``predicate``, once there is one."""

        def find() -> FakeMessage | None:
            for message in reversed(self.chat(chat_id).bot_messages):
                shown = message.text if message.text is not None else (message.caption or "")
                if contains is not None and contains not in shown:
                    continue
                if predicate is not None and not predicate(message):
                    continue
                return message
            return None

        what = f"a bot message in chat {chat_id}" + (
            f" containing {contains!r}" if contains else ""
        )
        return await self.wait_for(find, timeout, what=what)

    async def wait_for_request(
        self,
        method: str,
        *,
        where: Callable[[RequestRecord], bool] | None = None,
        since: int = 0,
        ok: bool | None = True,
        timeout: float = 10.0,
    ) -> RequestRecord:
        """The first finished request of ``method`` at index ``since`` or later of
        :attr:`requests` (take ``since = len(fake.requests)`` before acting)."""
        wanted = method.lower()

        def find() -> RequestRecord | None:
            for record in self.requests[since:]:
                if record.method.lower() != wanted or record.status is None:
                    continue
                if ok is not None and record.ok != ok:
                    continue
                if where is None or where(record):
                    return record
            return None

        return await self.wait_for(find, timeout, what=f"a {method} request")

    # ------------------------------------------------------------------ HTTP

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        match = re.fullmatch(r"/bot([^/]+)/([^/]*)", request.path)
        if match is None:
            return web.json_response(_NOT_FOUND, status=404)
        token, method_name = match.groups()
        record = RequestRecord(method=method_name, raw={}, time=self.clock())
        self.requests.append(record)
        self._notify()  # waiters may watch for requests in flight (status None)
        try:
            response = await self._dispatch(request, token, method_name, record)
        except asyncio.CancelledError:
            record.status = None  # the client went away (e.g. PTB cancelled a long poll)
            self._notify()
            raise
        self._notify()
        return response

    async def _dispatch(
        self, request: web.Request, token: str, method_name: str, record: RequestRecord
    ) -> web.StreamResponse:
        """Validate, apply faults and flood limits, run the method; record everything."""
        try:
            record.raw = await self._read_params(request)
            if token != self.token:
                raise ApiError(401, "Unauthorized", kind="bad_token")
            method, params = self.validator.validate_request(method_name, record.raw)
            record.method, record.params = method.name, params
            chat_id = self._flood_chat(params)
            record.chat_id = chat_id
            fault = self._take_fault(method.name, params)
            if fault is not None:
                record.fault = fault.kind
                self.fault_log.append(record)
                response = await self._fault(fault, method.name, params, request)
                record.status = response.status
                return response
            counted = _counts(method.name)
            if counted:
                self._flood_gate(method.name, chat_id)
            result = self._run(method.name, params)
            if inspect.isawaitable(result):
                result = await result
            if counted:
                self.flood.record(chat_id, self.clock())
            status, body = 200, {"ok": True, "result": result}
        except ApiError as err:
            status, body = err.status, err.payload()
            self._record_error(record, err)
        record.status, record.response = status, body
        return web.json_response(body, status=status, dumps=_dumps)

    def _run(self, method: str, params: dict[str, Any]) -> Any:
        handler = self._handlers.get(method)
        return handler(params) if handler is not None else self._generic(params, method)

    async def _read_params(self, request: web.Request) -> dict[str, Any]:
        """Query string plus body: urlencoded or multipart form, or a JSON object."""
        params: dict[str, Any] = dict(request.query)
        if not request.can_read_body:
            return params
        if request.content_type == "application/json":
            try:
                data = json.loads(await request.read() or b"{}")
            except ValueError:
                raise bad_request("can't parse JSON object", kind="wrong_type") from None
            if not isinstance(data, dict):
                raise bad_request("JSON object expected", kind="wrong_type")
            for key, value in data.items():
                if value is not None:
                    params[key] = value if isinstance(value, str) else json.dumps(value)
            return params
        if request.content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
            form = await request.post()
            for key, value in form.items():
                if isinstance(value, web.FileField):
                    params[key] = Upload(key, value.filename, value.content_type, value.file.read())
                else:
                    params[key] = value
        return params

    def _record_error(self, record: RequestRecord, err: ApiError) -> None:
        entry = Rejection(
            record.method, err.status, err.description, err.kind, record.raw, record.time
        )
        query = self.callbacks.get(str(record.raw.get("callback_query_id", "")))
        if record.method == "answerCallbackQuery" and query is not None:
            query.refused.append(err.description)
        if record.fault is not None or err.kind == "flood":
            return
        if err.kind == "forbidden":
            self.forbidden.append(entry)
        elif err.kind == "conflict" and err.description.startswith("Conflict: terminated"):
            self.conflicts.append(entry)
        else:
            self.rejections.append(entry)

    async def _fault(
        self, fault: Fault, method: str, params: dict[str, Any], request: web.Request
    ) -> web.StreamResponse:
        """Apply an injected fault: raise its ApiError or return the response to send."""
        if fault.kind == "429":
            raise ApiError(
                429,
                f"Too Many Requests: retry after {fault.retry_after}",
                kind="fault",
                retry_after=fault.retry_after,
            )
        if fault.kind == "500":
            raise ApiError(500, "Internal Server Error", kind="fault")
        if fault.kind == "502":
            return web.Response(status=502, text=_BAD_GATEWAY_HTML, content_type="text/html")
        if fault.kind == "403_blocked":
            raise ApiError(403, "Forbidden: bot was blocked by the user", kind="fault")
        if fault.kind == "400_not_found":
            chat = self.chats.get(params.get("chat_id"))  # type: ignore[arg-type]
            message = chat.message(params.get("message_id", 0)) if chat else None
            if message is not None:
                message.deleted = True
            raise ApiError(400, f"Bad Request: {_not_found_text(method)}", kind="fault")
        if fault.performed:
            with_effect = self._run(method, params)
            if inspect.isawaitable(with_effect):
                await with_effect
            self._notify()
        if fault.kind == "drop":
            if request.transport is not None:
                request.transport.close()
            return web.Response(status=499)
        # "timeout": hold past the client's read timeout (or until it gives up, which cancels
        # this handler, or until the fake stops)
        try:
            async with asyncio.timeout(fault.hold):
                while not self._closing:
                    await self._changed.wait()
        except TimeoutError:
            pass
        return web.json_response(
            {"ok": False, "error_code": 504, "description": "Gateway Timeout"}, status=504
        )

    # ------------------------------------------------------------------ flood limits

    def _flood_chat(self, params: dict[str, Any]) -> int | None:
        chat_id = params.get("chat_id")
        if isinstance(chat_id, str):
            chat = self._find_chat(chat_id)
            return chat.id if chat else None
        return chat_id if isinstance(chat_id, int) else None

    def _flood_gate(self, method: str, chat_id: int | None) -> None:
        now = self.clock()
        over = self.flood.check(chat_id, now)
        if not over:
            return
        retry_after = max(wait for _, _, wait in over)
        for scope, window, wait in over:
            self.limit_violations.append(
                LimitViolation(method, chat_id, scope, window.limit, window.period, wait, now)
            )
        if self.enforce_limits:
            raise ApiError(
                429,
                f"Too Many Requests: retry after {retry_after}",
                kind="flood",
                retry_after=retry_after,
            )

    # ------------------------------------------------------------------ helpers

    def _bot_user(self, full: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.bot_id,
            "is_bot": True,
            "first_name": self.bot_name,
            "username": self.bot_username,
        }
        if full:
            data.update(
                can_join_groups=True,
                can_read_all_group_messages=False,
                supports_inline_queries=False,
                can_connect_to_business=False,
                has_main_web_app=False,
            )
        return data

    def _queue(self, kind: str, payload: dict[str, Any]) -> int | None:
        """Queue an update unless the bot's allowed_updates exclude it."""
        allowed = self.allowed_updates
        if (allowed and kind not in allowed) or (not allowed and kind in DEFAULT_EXCLUDED_UPDATES):
            self.dropped_updates.append({kind: payload})
            return None
        update_id = next(self._update_ids)
        self._pending.append({"update_id": update_id, kind: payload})
        return update_id

    def _find_chat(self, chat_ref: Any) -> FakeChat | None:
        if isinstance(chat_ref, int):
            return self.chats.get(chat_ref)
        if isinstance(chat_ref, str):
            if re.fullmatch(r"-?\d+", chat_ref):
                return self.chats.get(int(chat_ref))
            name = chat_ref.removeprefix("@").lower()
            for chat in self.chats.values():
                handle = chat.user.username if chat.user else chat.username
                if handle and handle.lower() == name:
                    return chat
        return None

    def _chat(self, params: dict[str, Any]) -> FakeChat:
        chat = self._find_chat(params.get("chat_id"))
        if chat is None:
            raise bad_request("chat not found", kind="not_found")
        return chat

    def _writable(self, chat: FakeChat) -> None:
        """403 if the bot may not post in the chat."""
        if chat.is_private:
            assert chat.user is not None
            if chat.user.blocked:
                raise forbidden("bot was blocked by the user")
            if not chat.user.started:
                raise forbidden("bot can't initiate conversation with a user")
        elif not chat.bot_member:
            raise forbidden(
                "bot was kicked from the supergroup chat"
                if chat.type == "supergroup"
                else "bot was kicked from the group chat"
            )

    def _new_message(
        self, chat: FakeChat, sender_id: int, *, from_bot: bool, **fields: Any
    ) -> FakeMessage:
        message = FakeMessage(
            chat_id=chat.id,
            message_id=chat.next_message_id,
            sender_id=sender_id,
            from_bot=from_bot,
            date=int(time.time()),
            **fields,
        )
        chat.next_message_id += 1
        shown = message.text if message.text is not None else message.caption
        if shown is not None:
            message.versions.append(shown)
        return chat.add_message(message)

    def _message_api(self, message: FakeMessage, *, nested: bool = False) -> dict[str, Any]:
        chat = self.chats[message.chat_id]
        sender = self._bot_user() if message.from_bot else self.users[message.sender_id].to_api()
        data: dict[str, Any] = {
            "message_id": message.message_id,
            "from": sender,
            "chat": chat.to_api(),
            "date": message.date,
        }
        if message.edit_date is not None:
            data["edit_date"] = message.edit_date
        if message.reply_to is not None and not nested:
            replied = chat.message(message.reply_to)
            if replied is not None and not replied.deleted:
                data["reply_to_message"] = self._message_api(replied, nested=True)
        if message.text is not None:
            data["text"] = message.text
            if message.entities:
                data["entities"] = message.entities
        if message.caption is not None:
            data["caption"] = message.caption
            if message.caption_entities:
                data["caption_entities"] = message.caption_entities
        if message.kind == "sendPhoto":
            width, height = message.photo_size or (0, 0)
            data["photo"] = [
                {
                    "file_id": f"photo-{message.chat_id}-{message.message_id}",
                    "file_unique_id": f"p{message.chat_id}x{message.message_id}",
                    "width": width,
                    "height": height,
                    "file_size": len(message.photo or b""),
                }
            ]
        if message.reply_markup:
            data["reply_markup"] = message.reply_markup
        return data

    def _text(
        self,
        params: dict[str, Any],
        *,
        key: str = "text",
        mode_key: str = "parse_mode",
        entities_key: str = "entities",
        limit: int = 4096,
        what: str = "message text",
    ) -> tuple[str, list[dict[str, Any]]]:
        """Parse a text parameter and apply the prose limits (1-``limit`` characters after
        entity parsing, or 0-``limit`` for captions)."""
        raw = params.get(key, "")
        if entities_key in params:
            text, entities = formatting.trim(raw, params[entities_key])
            total = formatting.utf16_len(raw)
            for entity in params[entities_key]:
                if entity["offset"] + entity["length"] > total:
                    raise bad_request(
                        f"entity {entity} is beyond the end of the text", kind="prose_limit"
                    )
        else:
            try:
                text, entities = formatting.parse(raw, params.get(mode_key))
            except formatting.EntityParseError as err:
                raise bad_request(f"can't parse entities: {err}", kind="parse_entities") from None
            except ValueError:
                raise bad_request("unsupported parse_mode", kind="prose_limit") from None
        if what == "message text" and not text:
            raise bad_request("message text is empty", kind="prose_limit")
        if len(text) > limit:
            raise bad_request(
                "message is too long" if what == "message text" else "message caption is too long",
                kind="prose_limit",
            )
        return text, entities

    def _inline_markup(self, params: dict[str, Any]) -> dict[str, Any] | None:
        """The inline keyboard a message will show (reply keyboards do not show on it).

        Telegram refuses ``web_app`` buttons outside private chats and any web_app or URL
        button whose address it would not open."""
        markup = params.get("reply_markup")
        if isinstance(markup, dict) and "inline_keyboard" in markup:
            if not any(markup["inline_keyboard"]):
                return None
            chat = self._find_chat(params.get("chat_id")) if "chat_id" in params else None
            for row in markup["inline_keyboard"]:
                for button in row:
                    _check_button(button, private=chat is None or chat.is_private)
            return {"inline_keyboard": [row for row in markup["inline_keyboard"] if row]}
        return None

    def _reply_to(self, chat: FakeChat, params: dict[str, Any]) -> int | None:
        reply = params.get("reply_parameters")
        if not reply:
            return None
        if reply.get("chat_id") not in (None, chat.id):
            return None
        target = chat.message(reply["message_id"])
        if target is None or target.deleted:
            if reply.get("allow_sending_without_reply"):
                return None
            raise bad_request("message to be replied not found", kind="not_found")
        return target.message_id

    def _editable(self, params: dict[str, Any]) -> tuple[FakeChat, FakeMessage]:
        if "chat_id" not in params or "message_id" not in params:
            raise bad_request("message identifier is not specified", kind="missing_parameter")
        chat = self._chat(params)
        self._writable(chat)
        message = chat.message(params["message_id"])
        if message is None or message.deleted:
            raise bad_request("message to edit not found", kind="not_found")
        if not message.from_bot:
            raise bad_request("message can't be edited", kind="state")
        return chat, message

    def _record_edit(self, chat: FakeChat, message: FakeMessage) -> None:
        message.edit_count += 1
        message.edit_date = int(time.time())
        chat.edits += 1
        shown = message.text if message.text is not None else message.caption
        if shown is not None:
            message.versions.append(shown)
            chat.history.append(
                TextVersion(message.message_id, shown, "edit", self.clock(), message.reply_markup)
            )

    # ------------------------------------------------------------------ methods

    def _get_me(self, params: dict[str, Any]) -> Any:
        return self._bot_user(full=True)

    async def _get_updates(self, params: dict[str, Any]) -> Any:
        if self.webhook is not None:
            raise ApiError(
                409,
                "Conflict: can't use getUpdates method while webhook is active; use "
                "deleteWebhook to delete the webhook first",
                kind="conflict",
            )
        if "allowed_updates" in params:
            self.allowed_updates = list(params["allowed_updates"])
        offset = params.get("offset", 0)
        if offset > 0:
            self._pending = [u for u in self._pending if u["update_id"] >= offset]
        elif offset < 0:
            self._pending = self._pending[offset:]
        limit = params.get("limit", 100)
        timeout = max(0, params.get("timeout", 0))
        self._poll_generation += 1
        generation = self._poll_generation
        self._notify()  # an older long poll is terminated by this one
        try:
            async with asyncio.timeout(timeout):
                while not self._pending and not self._closing:
                    changed = self._changed
                    await changed.wait()
                    if self._poll_generation != generation:
                        raise ApiError(
                            409,
                            "Conflict: terminated by other getUpdates request; make sure that "
                            "only one bot instance is running",
                            kind="conflict",
                        )
        except TimeoutError:
            pass
        return self._pending[:limit]

    def _delete_webhook(self, params: dict[str, Any]) -> Any:
        self.webhook = None
        if params.get("drop_pending_updates"):
            self._pending.clear()
        return True

    def _set_webhook(self, params: dict[str, Any]) -> Any:
        url = params["url"]
        if not url:
            return self._delete_webhook(params)
        if not url.startswith("https://"):
            raise bad_request("bad webhook: An HTTPS URL must be provided for webhook")
        secret = params.get("secret_token")
        if secret is not None and not re.fullmatch(r"[A-Za-z0-9_-]{1,256}", str(secret)):
            raise bad_request("bad webhook: secret token contains unallowed characters")
        self.webhook = dict(params)
        if "allowed_updates" in params:
            self.allowed_updates = list(params["allowed_updates"])
        if params.get("drop_pending_updates"):
            self._pending.clear()
        if self._pusher is None or self._pusher.done():
            self._pusher = asyncio.get_running_loop().create_task(self._push_updates())
        return True

    async def _push_updates(self) -> None:
        """Deliver pending updates to :attr:`webhook_target` one at a time, as Telegram does:
        path and query of the registered URL, its secret in
        ``X-Telegram-Bot-Api-Secret-Token``; an update is dropped from the queue once the bot
        answers 2xx, and tried again a moment later otherwise."""
        async with aiohttp.ClientSession() as session:
            while not self._closing and self.webhook is not None:
                if not self._pending or self.webhook_target is None:
                    changed = self._changed
                    await changed.wait()
                    continue
                update = self._pending[0]
                registered = urlsplit(self.webhook["url"])
                target = self.webhook_target.rstrip("/") + registered.path
                if registered.query:
                    target += "?" + registered.query
                headers = {}
                if self.webhook.get("secret_token"):
                    headers["X-Telegram-Bot-Api-Secret-Token"] = str(self.webhook["secret_token"])
                try:
                    async with session.post(target, json=update, headers=headers) as response:
                        status = response.status
                except aiohttp.ClientError:
                    status = 0
                self.webhook_deliveries.append((update["update_id"], status))
                if 200 <= status < 300:
                    if self._pending and self._pending[0] is update:
                        self._pending.pop(0)
                else:
                    await asyncio.sleep(0.2)

    def _get_webhook_info(self, params: dict[str, Any]) -> Any:
        info: dict[str, Any] = {
            "url": (self.webhook or {}).get("url", ""),
            "has_custom_certificate": False,
            "pending_update_count": len(self._pending),
        }
        if self.webhook and self.webhook.get("allowed_updates") is not None:
            info["allowed_updates"] = self.webhook["allowed_updates"]
        return info

    def _set_my_commands(self, params: dict[str, Any]) -> Any:
        key = (_scope_key(params.get("scope")), params.get("language_code", ""))
        self._commands[key] = list(params["commands"])
        return True

    def _send_message(self, params: dict[str, Any]) -> Any:
        chat = self._chat(params)
        text, entities = self._text(params)
        self._writable(chat)
        reply_to = self._reply_to(chat, params)
        message = self._new_message(
            chat,
            self.bot_id,
            from_bot=True,
            text=text,
            entities=entities,
            reply_markup=self._inline_markup(params),
            reply_to=reply_to,
        )
        chat.sends += 1
        chat.history.append(
            TextVersion(message.message_id, text, "send", self.clock(), message.reply_markup)
        )
        return self._message_api(message)

    def _edit_message_text(self, params: dict[str, Any]) -> Any:
        if "text" not in params and "rich_message" not in params:
            raise bad_request("message text is empty", kind="missing_parameter")
        if "inline_message_id" in params:
            if "text" in params:
                self._text(params)
            return True
        chat, message = self._editable(params)
        if message.text is None:
            raise bad_request("there is no text in the message to edit")
        if "text" not in params:  # a rich_message edit: not modelled, accepted as is
            return self._message_api(message)
        text, entities = self._text(params)
        markup = self._inline_markup(params)
        if (text, entities, markup) == (message.text, message.entities, message.reply_markup):
            raise bad_request(
                "message is not modified: specified new message content and reply markup are "
                "exactly the same as a current content and reply markup of the message",
                kind="not_modified",
            )
        message.text, message.entities, message.reply_markup = text, entities, markup
        self._record_edit(chat, message)
        return self._message_api(message)

    def _edit_message_reply_markup(self, params: dict[str, Any]) -> Any:
        if "inline_message_id" in params:
            return True
        chat, message = self._editable(params)
        markup = self._inline_markup(params)
        if markup == message.reply_markup:
            raise bad_request(
                "message is not modified: specified new message content and reply markup are "
                "exactly the same as a current content and reply markup of the message",
                kind="not_modified",
            )
        message.reply_markup = markup
        message.edit_count += 1
        message.edit_date = int(time.time())
        chat.edits += 1
        return self._message_api(message)

    def _deletable(self, chat: FakeChat, message_id: int) -> FakeMessage | None:
        message = chat.message(message_id)
        if message is None or message.deleted:
            return None
        if not message.from_bot and not chat.is_private and not chat.bot_is_admin:
            raise bad_request("message can't be deleted", kind="state")
        return message

    def _delete_message(self, params: dict[str, Any]) -> Any:
        chat = self._chat(params)
        message = self._deletable(chat, params["message_id"])
        if message is None:
            raise bad_request("message to delete not found", kind="not_found")
        message.deleted = True
        chat.deletes += 1
        return True

    def _answer_callback_query(self, params: dict[str, Any]) -> Any:
        text = params.get("text")
        if text is not None and len(text) > 200:
            raise bad_request(
                f"MESSAGE_TOO_LONG: callback answer text is {len(text)} characters, at most 200",
                kind="prose_limit",
            )
        query = self.callbacks.get(params["callback_query_id"])
        expired = (
            query is not None
            and self.callback_query_ttl is not None
            and self.clock() - query.created > self.callback_query_ttl
        )
        if query is None or query.is_answered or expired:
            raise bad_request(_QUERY_TOO_OLD, kind="not_found")
        query._future.set_result(
            CallbackAnswer(
                text=text,
                show_alert=bool(params.get("show_alert", False)),
                url=params.get("url"),
                cache_time=params.get("cache_time"),
            )
        )
        return True

    def _member(self, chat: FakeChat, user_id: int) -> dict[str, Any]:
        if user_id == self.bot_id:
            user = self._bot_user()
            if chat.is_private or not chat.bot_member:
                return {"status": "member" if chat.bot_member else "left", "user": user}
            return _admin(user) if chat.bot_is_admin else {"status": "member", "user": user}
        if user_id not in self.users:
            raise bad_request("user not found", kind="not_found")
        user = self.users[user_id].to_api()
        if chat.is_private:
            return {"status": "member" if user_id == chat.id else "left", "user": user}
        if user_id == chat.owner:
            return {"status": "creator", "user": user, "is_anonymous": False}
        if user_id in chat.admins:
            return _admin(user)
        if user_id in chat.members:
            return {"status": "member", "user": user}
        return {"status": "left", "user": user}

    def _get_chat_member(self, params: dict[str, Any]) -> Any:
        return self._member(self._chat(params), params["user_id"])

    def _close(self, params: dict[str, Any]) -> Any:
        self.closed = True
        return True

    def _send_photo(self, params: dict[str, Any]) -> Any:
        """sendPhoto: the generic send, plus the picture. An upload must be an image
        Telegram can process (PNG or JPEG here) within its limits: at most 10 MB, width and
        height together at most 10,000 px, a ratio of at most 20; the fake keeps its bytes
        (``FakeMessage.photo``). A file_id or URL is taken as it is."""
        photo = params["photo"]
        size: tuple[int, int] | None = None
        data: bytes | None = None
        if isinstance(photo, Upload):
            data = photo.data
            if len(data) > PHOTO_MAX_BYTES:
                raise bad_request("file is too big", kind="prose_limit")
            size = image_size(data)
            if size is None:
                raise bad_request("IMAGE_PROCESS_FAILED", kind="wrong_type")
            width, height = size
            if (
                min(width, height) <= 0
                or width + height > PHOTO_MAX_SIDES
                or max(width, height) > PHOTO_MAX_RATIO * min(width, height)
            ):
                raise bad_request("PHOTO_INVALID_DIMENSIONS", kind="prose_limit")
        result = self._generic(params, "sendPhoto")
        message = self._chat(params).message(result["message_id"])
        assert message is not None
        message.photo, message.photo_size = data, size
        return self._message_api(message)

    def _generic(self, params: dict[str, Any], method: str) -> Any:
        """Any other method: validated already; send methods create a message so PTB gets
        the Message it expects, everything else answers True."""
        spec = self.validator.spec.method(method)
        returns = spec.returns if spec else ()
        if returns == ("Message",) and "chat_id" in params and not method.startswith("edit"):
            chat = self._chat(params)
            self._writable(chat)
            caption: str | None = None
            entities: list[dict[str, Any]] = []
            if "caption" in params:
                caption, entities = self._text(
                    params,
                    key="caption",
                    entities_key="caption_entities",
                    limit=1024,
                    what="caption",
                )
            message = self._new_message(
                chat,
                self.bot_id,
                from_bot=True,
                caption=caption or None,
                caption_entities=entities,
                reply_markup=self._inline_markup(params),
                kind=method,
                reply_to=self._reply_to(chat, params),
            )
            chat.sends += 1
            if caption:
                chat.history.append(TextVersion(message.message_id, caption, "send", self.clock()))
            return self._message_api(message)
        return True


#: Telegram's limits for a photo upload (sendPhoto)
PHOTO_MAX_BYTES = 10 * 1024 * 1024
PHOTO_MAX_SIDES = 10_000
PHOTO_MAX_RATIO = 20


def image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) of a PNG or baseline/progressive JPEG, or None if it is neither."""
    if data.startswith(b"\x89PNG\r\n\x1a\n") and data[12:16] == b"IHDR" and len(data) >= 24:
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if data.startswith(b"\xff\xd8"):
        at = 2
        while at + 9 <= len(data) and data[at] == 0xFF:
            marker, length = data[at + 1], int.from_bytes(data[at + 2 : at + 4], "big")
            if marker in (0xC0, 0xC1, 0xC2):  # start of frame: height, then width
                height = int.from_bytes(data[at + 5 : at + 7], "big")
                return int.from_bytes(data[at + 7 : at + 9], "big"), height
            at += 2 + length
    return None


def _admin(user: dict[str, Any]) -> dict[str, Any]:
    return {
        "status": "administrator",
        "user": user,
        "can_be_edited": False,
        "is_anonymous": False,
        "can_manage_chat": True,
        "can_delete_messages": True,
        "can_manage_video_chats": True,
        "can_restrict_members": True,
        "can_promote_members": False,
        "can_change_info": True,
        "can_invite_users": True,
        "can_post_stories": False,
        "can_edit_stories": False,
        "can_delete_stories": False,
        "can_pin_messages": True,
    }


def _scope_key(scope: dict[str, Any] | None) -> str:
    return json.dumps(scope or {"type": "default"}, sort_keys=True)


def _not_found_text(method: str) -> str:
    if method.startswith("edit"):
        return "message to edit not found"
    if method.startswith("delete"):
        return "message to delete not found"
    if method.startswith("pin"):
        return "message to pin not found"
    return "chat not found"


def _brief(params: dict[str, Any]) -> str:
    text = json.dumps(params, ensure_ascii=False, default=str)
    return text if len(text) <= 120 else text[:117] + "..."


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
