"""Pytest fixtures and helpers for running the bot against :class:`FakeTelegram`.

Import them into a ``conftest.py`` (or a test module)::

    from fakebot.fixtures import fake_telegram, fake_telegram_options  # noqa: F401

and override ``fake_telegram_options`` to configure the fake for a module, e.g. to let games
run at full speed::

    @pytest.fixture
    def fake_telegram_options() -> dict[str, object]:
        return {"group_messages_per_minute": 10_000, "private_messages_per_second": 1000.0}

Why a helper to run the application: PTB's start-up and shutdown order (initialize, start,
start_polling / stop polling, stop, shutdown) is easy to get wrong, and a wrong order leaves
a long poll or a task behind that makes the next test slow or flaky.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
from telegram.ext import Application, ApplicationBuilder

from fakebot.server import FakeTelegram


@pytest.fixture
def fake_telegram_options() -> dict[str, Any]:
    """Keyword arguments for :class:`FakeTelegram`; override to change limits and the like."""
    return {}


@pytest.fixture
async def fake_telegram(fake_telegram_options: dict[str, Any]) -> AsyncIterator[FakeTelegram]:
    """A started fake Bot API server, stopped after the test.

    It does not assert anything on exit: call ``fake_telegram.assert_clean()`` in the test
    (tests that provoke errors on purpose would otherwise fail)."""
    async with FakeTelegram(**fake_telegram_options) as fake:
        yield fake


def application_builder(fake: FakeTelegram) -> ApplicationBuilder:  # type: ignore[type-arg]
    """An ``ApplicationBuilder`` already pointed at the fake (token, base URLs); add handlers,
    a rate limiter or persistence as the bot does, then ``.build()``."""
    return (
        Application.builder()
        .token(fake.token)
        .base_url(fake.base_url)
        .base_file_url(fake.base_file_url)
    )


@contextlib.asynccontextmanager
async def running(
    app: Application,  # type: ignore[type-arg]
    *,
    poll_timeout: int = 10,
    allowed_updates: list[str] | None = None,
) -> AsyncIterator[Application]:  # type: ignore[type-arg]
    """Run ``app`` with long polling for the duration of the block, then shut it down in
    PTB's order. The long poll is released at once on shutdown (PTB cancels it), so a long
    ``poll_timeout`` costs nothing."""
    await app.initialize()
    try:
        await app.start()
        try:
            assert app.updater is not None
            await app.updater.start_polling(
                poll_interval=0, timeout=poll_timeout, allowed_updates=allowed_updates
            )
            try:
                yield app
            finally:
                await app.updater.stop()
        finally:
            await app.stop()
    finally:
        await app.shutdown()
