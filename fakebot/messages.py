"""Messages as the Bot API checks and shows them: text and entities, keyboards, replies, edits."""

from __future__ import annotations

import time
from typing import Any

from fakebot import formatting
from fakebot.errors import bad_request, forbidden
from fakebot.models import FakeChat, FakeMessage, TextVersion
from fakebot.state import FakeState


def _check_button(button: dict[str, Any], *, private: bool) -> None:
    web_app = button.get("web_app")
    if web_app is not None:
        if not private:
            raise bad_request("BUTTON_TYPE_INVALID", kind="state")
        if not str(web_app.get("url", "")).startswith("https://"):
            raise bad_request("BUTTON_URL_INVALID", kind="prose_limit")


class MessagesMixin(FakeState):
    """What the message methods share: who may post, a new message, its API form, its checks."""

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
