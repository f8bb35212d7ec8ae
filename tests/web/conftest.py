"""Fixtures of the web table's tests: the fake at full speed, and a browser."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from playwright.async_api import Browser

from tests.e2e.driver import ROOMY_LIMITS
from tests.web.browser import launch


@pytest.fixture
def fake_telegram_options() -> dict[str, Any]:
    """The fake without Telegram's limits: these tests are about the page, not pacing."""
    return dict(ROOMY_LIMITS)


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async for opened in launch():
        yield opened
