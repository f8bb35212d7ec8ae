"""The error the fake Bot API answers with, shaped like Telegram's.

Every failure inside the fake is raised as :class:`ApiError` and turned into Telegram's JSON
envelope in one place, so that what PTB sees (status code, ``description``,
``parameters.retry_after``) is the same whichever check produced it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: The kinds of rejection: tests can filter :attr:`FakeTelegram.rejections` by them.
KINDS = (
    "bad_token",  # 401: the token in the URL is not the fake's
    "unknown_method",  # 404: not a Bot API method
    "unknown_parameter",  # a parameter the spec does not list for the method
    "missing_parameter",  # a required parameter is absent
    "wrong_type",  # a value does not have the spec's type (recursively inside objects)
    "prose_limit",  # limits the spec states in prose: text length, callback_data bytes...
    "parse_entities",  # malformed HTML / MarkdownV2 / Markdown
    "not_modified",  # an edit that changes nothing
    "not_found",  # chat, message or callback query that does not exist
    "state",  # anything else the current state forbids (rights, webhook set...)
    "forbidden",  # 403: user never started the bot, blocked it, bot kicked
    "flood",  # 429: over a flood limit
    "conflict",  # 409: concurrent getUpdates
    "fault",  # injected by the test with FakeTelegram.inject()
)


class ApiError(Exception):
    """A Bot API failure: HTTP status, Telegram ``description`` and the rejection kind."""

    def __init__(
        self,
        status: int,
        description: str,
        *,
        kind: str = "state",
        retry_after: int | None = None,
    ) -> None:
        super().__init__(description)
        self.status = status
        self.description = description
        self.kind = kind
        self.retry_after = retry_after

    def payload(self) -> dict[str, Any]:
        """The JSON body Telegram sends for this error."""
        body: dict[str, Any] = {
            "ok": False,
            "error_code": self.status,
            "description": self.description,
        }
        if self.retry_after is not None:
            body["parameters"] = {"retry_after": self.retry_after}
        return body


def bad_request(detail: str, *, kind: str = "state") -> ApiError:
    """A 400 whose description starts with Telegram's ``Bad Request: ``."""
    return ApiError(400, f"Bad Request: {detail}", kind=kind)


def forbidden(detail: str) -> ApiError:
    """A 403 whose description starts with Telegram's ``Forbidden: ``."""
    return ApiError(403, f"Forbidden: {detail}", kind="forbidden")


@dataclass
class Mismatch(Exception):
    """Internal to validation: a value that does not fit; carries the path inside the
    parameter. The validator turns it into the :class:`ApiError` the fake answers."""

    path: str
    message: str
    kind: str = "wrong_type"
    description: str | None = field(default=None)  # a full Telegram-like description
