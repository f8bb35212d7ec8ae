"""The world a test sets up and changes: users, groups, membership, blocks, kicks."""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from fakebot.models import FakeChat, FakeUser
from fakebot.updates import UpdatesMixin


class WorldMixin(UpdatesMixin):
    """Users and groups, and what they do that the bot is told of (or not)."""

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
