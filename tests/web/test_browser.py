"""Whole games on the web table in headless Chromium, against the real bot and the fake Bot
API server: four pages playing 双扣, five playing 刨王 with 亮王, pages and keyboards in one
game, a page reloaded mid-game. Screenshots land in build/screenshots/; `make screenshots`
writes the README's copies in docs/screenshots/ instead."""

from __future__ import annotations

from collections.abc import Container, Iterable
from typing import Any

from playwright.async_api import Browser

from bot.service import GameService
from bot.service.tables import Table
from fakebot import FakeTelegram
from fakebot.miniapp import init_data_for
from tests.e2e.driver import GROUP, live_message, open_lobby, setup_world
from tests.web.browser import (
    OpenPage,
    check_views,
    open_page,
    screenshot,
    shown_seq,
)
from tests.web.helpers import running_web_bot, web_settings


async def start(fake: FakeTelegram, service: GameService, people: list[int], variant: str) -> Table:
    lobby = await open_lobby(fake, people, variant, 0)
    table = service.tables[service.by_chat[GROUP]]
    await (await fake.press(people[0], GROUP, lobby.message_id, "开始")).answered()
    await fake.wait_for(lambda: table.dealt, what="the deal")
    return table


async def open_seats(
    browser: Browser,
    fake: FakeTelegram,
    port: int,
    table: Table,
    seats: Iterable[int],
    *,
    dark: Container[int] = (),
) -> dict[int, OpenPage]:
    """A page for each of ``seats``, opened by the seat's player (``dark``: in dark theme)."""
    base = f"http://127.0.0.1:{port}/"
    pages: dict[int, OpenPage] = {}
    for seat in seats:
        user = table.seats[seat].user_id or 0
        init_data = init_data_for(fake.token, user, f"玩家{seat + 1}")
        pages[seat] = await open_page(browser, base, table.game_id, init_data, dark=seat in dark)
    return pages


class Players:
    """Who decides where: a page (clicks) or the hand message's buttons (presses)."""

    def __init__(
        self,
        fake: FakeTelegram,
        service: GameService,
        table: Table,
        pages: dict[int, OpenPage],
    ) -> None:
        self.fake = fake
        self.service = service
        self.table = table
        self.pages = pages  # seat -> page
        self.turns = 0
        self.on_page = 0
        self.on_keyboard = 0

    async def play_to_the_end(
        self, *, shoot_at: int = -1, shoot: Any = None, before_turn: Any = None
    ) -> None:
        """Play every turn (``before_turn(seat)`` first, if given) until the game is over."""
        table = self.table
        fake = self.fake
        while table.status == "playing" and not table.engine.over:
            if table.gate_open:
                await self.gate()
                continue
            index = table.engine.turn
            assert index is not None
            seq = table.public_seq  # what the pages count (not the hidden 亮王 answers)
            if self.service.cannot_beat(table, index):  # 要不起: the bot passes
                await fake.wait_for(lambda s=seq: table.public_seq > s, what="the auto-pass")
                continue
            self.turns += 1
            if before_turn is not None:
                await before_turn(index)
            if index in self.pages:
                await self.page_turn(self.pages[index], seq)
                self.on_page += 1
            else:
                await self.keyboard_turn(table.seats[index].user_id or 0)
                self.on_keyboard += 1
            await fake.wait_for(
                lambda s=seq: table.public_seq > s or table.engine.over, what="the action"
            )
            if self.turns == shoot_at and shoot is not None:
                await shoot()

    async def page_turn(self, opened: OpenPage, seq: int) -> None:
        page = opened.page
        await shown_seq(page, seq)
        await page.wait_for_selector("#status.mine")
        may_pass = await page.is_enabled("#pass")
        if may_pass and (self.turns % 3 == 0 or not await page.is_enabled("#hint")):
            await page.click("#pass")
            return
        await page.click("#hint")
        await page.wait_for_selector("#play:not([disabled])")
        label = await page.inner_text("#play")
        assert label.startswith("出 "), label  # it names the play the selection makes
        await page.click("#play")

    async def keyboard_turn(self, user_id: int) -> None:
        fake = self.fake
        message = await fake.wait_for(
            lambda: (m := live_message(fake, user_id)) is not None and "提示" in m.labels and m,
            what="the hand message",
        )
        if "不出" in message.labels and self.turns % 3 == 0:
            await (await fake.press(user_id, user_id, message.message_id, "不出")).answered()
            return
        await (await fake.press(user_id, user_id, message.message_id, "提示")).answered()
        current = fake.chat(user_id).message(message.message_id)
        assert current is not None
        label = next(lb for lb in current.labels if lb.startswith("出牌"))
        await (await fake.press(user_id, user_id, message.message_id, label)).answered()

    async def gate(self) -> None:
        table = self.table
        for index in sorted(table.ready_pending):
            if index in self.pages:
                page = self.pages[index].page
                button = await page.wait_for_selector("#reveal, #ready")
                assert button is not None
                await button.click()
            else:
                user_id = table.seats[index].user_id or 0
                message = await self.fake.wait_for(
                    lambda u=user_id: (
                        (m := live_message(self.fake, u)) is not None
                        and any(lb in ("不亮", "知道了，继续") for lb in m.labels)
                        and m
                    ),
                    what="the 亮王 question",
                )
                label = "不亮" if "不亮" in message.labels else "知道了，继续"
                await (
                    await self.fake.press(user_id, user_id, message.message_id, label)
                ).answered()
        await self.fake.wait_for(lambda: not table.gate_open, what="the gate closed")


def check_pages(pages: dict[int, OpenPage], table: Table) -> None:
    for seat, opened in pages.items():
        assert not opened.errors, opened.errors
        check_views(opened.views(), seat, table)


async def test_four_pages_play_a_whole_shuangkou_game(
    fake_telegram: FakeTelegram, tmp_path: Any, browser: Browser
) -> None:
    fake = fake_telegram
    people = setup_world(fake, 4)
    settings = web_settings(fake, tmp_path / "bot.sqlite3")
    async with running_web_bot(settings, deals=[20261201]) as (service, web):
        table = await start(fake, service, people, "双扣")
        pages = await open_seats(browser, fake, web.port, table, range(4))
        dark = (await open_seats(browser, fake, web.port, table, [1], dark={1}))[1]

        async def shoot() -> None:
            await shown_seq(pages[0].page, table.public_seq)
            await shown_seq(dark.page, table.public_seq)
            await screenshot(pages[0].page, "shuangkou-light")
            await screenshot(dark.page, "shuangkou-dark")

        players = Players(fake, service, table, pages)
        await players.play_to_the_end(shoot_at=12, shoot=shoot)
        for opened in [*pages.values(), dark]:
            await opened.page.wait_for_selector("body[data-status='finished']")
        await pages[0].page.wait_for_selector("#again")
        await screenshot(pages[0].page, "shuangkou-result-light")
        await screenshot(dark.page, "shuangkou-result-dark")
        headline = await pages[0].page.inner_text("#panel h2")
        assert headline and table.engine.result is not None
        # the result screen: a row per seat, the viewer's as 你, each change signed
        rows = await pages[0].page.query_selector_all("#panel .score-row")
        assert len(rows) == 4
        mine = await pages[0].page.inner_text("#panel .score-row.you")
        assert "你" in mine and ("+" in mine or "-" in mine or "0" in mine)
        winners = await pages[0].page.query_selector_all("#panel .score-row.won")
        assert len(winners) == len(table.engine.result.winners)
        assert players.on_page > 10 and players.on_keyboard == 0
        check_pages(pages, table)
        check_views(dark.views(), 1, table)
        assert not fake.unanswered_callbacks()
        fake.assert_clean()


async def test_five_pages_play_paowang_with_the_reveal_on_the_page(
    fake_telegram: FakeTelegram, tmp_path: Any, browser: Browser
) -> None:
    fake = fake_telegram
    people = setup_world(fake, 5)
    settings = web_settings(fake, tmp_path / "bot.sqlite3")
    async with running_web_bot(settings, deals=[7]) as (service, web):
        table = await start(fake, service, people, "刨王")
        pages = await open_seats(browser, fake, web.port, table, range(5), dark={1})
        holders = set(table.engine.reveal_pending)
        assert holders and table.gate_open
        for seat in holders:  # the holders are asked on their page; the others only wait
            await pages[seat].page.wait_for_selector("#reveal")
        for opened in pages.values():  # every page counts the gate's time down, the same
            await opened.page.wait_for_selector("#clock:not([hidden])")
        for seat in set(range(5)) - holders:
            assert await pages[seat].page.query_selector("#reveal") is None

        async def shoot() -> None:
            for seat in (0, 1):
                await shown_seq(pages[seat].page, table.public_seq)
            await screenshot(pages[0].page, "paowang-light")
            await screenshot(pages[1].page, "paowang-dark")

        players = Players(fake, service, table, pages)
        await players.play_to_the_end(shoot_at=10, shoot=shoot)
        assert any(table.engine.revealed)  # somebody revealed on the page (seat order: reveal)
        for opened in pages.values():
            await opened.page.wait_for_selector("body[data-status='finished']")
        await screenshot(pages[0].page, "paowang-result-light")
        await screenshot(pages[1].page, "paowang-result-dark")
        # each page shows its own player's new achievements (the winners' first 刨王 win, at
        # least), and only theirs
        assert table.settlement is not None and table.engine.result is not None
        earned = table.settlement.earned
        assert {table.seats[s].user_id for s in table.engine.result.winners} <= set(earned)
        for seat, opened in pages.items():
            line = await opened.page.query_selector("#panel .earned")
            if earned.get(table.seats[seat].user_id or 0):
                assert line is not None and "新成就：" in await line.inner_text()
                assert ("刨王首胜" in await line.inner_text()) == (
                    seat in table.engine.result.winners
                )
            else:
                assert line is None
        check_pages(pages, table)
        assert not fake.unanswered_callbacks()
        fake.assert_clean()


async def test_pages_and_keyboards_in_one_game_and_a_reload(
    fake_telegram: FakeTelegram, tmp_path: Any, browser: Browser
) -> None:
    """Seats 0 and 2 on pages, 1 and 3 on their hand messages; seat 0 reloads its page
    mid-game and goes on from where the table is."""
    fake = fake_telegram
    people = setup_world(fake, 4)
    settings = web_settings(fake, tmp_path / "bot.sqlite3")
    async with running_web_bot(settings, deals=[99]) as (service, web):
        table = await start(fake, service, people, "双扣")
        pages = await open_seats(browser, fake, web.port, table, (0, 2))

        async def reload() -> None:
            page = pages[0].page
            await page.reload()
            await page.wait_for_selector("body[data-ready='1']")
            await shown_seq(page, table.public_seq)

        players = Players(fake, service, table, pages)
        await players.play_to_the_end(shoot_at=8, shoot=reload)
        assert players.on_page > 3 and players.on_keyboard > 3
        for opened in pages.values():
            await opened.page.wait_for_selector("body[data-status='finished']")
        check_pages(pages, table)
        record = await service.db.games.get(table.game_id)
        assert record is not None and record.status == "finished"
        assert not fake.unanswered_callbacks()
        fake.assert_clean()
