"""The load scenario: every table's lobby opened and filled, then all started at once and
played to the end."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Sequence
from typing import Any

from bench.harness import open_lobby
from bench.load.people import Human, Knobs, Scenario, TableRun, TableSpec
from fakebot import FakeTelegram

GROUP_BASE = -1_001_000_000_000
USER_BASE = 200_000

#: the limits of the load run: the bot's own cost is the point, not Telegram's pacing
FAKE_LIMITS: dict[str, Any] = {
    "group_messages_per_minute": 1_000_000,
    "private_messages_per_second": 1_000_000.0,
    "global_messages_per_second": 1_000_000.0,
    "private_burst": None,
}


def bot_overrides(computer_delay: float) -> dict[str, Any]:
    """Bot settings of a load run: high limits, no turn timeouts, every game scored."""
    return {
        "computer_delay": computer_delay,
        "min_game_seconds": 0.0,
        "turn_seconds": 900.0,
        "reveal_seconds": 900.0,
        "group_messages_per_minute": 1_000_000,
        "overall_messages_per_second": 1_000_000.0,
        "private_messages_per_second": 1_000_000.0,
        "private_burst": 1_000_000,
        "user_actions_per_second": 10_000.0,
    }


async def _run_table(
    fake: FakeTelegram,
    table: TableRun,
    rng: random.Random,
    knobs: Knobs,
    ready: asyncio.Semaphore,
    go: asyncio.Event,
    delays: tuple[float, float],
    timeout: float,
) -> None:
    spec = table.spec
    await asyncio.sleep(delays[0])
    lobby = await open_lobby(
        fake, table.group_id, spec.variant, table.humans, table.opener, timeout
    )
    table.game_id = int(lobby.buttons[0]["callback_data"].split(":")[0])
    for _ in range(spec.computers):
        press = await fake.press(table.opener, table.group_id, lobby.message_id, "加电脑")
        await press.answered(timeout)
    ready.release()
    await go.wait()
    await asyncio.sleep(delays[1])
    table.players = [
        Human(fake, table, user_id, random.Random(rng.random()), knobs) for user_id in table.humans
    ]
    tasks = [asyncio.create_task(p.play(), name=f"human-{p.user_id}") for p in table.players]
    table.started = time.monotonic()
    start = await fake.press(table.opener, table.group_id, lobby.message_id, "开始")
    await start.answered(timeout)
    await fake.wait_for_message(table.group_id, contains="🏆", timeout=timeout)
    await fake.wait_for_message(table.group_id, contains="本局结束", timeout=timeout)
    table.finished = time.monotonic()
    table.over = True
    fake._notify()  # wake the humans waiting for a decision: none will come now
    await asyncio.gather(*tasks)


async def run_scenario(
    fake: FakeTelegram,
    specs: Sequence[TableSpec],
    *,
    seed: int = 1,
    knobs: Knobs | None = None,
    setup_spread: float = 0.0,
    start_spread: float = 0.0,
    timeout: float = 900.0,
) -> Scenario:
    """Open every table's lobby (spread over ``setup_spread`` seconds); once all are full,
    start them all (spread over ``start_spread`` seconds) and play until every game's result
    and final table are in its group."""
    rng = random.Random(seed)
    knobs = knobs or Knobs()
    tables = []
    for index, spec in enumerate(specs):
        group_id = GROUP_BASE - index
        users = [USER_BASE + index * 10 + k for k in range(spec.humans)]
        fake.add_group(group_id, f"牌桌{index}")
        for k, user_id in enumerate(users):
            fake.add_user(user_id, f"玩家{index}-{k + 1}")
        opener = users[0] if users else USER_BASE + index * 10 + 9
        if not users:
            fake.add_user(opener, f"开局{index}")  # never starts the bot: is not seated
        tables.append(TableRun(index, spec, group_id, users, opener))
    ready = asyncio.Semaphore(0)
    go = asyncio.Event()
    runs = [
        asyncio.create_task(
            _run_table(
                fake,
                table,
                random.Random(rng.random()),
                knobs,
                ready,
                go,
                (rng.uniform(0, setup_spread), rng.uniform(0, start_spread)),
                timeout,
            )
        )
        for table in tables
    ]
    try:
        for _ in tables:
            async with asyncio.timeout(timeout):
                await ready.acquire()
        go.set()
        began = time.monotonic()
        await asyncio.gather(*runs)
    finally:
        for run in runs:
            run.cancel()
    scenario = Scenario(tables)
    scenario.seconds = time.monotonic() - began
    return scenario
