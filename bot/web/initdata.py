"""Who is asking: a Mini App's ``initData``, checked by Telegram's documented algorithm.

Telegram signs the launch parameters it hands the page: the data-check string (every field but
``hash``, as ``key=value`` lines sorted by key) under HMAC-SHA256 with the key
HMAC-SHA256(key="WebAppData", message=bot token). Only data that passes is trusted; the user is
taken from it and from nowhere else. ``sign_init_data`` makes such data for tests and the
benchmarks, as Telegram would.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode


class InitDataError(Exception):
    """The data is missing, forged or too old (the page gets 401)."""


@dataclass(frozen=True)
class WebUser:
    user_id: int
    first_name: str
    last_name: str
    username: str
    language_code: str
    start_param: str  # the ``startapp`` of a direct link: the game to show


def _secret(token: str) -> bytes:
    return hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()


def _data_check_string(fields: dict[str, str]) -> str:
    return "\n".join(f"{key}={fields[key]}" for key in sorted(fields) if key != "hash")


def check_init_data(init_data: str, token: str, *, max_age: float, now: float) -> WebUser:
    """The user the data was signed for; raises :class:`InitDataError` otherwise.
    ``max_age``: seconds an ``auth_date`` stays good; ``now``: Unix time."""
    if not init_data:
        raise InitDataError("no initData")
    if not init_data.isascii():  # a query string is ASCII; anything else cannot be signed
        raise InitDataError("initData is not a query string")
    try:
        pairs = parse_qsl(init_data, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise InitDataError("initData is not a query string") from None
    fields = dict(pairs)
    if len(fields) != len(pairs):
        raise InitDataError("a field is repeated")
    given = fields.get("hash", "")
    expected = hmac.new(
        _secret(token), _data_check_string(fields).encode(), hashlib.sha256
    ).hexdigest()
    if not hmac.compare_digest(given.encode(), expected.encode()):
        raise InitDataError("wrong hash")
    try:
        auth_date = int(fields.get("auth_date", ""))
    except ValueError:
        raise InitDataError("no auth_date") from None
    if now - auth_date > max_age:
        raise InitDataError("initData expired")
    return _user_of(fields)


def _user_of(fields: dict[str, str]) -> WebUser:
    try:
        user = json.loads(fields.get("user", ""))
        user_id = user["id"]
    except (ValueError, KeyError, TypeError):
        raise InitDataError("no user") from None
    if not isinstance(user_id, int) or isinstance(user_id, bool) or user_id <= 0:
        raise InitDataError("no user")

    def string(key: str) -> str:
        value = user.get(key, "")
        return value if isinstance(value, str) else ""

    return WebUser(
        user_id=user_id,
        first_name=string("first_name"),
        last_name=string("last_name"),
        username=string("username"),
        language_code=string("language_code"),
        start_param=fields.get("start_param", ""),
    )


def sign_init_data(
    token: str,
    user: dict[str, object],
    *,
    auth_date: int,
    start_param: str = "",
    query_id: str = "AAHdF6IQAAAAAN0XohDhrOrc",
) -> str:
    """initData as Telegram would hand it to the page (for tests and benchmarks)."""
    fields = {
        "query_id": query_id,
        "user": json.dumps(user, ensure_ascii=False, separators=(",", ":")),
        "auth_date": str(auth_date),
    }
    if start_param:
        fields["start_param"] = start_param
    fields["hash"] = hmac.new(
        _secret(token), _data_check_string(fields).encode(), hashlib.sha256
    ).hexdigest()
    return urlencode(fields)
