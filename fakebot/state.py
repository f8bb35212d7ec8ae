"""What the fake Telegram knows (users, chats, queued updates, requests) and how it is looked up."""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import time
from typing import Any

from aiohttp import web

from fakebot.errors import bad_request
from fakebot.limits import Clock, FloodControl
from fakebot.models import (
    CallbackResult,
    FakeChat,
    FakeUser,
    Fault,
    LimitViolation,
    Rejection,
    RequestRecord,
)
from fakebot.spec import ApiSpec
from fakebot.validator import Validator


class FakeState:
    """The state every part of :class:`fakebot.server.FakeTelegram` reads and changes; the
    parts are mixins over it, one concern each."""

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

    def _notify(self) -> None:
        """Wake every waiter: the state changed. (An Event swapped per change rather than a
        Condition, so synchronous helpers such as block() can notify without a lock.)"""
        event, self._changed = self._changed, asyncio.Event()
        event.set()

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


def scope_key(scope: dict[str, Any] | None) -> str:
    return json.dumps(scope or {"type": "default"}, sort_keys=True)
