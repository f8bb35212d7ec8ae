"""Arbitrary input at every door of the web server, on one running bot with a game in
progress: action bodies (JSON values, near-valid actions, raw bytes), query strings of
/api/state and /api/replay, first messages on /api/live, and webhook bodies with the right
secret. Every answer is a 4xx, or the 2xx a valid request gets; never a 500, no game changes,
and nothing is logged at ERROR."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable, Coroutine
from pathlib import Path
from typing import Any
from urllib.parse import quote

import aiohttp
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from yarl import URL

from bot.web.inputs import KINDS
from fakebot import FakeTelegram
from tests.e2e.helpers_robust import snapshot
from tests.web.sites import SECRET, Site, no_errors, open_site

#: JSON as anyone may send it: nested a little, with numbers past 64 bits and odd text
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=2**63 - 2, max_value=2**64)
    | st.floats(allow_nan=False)
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)


@pytest.fixture
async def site(fake_telegram: FakeTelegram, tmp_path: Path) -> AsyncIterator[Site]:
    async with open_site(fake_telegram, tmp_path) as opened:
        yield opened


def fuzz(max_examples: int) -> Callable[[Any], Any]:
    return settings(
        max_examples=max_examples,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


async def test_arbitrary_input_is_a_4xx_and_changes_nothing(
    site: Site, caplog: pytest.LogCaptureFixture
) -> None:
    loop = asyncio.get_running_loop()
    table = site.table
    game = table.game_id
    before = snapshot(table)
    counts: dict[str, int] = {}
    ok: dict[str, int] = {}

    def run(route: str, coroutine: Coroutine[Any, Any, int]) -> None:
        status = asyncio.run_coroutine_threadsafe(coroutine, loop).result(timeout=30)
        counts[route] = counts.get(route, 0) + 1
        if status < 300:
            ok[route] = ok.get(route, 0) + 1

    who = st.sampled_from(["waiter", "stranger", "spectator", "nobody", "forged"])

    def auth(name: str) -> dict[str, str]:
        data = {
            "waiter": site.waiter,
            "stranger": site.stranger,
            "spectator": site.spectator,
            "forged": "user=%7B%22id%22%3A1%7D&auth_date=1&hash=00",
        }.get(name)
        return {} if data is None else {"Authorization": f"tma {data}"}

    game_ids = st.sampled_from([game, game + 1, str(game), None, ""]) | json_values
    cards = st.lists(st.integers(0, 130), max_size=30) | json_values
    actions = st.fixed_dictionaries(
        {"game": game_ids, "kind": st.sampled_from(sorted(KINDS)) | json_values},
        optional={"cards": cards, "extra": json_values},
    )
    valid = st.fixed_dictionaries(
        {
            "game": st.sampled_from([game, str(game)]),
            "kind": st.sampled_from(sorted(KINDS)),
            "cards": st.lists(st.integers(24, 130), max_size=5),
        }
    )
    bodies = (
        (valid | actions).map(lambda a: json.dumps(a).encode())
        | json_values.map(lambda v: json.dumps(v).encode())
        | st.binary(max_size=64)
    )

    async def action(name: str, body: bytes) -> int:
        async with site.session.post(
            f"{site.base}api/action", data=body, headers=auth(name)
        ) as response:
            await _refusal_or_json(response)
            assert response.status in (200, 400, 401, 403, 404), (response.status, body)
            if response.status == 200:
                # only a seated player's well-formed action gets here, and it is refused
                # (not their turn, nothing selected): nothing is played
                assert name == "waiter" and not (await response.json())["accepted"], body
            return response.status

    @fuzz(160)
    @given(who, bodies)
    def actions_check(name: str, body: bytes) -> None:
        run("action", action(name, body))
        assert snapshot(table) == before

    queries = (
        st.text(max_size=30).map(lambda s: quote(s, safe="=&;%+?/"))
        | game_ids.map(lambda g: "game=" + quote(str(g), safe=""))
    )

    async def get(name: str, path: str) -> int:
        url = URL(f"{site.base}{path}", encoded=True)
        async with site.session.get(url, headers=auth(name)) as response:
            await _refusal_or_json(response)
            assert 200 <= response.status < 500, (response.status, path)
            if path.startswith("api/replay"):  # the one game is in progress: no replay
                assert response.status >= 400, path
            return response.status

    @fuzz(60)
    @given(who, queries)
    def state_check(name: str, query: str) -> None:
        run("state", get(name, f"api/state?{query}"))

    segments = st.text(min_size=1, max_size=25).map(lambda s: quote(s, safe="")) | st.just(
        str(game)
    )

    @fuzz(60)
    @given(who, segments, queries)
    def replay_check(name: str, segment: str, query: str) -> None:
        run("replay", get(name, f"api/replay/{segment}?{query}"))

    auths = st.sampled_from([site.waiter, site.stranger, site.spectator, ""]) | json_values
    hellos = (
        st.fixed_dictionaries({"auth": auths, "game": game_ids}).map(json.dumps)
        | json_values.map(json.dumps)
        | st.text(max_size=40)
    )

    async def hello(message: str) -> int:
        async with site.session.ws_connect(f"{site.base}api/live") as socket:
            await socket.send_str(message)
            first = await socket.receive(timeout=10)
            if first.type == aiohttp.WSMsgType.TEXT and "error" not in json.loads(first.data):
                assert json.loads(first.data)["game_id"] == game  # a view: a valid hello
                return 200
            if first.type == aiohttp.WSMsgType.TEXT:  # a refusal, then the close
                first = await socket.receive(timeout=10)
            assert first.type == aiohttp.WSMsgType.CLOSE, (first, message)
            assert socket.close_code is not None and 4400 <= socket.close_code < 4500
            return socket.close_code - 4000

    @fuzz(60)
    @given(hellos)
    def hello_check(message: str) -> None:
        run("hello", hello(message))

    updates = st.fixed_dictionaries(
        {"update_id": st.integers(0, 2**70) | json_values},
        optional={"message": json_values, "callback_query": json_values},
    )
    webhook_bodies = (
        updates.map(lambda u: json.dumps(u).encode())
        | json_values.map(lambda v: json.dumps(v).encode())
        | st.binary(max_size=64)
    )

    async def webhook(body: bytes) -> int:
        headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET}
        async with site.session.post(
            f"{site.base}tg/hook", data=body, headers=headers
        ) as response:
            await _refusal_or_json(response)
            assert response.status in (200, 400), (response.status, body)
            return response.status

    @fuzz(80)
    @given(webhook_bodies)
    # updates Telegram could send (with nothing the bot acts on), whatever the draw holds
    @example(b'{"update_id": 1}')
    @example(b'{"update_id": 2, "message": null}')
    @example(b'{"update_id": 3, "message": {}}')
    @example(b'{"update_id": 4, "callback_query": []}')
    @example(b'{"update_id": 5, "message": 7}')
    def webhook_check(body: bytes) -> None:
        run("webhook", webhook(body))

    with caplog.at_level(logging.WARNING):
        for check in (actions_check, state_check, replay_check, hello_check, webhook_check):
            await asyncio.to_thread(check)
        # and the doors still open for what is valid (the draws hold some valid requests
        # too, but how many depends on how Hypothesis explores, which is not fixed)
        valid_body = json.dumps({"game": game, "kind": "pass", "cards": []}).encode()
        assert await action("waiter", valid_body) == 200
        assert await get("spectator", f"api/state?game={game}") == 200
        hello_ok = json.dumps({"auth": site.spectator, "game": game})
        assert await hello(hello_ok) == 200
        for update_id in range(3):
            assert await webhook(json.dumps({"update_id": update_id}).encode()) == 200
        await site.fake.wait_for(lambda: site.web.live.count() == 0, what="the pages closed")
    no_errors(caplog)
    assert snapshot(table) == before
    # the draws were really made, and some valid ones among them went through
    assert counts["action"] >= 100 and sum(counts.values()) >= 300, counts
    assert sum(ok.values()) >= 5, (counts, ok)


async def _refusal_or_json(response: aiohttp.ClientResponse) -> None:
    """A refusal of ours is short JSON ({"error": ...}); aiohttp's own 404 for a path no
    route serves is its plain text."""
    text = await response.text()
    assert "Traceback" not in text
    if response.status >= 400 and response.content_type == "application/json":
        body = json.loads(text)
        assert set(body) == {"error"} and len(text) < 200, text
