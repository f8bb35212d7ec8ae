"""/metrics and /healthz on METRICS_PORT: the figures a whole game leaves, and readiness."""

from __future__ import annotations

import re
from typing import Any

import aiohttp
import pytest

from bot.edge.app import build_application, running_application
from fakebot import FakeTelegram
from tests.e2e.driver import (
    GROUP,
    ROOMY_LIMITS,
    bot_settings,
    open_lobby,
    play_out,
    seeds_in_order,
    setup_world,
)


@pytest.fixture
def fake_telegram_options() -> dict[str, Any]:
    return dict(ROOMY_LIMITS)


def figure(text: str, name: str, **labels: str) -> float:
    """The value of one sample of the Prometheus text, 0 if it is not there."""
    wanted = ",".join(f'{key}="{value}"' for key, value in labels.items())
    pattern = re.escape(name) + (r"\{" + re.escape(wanted) + r"\}" if labels else "") + r" (\S+)"
    found = re.search(r"^" + pattern + r"$", text, re.MULTILINE)
    return float(found.group(1)) if found else 0.0


async def test_a_game_shows_in_the_metrics_and_health_follows_the_database(
    fake_telegram: FakeTelegram, tmp_path
) -> None:
    fake = fake_telegram
    people = setup_world(fake, 2)
    settings = bot_settings(fake, tmp_path / "bot.sqlite3", metrics_port=0)
    application = build_application(settings, new_seed=seeds_in_order([3]))
    async with running_application(application), aiohttp.ClientSession() as http:
        service = application.bot_data["service"]
        port = application.bot_data["metrics_server"].port
        assert port > 0
        lobby = await open_lobby(fake, people, "双扣", 2)
        game_id = service.by_chat[GROUP]
        table = service.tables[game_id]
        await (await fake.press(people[0], GROUP, lobby.message_id, "开始")).answered()
        await play_out(fake, service, people, game_id, type_every=3)
        await fake.wait_for_message(GROUP, contains="结果")
        await table.channel.drain()

        async with http.get(f"http://127.0.0.1:{port}/metrics") as response:
            assert response.status == 200
            text = await response.text()
        plays = len(table.log)
        counted = sum(
            figure(text, "cardbot_actions_total", game="shuangkou", source=source)
            for source in ("button", "text", "computer", "auto_pass", "timer", "web")
        )
        assert counted == plays
        assert figure(text, "cardbot_actions_total", game="shuangkou", source="computer") > 0
        assert figure(text, "cardbot_updates_total", kind="callback_query") > 0
        assert figure(text, "cardbot_telegram_calls_total", method="sendMessage") > 0
        assert figure(text, "cardbot_telegram_calls_total", method="editMessageText") > 0
        assert figure(text, "cardbot_command_seconds_count", source="computer") > 0
        assert figure(text, "cardbot_active") == 1.0
        assert "# TYPE cardbot_telegram_flood_waits_total counter" in text  # none, yet named
        assert figure(text, "cardbot_open_tables") == len(service.tables)

        async with http.get(f"http://127.0.0.1:{port}/healthz") as response:
            assert response.status == 200
            assert await response.json() == {"ready": True, "database": True, "active": True}
        await service.db.close()  # the database goes away: not ready, and it says why
        async with http.get(f"http://127.0.0.1:{port}/healthz") as response:
            assert response.status == 503
            assert (await response.json())["database"] is False
