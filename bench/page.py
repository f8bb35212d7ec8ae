"""The web table in a real browser: page weight, first paint, first view, tap to highlight.

``.venv/bin/python -m bench.page`` runs the bot with its web table against the fake Bot API
server, deals one 双扣 game and opens the page of the seat to lead in headless Chromium
(Debian's, as the browser tests do) at 390×844, ``--loads`` times in fresh browser contexts
(nothing cached): the bytes it fetched over the wire for the table (the page, its script and
style; Telegram's script is not reachable here and is left out), first contentful paint and
the first view shown (``body[data-ready]``), from the navigation's start. Then ``--taps``
taps on the hand's cards (each card's visible strip, tapped twice: on and off), each timed
in the page from the ``pointerdown`` to the next frame after the card's class changed. It
prints the figures and rewrites the ``bench.page`` section of ``bench/results/bot.md``;
``--no-write`` only prints. The live-view latency of a play at other pages is
``bench.web``'s.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import quote

from playwright.async_api import Browser, async_playwright

from bench.botrun import machine_lines, markdown_table, started, write_section
from bench.web.tables import TableSpec, add_world, seeds_in_order, start_table, web_settings
from bot.config import Settings
from bot.edge.app import build_application, running_application
from fakebot import FakeTelegram
from fakebot.miniapp import init_data_for

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
PHONE = {"width": 390, "height": 844}
SEED = 20261201

#: installed in the page: each tap's time from its pointerdown to the frame after the change
TIMING = """() => {
  window.__taps = [];
  let down = 0;
  document.addEventListener("pointerdown", (event) => { down = event.timeStamp; }, true);
  const card = (change) => change.target.classList && change.target.classList.contains("card");
  new MutationObserver((changes) => {
    if (!down || !changes.some(card)) return;
    const at = down;
    down = 0;
    requestAnimationFrame(() => {
      window.__taps.push(performance.now() - at);
      document.body.dataset.taps = String(window.__taps.length);
    });
  }).observe(
    document.getElementById("hand"), { attributes: true, subtree: true, attributeFilter: ["class"] }
  );
}"""


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def load_once(browser: Browser, url: str) -> dict[str, Any]:
    context = await browser.new_context(viewport=PHONE, device_scale_factor=1)
    page = await context.new_page()
    await page.route("https://telegram.org/**", lambda route: route.abort())
    fetched: list[Any] = []
    page.on("requestfinished", lambda request: fetched.append(request))
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    await page.goto(url)
    try:
        await page.wait_for_selector("body[data-ready='1']", state="attached")
    except Exception:
        raise RuntimeError(f"no view: {errors} {await page.inner_text('#banner')!r}") from None
    first_view = await page.evaluate("performance.now()")
    paint = await page.evaluate(
        "(performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime || null"
    )
    size = 0
    for request in fetched:
        if request.url.startswith("http://127.0.0.1") and "/api/" not in request.url:
            sizes = await request.sizes()
            size += sizes["responseBodySize"] + sizes["responseHeadersSize"]
    return {"context": context, "page": page, "bytes": size, "paint": paint, "view": first_view}


async def taps(page: Any, count: int) -> list[float]:
    await page.evaluate(TIMING)
    cards = await page.query_selector_all("#hand .card")
    for n in range(count):
        card = cards[(n // 2) % len(cards)]
        box = await card.bounding_box()
        assert box is not None
        await page.mouse.click(box["x"] + 6, box["y"] + box["height"] * 0.7)
    # a selector, not a script: the page's CSP forbids eval, so no wait_for_function
    await page.wait_for_selector(f"body[data-taps='{count}']", state="attached")
    return list(await page.evaluate("window.__taps"))


async def run(loads: int, tap_count: int) -> dict[str, Any]:
    spec = TableSpec(0, "shuangkou")
    async with FakeTelegram() as fake:
        add_world(fake, [spec])
        with tempfile.TemporaryDirectory(prefix="bench-page-") as folder:
            settings = Settings(**web_settings(fake, Path(folder) / "bot.sqlite3"))
            application = build_application(settings, new_seed=seeds_in_order([SEED]))
            async with running_application(application) as application:
                service = application.bot_data["service"]
                port = application.bot_data["web"].port
                game_id = await start_table(fake, spec)
                table = service.table(game_id)
                leader = table.engine.turn
                user = table.seats[leader].user_id
                init_data = init_data_for(fake.token, user, "玩家")
                url = f"http://127.0.0.1:{port}/?game={game_id}#tgWebAppData={quote(init_data)}"
                async with async_playwright() as playwright:
                    browser = await playwright.chromium.launch(
                        executable_path=CHROMIUM, args=ARGS
                    )
                    shown = []
                    for _ in range(loads):  # one page at a time: a user may have four open
                        if shown:
                            await shown[-1]["context"].close()
                        shown.append(await load_once(browser, url))
                    tapped = await taps(shown[-1]["page"], tap_count)
                    await shown[-1]["context"].close()
                    await browser.close()
    return {
        "bytes": statistics.median(one["bytes"] for one in shown),
        "paint": [one["paint"] for one in shown if one["paint"] is not None],
        "view": [one["view"] for one in shown],
        "taps": tapped,
    }


def _ms(value: float) -> str:
    return f"{value:.0f} ms"


def report(figures: dict[str, Any], start: tuple[str, str, str], loads: int) -> str:
    paint, view, tapped = figures["paint"], figures["view"], figures["taps"]
    rows = [
        ["the table's files over the wire", f"{figures['bytes'] / 1024:.1f} KiB", "", ""],
        ["first contentful paint", _ms(statistics.median(paint)), "", _ms(max(paint))],
        ["first view shown", _ms(statistics.median(view)), "", _ms(max(view))],
        [
            f"tap to highlight ({len(tapped)} taps)",
            f"{statistics.median(tapped):.1f} ms",
            f"{percentile(tapped, 0.99):.1f} ms",
            f"{max(tapped):.1f} ms",
        ],
    ]
    lines = [
        "## The web table in a browser (`bench.page`)",
        "",
        "`.venv/bin/python -m bench.page`",
        "",
        *machine_lines(start),
        f"- Headless Chromium (Debian's), 390×844; {loads} loads in fresh contexts (nothing "
        "cached), the bot and the fake on 127.0.0.1; the leader's page of a 双扣 deal",
        "",
        markdown_table(["what", "median", "p99", "max"], rows),
        "",
        "Bytes: response bodies as sent (gzipped where the browser takes it) and headers, for "
        "the page, its script and style (Telegram's script is left out: not reachable here). "
        "Times from the navigation's start; a tap from its `pointerdown` to the frame after "
        "the card's class changed. The latency of a play at the other pages is `bench.web`'s.",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loads", type=int, default=5)
    parser.add_argument("--taps", type=int, default=60)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    start = started()
    figures = asyncio.run(run(args.loads, args.taps))
    text = report(figures, start, args.loads)
    print(text)
    if not args.no_write:
        write_section("bench.page", text)


if __name__ == "__main__":
    main()
