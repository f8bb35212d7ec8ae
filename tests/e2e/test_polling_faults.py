"""Telegram failing the bot's getUpdates (a 502 from its front, a 500, a dropped connection):
one WARNING line without a traceback, polling goes on, and the bot still answers.

Both ways the bot polls are run: in-process (``running_application``, as the other end-to-end
tests) and ``python -m bot run`` as deployed, whose log is read from its stderr.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.edge.telegram_log import PTB_REQUEST_LOGGER
from fakebot import FakeTelegram
from tests.e2e.driver import running_bot
from tests.e2e.helpers_robust import FAST, fast_settings, say

ROOT = Path(__file__).resolve().parents[2]
USER = 401


@pytest.fixture
def fake_telegram_options() -> dict[str, Any]:
    return FAST


@pytest.mark.parametrize("fault", ["502", "500", "drop"])
async def test_a_failing_get_updates_is_one_warning_and_polling_goes_on(
    fake_telegram: FakeTelegram, tmp_path: Path, caplog: pytest.LogCaptureFixture, fault: str
) -> None:
    fake = fake_telegram
    fake.add_user(USER, "小明", language_code="zh-hans")
    caplog.set_level(logging.INFO)
    async with running_bot(fast_settings(fake, tmp_path / "bot.sqlite3")):
        failing = fake.inject("getUpdates", fault, times=2)
        # the poll in flight when the fault was set returns with this update; the next two fail
        first = await say(fake, USER, USER, "/start")
        await fake.wait_for(lambda: failing.fired == 2, what="two failed getUpdates")
        again = await say(fake, USER, USER, "/start")
        assert again.text == first.text
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING and r.exc_info]
    warnings = [r for r in caplog.records if r.name == "bot.edge.telegram_log"]
    assert len(warnings) == 1, [r.getMessage() for r in warnings]  # two failures, one line
    assert warnings[0].levelno == logging.WARNING
    # the nginx page of a 502: once at most, as the same kind of line
    not_json = [r for r in caplog.records if r.name == PTB_REQUEST_LOGGER]
    assert len(not_json) <= 1 and all(r.levelno == logging.WARNING for r in not_json)


async def test_the_deployed_bot_logs_a_502_as_one_warning_line(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    fake = fake_telegram
    fake.add_user(USER, "小明", language_code="zh-hans")
    env = {key: value for key, value in os.environ.items() if not key.startswith("TELEGRAM_")}
    env.update(
        TELEGRAM_BOT_TOKEN=fake.token,
        TELEGRAM_API_BASE_URL=fake.base_url,
        DATABASE_PATH=str(tmp_path / "a.db"),
        LOG_LEVEL="WARNING",
    )
    failing = fake.inject("getUpdates", "502", times=2)
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "run", cwd=ROOT, env=env,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )
    try:
        await fake.wait_for(lambda: failing.fired == 2, 30, what="two failed getUpdates")
        await say(fake, USER, USER, "/start")  # polling went on
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.wait_for(process.communicate(), 30)
    log = stderr.decode()
    assert process.returncode == 0, log
    assert "Traceback" not in log and " ERROR " not in log, log
    lines = [line for line in log.splitlines() if "bot.edge.telegram_log" in line]
    assert len(lines) == 1 and " WARNING " in lines[0], log
    assert "Bad Gateway" in lines[0]
    assert len([line for line in log.splitlines() if " WARNING " in line]) <= 2, log
    assert fake.token not in log
