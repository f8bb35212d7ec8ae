"""Start-up that explains itself: ``python -m bot run`` with a bad setting, database or token
exits with one line on stderr naming what is wrong, never the token, and no traceback."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from bot.config import Settings
from bot.edge.startup import only_process
from bot.storage import MIGRATIONS
from fakebot import FakeTelegram
from tests.storage.test_migrations import newer_database

ROOT = Path(__file__).resolve().parents[2]
GOOD_TOKEN = "123456789:AAFakeTokenForTests_abcdefghijklmno"


async def run_bot(env: dict[str, str], timeout: float = 60) -> tuple[int, str]:
    """(exit code, stderr) of ``python -m bot run`` with ``env`` on top of a clean one."""
    full = {key: value for key, value in os.environ.items() if not key.startswith(
        ("TELEGRAM_", "DATABASE_", "WEBHOOK_")
    )}
    full.update(env)
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "run",
        cwd=ROOT, env=full,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )
    _, stderr = await asyncio.wait_for(process.communicate(), timeout)
    assert process.returncode is not None
    return process.returncode, stderr.decode()


def one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


async def test_a_missing_token_is_named(tmp_path: Path) -> None:
    code, stderr = await run_bot({"DATABASE_PATH": str(tmp_path / "a.db")})
    assert code == 2
    assert "TELEGRAM_BOT_TOKEN is not set" in one_line(stderr)


async def test_a_malformed_token_is_named_not_printed(tmp_path: Path) -> None:
    secret = "not a token but secret words"
    code, stderr = await run_bot({"TELEGRAM_BOT_TOKEN": secret})
    assert code == 2
    line = one_line(stderr)
    assert "TELEGRAM_BOT_TOKEN" in line
    assert secret not in stderr


async def test_a_bad_number_setting_is_named(tmp_path: Path) -> None:
    code, stderr = await run_bot({"TELEGRAM_BOT_TOKEN": GOOD_TOKEN, "TURN_SECONDS": "soon"})
    assert code == 2
    assert "TURN_SECONDS" in one_line(stderr)


async def test_a_database_that_cannot_be_opened_is_named(tmp_path: Path) -> None:
    folder = tmp_path / "a-folder"
    folder.mkdir()
    not_a_database = tmp_path / "notes.txt"
    not_a_database.write_text("these are not the tables you are looking for\n" * 100)
    for path in (folder, not_a_database):
        code, stderr = await run_bot({"TELEGRAM_BOT_TOKEN": GOOD_TOKEN, "DATABASE_PATH": str(path)})
        assert code == 2
        line = one_line(stderr)
        assert str(path) in line and "DATABASE_PATH" in line
        assert GOOD_TOKEN not in stderr


async def test_a_database_from_a_newer_bot_stops_the_bot_and_is_left_as_it_was(
    tmp_path: Path,
) -> None:
    path = tmp_path / "future.sqlite3"
    before = newer_database(path, version=999)
    code, stderr = await run_bot({"TELEGRAM_BOT_TOKEN": GOOD_TOKEN, "DATABASE_PATH": str(path)})
    assert code == 2
    line = one_line(stderr)
    assert str(path) in line and "DATABASE_PATH" in line
    assert "newer version" in line and "upgrade the bot" in line
    assert "schema version 999" in line and f"knows up to {len(MIGRATIONS)}" in line
    assert GOOD_TOKEN not in stderr
    assert path.read_bytes() == before


async def test_a_rejected_token_is_named_not_printed(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    wrong = "987654321:AAWrongTokenForTests_abcdefghijklmno"
    code, stderr = await run_bot(
        {
            "TELEGRAM_BOT_TOKEN": wrong,
            "TELEGRAM_API_BASE_URL": fake_telegram.base_url,
            "DATABASE_PATH": str(tmp_path / "a.db"),
        }
    )
    assert code == 2
    assert "Telegram rejected TELEGRAM_BOT_TOKEN" in one_line(stderr)
    assert wrong not in stderr and wrong.split(":")[1] not in stderr
    assert any(r.method == "getMe" for r in fake_telegram.requests), "it asked Telegram"


async def test_a_token_with_a_trailing_newline_works(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    """The token pasted with its newline is the token: the bot starts and polls."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("TELEGRAM_")}
    env.update(
        TELEGRAM_BOT_TOKEN=fake_telegram.token + "\n",
        TELEGRAM_API_BASE_URL=fake_telegram.base_url,
        DATABASE_PATH=str(tmp_path / "a.db"),
        LOG_LEVEL="WARNING",
    )
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "run", cwd=ROOT, env=env,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        await fake_telegram.wait_for(
            lambda: any(r.method == "getUpdates" for r in fake_telegram.requests), 30
        )
    finally:
        process.terminate()
        await process.wait()
    assert not fake_telegram.rejections


async def test_telegram_out_of_reach_is_one_line(tmp_path: Path) -> None:
    code, stderr = await run_bot(
        {
            "TELEGRAM_BOT_TOKEN": GOOD_TOKEN,
            "TELEGRAM_API_BASE_URL": "http://127.0.0.1:9/bot",  # the discard port: refused
            "DATABASE_PATH": str(tmp_path / "a.db"),
        }
    )
    assert code == 1
    assert "cannot reach Telegram's Bot API" in one_line(stderr)


async def test_a_second_process_on_one_sqlite_file_refuses_to_start(tmp_path: Path) -> None:
    """One SQLite file serves one process: the second says so in one line and leaves the
    file alone; once the first is gone, the lock is free again."""
    database = tmp_path / "a.db"
    settings = Settings(telegram_bot_token=GOOD_TOKEN, database_path=str(database))
    env = {
        "TELEGRAM_BOT_TOKEN": GOOD_TOKEN,
        "TELEGRAM_API_BASE_URL": "http://127.0.0.1:9/bot",  # refused, if it got that far
        "DATABASE_PATH": str(database),
    }
    with only_process(settings):  # this test process stands in for the first bot
        code, stderr = await run_bot(env)
        assert code == 2
        line = one_line(stderr)
        assert f"another bot process (pid {os.getpid()})" in line and str(database) in line
        assert not database.exists()  # refused before the database was opened
    code, stderr = await run_bot(env)
    assert code == 1  # past the lock: it opened the database, then found Telegram unreachable
    assert "cannot reach Telegram's Bot API" in one_line(stderr)
