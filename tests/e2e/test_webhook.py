"""Webhook mode, tried for real: ``python -m bot run`` with ``WEBHOOK_URL`` behind the fake
Bot API server, which posts updates to the bot the way Telegram does (through a proxy that
forwards the registered path). Safe by default: a secret is made when none is set, every
request without it is refused, and the path served is the path registered."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import aiohttp

from fakebot import FakeTelegram

ROOT = Path(__file__).resolve().parents[2]
PUBLIC_URL = "https://bot.example/tg/hook"
ALICE, MALLORY = 101, 666


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@asynccontextmanager
async def webhook_bot(
    fake: FakeTelegram, tmp_path: Path, **extra: str
) -> AsyncIterator[int]:
    """The bot in webhook mode on a free port of 127.0.0.1; yields the port once registered."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "WEBHOOK_"))}
    env.update(
        TELEGRAM_BOT_TOKEN=fake.token,
        TELEGRAM_API_BASE_URL=fake.base_url,
        DATABASE_PATH=str(tmp_path / "bot.sqlite3"),
        WEBHOOK_URL=PUBLIC_URL,
        WEBHOOK_LISTEN="127.0.0.1",
        WEBHOOK_PORT=str(port),
        LOG_LEVEL="WARNING",
        **extra,
    )
    fake.webhook_target = f"http://127.0.0.1:{port}"
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "run", cwd=ROOT, env=env,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )
    try:
        await fake.wait_for(lambda: fake.webhook is not None, 30, what="setWebhook")
        await _listening(port)
        yield port
    finally:
        process.terminate()
        _, stderr = await process.communicate()
        assert b"Traceback" not in stderr, stderr.decode()


async def _listening(port: int) -> None:
    for _ in range(300):
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.05)
            continue
        writer.close()
        await writer.wait_closed()
        return
    raise TimeoutError("the webhook server never listened")


def start_update(update_id: int, user_id: int) -> dict[str, object]:
    user = {"id": user_id, "is_bot": False, "first_name": "Mallory"}
    return {
        "update_id": update_id,
        "message": {
            "message_id": 1, "date": 1_800_000_000, "text": "/start",
            "chat": {"id": user_id, "type": "private", "first_name": "Mallory"},
            "from": user,
            "entities": [{"type": "bot_command", "offset": 0, "length": 6}],
        },
    }


async def test_webhook_mode_makes_a_secret_and_refuses_requests_without_it(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    fake = fake_telegram
    fake.add_user(ALICE, "Alice")
    fake.add_user(MALLORY, "Mallory")
    async with webhook_bot(fake, tmp_path) as port:
        assert fake.webhook is not None
        assert fake.webhook["url"] == PUBLIC_URL
        secret = str(fake.webhook.get("secret_token") or "")
        assert len(secret) >= 32, "a secret is made when none is set"
        assert set(fake.webhook.get("allowed_updates") or []) == {
            "message", "callback_query", "my_chat_member", "chat_member"
        }
        # a real update, through Telegram: answered
        await fake.send_text(ALICE, ALICE, "/start")
        hello = await fake.wait_for(lambda: fake.chat(ALICE).bot_messages, 30, what="hello")
        assert hello
        assert any(status == 200 for _, status in fake.webhook_deliveries)
        # a forged one, straight to the bot: refused without the secret, or with a wrong one,
        # or on another path
        served = f"http://127.0.0.1:{port}/tg/hook"
        async with aiohttp.ClientSession() as session:
            for url, headers in (
                (served, {}),
                (served, {"X-Telegram-Bot-Api-Secret-Token": "guessed"}),
                (f"http://127.0.0.1:{port}/", {"X-Telegram-Bot-Api-Secret-Token": secret}),
            ):
                forged = start_update(9_000, MALLORY)
                async with session.post(url, json=forged, headers=headers) as r:
                    assert r.status in (403, 404, 405), (url, r.status)
            # the right secret on the right path is what Telegram itself sends
            headers = {"X-Telegram-Bot-Api-Secret-Token": secret}
            async with session.post(served, json=start_update(9_001, ALICE), headers=headers) as r:
                assert r.status == 200
        await fake.wait_for(lambda: len(fake.chat(ALICE).bot_messages) >= 2, 30, what="2nd hello")
        assert not fake.chat(MALLORY).bot_messages, "no forged update was taken"


async def test_a_configured_webhook_secret_is_the_one_registered(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    fake = fake_telegram
    async with webhook_bot(fake, tmp_path, WEBHOOK_SECRET="our_own-Secret_123"):
        assert fake.webhook is not None
        assert fake.webhook.get("secret_token") == "our_own-Secret_123"


async def test_webhook_and_web_table_share_one_server(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    """With WEBAPP_URL set too, the webhook's port also serves the web table's page and API
    (one server), and updates still arrive through the hook."""
    fake = fake_telegram
    fake.add_user(ALICE, "Alice")
    async with webhook_bot(fake, tmp_path, WEBAPP_URL="https://cards.example/") as port:
        async with aiohttp.ClientSession() as session:
            async with session.get(f"http://127.0.0.1:{port}/") as page:
                assert page.status == 200 and "static/app.js" in await page.text()
                assert "script-src 'self' https://telegram.org" in page.headers[
                    "Content-Security-Policy"
                ]
            async with session.get(f"http://127.0.0.1:{port}/api/state?game=1") as state:
                assert state.status == 401  # no initData
        await fake.send_text(ALICE, ALICE, "/start")
        await fake.wait_for(lambda: fake.chat(ALICE).bot_messages, 30, what="hello")
