"""Two bot processes on one PostgreSQL database: one active, one standing by. The active one
is SIGKILLed in the middle of a game; the standby takes over within 15 s, recovers the game
from the log, and the game finishes with nothing lost and nothing applied twice. Then the new
active instance loses its database session and stops (exit code 1), as it must: the lease went
with the session.

The processes are the real ``python -m bot run``, against the fake Bot API server, with the
test acting as the four players (as in test_restart.py, on SQLite).
"""

from __future__ import annotations

import asyncio
import signal
import time
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
import pytest

from bench.pgcluster import Cluster, free_port
from bot.game import shuangkou
from bot.game.variants import SHUANGKOU, apply_action, auto_passes
from bot.storage import open_database
from fakebot import FakeTelegram
from tests.conftest import fresh_postgres_database
from tests.e2e.driver import ROOMY_LIMITS, setup_world
from tests.e2e.test_restart import decide, result_posted, start_bot, start_shuangkou

#: the issue's limit for a standby to take over after the active instance dies
TAKEOVER_LIMIT = 15.0


@pytest.fixture
def fake_telegram_options() -> dict[str, Any]:
    return dict(ROOMY_LIMITS)


async def health(port: int) -> tuple[int, dict[str, Any]] | None:
    """``/healthz`` of the instance on ``port``: (status, body), or None while it is not up."""
    try:
        async with (
            aiohttp.ClientSession() as session,
            session.get(f"http://127.0.0.1:{port}/healthz") as response,
        ):
            return response.status, await response.json()
    except aiohttp.ClientConnectionError:
        return None


async def wait_for_health(port: int, status: int, timeout: float) -> dict[str, Any]:
    """Ask ``/healthz`` until it answers ``status`` (a process's HTTP port has no event for
    the test to wait on: it is asked again after a short pause)."""
    deadline = time.monotonic() + timeout
    while True:
        answer = await health(port)
        if answer is not None and answer[0] == status:
            return answer[1]
        if time.monotonic() > deadline:
            raise AssertionError(f"/healthz on {port} did not answer {status}: {answer}")
        await asyncio.sleep(0.1)


async def stored(url: str) -> tuple[Any, list[Any], list[tuple[str, int, str | None]]]:
    """The last game, its results and its action log, as the database has them."""
    async with await open_database(url) as db:
        async with db.reading():
            row = await db.fetch_one("SELECT id FROM games ORDER BY id DESC LIMIT 1")
        assert row is not None
        game = await db.games.get(int(row[0]))
        assert game is not None
        results = await db.results.for_game(game.id)
        actions = [(a.kind, a.seat, a.cards) for a in await db.actions.list(game.id)]
        return game, results, actions


async def test_the_standby_takes_over_a_game_when_the_active_instance_is_killed(
    fake_telegram: FakeTelegram, postgres_cluster: Cluster, tmp_path: Path
) -> None:
    fake = fake_telegram
    url = await fresh_postgres_database(postgres_cluster)
    people = setup_world(fake, 4)
    ports = [free_port(), free_port()]
    unused = tmp_path / "unused.sqlite3"  # DATABASE_URL wins over DATABASE_PATH
    active = await start_bot(fake, unused, DATABASE_URL=url, METRICS_PORT=str(ports[0]))
    standby = await start_bot(
        fake, unused, ready=False, DATABASE_URL=url, METRICS_PORT=str(ports[1])
    )
    try:
        assert (await wait_for_health(ports[0], 200, 30))["active"] is True
        waiting = await wait_for_health(ports[1], 503, 30)
        assert waiting == {"ready": False, "database": True, "active": False}

        await start_shuangkou(fake, people)
        decisions = 0
        while decisions < 25 and await decide(fake, people, decisions):
            decisions += 1
        assert not result_posted(fake), "the game ended before the crash"
        _, _, before = await stored(url)

        active.send_signal(signal.SIGKILL)
        killed = time.monotonic()
        await active.wait()
        assert (await wait_for_health(ports[1], 200, TAKEOVER_LIMIT + 5))["active"] is True
        takeover = time.monotonic() - killed
        assert takeover <= TAKEOVER_LIMIT

        while await decide(fake, people, decisions):
            decisions += 1
        await fake.wait_for(lambda: result_posted(fake), 30)

        # the database ends the new active instance's session (as a restart of PostgreSQL
        # would): it has lost its lease with it, and stops with exit code 1 for its
        # supervisor to start it again as a standby
        admin = await asyncpg.connect(postgres_cluster.url())
        try:
            await admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE application_name = 'cardbot' AND datname = $1",
                url.rsplit("/", 1)[1],
            )
        finally:
            await admin.close()
        assert await asyncio.wait_for(standby.wait(), 30) == 1
    finally:
        for process in (active, standby):
            if process.returncode is None:
                process.send_signal(signal.SIGTERM)
                await asyncio.wait_for(process.wait(), 30)

    game, results, actions = await stored(url)
    forced = auto_passes(SHUANGKOU, int(game.seed), game.leader, actions)
    assert len(actions) - len(forced) == decisions  # nothing lost, nothing applied twice
    assert actions[: len(before)] == before
    replay = SHUANGKOU.deal(int(game.seed), game.leader)
    for action in actions:
        apply_action(replay, action)
    assert isinstance(replay, shuangkou.Game) and replay.over
    assert game.status == "finished" and game.outcome == replay.result.outcome
    assert [row.delta for row in results] == list(replay.result.deltas)
    fake.assert_clean()  # nothing over Telegram's limits, before or after the takeover
