"""Tests of the fake Telegram Bot API server: each validation, each limit, the user-facing
API, fault injection, and a real PTB ``Application`` talking to it.

Raw HTTP (aiohttp) is used where the point is what the *server* accepts; PTB's ``Bot`` where
the point is that PTB's own encoding validates.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from hypothesis import given
from hypothesis import strategies as st
from telegram import (
    Bot,
    BotCommand,
    BotCommandScopeChat,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    LinkPreviewOptions,
    MessageEntity,
    ReplyParameters,
    Update,
)
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter, TimedOut
from telegram.ext import AIORateLimiter, CallbackQueryHandler, CommandHandler, ContextTypes
from telegram.request import HTTPXRequest

from bot.edge.ratelimit import WindowRateLimiter
from fakebot import FakeTelegram, ManualClock, ScaledClock, Validator
from fakebot.fixtures import application_builder, running
from fakebot.formatting import parse, utf16_len
from fakebot.limits import SlidingWindow, window_for_rate

GROUP = -1001234567890
ALICE, BOB = 111, 222


def keyboard(*rows: list[tuple[str, str]]) -> str:
    return json.dumps(
        {"inline_keyboard": [[{"text": t, "callback_data": d} for t, d in row] for row in rows]}
    )


@pytest.fixture
async def fake() -> AsyncIterator[FakeTelegram]:
    """A fake with a started user, an unstarted user and a group; a manual clock so that flood
    limits are exact."""
    async with FakeTelegram(clock=ManualClock()) as server:
        server.add_user(ALICE, "Alice", username="alice", started=True)
        server.add_user(BOB, "Bob")
        server.add_group(GROUP, "牌桌", admins=[ALICE])
        yield server


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


async def call(
    session: aiohttp.ClientSession,
    fake: FakeTelegram,
    method: str,
    data: dict[str, Any] | None = None,
    *,
    as_json: bool = False,
    token: str | None = None,
) -> tuple[int, dict[str, Any]]:
    """POST like PTB does: strings raw, everything else JSON-encoded (or a JSON body)."""
    url = f"{fake.base_url}{token or fake.token}/{method}"
    if as_json:
        response = await session.post(url, json=data or {})
    else:
        form = {k: v if isinstance(v, str) else json.dumps(v) for k, v in (data or {}).items()}
        response = await session.post(url, data=form)
    async with response:
        return response.status, await response.json()


async def send(
    http: aiohttp.ClientSession, fake: FakeTelegram, chat_id: int, text: str, **extra: Any
) -> tuple[int, dict[str, Any]]:
    return await call(http, fake, "sendMessage", {"chat_id": chat_id, "text": text, **extra})


# ---------------------------------------------------------------------------- spec validation


async def test_unknown_method_is_404_not_found(fake: FakeTelegram, http: Any) -> None:
    status, body = await call(http, fake, "sendCards", {"chat_id": 1})
    assert (status, body) == (404, {"ok": False, "error_code": 404, "description": "Not Found"})
    assert [r.kind for r in fake.rejections] == ["unknown_method"]


async def test_wrong_token_is_401_and_method_names_ignore_case(
    fake: FakeTelegram, http: Any
) -> None:
    status, body = await call(http, fake, "getMe", token="1:wrong")
    assert status == 401 and body["description"] == "Unauthorized"
    status, body = await call(http, fake, "GETME")
    assert status == 200 and body["result"]["username"] == "CardTestBot"
    assert [r.kind for r in fake.rejections] == ["bad_token"]


async def test_unknown_parameter_is_rejected(fake: FakeTelegram, http: Any) -> None:
    status, body = await send(http, fake, GROUP, "hi", colour="red")
    assert status == 400
    assert body["description"].startswith('Bad Request: unknown parameter "colour"')
    assert fake.rejections[0].kind == "unknown_parameter"


async def test_missing_required_parameter_is_rejected(fake: FakeTelegram, http: Any) -> None:
    status, body = await call(http, fake, "sendMessage", {"text": "hi"})
    assert (status, body["description"]) == (400, "Bad Request: chat_id is empty")
    assert fake.rejections[0].kind == "missing_parameter"


@pytest.mark.parametrize(
    ("method", "params", "needle"),
    [
        ("deleteMessage", {"chat_id": GROUP, "message_id": "one"}, "expected Integer"),
        ("sendMessage", {"chat_id": GROUP, "text": "x", "protect_content": "yes"}, "Boolean"),
        ("sendLocation", {"chat_id": GROUP, "latitude": "north", "longitude": 1}, "Float"),
        ("getUpdates", {"allowed_updates": "message"}, "allowed_updates"),
        ("getUpdates", {"allowed_updates": [1, 2]}, "allowed_updates[0]"),
        ("sendMessage", {"chat_id": 1.5, "text": "x"}, "chat_id"),
        (
            "sendMessage",
            {"chat_id": GROUP, "text": "x", "reply_markup": {"inline_keyboard": [[{"text": 1}]]}},
            "inline_keyboard[0][0].text",
        ),
        (
            "sendMessage",
            {
                "chat_id": GROUP,
                "text": "x",
                "reply_markup": {"inline_keyboard": [[{"text": "a", "callback_data": 7}]]},
            },
            "callback_data",
        ),
        (
            "sendMessage",
            {
                "chat_id": GROUP,
                "text": "x",
                "reply_markup": {"inline_keyboard": [[{"text": "a", "callbackdata": "7"}]]},
            },
            "callbackdata",
        ),
        (
            "sendMessage",
            {"chat_id": GROUP, "text": "x", "reply_markup": {"inline_keyboard": {}}},
            "inline_keyboard",
        ),
        (
            "sendMessage",
            {"chat_id": GROUP, "text": "x", "reply_markup": "not json"},
            "reply_markup",
        ),
        (
            "sendMessage",
            {"chat_id": GROUP, "text": "x", "reply_parameters": {"message_id": "1"}},
            "reply_parameters",
        ),
        (
            "sendMessage",
            {"chat_id": GROUP, "text": "x", "link_preview_options": {"is_disabled": "yes"}},
            "is_disabled",
        ),
        (
            "sendMessage",
            {"chat_id": GROUP, "text": "x", "entities": [{"type": "shouting", "offset": 0}]},
            "entities[0]",
        ),
        (
            "sendMessage",
            {
                "chat_id": GROUP,
                "text": "x",
                "entities": [{"type": "shouting", "offset": 0, "length": 1}],
            },
            "unknown entity type",
        ),
        ("setMyCommands", {"commands": [{"command": "new"}]}, "description"),
        (
            "setMyCommands",
            {"commands": [{"command": "new", "description": "x"}], "scope": {"type": "chat"}},
            "chat_id",
        ),
        (
            "setMyCommands",
            {"commands": [{"command": "new", "description": "x"}], "scope": {"type": "moon"}},
            "BotCommandScope",
        ),
    ],
)
async def test_wrong_types_are_rejected(
    fake: FakeTelegram, http: Any, method: str, params: dict[str, Any], needle: str
) -> None:
    status, body = await call(http, fake, method, params)
    assert status == 400, body
    assert body["ok"] is False and body["error_code"] == 400
    assert body["description"].startswith("Bad Request: ")
    assert needle in body["description"]
    assert len(fake.rejections) == 1


@pytest.mark.parametrize(
    ("command", "description"),
    [("NewGame", "d"), ("new-game", "d"), ("x" * 33, "d"), ("new", ""), ("new", "d" * 257)],
)
async def test_bot_command_prose_rules(
    fake: FakeTelegram, http: Any, command: str, description: str
) -> None:
    commands = [{"command": command, "description": description}]
    status, body = await call(http, fake, "setMyCommands", {"commands": commands})
    assert status == 400 and "BOT_COMMAND" in body["description"]


async def test_json_body_and_form_body_are_both_understood(fake: FakeTelegram, http: Any) -> None:
    markup = {"inline_keyboard": [[{"text": "加入", "callback_data": "j"}]]}
    status, body = await call(
        http,
        fake,
        "sendMessage",
        {"chat_id": GROUP, "text": "hi", "reply_markup": markup, "disable_notification": True},
        as_json=True,
    )
    assert status == 200, body
    assert body["result"]["reply_markup"] == markup
    status, body = await call(http, fake, "sendMessage", {"chat_id": str(GROUP), "text": "2"})
    assert status == 200 and body["result"]["chat"]["id"] == GROUP
    assert fake.rejections == []


async def test_multipart_upload_validates_input_file(fake: FakeTelegram, http: Any) -> None:
    form = aiohttp.FormData()
    form.add_field("chat_id", str(GROUP))
    form.add_field("caption", "<b>结果</b>")
    form.add_field("parse_mode", "HTML")
    form.add_field("document", b"scores", filename="scores.txt", content_type="text/plain")
    async with http.post(f"{fake.base_url}{fake.token}/sendDocument", data=form) as response:
        body = await response.json()
    assert response.status == 200, body
    assert body["result"]["caption"] == "结果"
    assert fake.chat(GROUP).messages[-1].kind == "sendDocument"
    assert fake.rejections == []


async def test_attached_files_must_be_in_the_request(fake: FakeTelegram, http: Any) -> None:
    media = [{"type": "photo", "media": "attach://card"}]
    status, body = await call(http, fake, "sendMediaGroup", {"chat_id": GROUP, "media": media})
    assert status == 400 and 'attach://card" is not in the multipart' in body["description"]


async def test_other_methods_validate_then_answer_true(fake: FakeTelegram, http: Any) -> None:
    status, body = await call(
        http, fake, "setMyDescription", {"description": "打牌", "language_code": "zh"}
    )
    assert (status, body) == (200, {"ok": True, "result": True})
    assert fake.calls("setMyDescription")[0].params == {
        "description": "打牌",
        "language_code": "zh",
    }


# ---------------------------------------------------------------------------- prose limits


async def test_text_length_counts_after_entity_parsing(fake: FakeTelegram, http: Any) -> None:
    assert (await send(http, fake, GROUP, "a" * 4096))[0] == 200
    assert (await send(http, fake, GROUP, "<b>" + "牌" * 4096 + "</b>", parse_mode="HTML"))[
        0
    ] == 200
    status, body = await send(http, fake, GROUP, "&lt;" * 4096, parse_mode="HTML")
    assert status == 200 and body["result"]["text"] == "<" * 4096
    status, body = await send(http, fake, GROUP, "a" * 4097)
    assert (status, body["description"]) == (400, "Bad Request: message is too long")
    status, body = await send(http, fake, GROUP, "<i>" + "a" * 4097 + "</i>", parse_mode="HTML")
    assert status == 400
    assert [r.kind for r in fake.rejections] == ["prose_limit", "prose_limit"]


@pytest.mark.parametrize("text", ["", "   \n ", "<b> </b>"])
async def test_empty_text_is_rejected(fake: FakeTelegram, http: Any, text: str) -> None:
    status, body = await send(http, fake, GROUP, text, parse_mode="HTML")
    assert (status, body["description"]) == (400, "Bad Request: message text is empty")


@pytest.mark.parametrize(
    ("text", "mode", "needle"),
    [
        ("3 < 5", "HTML", 'Unsupported start tag "" at byte offset 2'),
        ("<b>bold", "HTML", 'Can\'t find end tag corresponding to start tag "b"'),
        ("<b><i>x</b></i>", "HTML", 'expected "</i>", found "</b>"'),
        ("<div>x</div>", "HTML", 'Unsupported start tag "div"'),
        ("♠3 </b>", "HTML", "Unexpected end tag at byte offset 5"),
        ("<span>x</span>", "HTML", "tg-spoiler"),
    ],
)
async def test_malformed_markup_cannot_parse_entities(
    fake: FakeTelegram, http: Any, text: str, mode: str, needle: str
) -> None:
    status, body = await send(http, fake, GROUP, text, parse_mode=mode)
    assert status == 400
    assert body["description"].startswith("Bad Request: can't parse entities: ")
    assert needle in body["description"]
    assert fake.rejections[0].kind == "parse_entities"


async def test_parsed_messages_carry_text_and_entities(fake: FakeTelegram, http: Any) -> None:
    status, body = await send(
        http,
        fake,
        GROUP,
        "<b>刨王</b> &amp; 😀<i>x</i> <a href='https://t.me/x'>l</a>",
        parse_mode="HTML",
    )
    assert status == 200
    result = body["result"]
    assert result["text"] == "刨王 & 😀x l"
    assert result["entities"] == [
        {"type": "bold", "offset": 0, "length": 2},
        {"type": "italic", "offset": 7, "length": 1},
        {"type": "text_link", "offset": 9, "length": 1, "url": "https://t.me/x"},
    ]
    assert result["from"]["is_bot"] and result["chat"] == {
        "id": GROUP,
        "type": "supergroup",
        "title": "牌桌",
    }


@given(st.text(max_size=60))
def test_html_escaped_text_round_trips(text: str) -> None:
    """Whatever a player calls themselves, html.escape makes it parse to itself."""
    import html

    parsed, entities = parse(html.escape(text), "HTML")
    assert parsed == text.strip() and entities == []
    assert utf16_len(parsed) >= len(parsed)


async def test_callback_answer_text_at_most_200(fake: FakeTelegram, http: Any) -> None:
    status, body = await send(http, fake, ALICE, "hand", reply_markup=keyboard([("♠3", "p:3")]))
    press = await fake.press(ALICE, ALICE, body["result"]["message_id"], "♠3")
    status, body = await call(
        http, fake, "answerCallbackQuery", {"callback_query_id": press.query_id, "text": "x" * 201}
    )
    assert status == 400 and "MESSAGE_TOO_LONG" in body["description"]
    status, _ = await call(
        http, fake, "answerCallbackQuery", {"callback_query_id": press.query_id, "text": "牌" * 200}
    )
    assert status == 200
    assert (await press.answered()).text == "牌" * 200


@pytest.mark.parametrize(
    ("data", "ok"), [("x" * 64, True), ("牌" * 21, True), ("牌" * 22, False), ("", False)]
)
async def test_callback_data_is_1_to_64_bytes(
    fake: FakeTelegram, http: Any, data: str, ok: bool
) -> None:
    status, body = await send(http, fake, GROUP, "t", reply_markup=keyboard([("b", data)]))
    assert (status == 200) is ok, body
    if not ok:
        assert "BUTTON_DATA_INVALID" in body["description"]


async def test_inline_keyboard_holds_at_most_100_buttons(fake: FakeTelegram, http: Any) -> None:
    rows = [[(f"{r}{c}", f"{r}{c}") for c in range(10)] for r in range(10)]
    assert (await send(http, fake, GROUP, "t", reply_markup=keyboard(*rows)))[0] == 200
    rows.append([("one more", "x")])
    status, body = await send(http, fake, GROUP, "t", reply_markup=keyboard(*rows))
    assert status == 400 and "at most 100" in body["description"]


async def test_buttons_need_exactly_one_action(fake: FakeTelegram, http: Any) -> None:
    text_only = json.dumps({"inline_keyboard": [[{"text": "x"}]]})
    status, body = await send(http, fake, GROUP, "t", reply_markup=text_only)
    assert status == 400 and "Text buttons are unallowed" in body["description"]
    both = json.dumps({"inline_keyboard": [[{"text": "x", "url": "https://a.b", "pay": True}]]})
    status, body = await send(http, fake, GROUP, "t", reply_markup=both)
    assert status == 400 and "exactly one" in body["description"]
    bad_url = json.dumps({"inline_keyboard": [[{"text": "x", "url": "javascript:alert(1)"}]]})
    status, body = await send(http, fake, GROUP, "t", reply_markup=bad_url)
    assert status == 400 and "URL" in body["description"]


async def test_edit_with_identical_content_is_not_modified(fake: FakeTelegram, http: Any) -> None:
    markup = keyboard([("出牌", "play")])
    _, body = await send(
        http, fake, GROUP, "<b>轮到 Alice</b>", parse_mode="HTML", reply_markup=markup
    )
    message_id = body["result"]["message_id"]
    edit = {"chat_id": GROUP, "message_id": message_id}
    status, body = await call(
        http,
        fake,
        "editMessageText",
        {**edit, "text": "<b>轮到 Alice</b>", "parse_mode": "HTML", "reply_markup": markup},
    )
    assert status == 400
    assert body["description"].startswith("Bad Request: message is not modified")
    # the same words without the bold are a change; so is dropping the keyboard
    status, _ = await call(
        http, fake, "editMessageText", {**edit, "text": "轮到 Alice", "reply_markup": markup}
    )
    assert status == 200
    status, body = await call(http, fake, "editMessageText", {**edit, "text": "轮到 Alice"})
    assert status == 200 and "reply_markup" not in body["result"]
    status, body = await call(http, fake, "editMessageReplyMarkup", edit)
    assert status == 400 and "not modified" in body["description"]
    message = fake.chat(GROUP).message(message_id)
    assert message is not None and message.edit_count == 2 and message.reply_markup is None
    assert [r.kind for r in fake.rejections] == ["not_modified", "not_modified"]


async def test_edit_and_delete_of_missing_messages(fake: FakeTelegram, http: Any) -> None:
    params = {"chat_id": GROUP, "message_id": 99}
    status, body = await call(http, fake, "editMessageText", {**params, "text": "x"})
    assert (status, body["description"]) == (400, "Bad Request: message to edit not found")
    status, body = await call(http, fake, "editMessageReplyMarkup", params)
    assert body["description"] == "Bad Request: message to edit not found"
    status, body = await call(http, fake, "deleteMessage", params)
    assert (status, body["description"]) == (400, "Bad Request: message to delete not found")
    _, body = await send(http, fake, GROUP, "bye")
    message_id = body["result"]["message_id"]
    fake.delete_message(GROUP, message_id)  # a user (admin) deletes it
    status, body = await call(
        http, fake, "editMessageText", {"chat_id": GROUP, "message_id": message_id, "text": "y"}
    )
    assert body["description"] == "Bad Request: message to edit not found"
    status, body = await call(http, fake, "sendMessage", {"chat_id": -5, "text": "x"})
    assert body["description"] == "Bad Request: chat not found"


async def test_bot_cannot_initiate_or_write_after_block(fake: FakeTelegram, http: Any) -> None:
    status, body = await send(http, fake, BOB, "你好")
    assert (status, body["description"]) == (
        403,
        "Forbidden: bot can't initiate conversation with a user",
    )
    await fake.send_text(BOB, BOB, "/start join_-100123")
    assert fake.user(BOB).started
    assert (await send(http, fake, BOB, "你好"))[0] == 200
    fake.block(BOB)
    status, body = await send(http, fake, BOB, "还在吗")
    assert (status, body["description"]) == (403, "Forbidden: bot was blocked by the user")
    assert "my_chat_member" in fake.pending_updates[-1]
    fake.start_bot(BOB)
    assert (await send(http, fake, BOB, "欢迎回来"))[0] == 200
    # 403s describe the users' choices, not the bot's mistakes
    assert fake.rejections == [] and len(fake.forbidden) == 2


async def test_membership_changes_and_their_chat_member_updates(
    fake: FakeTelegram, http: Any
) -> None:
    async def status(user: int) -> str:
        _, body = await call(http, fake, "getChatMember", {"chat_id": GROUP, "user_id": user})
        return str(body["result"]["status"])

    fake.join_group(BOB, GROUP)
    assert await status(BOB) == "member"
    # the bot is no admin of the group: Telegram does not tell it
    assert fake.pending_updates == []
    fake.chat(GROUP).bot_is_admin = True
    fake.allowed_updates = ["message", "chat_member"]
    fake.leave_group(BOB, GROUP)
    assert await status(BOB) == "left"
    update = fake.pending_updates[-1]["chat_member"]
    assert update["old_chat_member"]["status"] == "member"
    assert update["new_chat_member"] == {"status": "left", "user": fake.user(BOB).to_api()}
    fake.ban(BOB, GROUP, by=ALICE)
    update = fake.pending_updates[-1]["chat_member"]
    assert update["from"]["id"] == ALICE and update["new_chat_member"]["status"] == "kicked"
    # a bot that did not ask for chat_member updates does not get them
    fake.allowed_updates = []
    fake.join_group(BOB, GROUP)
    assert "chat_member" in fake.dropped_updates[-1]
    assert await status(BOB) == "member"


async def test_callback_query_answered_twice_or_unknown(fake: FakeTelegram, http: Any) -> None:
    _, body = await send(http, fake, GROUP, "t", reply_markup=keyboard([("加入", "join")]))
    press = await fake.press(BOB, GROUP, body["result"]["message_id"], "加入")
    answer = {"callback_query_id": press.query_id}
    assert (await call(http, fake, "answerCallbackQuery", answer))[0] == 200
    status, body = await call(http, fake, "answerCallbackQuery", answer)
    assert status == 400 and body["description"].startswith("Bad Request: query is too old")
    status, body = await call(http, fake, "answerCallbackQuery", {"callback_query_id": "42"})
    assert status == 400 and "query ID is invalid" in body["description"]


async def test_callback_query_ttl_uses_the_clock(http: Any) -> None:
    clock = ManualClock()
    async with FakeTelegram(clock=clock, callback_query_ttl=15) as fake:
        fake.add_group(GROUP, "g")
        fake.add_user(ALICE, "Alice")
        _, body = await send(http, fake, GROUP, "t", reply_markup=keyboard([("a", "a")]))
        press = await fake.press(ALICE, GROUP, body["result"]["message_id"], "a")
        clock.advance(16)
        status, body = await call(
            http, fake, "answerCallbackQuery", {"callback_query_id": press.query_id}
        )
        assert status == 400 and "too old" in body["description"]


async def test_rights_in_groups(fake: FakeTelegram, http: Any) -> None:
    user_message = await fake.send_text(ALICE, GROUP, "我来了")
    status, body = await call(
        http, fake, "deleteMessage", {"chat_id": GROUP, "message_id": user_message.message_id}
    )
    assert (status, body["description"]) == (400, "Bad Request: message can't be deleted")
    fake.chat(GROUP).bot_is_admin = True
    status, _ = await call(
        http, fake, "deleteMessage", {"chat_id": GROUP, "message_id": user_message.message_id}
    )
    assert status == 200  # an admin may
    fake.kick_bot(GROUP)
    status, body = await send(http, fake, GROUP, "还在吗")
    assert (status, body["description"]) == (
        403,
        "Forbidden: bot was kicked from the supergroup chat",
    )


# ---------------------------------------------------------------------------- flood limits


def test_scaled_clock_compresses_time() -> None:
    clock = ScaledClock(1000)
    first = clock()
    assert ScaledClock(1)() < 1
    while clock() - first < 1:  # a real millisecond or so
        pass
    with pytest.raises(ValueError):
        ScaledClock(0)
    manual = ManualClock(5)
    manual.advance(2.5)
    assert manual() == 7.5
    with pytest.raises(ValueError):
        manual.advance(-1)


def test_sliding_window_retry_after() -> None:
    window = SlidingWindow(limit=2, period=60.0)
    assert window.retry_after(0.0) is None
    window.add(0.0)
    window.add(10.0)
    assert window.retry_after(30.0) == 30
    assert window.retry_after(59.5) == 1
    assert window.retry_after(60.0) is None  # the first event has left the window
    assert window_for_rate(30.0) == (30, 1.0)
    assert window_for_rate(0.5) == (1, 2.0)
    assert window_for_rate(1.0, 3) == (3, 3.0)


@given(
    st.lists(st.floats(min_value=0, max_value=5, allow_nan=False), min_size=1, max_size=60),
    st.integers(min_value=1, max_value=5),
    st.floats(min_value=0.5, max_value=10),
)
def test_sliding_window_never_admits_more_than_limit(
    gaps: list[float], limit: int, period: float
) -> None:
    window = SlidingWindow(limit, period)
    now, admitted = 0.0, []
    for gap in gaps:
        now += gap
        if window.retry_after(now) is None:
            window.add(now)
            admitted.append(now)
    for i, start in enumerate(admitted):
        inside = [t for t in admitted[i:] if t < start + period]
        assert len(inside) <= limit


async def test_group_limit_counts_sends_and_edits(http: Any) -> None:
    clock = ManualClock()
    async with FakeTelegram(clock=clock, group_messages_per_minute=5) as fake:
        fake.add_group(GROUP, "g")
        ids = []
        for i in range(3):
            _, body = await send(http, fake, GROUP, f"m{i}")
            ids.append(body["result"]["message_id"])
            clock.advance(1)
        for i in range(2):
            params = {"chat_id": GROUP, "message_id": ids[0], "text": f"e{i}"}
            assert (await call(http, fake, "editMessageText", params))[0] == 200
            clock.advance(1)
        status, body = await send(http, fake, GROUP, "one too many")
        assert status == 429
        # the first message (t=0) leaves the window at t=60; now is t=5
        assert body["parameters"] == {"retry_after": 55}
        assert body["description"] == "Too Many Requests: retry after 55"
        assert [(v.scope, v.retry_after) for v in fake.limit_violations] == [("group", 55)]
        # answering callbacks, chat actions and deletions are not messages
        assert (await call(http, fake, "sendChatAction", {"chat_id": GROUP, "action": "typing"}))[
            0
        ] == 200
        clock.advance(55)
        assert (await send(http, fake, GROUP, "after the wait"))[0] == 200
        assert fake.rejections == []


async def test_private_limit_about_one_per_second(http: Any) -> None:
    clock = ManualClock()
    async with FakeTelegram(clock=clock, private_burst=1) as fake:
        fake.add_user(ALICE, "Alice", started=True)
        assert (await send(http, fake, ALICE, "1"))[0] == 200
        status, body = await send(http, fake, ALICE, "2")
        assert status == 429 and body["parameters"]["retry_after"] == 1
        clock.advance(1.0)
        assert (await send(http, fake, ALICE, "2"))[0] == 200
    async with FakeTelegram(clock=clock) as fake:  # default: bursts of 3 within 3 seconds
        fake.add_user(ALICE, "Alice", started=True)
        assert [(await send(http, fake, ALICE, str(i)))[0] for i in range(4)] == [
            200,
            200,
            200,
            429,
        ]


async def test_global_limit_across_chats(http: Any) -> None:
    clock = ManualClock()
    async with FakeTelegram(clock=clock, global_messages_per_second=5) as fake:
        for user_id in range(1, 7):
            fake.add_user(user_id, f"u{user_id}", started=True)
        statuses = [(await send(http, fake, user_id, "牌"))[0] for user_id in range(1, 7)]
        assert statuses == [200] * 5 + [429]
        assert fake.limit_violations[0].scope == "global"
        clock.advance(1)
        assert (await send(http, fake, 6, "牌"))[0] == 200


async def test_observe_mode_records_but_delivers(http: Any) -> None:
    clock = ManualClock()
    async with FakeTelegram(clock=clock, group_messages_per_minute=1, enforce_limits=False) as fake:
        fake.add_group(GROUP, "g")
        assert [(await send(http, fake, GROUP, str(i)))[0] for i in range(3)] == [200] * 3
        assert len(fake.limit_violations) == 2
        with pytest.raises(AssertionError, match="over the group limit of 1 per 60s"):
            fake.assert_clean()


@pytest.mark.parametrize("limiter", ["ptb", "bot"])
async def test_rate_limiters_honour_injected_retry_after(
    fake_telegram: FakeTelegram, limiter: str
) -> None:
    """PTB's AIORateLimiter and the bot's own both wait out an injected 429 and retry."""
    fake = fake_telegram
    fake.add_group(GROUP, "g")
    fault = fake.inject("sendMessage", "429", retry_after=1)
    chosen = (
        AIORateLimiter(max_retries=2) if limiter == "ptb" else WindowRateLimiter(30, max_retries=2)
    )
    app = application_builder(fake).rate_limiter(chosen).build()
    async with app:
        message = await app.bot.send_message(GROUP, "重试")
    assert message.text == "重试" and fault.fired == 1
    assert [r.status for r in fake.calls("sendMessage", ok=None)] == [429, 200]
    fake.assert_clean()


# ---------------------------------------------------------------------------- getUpdates


async def test_get_updates_returns_at_once_when_pending(fake: FakeTelegram, http: Any) -> None:
    await fake.send_text(ALICE, GROUP, "/newgame@CardTestBot 刨王")
    status, body = await asyncio.wait_for(
        call(http, fake, "getUpdates", {"timeout": 30}), timeout=5
    )
    assert status == 200
    [update] = body["result"]
    message = update["message"]
    assert message["text"] == "/newgame@CardTestBot 刨王"
    assert message["entities"] == [{"type": "bot_command", "offset": 0, "length": 20}]
    assert message["from"]["id"] == ALICE and message["chat"]["id"] == GROUP
    # not confirmed yet: served again; confirmed by the next offset
    again = await call(http, fake, "getUpdates", {"offset": update["update_id"]})
    assert again[1]["result"] == [update]
    status, body = await call(http, fake, "getUpdates", {"offset": update["update_id"] + 1})
    assert body["result"] == [] and fake.pending_updates == []


async def test_get_updates_long_poll_wakes_on_new_update(fake: FakeTelegram, http: Any) -> None:
    poll = asyncio.create_task(call(http, fake, "getUpdates", {"timeout": 30}))
    await fake.wait_for(lambda: fake.requests, what="the long poll to arrive")
    assert not poll.done()
    await fake.send_text(BOB, BOB, "/start")
    status, body = await asyncio.wait_for(poll, timeout=5)
    assert status == 200 and body["result"][0]["message"]["text"] == "/start"
    assert body["result"][0]["message"]["entities"][0]["length"] == 6


async def test_get_updates_timeout_and_limit(fake: FakeTelegram, http: Any) -> None:
    loop = asyncio.get_running_loop()
    started = loop.time()
    status, body = await call(http, fake, "getUpdates", {"timeout": 1})
    assert (status, body["result"]) == (200, [])
    assert 0.9 <= loop.time() - started < 3
    for i in range(3):
        await fake.send_text(ALICE, ALICE, f"msg {i}")
    _, body = await call(http, fake, "getUpdates", {"limit": 2})
    assert [u["message"]["text"] for u in body["result"]] == ["msg 0", "msg 1"]
    _, body = await call(http, fake, "getUpdates", {"offset": -1})
    assert [u["message"]["text"] for u in body["result"]] == ["msg 2"]
    status, body = await call(http, fake, "getUpdates", {"limit": 101})
    assert status == 400


async def test_webhook_blocks_get_updates(fake: FakeTelegram, http: Any) -> None:
    status, _ = await call(http, fake, "setWebhook", {"url": "https://bot.example/hook"})
    assert status == 200 and fake.webhook == {"url": "https://bot.example/hook"}
    status, body = await call(http, fake, "getUpdates")
    assert status == 409 and "webhook is active" in body["description"]
    assert (await call(http, fake, "deleteWebhook", {"drop_pending_updates": True}))[0] == 200
    assert (await call(http, fake, "getUpdates"))[0] == 200
    status, body = await call(http, fake, "setWebhook", {"url": "http://insecure"})
    assert status == 400


async def test_allowed_updates_filter_what_is_queued(fake: FakeTelegram, http: Any) -> None:
    await call(http, fake, "getUpdates", {"allowed_updates": ["callback_query"]})
    await fake.send_text(ALICE, GROUP, "hello")
    assert fake.pending_updates == [] and len(fake.dropped_updates) == 1
    await call(http, fake, "getUpdates", {"allowed_updates": ["message"]})
    _, body = await send(http, fake, GROUP, "t", reply_markup=keyboard([("a", "a")]))
    with pytest.raises(RuntimeError, match="exclude callback_query"):
        await fake.press(ALICE, GROUP, body["result"]["message_id"], "a")


# ---------------------------------------------------------------------------- the test-facing API


async def test_press_finds_buttons_on_the_current_keyboard(fake: FakeTelegram, http: Any) -> None:
    markup = keyboard([("♠3", "p:3"), ("♥3", "p:3h")], [("出牌 ✅", "go"), ("过", "pass")])
    _, body = await send(http, fake, ALICE, "你的牌", reply_markup=markup)
    message_id = body["result"]["message_id"]
    assert (await fake.press(ALICE, ALICE, message_id, "♥3")).data == "p:3h"
    assert (await fake.press(ALICE, ALICE, message_id, contains="出牌")).data == "go"
    assert (await fake.press(ALICE, ALICE, message_id, lambda t: t.startswith("过"))).data == "pass"
    assert (await fake.press(ALICE, ALICE, message_id, data="p:3")).data == "p:3"
    assert (await fake.press(ALICE, ALICE, None, "♠3")).message_id == message_id
    edit = {
        "chat_id": ALICE,
        "message_id": message_id,
        "text": "已出",
        "reply_markup": keyboard([("过", "pass")]),
    }
    assert (await call(http, fake, "editMessageText", edit))[0] == 200
    with pytest.raises(LookupError, match=r"its keyboard is \[\['过'\]\]"):
        await fake.press(ALICE, ALICE, message_id, "♠3")
    with pytest.raises(ValueError, match="private chat"):
        await fake.press(BOB, ALICE, message_id, "过")
    forged = await fake.press_raw(ALICE, ALICE, message_id, "p:大王")
    [update] = [u for u in fake.pending_updates if u["update_id"] == forged.update_id]
    query = update["callback_query"]
    assert query["data"] == "p:大王" and query["message"]["text"] == "已出"
    assert query["from"]["id"] == ALICE and len(fake.unanswered_callbacks()) == 6


async def test_state_history_and_counts(fake: FakeTelegram, http: Any) -> None:
    _, body = await send(http, fake, GROUP, "第一版", reply_markup=keyboard([("a", "a")]))
    message_id = body["result"]["message_id"]
    await call(
        http,
        fake,
        "editMessageText",
        {"chat_id": GROUP, "message_id": message_id, "text": "第二版"},
    )
    await send(http, fake, GROUP, "结果")
    await call(http, fake, "deleteMessage", {"chat_id": GROUP, "message_id": message_id})
    chat = fake.chat(GROUP)
    assert fake.sent_to(GROUP) == ["第一版", "第二版", "结果"]
    assert (chat.sends, chat.edits, chat.deletes) == (2, 1, 1)
    first = chat.message(message_id)
    assert first is not None and first.deleted and first.versions == ["第一版", "第二版"]
    assert chat.last_message is not None and chat.last_message.text == "结果"
    assert [m.text for m in chat.bot_messages] == ["结果"]
    assert [r.method for r in fake.requests] == [
        "sendMessage",
        "editMessageText",
        "sendMessage",
        "deleteMessage",
    ]
    assert fake.requests[1].params["message_id"] == message_id
    assert fake.requests[1].response["result"]["edit_date"] >= body["result"]["date"]


async def test_users_write_to_the_bot_only_after_start(fake: FakeTelegram) -> None:
    with pytest.raises(ValueError, match="has not started the bot"):
        await fake.send_text(BOB, BOB, "hello")
    with pytest.raises(ValueError, match="cannot write in the private chat"):
        await fake.send_text(BOB, ALICE, "/start")
    await fake.send_text(BOB, GROUP, "groups are fine")
    assert BOB in fake.chat(GROUP).members


async def test_wait_for_request_sees_only_what_came_after(fake: FakeTelegram, http: Any) -> None:
    await send(http, fake, GROUP, "旧")
    mark = len(fake.requests)
    waiter = asyncio.create_task(fake.wait_for_request("sendMessage", since=mark, timeout=5))
    await asyncio.sleep(0)
    assert not waiter.done()
    await send(http, fake, GROUP, "新")
    record = await waiter
    assert record.params["text"] == "新" and record.result["text"] == "新"


async def test_wait_for_times_out_with_a_clear_message(fake: FakeTelegram) -> None:
    with pytest.raises(TimeoutError, match="waiting for the bot to say hello"):
        await fake.wait_for(lambda: False, timeout=0.05, what="the bot to say hello")


async def test_wait_for_wakes_on_user_actions(fake: FakeTelegram) -> None:
    waiter = asyncio.create_task(fake.wait_for(lambda: fake.user(BOB).blocked, timeout=5))
    await asyncio.sleep(0)  # let the waiter start: it must not see the change before it happens
    assert not waiter.done()
    fake.block(BOB)
    assert await waiter is True


async def test_responses_match_the_spec(fake: FakeTelegram, http: Any) -> None:
    """What the fake answers must itself be valid Bot API objects, or PTB could be fooled."""
    validator = Validator()
    fake.chat(GROUP).bot_is_admin = True
    fake.chat(GROUP).owner = BOB
    _, body = await send(
        http, fake, GROUP, "<b>x</b>", parse_mode="HTML", reply_markup=keyboard([("a", "a")])
    )
    validator.check_object("Message", body["result"])
    await fake.press(ALICE, GROUP, body["result"]["message_id"], "a")
    await fake.send_text(ALICE, GROUP, "/play ♠3")
    fake.block(ALICE)
    for update in fake.pending_updates:
        validator.check_object("Update", update)
    checks = [
        ("getMe", {}, "User"),
        ("getChatMember", {"chat_id": GROUP, "user_id": ALICE}, "ChatMember"),
        ("getChatMember", {"chat_id": GROUP, "user_id": BOB}, "ChatMember"),
        ("getChatMember", {"chat_id": GROUP, "user_id": fake.bot_id}, "ChatMember"),
        ("getWebhookInfo", {}, "WebhookInfo"),
    ]
    for method, params, type_name in checks:
        status, body = await call(http, fake, method, params)
        assert status == 200, body
        validator.check_object(type_name, body["result"])


# ---------------------------------------------------------------------------- faults


async def test_faults_reach_ptb_as_telegram_errors(fake: FakeTelegram) -> None:
    request = HTTPXRequest(read_timeout=0.3, connect_timeout=1)
    async with Bot(fake.token, base_url=fake.base_url, request=request) as bot:
        fake.inject("sendMessage", "429", retry_after=7)
        with pytest.raises(RetryAfter) as retry:
            await bot.send_message(GROUP, "a")
        seconds = retry.value.retry_after  # an int in PTB 22, a timedelta in PTB 23
        assert getattr(seconds, "total_seconds", lambda: seconds)() == 7
        fake.inject("sendMessage", "500")
        with pytest.raises(NetworkError, match="Internal Server Error"):
            await bot.send_message(GROUP, "a")
        fake.inject("sendMessage", "502")
        with pytest.raises(NetworkError, match="Bad Gateway"):
            await bot.send_message(GROUP, "a")
        fake.inject("sendMessage", "timeout")
        with pytest.raises(TimedOut):
            await bot.send_message(GROUP, "a")
        fake.inject("sendMessage", "drop")
        with pytest.raises(NetworkError):
            await bot.send_message(GROUP, "a")
        fake.inject("sendMessage", "403_blocked", chat_id=ALICE)
        await bot.send_message(GROUP, "other chats are unaffected")
        with pytest.raises(Forbidden, match="blocked"):
            await bot.send_message(ALICE, "a")
        sent = await bot.send_message(GROUP, "会被删")
        fake.inject("editMessageText", "400_not_found")
        with pytest.raises(BadRequest, match=r"(?i)message to edit not found"):
            await bot.edit_message_text("x", GROUP, sent.message_id)
        message = fake.chat(GROUP).message(sent.message_id)
        assert message is not None and message.deleted
        assert await bot.send_message(GROUP, "fine again")
    assert fake.chat(GROUP).texts == ["other chats are unaffected", "会被删", "fine again"]
    assert fake.rejections == [] and fake.forbidden == [] and fake.limit_violations == []
    assert [r.fault for r in fake.fault_log] == [
        "429",
        "500",
        "502",
        "timeout",
        "drop",
        "403_blocked",
        "400_not_found",
    ]


async def test_timeout_after_the_effect_duplicates_on_retry(fake: FakeTelegram) -> None:
    """A lost response after Telegram delivered: the classic cause of duplicate messages."""
    request = HTTPXRequest(read_timeout=0.3)
    async with Bot(fake.token, base_url=fake.base_url, request=request) as bot:
        fake.inject("sendMessage", "timeout", performed=True)
        with pytest.raises(TimedOut):
            await bot.send_message(GROUP, "桌面")
        assert fake.sent_to(GROUP) == ["桌面"]


# ---------------------------------------------------------------------------- PTB end to end


async def test_ptb_bot_methods_validate(fake: FakeTelegram) -> None:
    """PTB's encoding of the methods a card bot uses passes the spec check."""
    async with Bot(fake.token, base_url=fake.base_url) as bot:
        fake.chat(GROUP).bot_is_admin = True
        await bot.set_my_commands(
            [BotCommand("newgame", "开新局"), BotCommand("join", "加入")],
            scope=BotCommandScopeChat(GROUP),
            language_code="zh",
        )
        await bot.set_my_commands([BotCommand("start", "开始")])
        assert fake.commands() == [{"command": "start", "description": "开始"}]
        user_message = await fake.send_text(ALICE, GROUP, "/newgame")
        table = await bot.send_message(
            GROUP,
            "<b>刨王</b> 等待玩家 (1/5)",
            parse_mode="HTML",
            reply_markup=InlineKeyboardMarkup(
                [
                    [InlineKeyboardButton("加入", callback_data="pw:1:join:-")],
                    [InlineKeyboardButton("私聊", url="https://t.me/CardTestBot?start=join_1")],
                ]
            ),
            reply_parameters=ReplyParameters(user_message.message_id),
            link_preview_options=LinkPreviewOptions(is_disabled=True),
            disable_notification=True,
        )
        assert table.reply_to_message is not None
        await bot.send_message(
            ALICE, "bold", entities=[MessageEntity(MessageEntity.BOLD, 0, 4)], protect_content=True
        )
        await table.edit_text("<b>刨王</b> 等待玩家 (2/5)", parse_mode="HTML")
        await table.edit_reply_markup(
            InlineKeyboardMarkup([[InlineKeyboardButton("开始", callback_data="pw:2:go:-")]])
        )
        member = await bot.get_chat_member(GROUP, ALICE)
        assert member.status == "administrator"
        await bot.delete_message(GROUP, table.message_id)
        document = await bot.send_document(
            GROUP,
            document=b"1,2,3",
            filename="scores.csv",
            caption="<b>比分</b>",
            parse_mode="HTML",
        )
        assert document.caption == "比分"
        assert (await bot.send_dice(GROUP)).chat.id == GROUP
        await bot.get_webhook_info()
        await bot.set_webhook("https://bot.example/hook", secret_token="s3cret", max_connections=5)
        await bot.delete_webhook(drop_pending_updates=True)
        await bot.log_out()
        await bot.close()
    assert fake.closed
    fake.assert_clean()


async def test_real_application_over_long_polling(fake_telegram: FakeTelegram) -> None:
    fake = fake_telegram
    fake.add_user(ALICE, "Alice", username="alice")
    fake.add_group(GROUP, "牌桌")

    async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_chat is not None and update.effective_user is not None
        payload = " ".join(context.args or [])
        name = update.effective_user.first_name
        await update.effective_chat.send_message(
            f"欢迎 <b>{name}</b>" + (f" ({payload})" if payload else ""),
            parse_mode="HTML",
            reply_markup=InlineKeyboardMarkup(
                [[InlineKeyboardButton("♠3", callback_data="sk:1:play:S3")]]
            ),
        )

    async def on_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        assert query is not None
        await query.answer(f"出了 {query.data}")
        await query.edit_message_text("已出 ♠3")

    app = application_builder(fake).build()
    app.add_handler(CommandHandler("start", start))
    app.add_handler(CallbackQueryHandler(on_button))
    async with running(app, poll_timeout=30):
        await fake.send_text(ALICE, ALICE, "/start join_-1001")
        hand = await fake.wait_for_message(ALICE, contains="欢迎")
        assert hand.text == "欢迎 Alice (join_-1001)"
        assert hand.entities == [{"type": "bold", "offset": 3, "length": 5}]
        press = await fake.press(ALICE, ALICE, hand.message_id, "♠3")
        answer = await press.answered()
        assert answer.text == "出了 sk:1:play:S3" and not answer.show_alert
        await fake.wait_for(lambda: hand.text == "已出 ♠3", what="the hand to be edited")
        assert hand.reply_markup is None and hand.edit_count == 1
    methods = {r.method for r in fake.requests}
    assert {"getMe", "deleteWebhook", "getUpdates"} <= methods
    assert fake.sent_to(ALICE) == ["欢迎 Alice (join_-1001)", "已出 ♠3"]
    assert fake.unanswered_callbacks() == []
    assert fake.pending_updates == []  # PTB confirmed everything on shutdown
    fake.assert_clean()


async def test_refused_answers_are_named_when_waiting_times_out(
    fake: FakeTelegram, http: Any
) -> None:
    _, body = await send(http, fake, GROUP, "t", reply_markup=keyboard([("a", "a"), ("b", "b")]))
    message = fake.chat(GROUP).message(body["result"]["message_id"])
    assert message is not None
    assert message.labels == ["a", "b"] and message.keyboard == [["a", "b"]]
    press = await fake.press(ALICE, GROUP, message.message_id, "b")
    answer = {"callback_query_id": press.query_id, "text": "长" * 201}
    assert (await call(http, fake, "answerCallbackQuery", answer))[0] == 400
    with pytest.raises(TimeoutError, match=r"refused answers: .*MESSAGE_TOO_LONG"):
        await press.answered(timeout=0.05)
    with pytest.raises(TimeoutError, match=r"last rejections:\n.*MESSAGE_TOO_LONG"):
        await fake.wait_for(lambda: press.is_answered, timeout=0.05)


class TestFixtureOptions:
    """``fake_telegram_options`` overrides configure the shared fixture."""

    @pytest.fixture
    def fake_telegram_options(self) -> dict[str, Any]:
        return {"group_messages_per_minute": 7, "enforce_limits": False}

    async def test_options_reach_the_fake(self, fake_telegram: FakeTelegram) -> None:
        assert fake_telegram.group_messages_per_minute == 7
        assert fake_telegram.flood.group == (7, 60.0)
        assert not fake_telegram.enforce_limits
        assert fake_telegram.base_url.startswith("http://127.0.0.1:")
        assert fake_telegram.base_url.endswith("/bot")


async def test_web_app_buttons_only_in_private_chats(fake: FakeTelegram, http: Any) -> None:
    """As Telegram: a web_app button in a group is BUTTON_TYPE_INVALID; a web_app or URL
    button that is not https is BUTTON_URL_INVALID."""
    web_app = {"inline_keyboard": [[{"text": "🃏", "web_app": {"url": "https://t.example/"}}]]}
    plain = {"inline_keyboard": [[{"text": "🃏", "web_app": {"url": "http://t.example/"}}]]}
    await fake.send_text(ALICE, ALICE, "/start")
    status, _ = await call(
        http, fake, "sendMessage", {"chat_id": ALICE, "text": "a", "reply_markup": web_app}
    )
    assert status == 200
    status, body = await call(
        http, fake, "sendMessage", {"chat_id": GROUP, "text": "a", "reply_markup": web_app}
    )
    assert status == 400 and "BUTTON_TYPE_INVALID" in body["description"]
    status, body = await call(
        http, fake, "sendMessage", {"chat_id": ALICE, "text": "a", "reply_markup": plain}
    )
    assert status == 400 and "BUTTON_URL_INVALID" in body["description"]
