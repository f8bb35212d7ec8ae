"""The test acting as users: messages typed, buttons pressed, callback queries made."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable

from fakebot import formatting
from fakebot.messages import MessagesMixin
from fakebot.models import CallbackAnswer, CallbackResult, FakeChat, FakeMessage
from fakebot.updates import UpdatesMixin

_COMMAND_RE = re.compile(r"(?<!\S)/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{3,32})?(?![\w@])")


class ActingMixin(UpdatesMixin, MessagesMixin):
    """What users do that becomes an update: a text, a press."""

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
