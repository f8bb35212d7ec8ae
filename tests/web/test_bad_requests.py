"""Bad requests to the web server (issue #24): every one a cheap 4xx with a short JSON error,
checked in the right order (who, how often, how much, then the body, then the game), nothing
changed, and no traceback in the log. The fuzz test beside this (test_fuzz.py) throws
arbitrary input at the same routes; these are the findings, one by one."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from bot.limits.throttle import Throttle
from bot.web import server
from fakebot import FakeTelegram
from tests.e2e.helpers_robust import snapshot
from tests.web.sites import SECRET, Site, no_errors, open_site

TOO_BIG = 2**63  # SQLite's INTEGER ends at 2^63-1


@pytest.fixture
async def site(fake_telegram: FakeTelegram, tmp_path: Any) -> AsyncIterator[Site]:
    async with open_site(fake_telegram, tmp_path) as opened:
        yield opened


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


async def test_malformed_actions_are_400s(
    site: Site, caplog: pytest.LogCaptureFixture
) -> None:
    game = site.table.game_id
    before = snapshot(site.table)
    cases: list[tuple[object, str]] = [
        ({"game": game, "kind": ["play"]}, "no such action"),  # unhashable
        ({"game": game, "kind": {"play": 1}}, "no such action"),
        ({"game": game, "kind": 7}, "no such action"),
        ({"game": game, "kind": "cheat"}, "no such action"),
        ({"game": game, "kind": "play", "cards": 5}, "not a card"),
        ({"game": game, "kind": "play", "cards": True}, "not a card"),
        ({"game": game, "kind": "play", "cards": None}, "not a card"),
        ({"game": game, "kind": "play", "cards": [24] * 28}, "not a card"),  # 28 > a hand
        ({"game": game, "kind": "play", "cards": [True]}, "not a card"),
        ({"game": game, "kind": "play", "cards": [2**70]}, "not a card"),
        ({"game": TOO_BIG, "kind": "pass"}, "no game"),
        ({"game": 2**64 + 5, "kind": "pass"}, "no game"),
        ({"game": str(TOO_BIG), "kind": "pass"}, "no game"),
        ({"game": -1, "kind": "pass"}, "no game"),
        ({"game": 0, "kind": "pass"}, "no game"),
        ({"game": True, "kind": "pass"}, "no game"),
        ({"game": 1.5, "kind": "pass"}, "no game"),
        ({"game": [game], "kind": "pass"}, "no game"),
        ({"game": " 7", "kind": "pass"}, "no game"),
        ({"game": "٧", "kind": "pass"}, "no game"),  # int() would take Arabic-Indic digits
        ({"game": game, "kind": "pass", "extra": 1}, "unknown field"),
        ([game, "pass"], "not an object"),
        ("pass", "not an object"),
    ]
    with caplog.at_level(logging.WARNING):
        for body, reason in cases:
            answer = await site.post(json.dumps(body).encode(), site.waiter)
            assert answer == (400, {"error": reason}), body
        for raw in (nested(2000).encode(), b"[" * 4000, b"\xff\xfe{", b""):
            assert len(raw) <= 4096
            assert await site.post(raw, site.waiter) == (400, {"error": "not JSON"}), raw[:20]
    no_errors(caplog)
    assert snapshot(site.table) == before


async def test_big_bodies_are_refused_before_they_are_read(
    site: Site, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A megabyte of card codes from someone with no seat: 413 at once, never parsed."""
    parsed: list[int] = []
    real_loads = server.loads

    def counting(raw: bytes | str) -> object:
        parsed.append(len(raw))
        return real_loads(raw)

    monkeypatch.setattr(server, "loads", counting)
    game = site.table.game_id
    codes = [24] * 150_000
    big = json.dumps({"game": game, "kind": "play", "cards": codes}).encode()
    assert len(big) > 500_000
    with caplog.at_level(logging.WARNING):
        for who in (site.stranger, site.spectator, site.waiter):
            assert await site.post(big, who) == (413, {"error": "too large"})

        # chunked, with no Content-Length: read no further than the limit
        async def chunks() -> AsyncIterator[bytes]:
            for start in range(0, len(big), 65536):
                yield big[start : start + 65536]

        headers = {"Authorization": f"tma {site.stranger}"}
        async with site.session.post(
            f"{site.base}api/action", data=chunks(), headers=headers
        ) as response:
            assert "Content-Length" not in response.request_info.headers
            assert (response.status, await response.json()) == (413, {"error": "too large"})
        # no initData: 401 before the body matters
        assert (await site.post(big, None))[0] == 401
        # at the limit it is read and parsed (and this one is simply no action)
        padded = json.dumps({"game": game, "kind": "cheat" + " " * 4000}).encode()[:4096]
        assert (await site.post(padded, site.stranger))[0] == 400
    assert parsed == [len(padded)]
    no_errors(caplog)


async def test_the_throttle_comes_before_the_body(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past a user's burst, even a body too big to read or too bad to parse is a 429: the
    cheap check answers first. Someone else is not held up by it."""
    monkeypatch.setattr(site.web, "throttle", Throttle(0.001, burst=2))
    bad = b"[" * 4000
    assert (await site.post(bad, site.stranger))[0] == 400
    assert (await site.post(bad, site.stranger))[0] == 400
    assert await site.post(bad, site.stranger) == (429, {"error": "too fast"})
    assert await site.post(b"x" * 100_000, site.stranger) == (429, {"error": "too fast"})
    assert (await site.post(bad, site.spectator))[0] == 400


async def test_an_outsider_cannot_tell_which_games_exist(site: Site) -> None:
    game = site.table.game_id
    nowhere = (404, {"error": "no such game"})
    body = json.dumps({"game": game, "kind": "pass"}).encode()
    missing = json.dumps({"game": game + 1000, "kind": "pass"}).encode()
    assert await site.post(body, site.stranger) == await site.post(missing, site.stranger)
    assert await site.post(body, site.stranger) == nowhere
    assert await site.get(f"api/state?game={game}", site.stranger) == nowhere
    assert await site.get(f"api/state?game={game + 1000}", site.stranger) == nowhere
    # a member of the group learns more: the game is there, but not theirs to play
    assert await site.post(body, site.spectator) == (403, {"error": "not your seat"})
    status, view = await site.get(f"api/state?game={game}", site.spectator)
    assert status == 200 and view["seat"] is None


async def test_game_ids_out_of_range_are_400s(
    site: Site, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        for bad in (str(TOO_BIG), str(2**64), "-1", "0", "abc", "٧", "1e3", "9" * 5000):
            assert await site.get(f"api/state?game={bad}", site.waiter) == (
                400,
                {"error": "no game"},
            ), bad
            assert (await site.get(f"api/replay/{bad}", site.waiter))[0] == 400, bad
        assert (await site.get(f"api/state?game={TOO_BIG - 1}", site.waiter))[0] == 404
        assert (await site.get(f"api/replay/{TOO_BIG - 1}", site.waiter))[0] == 404
        for step in ("x", "-1", "1" * 40, str(TOO_BIG)):
            game = site.table.game_id
            status, body = await site.get(f"api/replay/{game}?step={step}", site.waiter)
            assert status == 400, (step, body)
    no_errors(caplog)


async def test_bad_hellos_close_the_socket(
    site: Site, caplog: pytest.LogCaptureFixture
) -> None:
    """The socket's first message comes before any auth: a bad one closes it with 4400."""
    game = site.table.game_id
    hellos = [
        nested(7000),  # within the socket's 16 KB, far past json's recursion limit
        '{"auth": ' + nested(5000) + "}",
        json.dumps([site.waiter, game]),
        json.dumps({"auth": ["x"], "game": game}),
        json.dumps({"auth": {"a": 1}, "game": game}),
        "not json",
    ]
    with caplog.at_level(logging.WARNING):
        for hello in hellos:
            socket = await site.session.ws_connect(f"{site.base}api/live")
            await socket.send_str(hello)
            message = await socket.receive()
            assert message.type == aiohttp.WSMsgType.CLOSE, (hello[:30], message)
            assert socket.close_code == 4400
            await socket.close()
        refusals = [
            ({"auth": site.waiter, "game": TOO_BIG}, 4400, "no game"),
            ({"auth": site.waiter, "game": [1]}, 4400, "no game"),
            ({"auth": site.stranger, "game": game}, 4404, "no such game"),
            ({"auth": "\ud800", "game": game}, 4401, "initData is not a query string"),
        ]
        for hello, code, reason in refusals:
            socket = await site.session.ws_connect(f"{site.base}api/live")
            await socket.send_str(json.dumps(hello))
            assert await socket.receive_json() == {"error": reason}
            assert (await socket.receive()).type == aiohttp.WSMsgType.CLOSE
            assert socket.close_code == code
            await socket.close()
    no_errors(caplog)


async def raw_request(base: str, head: bytes, body: bytes) -> tuple[int, bytes]:
    """One HTTP request as bytes (for headers no client sends): the status and the body."""
    host, port = base.removeprefix("http://").rstrip("/").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        length = f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
        writer.write(head + length + body)
        await writer.drain()
        answer = await reader.read()
    finally:
        writer.close()
        await writer.wait_closed()
    status_line, _, rest = answer.partition(b"\r\n")
    return int(status_line.split()[1]), rest.partition(b"\r\n\r\n")[2]


async def test_headers_that_are_not_utf8(site: Site, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        head = b"POST /api/action HTTP/1.1\r\nHost: x\r\nAuthorization: tma user=\xff\xfe\r\n"
        status, body = await raw_request(site.base, head, b"{}")
        assert status == 401 and json.loads(body) == {"error": "initData is not a query string"}
        head = b"POST /tg/hook HTTP/1.1\r\nHost: x\r\nX-Telegram-Bot-Api-Secret-Token: \xff\r\n"
        assert (await raw_request(site.base, head, b"{}"))[0] == 403
    no_errors(caplog)


async def test_webhook_bodies_with_the_right_secret(
    site: Site, caplog: pytest.LogCaptureFixture
) -> None:
    """Only Telegram holds the secret, but even its odd bodies are a 400, not a traceback."""
    hook = f"{site.base}tg/hook"
    headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET}
    cases: list[tuple[bytes, str]] = [
        (b"[1, 2]", "not an object"),
        (nested(100_000).encode(), "not JSON"),
        (b'{"update_id": 1, "x": ' + nested(3000).encode() + b"}", "not JSON"),
        (b"\xff", "not JSON"),
        (b"{}", "no update_id"),
        (b'{"update_id": "1"}', "no update_id"),
        (b'{"update_id": true}', "no update_id"),
        (b'{"update_id": 1, "message": 5}', "not an update (AttributeError)"),
        (b'{"update_id": 1, "message": {"chat": 1}}', "not an update (KeyError)"),
    ]
    with caplog.at_level(logging.WARNING):
        for body, reason in cases:
            async with site.session.post(hook, data=body, headers=headers) as response:
                answer = (response.status, await response.json())
            assert answer == (400, {"error": reason}), body[:30]
        async with site.session.post(hook, data=b"[1]") as response:
            assert (response.status, await response.json()) == (403, {"error": "wrong secret"})
        async with site.session.post(hook, json={"update_id": 1}, headers=headers) as response:
            assert response.status == 200
    no_errors(caplog)
