"""Eight tables at once with concurrent and duplicate presses: the invariants of bench.load.

Nothing here is timed: it checks that under concurrency no action is lost or applied twice
(each game's stored log against an independent replay through the engine, against what its
humans saw accepted and what its group was shown), that every game finishes, and that every
settlement is right.
"""

from __future__ import annotations

from typing import Any

import pytest

from bench.load import FAKE_LIMITS, Knobs, TableSpec, bot_overrides, check_games, run_scenario
from fakebot import FakeTelegram
from tests.e2e.driver import bot_settings, running_bot

SPECS = [
    TableSpec("shuangkou", 2),
    TableSpec("shuangkou", 1),
    TableSpec("shuangkou", 0),
    TableSpec("shuangkou", 2),
    TableSpec("paowang", 2),
    TableSpec("paowang", 1),
    TableSpec("paowang", 0),
    TableSpec("paowang", 3),
]


@pytest.fixture
def fake_telegram_options() -> dict[str, Any]:
    return dict(FAKE_LIMITS)


async def test_eight_tables_at_once_lose_and_repeat_nothing(
    fake_telegram: FakeTelegram, tmp_path
) -> None:
    fake = fake_telegram
    db_path = tmp_path / "bot.sqlite3"
    settings = bot_settings(fake, db_path, **bot_overrides(0.0))
    # more duplicates and simultaneous presses than the benchmark: the point is the races
    knobs = Knobs(duplicate=0.5, stale_partner=0.6)
    async with running_bot(settings):
        scenario = await run_scenario(fake, SPECS, seed=7, knobs=knobs, timeout=120.0)
    check = check_games(db_path, scenario, fake)
    assert not check.problems, "\n".join(check.problems)
    assert not check.api_problems, "\n".join(check.api_problems)  # no 4xx, no flood
    assert check.finished == len(SPECS)
    # the races were really run
    duplicates = sum(h.stats.duplicates for h in scenario.humans)
    stale = sum(h.stats.stale_presses for h in scenario.humans)
    assert duplicates > 5 and stale > 5, (duplicates, stale)
    assert check.human_actions > 0
