"""The lobby: joining through the deep link, who may press what, a deleted lobby message; and
the anti-farming rule (a game under a minute changes no score)."""

from __future__ import annotations

from typing import Any

import pytest

from fakebot import FakeTelegram
from tests.e2e.driver import GROUP, running_bot, setup_world
from tests.e2e.helpers_robust import (
    FAST,
    check_settlement,
    fast_settings,
    finish,
    open_group_lobby,
    say,
    start_game,
)

NEWCOMER = 202
STRANGER = 301
OTHER_GROUP = -1002


@pytest.fixture
def fake_telegram_options() -> dict[str, Any]:
    return FAST


async def test_a_user_who_never_started_the_bot_joins_through_the_deep_link(
    fake_telegram: FakeTelegram, tmp_path: Any
) -> None:
    fake = fake_telegram
    (opener,) = setup_world(fake, 1)
    fake.add_user(NEWCOMER, "新人")
    async with running_bot(fast_settings(fake, tmp_path / "bot.sqlite3")) as service:
        lobby = await open_group_lobby(fake, opener)
        game_id = service.by_chat[GROUP]
        table = service.tables[game_id]
        link = service.deep_link(game_id)
        assert link.startswith(f"https://t.me/CardTestBot?start=j{game_id}_")
        payload = link.split("start=", 1)[1]
        answer = await (await fake.press(NEWCOMER, GROUP, lobby.message_id, "加入")).answered()
        assert answer.url == link
        assert answer.text == "请先私聊我并点「开始」，然后会自动入座。"
        assert [s.user_id for s in table.seats] == [opener]
        assert "新人" not in (lobby.text or "")
        # they open the link: Telegram sends /start j<id> in the private chat
        reply = await say(fake, NEWCOMER, NEWCOMER, f"/start {payload}")
        assert reply.text == "你已加入「牌友群」的绍兴双扣牌局，开局后手牌会发到这里。"
        assert [s.user_id for s in table.seats] == [opener, NEWCOMER]
        await fake.wait_for(lambda: "2. 新人" in (lobby.text or ""), what="the lobby updated")
        # once seated, a second press or a second link changes nothing
        answer = await (await fake.press(NEWCOMER, GROUP, lobby.message_id, "加入")).answered()
        assert answer.text == "你已经在座位上了。" and answer.url is None
        reply = await say(fake, NEWCOMER, NEWCOMER, f"/start {payload}")
        assert reply.text == "你已经在座位上了。"
        reply = await say(fake, NEWCOMER, NEWCOMER, f"/start j{game_id + 5}")
        assert reply.text == "现在没有进行中的牌局。"
        assert [s.user_id for s in table.seats] == [opener, NEWCOMER]
    assert not fake.unanswered_callbacks()
    fake.assert_clean()


async def test_a_user_who_blocked_the_bot_is_sent_to_the_deep_link_too(
    fake_telegram: FakeTelegram, tmp_path: Any
) -> None:
    fake = fake_telegram
    (opener,) = setup_world(fake, 1)
    fake.add_user(NEWCOMER, "新人")
    async with running_bot(fast_settings(fake, tmp_path / "bot.sqlite3")) as service:
        await say(fake, NEWCOMER, NEWCOMER, "/start")
        fake.block(NEWCOMER)
        lobby = await open_group_lobby(fake, opener)
        game_id = service.by_chat[GROUP]
        answer = await (await fake.press(NEWCOMER, GROUP, lobby.message_id, "加入")).answered()
        assert answer.url == service.deep_link(game_id)
        assert [s.user_id for s in service.tables[game_id].seats] == [opener]
        player = await service.db.players.get(NEWCOMER)
        assert player is not None and not player.can_message
        await say(fake, NEWCOMER, NEWCOMER, "/start " + service.deep_link(game_id).split("=")[1])
        assert [s.user_id for s in service.tables[game_id].seats] == [opener, NEWCOMER]
    assert not fake.unanswered_callbacks()
    fake.assert_clean()


async def test_a_seated_player_who_blocks_the_bot_leaves_the_lobby(
    fake_telegram: FakeTelegram, tmp_path: Any
) -> None:
    fake = fake_telegram
    (opener,) = setup_world(fake, 1)
    fake.add_user(NEWCOMER, "新人")
    async with running_bot(fast_settings(fake, tmp_path / "bot.sqlite3")) as service:
        await say(fake, NEWCOMER, NEWCOMER, "/start")
        lobby = await open_group_lobby(fake, opener)
        table = service.tables[service.by_chat[GROUP]]
        await (await fake.press(NEWCOMER, GROUP, lobby.message_id, "加入")).answered()
        assert [s.user_id for s in table.seats] == [opener, NEWCOMER]
        fake.block(NEWCOMER)  # Telegram tells the bot (my_chat_member)
        await fake.wait_for(lambda: "新人" not in (lobby.text or ""), what="the lobby updated")
        assert [s.user_id for s in table.seats] == [opener]
        assert NEWCOMER not in service.by_user
    fake.assert_clean()


async def test_who_may_press_what_in_the_lobby(fake_telegram: FakeTelegram, tmp_path: Any) -> None:
    fake = fake_telegram
    people = setup_world(fake, 4)
    opener = people[0]
    fake.add_user(STRANGER, "路人")
    fake.add_group(OTHER_GROUP, "另一个群")
    async with running_bot(fast_settings(fake, tmp_path / "bot.sqlite3")) as service:
        await say(fake, STRANGER, STRANGER, "/start")
        lobby = await open_group_lobby(fake, opener)
        table = service.tables[service.by_chat[GROUP]]

        def seats() -> list[int | None]:
            return [seat.user_id for seat in table.seats]

        async def press(user: int, label: str) -> tuple[str | None, bool]:
            answer = await (await fake.press(user, GROUP, lobby.message_id, label)).answered()
            return answer.text, answer.show_alert

        assert await press(opener, "开始") == ("人还没齐。", False)
        assert await press(STRANGER, "开始") == ("只有开局者或群管理员可以这样做。", True)
        assert await press(STRANGER, "取消") == ("只有开局者或群管理员可以这样做。", True)
        assert (await press(STRANGER, "加电脑"))[0] == "你不在这局里。"
        assert (await press(STRANGER, "离开"))[0] == "你不在这局里。"
        assert seats() == [opener] and table.status == "lobby"
        for user in people[1:]:
            await say(fake, user, user, "/start")
            assert (await press(user, "加入"))[0] == "你已加入。"
        assert (await press(STRANGER, "加入"))[0] == "座位已满。"
        assert (await press(opener, "加电脑"))[0] == "座位已满。"
        assert (await press(people[3], "离开"))[0] == "你已离开。"
        assert seats() == people[:3]
        # someone seated here cannot sit in another group's lobby at the same time
        other_lobby = await open_group_lobby(fake, STRANGER, OTHER_GROUP)
        answer = await (
            await fake.press(people[1], OTHER_GROUP, other_lobby.message_id, "加入")
        ).answered()
        assert answer.text == "你正在另一局中。"
        # a second /newgame in the group while the lobby is open
        reply = await say(fake, people[2], GROUP, "/newgame 刨王", expect="本群已有一局")
        assert reply.reply_to == table.lobby_message_id  # it points to the open lobby
        assert service.by_chat[GROUP] == table.game_id and seats() == people[:3]
    assert not fake.unanswered_callbacks()
    fake.assert_clean()


async def test_a_deleted_lobby_message_is_posted_again(
    fake_telegram: FakeTelegram, tmp_path: Any
) -> None:
    fake = fake_telegram
    people = setup_world(fake, 2)
    async with running_bot(fast_settings(fake, tmp_path / "bot.sqlite3")) as service:
        lobby = await open_group_lobby(fake, people[0])
        table = service.tables[service.by_chat[GROUP]]
        fake.delete_message(GROUP, lobby.message_id)
        # nobody can press a deleted message: /newgame points to the lobby; the next change
        # to the lobby (here a join through the link) finds it gone and posts it again
        await say(
            fake, people[1], people[1], "/start " + service.deep_link(table.game_id).split("=")[1]
        )
        fresh = await fake.wait_for(
            lambda: (
                table.lobby_message_id != lobby.message_id
                and fake.chat(GROUP).message(table.lobby_message_id or 0)
            ),
            what="a new lobby message",
        )
        assert "加入" in fresh.labels and "2. 玩家2" in (fresh.text or "")
    assert [int(r.params["message_id"]) for r in fake.rejections] == [lobby.message_id]
    assert not fake.limit_violations


@pytest.mark.parametrize(
    ("variant", "computers", "minutes"),
    [("刨王", 4, 0.0), ("双扣", 3, 0.0), ("刨王", 4, 1.01)],
    ids=["paowang-short", "shuangkou-short", "paowang-a-minute-later"],
)
async def test_a_game_under_a_minute_changes_no_score(
    fake_telegram: FakeTelegram, tmp_path: Any, variant: str, computers: int, minutes: float
) -> None:
    """With the default one-minute rule a quick game scores nothing, and the result says so;
    the same game ending a minute after it started scores."""
    fake = fake_telegram
    people = setup_world(fake, 1)
    settings = fast_settings(fake, tmp_path / "bot.sqlite3", min_game_seconds=60.0)
    async with running_bot(settings) as service:
        table = await start_game(fake, service, people, variant, computers)
        if minutes:  # the service's clock runs ahead once the game started
            real = service.clock
            service.deps.clock = lambda: real() + 60 * minutes
        result = await finish(fake, service, people, table)
        short = not minutes
        await check_settlement(service, table, result, short=short)
        assert ("本局不足一分钟，不计分。" in (result.text or "")) is short
        rows = await service.db.results.for_game(table.game_id)
        if variant == "刨王":  # 刨王 always moves scores (双扣 may end 平扣)
            assert any(row.delta for row in rows)
        rating = await service.db.ratings.get(user_id=people[0], game=table.variant.name)
        assert rating.score == (0 if short else rows[0].delta)
        record = await service.db.games.get(table.game_id)
        assert record is not None and (record.note == "short game") is short
    assert not fake.unanswered_callbacks()
    fake.assert_clean()
