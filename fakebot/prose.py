"""The limits the Bot API documentation states only in prose: buttons, keyboards, commands..."""

from __future__ import annotations

import re
from typing import Any

from fakebot.errors import Mismatch, bad_request

#: Inline keyboard button fields that do not select the button's action.
_BUTTON_DECORATION = frozenset({"text", "icon_custom_emoji_id", "style"})

_COMMAND_RE = re.compile(r"^[a-z0-9_]{1,32}$")


def type_rules(
    type_name: str, value: dict[str, Any], path: str, entity_types: frozenset[str]
) -> None:
    """Limits the documentation states in prose for object types (``entity_types``: the
    MessageEntity types the spec names)."""
    if type_name == "InlineKeyboardButton":
        _check_button(value, path)
    elif type_name == "InlineKeyboardMarkup":
        count = sum(len(row) for row in value["inline_keyboard"])
        if count > 100:
            raise Mismatch(
                path,
                "",
                kind="prose_limit",
                description=f"reply markup is too long: {count} buttons, at most 100",
            )
    elif type_name == "BotCommand":
        if not _COMMAND_RE.match(value["command"]):
            raise Mismatch(
                path,
                "",
                kind="prose_limit",
                description=f"BOT_COMMAND_INVALID: {value['command']!r} (1-32 characters, "
                "lowercase English letters, digits and underscores)",
            )
        if not 1 <= len(value["description"]) <= 256:
            raise Mismatch(
                path,
                "",
                kind="prose_limit",
                description="BOT_COMMAND_DESCRIPTION_INVALID: a command description has "
                "1-256 characters",
            )
    elif type_name == "MessageEntity":
        allowed = entity_types
        if allowed and value["type"] not in allowed:
            raise Mismatch(
                f"{path}.type" if path else "type",
                f"unknown entity type {value['type']!r}",
            )
        if value["offset"] < 0 or value["length"] < 0:
            raise Mismatch(path, "entity offset and length must not be negative")


def method_rules(method: str, params: dict[str, Any]) -> None:
    """Limits the documentation states in prose for method parameters (text limits need
    entity parsing and are checked by the server)."""
    if method == "setMyCommands" and len(params["commands"]) > 100:
        raise bad_request("too many commands: at most 100", kind="prose_limit")
    if method == "getUpdates" and "limit" in params and not 1 <= params["limit"] <= 100:
        raise bad_request("limit must be between 1 and 100", kind="prose_limit")
    if method == "sendChatAction" and params["action"] not in CHAT_ACTIONS:
        raise bad_request("wrong parameter action in request", kind="prose_limit")


CHAT_ACTIONS = frozenset(
    {
        "typing",
        "upload_photo",
        "record_video",
        "upload_video",
        "record_voice",
        "upload_voice",
        "upload_document",
        "choose_sticker",
        "find_location",
        "record_video_note",
        "upload_video_note",
    }
)


def _check_button(button: dict[str, Any], path: str) -> None:
    if not button["text"]:
        raise Mismatch(path, "", kind="prose_limit", description="BUTTON_TEXT_INVALID: empty")
    actions = [k for k in button if k not in _BUTTON_DECORATION]
    if not actions:
        raise Mismatch(
            path,
            "",
            kind="prose_limit",
            description="can't parse inline keyboard button: Text buttons are unallowed in the "
            f"inline keyboard (button {button['text']!r} at {path or 'top'})",
        )
    if len(actions) > 1:
        raise Mismatch(
            path,
            "",
            kind="prose_limit",
            description=f"can't parse inline keyboard button: exactly one of the optional fields "
            f"must be used, got {', '.join(sorted(actions))} (button {button['text']!r})",
        )
    data = button.get("callback_data")
    if data is not None and not 1 <= len(data.encode("utf-8")) <= 64:
        raise Mismatch(
            path,
            "",
            kind="prose_limit",
            description=f"BUTTON_DATA_INVALID: callback_data must be 1-64 bytes, "
            f"{data!r} is {len(data.encode('utf-8'))} (button {button['text']!r})",
        )
    url = button.get("url")
    if url is not None and not _valid_button_url(url):
        raise Mismatch(
            path,
            "",
            kind="prose_limit",
            description=f"inline keyboard button URL {url!r} is invalid: Wrong HTTP URL",
        )


def _valid_button_url(url: str) -> bool:
    if not url or any(c.isspace() for c in url):
        return False
    match = re.match(r"^([a-zA-Z][a-zA-Z0-9+.-]*)://(.*)$", url)
    if match:
        scheme, rest = match.group(1).lower(), match.group(2)
        return scheme in ("http", "https", "tg") and bool(rest)
    return "." in url.split("/", 1)[0]  # "t.me/bot": Telegram adds the scheme
