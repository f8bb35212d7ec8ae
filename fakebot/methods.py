"""The Bot API methods the fake implements, and the generic answer for every other one."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any

from fakebot.errors import bad_request
from fakebot.messages import MessagesMixin
from fakebot.models import CallbackAnswer, FakeChat, FakeMessage, TextVersion
from fakebot.spec import Upload
from fakebot.state import scope_key
from fakebot.updates import UpdatesMixin

_QUERY_TOO_OLD = "query is too old and response timeout expired or query ID is invalid"


class MethodsMixin(UpdatesMixin, MessagesMixin):
    """Bot API methods by name: messages sent, edited, deleted; callback answers; members."""

    # built on first use rather than in the constructor: FakeState's constructor knows no
    # mixin's methods
    @functools.cached_property
    def _handlers(self) -> dict[str, Callable[[dict[str, Any]], Any]]:
        return {
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

    def _run(self, method: str, params: dict[str, Any]) -> Any:
        handler = self._handlers.get(method)
        return handler(params) if handler is not None else self._generic(params, method)

    def _get_me(self, params: dict[str, Any]) -> Any:
        return self._bot_user(full=True)

    def _set_my_commands(self, params: dict[str, Any]) -> Any:
        key = (scope_key(params.get("scope")), params.get("language_code", ""))
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
