"""The bot is SIGKILLed while four pages are open: they say so, reconnect by themselves when it
is back, resync, and the game goes on to its end with nothing lost or applied twice. Killed
again on the result screen, the pages come back to the same result."""

from __future__ import annotations

import signal
import socket
from pathlib import Path

import aiohttp
from playwright.async_api import Browser

from fakebot import FakeTelegram
from fakebot.miniapp import WebClient, init_data_for
from tests.e2e.driver import GROUP, setup_world
from tests.e2e.test_restart import _actions, _asked, _game_and_results, start_bot, start_shuangkou
from tests.web.browser import OpenPage, open_page, shown_seq
from tests.web.helpers import WEBAPP_URL


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def one_turn(pages: dict[int, OpenPage], clients: list[WebClient], game: int, n: int) -> str:
    """The seat to act decides on its page: "decided", "waited" (the bot passes for a seat
    that cannot beat the table) or "over"."""
    _, view = await clients[0].state(game)
    if view["status"] != "playing":
        return "over"
    turn = view["turn"]
    if turn is None:
        return "waited"
    _, mine = await clients[turn].state(game)
    if mine["turn"] != turn or mine["me"]["auto_pass"]:
        return "waited"  # 要不起: the bot passes for them (or did already)
    seq = mine["seq"]  # the table waits for this seat now
    page = pages[turn].page
    await shown_seq(page, seq)
    if await page.is_enabled("#pass") and (n % 3 == 0 or not await page.is_enabled("#hint")):
        await page.click("#pass")
    else:
        await page.click("#hint")
        await page.click("#play:not([disabled])")
    await page.wait_for_selector(f"body:not([data-seq='{seq}'])", state="attached")
    return "decided"


async def test_pages_resync_after_the_bot_is_killed(
    fake_telegram: FakeTelegram, tmp_path: Path, browser: Browser
) -> None:
    fake = fake_telegram
    db_path = tmp_path / "bot.sqlite3"
    people = setup_world(fake, 4)
    port = free_port()
    web = {"WEBAPP_URL": WEBAPP_URL, "WEB_LISTEN": "127.0.0.1", "WEB_PORT": str(port)}
    process = await start_bot(fake, db_path, **web)
    base = f"http://127.0.0.1:{port}/"
    try:
        await start_shuangkou(fake, people)
        await fake.wait_for_message(GROUP, contains="第 1 手")
        game = 1
        pages = {
            seat: await open_page(
                browser, base, game, init_data_for(fake.token, user, f"玩家{seat + 1}")
            )
            for seat, user in enumerate(people)
        }
        async with aiohttp.ClientSession() as session:
            clients = [
                WebClient(base, init_data_for(fake.token, user, "p"), session) for user in people
            ]
            turns = 0
            while turns < 16:
                outcome = await one_turn(pages, clients, game, turns)
                assert outcome != "over", "the game ended before the kill"
                turns += outcome == "decided"
            before = _actions(db_path)
            assert before, "nothing played before the kill"

            process.send_signal(signal.SIGKILL)
            await process.wait()
            for opened in pages.values():  # every page says it lost the table
                await opened.page.wait_for_selector("#banner:not([hidden])")
            process = await start_bot(fake, db_path, **web)
            _, view = await clients[0].state(game)
            for opened in pages.values():  # and comes back by itself, at the table's state
                await opened.page.wait_for_selector("#banner", state="hidden")
                await shown_seq(opened.page, view["seq"])
            while (outcome := await one_turn(pages, clients, game, turns)) != "over":
                turns += outcome == "decided"
            for opened in pages.values():
                await opened.page.wait_for_selector("body[data-status='finished']")
            _, finished = await clients[0].state(game)
            shown = await pages[0].page.inner_text("#panel .result")

            # killed again on the result screen: it comes back from the database as it was
            process.send_signal(signal.SIGKILL)
            await process.wait()
            await pages[0].page.wait_for_selector("#banner:not([hidden])")
            process = await start_bot(fake, db_path, **web)
            for opened in pages.values():
                await opened.page.wait_for_selector("#banner", state="hidden")
                await opened.page.wait_for_selector("body[data-status='finished']")
            status, restored = await clients[0].state(game)
            assert status == 200 and restored["result"] == finished["result"]
            assert restored["seq"] == finished["seq"]
            assert await pages[0].page.inner_text("#panel .result") == shown
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
            await process.wait()
    actions = _actions(db_path)
    assert actions[: len(before)] == before  # nothing lost
    assert len(_asked(db_path, actions)) == turns  # nothing applied twice
    game_row, results = _game_and_results(db_path)
    assert game_row["status"] == "finished" and len(results) == 4
    for opened in pages.values():
        assert not opened.errors, opened.errors
    fake.assert_clean()
