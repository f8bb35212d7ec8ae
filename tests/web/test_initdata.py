"""initData is checked by Telegram's algorithm; anything else is refused."""

from __future__ import annotations

import hashlib
import hmac
import json
from urllib.parse import parse_qsl, quote, urlencode

import pytest

from bot.web.initdata import InitDataError, check_init_data, sign_init_data

TOKEN = "123456:ABC-secret_token"
NOW = 1_800_000_000
USER = {"id": 42, "first_name": "小明", "language_code": "zh-hans", "username": "xm"}


def test_data_telegram_signed_is_accepted_and_names_the_user() -> None:
    data = sign_init_data(TOKEN, USER, auth_date=NOW - 10, start_param="g7")
    user = check_init_data(data, TOKEN, max_age=3600, now=NOW)
    assert (user.user_id, user.first_name, user.username) == (42, "小明", "xm")
    assert user.language_code == "zh-hans" and user.start_param == "g7"


def test_the_algorithm_is_telegrams_written_out() -> None:
    """Built here step by step from the documentation, not with the module's own helpers:
    secret = HMAC_SHA256(key="WebAppData", msg=token); hash = HMAC_SHA256(secret,
    sorted "key=value" lines joined by newlines)."""
    fields = {"auth_date": str(NOW), "query_id": "Q1", "user": json.dumps(USER)}
    check = "\n".join(f"{k}={fields[k]}" for k in sorted(fields))
    secret = hmac.new(b"WebAppData", TOKEN.encode(), hashlib.sha256).digest()
    fields["hash"] = hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()
    data = "&".join(f"{k}={quote(v)}" for k, v in fields.items())
    assert check_init_data(data, TOKEN, max_age=60, now=NOW).user_id == 42


@pytest.mark.parametrize(
    "tamper",
    [
        lambda f: f.update(user=json.dumps({**USER, "id": 43})),  # another user
        lambda f: f.update(auth_date=str(NOW)),  # a fresher date
        lambda f: f.update(hash="0" * 64),
        lambda f: f.pop("hash"),
        lambda f: f.update(start_param="g9"),  # an added field
    ],
)
def test_any_change_breaks_the_hash(tamper) -> None:  # type: ignore[no-untyped-def]
    fields = dict(parse_qsl(sign_init_data(TOKEN, USER, auth_date=NOW - 5)))
    tamper(fields)
    with pytest.raises(InitDataError):
        check_init_data(urlencode(fields), TOKEN, max_age=3600, now=NOW)


def test_another_bots_data_is_refused() -> None:
    data = sign_init_data("999:OTHER", USER, auth_date=NOW)
    with pytest.raises(InitDataError, match="wrong hash"):
        check_init_data(data, TOKEN, max_age=3600, now=NOW)


def test_old_data_is_refused() -> None:
    data = sign_init_data(TOKEN, USER, auth_date=NOW - 3601)
    with pytest.raises(InitDataError, match="expired"):
        check_init_data(data, TOKEN, max_age=3600, now=NOW)
    assert check_init_data(data, TOKEN, max_age=7200, now=NOW).user_id == 42


@pytest.mark.parametrize("data", ["", "garbage", "a=1&a=2", "user=%7B%7D&hash=x"])
def test_missing_or_malformed_data_is_refused(data: str) -> None:
    with pytest.raises(InitDataError):
        check_init_data(data, TOKEN, max_age=3600, now=NOW)


def test_signed_data_without_a_user_is_refused() -> None:
    for user in ({}, {"id": "42"}, {"id": -5}, {"id": True}):
        data = sign_init_data(TOKEN, user, auth_date=NOW)
        with pytest.raises(InitDataError, match="no user"):
            check_init_data(data, TOKEN, max_age=3600, now=NOW)
