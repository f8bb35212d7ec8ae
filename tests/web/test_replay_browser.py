"""The replay page in headless Chromium: opened as the replay message's web button opens it
(``?replay=<game>``), stepped with its buttons to the result."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from playwright.async_api import Browser

from fakebot import FakeTelegram
from fakebot.miniapp import init_data_for
from tests.e2e.driver import setup_world
from tests.e2e.helpers_robust import finish, start_game
from tests.web.browser import PHONE, screenshot
from tests.web.helpers import running_web_bot, web_settings


async def test_the_replay_page_steps_to_the_result(
    fake_telegram: FakeTelegram, tmp_path: Any, browser: Browser
) -> None:
    fake = fake_telegram
    people = setup_world(fake, 1)
    async with running_web_bot(web_settings(fake, tmp_path / "bot.sqlite3")) as (service, web):
        table = await start_game(fake, service, people, "双扣", 3)
        await finish(fake, service, people, table)
        replay = await service.parts.history.load(table.game_id)
        assert replay is not None
        last = len(replay.steps) - 1
        context = await browser.new_context(viewport=PHONE, device_scale_factor=1)
        page = await context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        await page.route("https://telegram.org/**", lambda route: route.abort())
        init_data = init_data_for(fake.token, people[0], "玩家1")
        base = f"http://127.0.0.1:{web.port}/"
        await page.goto(f"{base}?replay={table.game_id}#tgWebAppData={quote(init_data)}")
        await page.wait_for_selector("body[data-step='0']")
        assert await page.locator(".replay-seat").count() == 4
        assert await page.locator(".replay-seat .card").count() == 108
        await page.click("#replay-next")
        await page.wait_for_selector("body[data-step='1']")
        assert await page.locator(".replay-trick li").count() == len(replay.steps[1].plays)
        await page.click("#replay-last")
        await page.wait_for_selector(f"body[data-step='{last}']")
        shown = await page.locator("#replay").inner_text()
        assert "🏆" in shown
        assert await page.locator("#replay-next").is_disabled()
        await screenshot(page, "replay-end")
        await page.click("#replay-first")
        await page.wait_for_selector("body[data-step='0']")
        assert not errors, errors
        await context.close()
