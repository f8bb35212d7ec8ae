"""The web table's feel in a real browser: a slide selects, the felt clears, a refusal says
why, the page uses what Telegram offers, and sideways everything stays on the screen."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, NamedTuple

import pytest
from playwright.async_api import Browser, Page

from bot.service import GameService, Table
from bot.web.server import WebTable
from fakebot import FakeTelegram
from fakebot.miniapp import init_data_for
from tests.e2e.driver import GROUP, setup_world
from tests.e2e.helpers_robust import finish, start_game
from tests.web.browser import OpenPage, open_page, screenshot, shown_seq
from tests.web.helpers import running_web_bot, web_settings
from tests.web.test_browser import Players, check_pages, open_seats, start

SMALL_PHONE = {"width": 360, "height": 740}
SIDEWAYS = {"width": 844, "height": 390}
#: a deal whose leader holds five Js (a 五炸) and a run from the 3
DEAL = 20261201


class Dealt(NamedTuple):
    fake: FakeTelegram
    service: GameService
    web: WebTable
    table: Table
    leader: int


@pytest.fixture
async def dealt(fake_telegram: FakeTelegram, tmp_path: Any) -> AsyncIterator[Dealt]:
    """Four players in a 双扣 game of ``DEAL``, dealt, nobody's page open yet."""
    fake = fake_telegram
    people = setup_world(fake, 4)
    settings = web_settings(fake, tmp_path / "bot.sqlite3")
    async with running_web_bot(settings, deals=[DEAL]) as (service, web):
        table = await start(fake, service, people, "双扣")
        leader = table.engine.turn
        assert leader is not None
        yield Dealt(fake, service, web, table, leader)


async def _page_of(
    browser: Browser, fake: FakeTelegram, port: int, table: Any, seat: int, **options: Any
) -> OpenPage:
    user = table.seats[seat].user_id or 0
    init_data = init_data_for(fake.token, user, f"玩家{seat + 1}")
    return await open_page(
        browser, f"http://127.0.0.1:{port}/", table.game_id, init_data, **options
    )


async def _selected(page: Page) -> int:
    return len(await page.query_selector_all("#hand .card.sel"))


async def _tap(page: Page, selector: str) -> None:
    """A tap on the strip of a card that shows (the next card covers the rest of it)."""
    await page.click(selector, position={"x": 6, "y": 24})


async def _slide(page: Page, first: int, last: int) -> None:
    """A finger on card ``first`` of the top row, slid to card ``last``, lifted."""
    cards = await page.query_selector_all("#hand .row:first-child .card")
    start_box = await cards[first].bounding_box()
    end_box = await cards[last].bounding_box()
    assert start_box is not None and end_box is not None
    y = start_box["y"] + start_box["height"] * 0.75
    await page.mouse.move(start_box["x"] + 6, y)
    await page.mouse.down()
    await page.mouse.move(end_box["x"] + 6, y, steps=12)
    await page.mouse.up()


async def test_a_slide_selects_a_run_the_felt_and_clear_clear_it(
    dealt: Dealt, browser: Browser
) -> None:
    fake, _, web, table, leader = dealt
    opened = await _page_of(browser, fake, web.port, table, leader, viewport=SMALL_PHONE)
    page = opened.page
    await page.wait_for_selector("#status.mine")
    rows = await page.query_selector_all("#hand .row")
    assert len(rows) == 2  # 27 cards, two rows on a 360 px phone
    assert len(await page.query_selector_all("#hand .card")) == 27
    await screenshot(page, "feel-27-cards-360")
    await _slide(page, 0, 5)
    assert await _selected(page) == 6
    await screenshot(page, "feel-slide-selected")
    await _slide(page, 2, 3)  # started on a selected card: the slide deselects
    assert await _selected(page) == 4
    await page.click("#trick-head", position={"x": 5, "y": 5})  # the felt
    assert await _selected(page) == 0
    await _tap(page, "#hand .row:first-child .card:nth-child(2)")  # a tap still toggles
    assert await _selected(page) == 1
    assert await page.is_enabled("#clear")
    await page.click("#clear")
    assert await _selected(page) == 0 and not await page.is_enabled("#clear")
    assert not opened.errors, opened.errors


async def test_a_refused_play_says_why_shakes_and_buzzes(
    dealt: Dealt, browser: Browser
) -> None:
    fake, _, web, table, leader = dealt
    opened = await _page_of(browser, fake, web.port, table, leader, telegram=True)
    page = opened.page
    await page.wait_for_selector("#status.mine")
    # the lowest card and the highest: no combination
    await _tap(page, "#hand .row:first-child .card:first-child")
    await _tap(page, "#hand .row:last-child .card:last-child")
    assert "出不了" in await page.inner_text("#play")
    await page.click("#play")  # sent all the same: the bot says why
    await page.wait_for_selector("body[data-refusals='1']", state="attached")
    assert "不是合法的牌型" in await page.inner_text("#toast")
    assert "shake" in (await page.get_attribute("#hand", "class") or "")
    await screenshot(page, "feel-refused")
    calls = await opened.telegram_calls()
    assert ["haptic.notification", "error"] in calls
    assert ["haptic.selection"] in calls  # each card tapped
    assert table.public_seq == 0  # nothing was played


async def test_the_page_uses_what_telegram_offers(
    dealt: Dealt, browser: Browser
) -> None:
    """While seated in a game: no vertical swipes, a closing confirmation, the theme's header
    and background; Telegram's back button closes the last trick; a turn coming buzzes."""
    fake, _, web, table, leader = dealt
    opened = await _page_of(browser, fake, web.port, table, leader, telegram=True)
    page = opened.page
    await page.wait_for_selector("#status.mine")
    calls = await opened.telegram_calls()
    for call in (
        ["ready"],
        ["expand"],
        ["disableVerticalSwipes"],
        ["enableClosingConfirmation"],
        ["setHeaderColor", "secondary_bg_color"],
        ["setBackgroundColor", "bg_color"],
        ["haptic.impact", "medium"],  # the turn is this seat's
    ):
        assert call in calls, (call, calls)
    await page.click("#last-toggle")
    assert not await page.is_hidden("#last-trick")
    assert ["BackButton.show"] in await opened.telegram_calls()
    await page.evaluate("window.__tgBack()")  # Telegram's back button pressed
    await page.wait_for_selector("#last-trick", state="hidden")
    assert ["BackButton.hide"] in await opened.telegram_calls()
    assert not opened.errors, opened.errors


async def test_sideways_the_hand_and_its_buttons_stay_on_the_screen(
    dealt: Dealt, browser: Browser
) -> None:
    fake, _, web, table, leader = dealt
    opened = await _page_of(browser, fake, web.port, table, leader, viewport=SIDEWAYS)
    page = opened.page
    await page.wait_for_selector("#status.mine")
    await shown_seq(page, 0)
    for selector in ("#hand .row:last-child .card:last-child", "#play", "#pass", "#hint"):
        box = await (await page.query_selector(selector)).bounding_box()  # type: ignore[union-attr]
        assert box is not None, selector
        assert box["y"] >= 0 and box["y"] + box["height"] <= SIDEWAYS["height"], (selector, box)
        assert box["x"] + box["width"] <= SIDEWAYS["width"], (selector, box)
    await page.click("#hint")
    first = await page.inner_text("#play")
    await page.click("#hint")
    assert "2/" in await page.inner_text("#hint")  # 提示 counts where it is
    await page.click("#hint-back")  # and walks back
    assert await page.inner_text("#play") == first
    await page.click("#play")
    await page.wait_for_selector("body[data-seq='1']", state="attached")
    await screenshot(page, "feel-sideways")
    assert not opened.errors, opened.errors


async def test_a_bomb_sorted_first_and_played_has_its_moment(
    dealt: Dealt, browser: Browser
) -> None:
    """理牌 puts the bombs first, marked; played, the bomb's name shows large on every page."""
    fake, _, web, table, leader = dealt
    ranks = [card >> 3 for card in table.engine.hands[leader]]
    size = max(ranks.count(rank) for rank in set(ranks) if rank < 16)
    assert size >= 4, "the deal of this seed gives the leader a bomb"
    opened = await _page_of(browser, fake, web.port, table, leader)
    watcher = await _page_of(
        browser, fake, web.port, table, (leader + 1) % 4, dark=True, viewport=SMALL_PHONE
    )
    page = opened.page
    await page.wait_for_selector("#status.mine")
    await page.click("#sort")  # by suit
    await page.click("#sort")  # 理牌
    marked = await page.query_selector_all("#hand .card.bomb")
    assert len(marked) >= size
    await _slide(page, 0, size - 1)
    assert await _selected(page) == size
    label = await page.inner_text("#play")
    assert "炸" in label, label
    await page.click("#play")
    effect = {4: "四炸", 5: "五炸", 6: "六炸", 7: "七炸", 8: "八炸"}[size]
    for shown in (page, watcher.page):
        await shown.wait_for_selector("#effect:not([hidden])")
        assert await shown.inner_text("#effect") == effect  # named by its size
    await screenshot(page, "feel-bomb")
    await screenshot(watcher.page, "feel-bomb-360-dark")
    heard = [e for v in watcher.views() for e in v.get("events", []) if e["type"] == "play"]
    assert heard and heard[-1]["bomb"] and heard[-1]["seat"] == leader
    assert not opened.errors and not watcher.errors


async def test_play_again_from_the_page_takes_every_page_into_the_next_game(
    fake_telegram: FakeTelegram, tmp_path: Any, browser: Browser
) -> None:
    """再来一局 on a result page opens the next lobby (the group gets its lobby message); the
    presser, its opener, starts it from the page; every page goes into the new game by
    itself."""
    fake = fake_telegram
    people = setup_world(fake, 2)
    async with running_web_bot(web_settings(fake, tmp_path / "bot.sqlite3")) as (service, web):
        table = await start_game(fake, service, people, "双扣", 2)
        await finish(fake, service, people, table)
        seats = [table.seat_of(person) for person in people]
        opener = await _page_of(browser, fake, web.port, table, seats[0] or 0)
        other = await _page_of(
            browser, fake, web.port, table, seats[1] or 0, dark=True, viewport=SMALL_PHONE
        )
        for opened in (opener, other):
            await opened.page.wait_for_selector("#again")
        await screenshot(other.page, "result-360-dark")
        await opener.page.click("#again")
        lobby = await fake.wait_for(
            lambda: (t := service.table_in_chat(GROUP)) is not None and t.status == "lobby" and t,
            what="the next lobby",
        )
        assert lobby.previous_game_id == table.game_id
        await opener.page.wait_for_selector("#start-next")
        await other.page.wait_for_selector("#panel .how >> text=等开局的人开始")
        assert await other.page.query_selector("#start-next") is None  # not the opener
        await screenshot(opener.page, "feel-next-lobby")
        await opener.page.click("#start-next")
        for opened in (opener, other):
            await opened.page.wait_for_selector(
                f"body[data-game='{lobby.game_id}'][data-status='playing']", state="attached"
            )
        assert lobby.status == "playing"
        assert not opener.errors and not other.errors


async def test_sound_is_off_until_the_player_turns_it_on_and_stays_their_choice(
    dealt: Dealt, browser: Browser
) -> None:
    fake, _, web, table, leader = dealt
    opened = await _page_of(browser, fake, web.port, table, leader)
    page = opened.page
    await page.wait_for_selector("#status.mine")
    assert await page.get_attribute("#sound", "aria-pressed") == "false"
    assert await page.get_attribute("body", "data-sounds") is None  # silent: a turn came
    await page.click("#sound")
    assert await page.get_attribute("#sound", "aria-pressed") == "true"
    assert "开" in await page.inner_text("#sound")
    await page.wait_for_selector("body[data-sounds='1']", state="attached")  # the tap's
    await page.click("#hint")
    await page.click("#play")  # a play: its sound
    await page.wait_for_selector("body[data-sounds='2']", state="attached")
    await page.reload()  # remembered
    await page.wait_for_selector("body[data-ready='1']", state="attached")
    assert await page.get_attribute("#sound", "aria-pressed") == "true"
    assert not opened.errors, opened.errors


async def test_a_whole_game_sideways_with_every_button_on_the_screen(
    fake_telegram: FakeTelegram, tmp_path: Any, browser: Browser
) -> None:
    """Four pages play a whole 双扣 game; seat 0's is turned sideways (844×390): on each of its
    turns the hand's last card and every button are inside the screen, and nothing scrolls."""
    fake = fake_telegram
    people = setup_world(fake, 4)
    async with running_web_bot(web_settings(fake, tmp_path / "bot.sqlite3"), deals=[99]) as (
        service,
        web,
    ):
        table = await start(fake, service, people, "双扣")
        pages = await open_seats(browser, fake, web.port, table, (1, 2, 3))
        pages[0] = await _page_of(browser, fake, web.port, table, 0, viewport=SIDEWAYS, dark=True)
        sideways = pages[0].page
        checked = 0

        async def on_screen(index: int) -> None:
            nonlocal checked
            if index != 0:
                return
            await sideways.wait_for_selector("#status.mine")
            for selector in ("#hand .row:last-child .card:last-child", "#play", "#pass", "#hint"):
                node = await sideways.query_selector(selector)
                box = await node.bounding_box() if node is not None else None
                assert box is not None, selector
                assert box["y"] >= 0 and box["y"] + box["height"] <= SIDEWAYS["height"], selector
            assert await sideways.evaluate(
                "document.scrollingElement.scrollHeight <= window.innerHeight"
            )
            checked += 1
            if checked == 1:
                await screenshot(sideways, "feel-sideways-dark")

        players = Players(fake, service, table, pages)
        await players.play_to_the_end(before_turn=on_screen)
        await sideways.wait_for_selector("body[data-status='finished']")
        assert checked >= 3
        check_pages(pages, table)
