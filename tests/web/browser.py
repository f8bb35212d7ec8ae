"""Pages in a real browser: Debian's chromium, driven by Playwright (never its own download)."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from playwright.async_api import Browser, Page, async_playwright

from bot.service.tables import Table
from tests.web.helpers import dealt_to

CHROMIUM = "/usr/bin/chromium"
# headless, and nothing that reaches for the network by itself (this machine has none)
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PHONE = {"width": 390, "height": 844}
ROOT = Path(__file__).resolve().parents[2]
#: where the pages' screenshots land: build/ (ignored by git) unless SCREENSHOTS_DIR says
#: otherwise; `make screenshots` points it at docs/screenshots to refresh the README's pictures
SCREENSHOTS = Path(os.environ.get("SCREENSHOTS_DIR") or ROOT / "build" / "screenshots")
#: Telegram's dark theme as a client hands it to a Mini App
DARK_THEME = {
    "bg_color": "#17212b",
    "text_color": "#f5f5f5",
    "hint_color": "#708499",
    "link_color": "#6ab3f3",
    "button_color": "#5288c1",
    "button_text_color": "#ffffff",
    "secondary_bg_color": "#232e3c",
}


async def launch() -> AsyncIterator[Browser]:
    if shutil.which(CHROMIUM) is None:  # make test installs it; say so rather than skip
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (make test does)")
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield browser
        finally:
            await browser.close()


@dataclass
class OpenPage:
    """One page of the web table and every live message it received."""

    page: Page
    frames: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def views(self) -> list[dict[str, Any]]:
        return [json.loads(frame) for frame in self.frames]

    async def telegram_calls(self) -> list[list[Any]]:
        """The calls the page made to the stand-in ``Telegram.WebApp`` (``telegram=True``)."""
        recorded = await self.page.get_attribute("html", "data-tg-calls")
        return json.loads(recorded or "[]")


#: a stand-in for Telegram's ``Telegram.WebApp`` (its script cannot load here): it hands the
#: page its initData and theme like a client, and records every call the page makes into the
#: ``data-tg-calls`` attribute of <html> (the page's CSP forbids the tests an eval)
TELEGRAM_STUB = """
(() => {
  const calls = [];
  const record = (name, args) => {
    calls.push([name, ...args]);
    document.documentElement.dataset.tgCalls = JSON.stringify(calls);
  };
  const hash = new URLSearchParams(location.hash.slice(1));
  const handlers = {};
  const fn = (name) => (...args) => record(name, args);
  const backClicks = [];
  window.__tgBack = () => backClicks.slice().forEach((f) => f());
  window.Telegram = { WebApp: {
    version: "8.0", platform: "tdesktop", colorScheme: "light",
    initData: hash.get("tgWebAppData") || "",
    initDataUnsafe: {},
    themeParams: JSON.parse(hash.get("tgWebAppThemeParams") || "{}"),
    safeAreaInset: { top: 0, bottom: 0, left: 0, right: 0 },
    contentSafeAreaInset: { top: 0, bottom: 0, left: 0, right: 0 },
    isVersionAtLeast: (v) => parseFloat(v) <= 8.0,
    ready: fn("ready"), expand: fn("expand"), close: fn("close"),
    onEvent: (name, f) => { (handlers[name] = handlers[name] || []).push(f); },
    setHeaderColor: fn("setHeaderColor"), setBackgroundColor: fn("setBackgroundColor"),
    setBottomBarColor: fn("setBottomBarColor"),
    disableVerticalSwipes: fn("disableVerticalSwipes"),
    enableVerticalSwipes: fn("enableVerticalSwipes"),
    enableClosingConfirmation: fn("enableClosingConfirmation"),
    disableClosingConfirmation: fn("disableClosingConfirmation"),
    requestFullscreen: fn("requestFullscreen"),
    HapticFeedback: {
      selectionChanged: fn("haptic.selection"),
      impactOccurred: fn("haptic.impact"),
      notificationOccurred: fn("haptic.notification"),
    },
    BackButton: {
      show: fn("BackButton.show"), hide: fn("BackButton.hide"),
      onClick: (f) => { backClicks.push(f); record("BackButton.onClick", []); },
      offClick: (f) => { const i = backClicks.indexOf(f); if (i >= 0) backClicks.splice(i, 1); },
    },
  } };
})();
"""


async def open_page(
    browser: Browser,
    base: str,
    game: int,
    init_data: str,
    *,
    dark: bool = False,
    viewport: dict[str, int] | None = None,
    telegram: bool = False,
) -> OpenPage:
    context = await browser.new_context(
        viewport=viewport or PHONE, color_scheme="dark" if dark else "light", device_scale_factor=1
    )
    page = await context.new_page()
    if telegram:
        await page.add_init_script(TELEGRAM_STUB)
    opened = OpenPage(page)
    # Telegram's script is not reachable here: the page must work without it
    await page.route("https://telegram.org/**", lambda route: route.abort())
    page.on("pageerror", lambda error: opened.errors.append(str(error)))

    def on_socket(socket: Any) -> None:
        socket.on(
            "framereceived",
            lambda payload: opened.frames.append(
                payload if isinstance(payload, str) else payload.decode()
            ),
        )

    page.on("websocket", on_socket)
    fragment = f"tgWebAppData={quote(init_data)}"
    if dark:
        fragment += f"&tgWebAppThemeParams={quote(json.dumps(DARK_THEME))}"
    await page.goto(f"{base}?game={game}#{fragment}")
    await page.wait_for_selector("body[data-ready='1']")
    return opened


async def shown_seq(page: Page, seq: int) -> None:
    """Wait until the page shows the table at ``seq`` actions (the table waits for the test's
    next move meanwhile). A selector, not a script: the page's CSP forbids eval."""
    await page.wait_for_selector(f"body[data-seq='{seq}']", state="attached")


async def screenshot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    # a play still on its way to the felt would show twice: wait until it has landed
    await page.wait_for_selector(".play.fly", state="detached")
    png = await page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))
    # a PNG of the phone's width: a blank or failed capture is far smaller than a drawn table
    assert png.startswith(b"\x89PNG") and len(png) > 20_000, (name, len(png))


def check_views(views: list[dict[str, Any]], seat: int, table: Table) -> None:
    """Every view a page got: its own seat only, cards only from its own hand or the public
    plays, legal plays from its own hand, partners only those the seat knows by the end."""
    dealt = dealt_to(table, seat)
    final = table.engine.view(seat)
    assert views, "the page received no view"
    for view in views:
        if view.get("game_id") != table.game_id:
            continue
        assert view["seat"] == seat
        assert set(view["hand"]) <= dealt
        for play in view["me"]["legal"]:
            assert set(play["cards"]) <= set(view["hand"])
        for index, entry in enumerate(view["seats"]):
            if entry["partner"]:
                assert index in final.partners
