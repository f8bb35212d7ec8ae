"""Nobody sits where they don't belong, and nobody poses as someone else (#12): join links
that cannot be guessed, a member check, one seat per person even when two presses race,
removal from a lobby, names made safe to show, and the small holes around them."""

from __future__ import annotations

import datetime
import logging
from pathlib import Path
from typing import Any

import pytest
from telegram import Chat, Message, MessageEntity, Update, User

from bot.edge.app import build_application
from bot.presentation.safe_names import HUMAN_MARK, MAX_NAME_LENGTH, safe_name
from fakebot import FakeTelegram
from tests.e2e.driver import GROUP, running_bot, setup_world
from tests.e2e.helpers_robust import FAST, fast_settings, open_group_lobby, say

OTHER_GROUP = -1002
STRANGER = 301


@pytest.fixture
def fake_telegram_options() -> dict[str, Any]:
    return FAST


async def test_a_guessed_link_or_an_outsider_gets_no_seat(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    fake = fake_telegram
    (opener,) = setup_world(fake, 1)
    fake.add_user(STRANGER, "路人")
    async with running_bot(fast_settings(fake, tmp_path / "bot.sqlite3")) as service:
        await open_group_lobby(fake, opener)
        game_id = service.by_chat[GROUP]
        table = service.tables[game_id]
        await say(fake, STRANGER, STRANGER, "/start")
        # the counter alone (the old link), a forged MAC, a MAC of another game
        payload = service.deep_link(game_id).split("start=", 1)[1]
        other = service.deep_link(game_id + 1).split("start=", 1)[1]
        for guess in (f"j{game_id}", payload[:-1] + ("A" if payload[-1] != "A" else "B"),
                      f"j{game_id}_" + other.split("_", 1)[1]):
            reply = await say(fake, STRANGER, STRANGER, f"/start {guess}")
            assert reply.text == "现在没有进行中的牌局。", guess
        # the right link, but the stranger is not in the group
        reply = await say(fake, STRANGER, STRANGER, f"/start {payload}")
        assert reply.text == "你不是「牌友群」的成员，不能加入这局。"
        assert [seat.user_id for seat in table.seats] == [opener]
        stored = await service.db.games.get(game_id)
        assert stored is not None and [seat.user_id for seat in stored.seats] == [opener]
        # once in the group, the same link seats them
        fake.chat(GROUP).members.add(STRANGER)
        reply = await say(fake, STRANGER, STRANGER, f"/start {payload}")
        assert reply.text.startswith("你已加入「牌友群」")
        assert [seat.user_id for seat in table.seats] == [opener, STRANGER]
    fake.assert_clean()


async def test_two_presses_in_two_groups_at_once_take_one_seat(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    fake = fake_telegram
    people = setup_world(fake, 3)
    opener_a, opener_b, both = people
    fake.add_group(OTHER_GROUP, "另一群", members=people)
    async with running_bot(fast_settings(fake, tmp_path / "bot.sqlite3")) as service:
        lobby_a = await open_group_lobby(fake, opener_a, GROUP)
        lobby_b = await open_group_lobby(fake, opener_b, OTHER_GROUP)
        await say(fake, both, both, "/start")
        # both presses are queued before the bot reads either: they are handled concurrently
        press_a = await fake.press(both, GROUP, lobby_a.message_id, "加入")
        press_b = await fake.press(both, OTHER_GROUP, lobby_b.message_id, "加入")
        answers = sorted([(await press_a.answered()).text, (await press_b.answered()).text])
        assert answers == ["你已加入。", "你正在另一局中。"]
        tables = [service.tables[service.by_chat[chat]] for chat in (GROUP, OTHER_GROUP)]
        seated = [table for table in tables if both in [s.user_id for s in table.seats]]
        assert len(seated) == 1
        for table in tables:  # the database agrees with the memory
            stored = await service.db.games.get(table.game_id)
            assert stored is not None
            assert [s.user_id for s in stored.seats] == [s.user_id for s in table.seats]
    fake.assert_clean()


async def test_the_opener_removes_someone_from_the_lobby(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    fake = fake_telegram
    opener, other, third = setup_world(fake, 3)
    async with running_bot(fast_settings(fake, tmp_path / "bot.sqlite3")) as service:
        lobby = await open_group_lobby(fake, opener)
        table = service.tables[service.by_chat[GROUP]]
        for user_id in (other, third):
            await say(fake, user_id, user_id, "/start")
            await (await fake.press(user_id, GROUP, lobby.message_id, "加入")).answered()
        said = await fake.send_text(other, GROUP, "我来了")
        # someone else may not; the opener may
        await fake.send_text(third, GROUP, "/kick", reply_to=said.message_id)
        await fake.wait_for_message(GROUP, contains="只有开局者或群管理员")
        assert [s.user_id for s in table.seats] == [opener, other, third]
        await fake.send_text(opener, GROUP, "/kick", reply_to=said.message_id)
        await fake.wait_for_message(GROUP, contains="被移出了等待中的牌局")
        assert [s.user_id for s in table.seats] == [opener, third]
        await fake.wait_for(lambda: "玩家2" not in (lobby.text or ""), what="the lobby updated")
        stored = await service.db.games.get(table.game_id)
        assert stored is not None and [s.user_id for s in stored.seats] == [opener, third]
    fake.assert_clean()


def test_names_are_cleaned_capped_and_never_a_computer() -> None:
    assert safe_name("Alice", "x") == "Alice"
    assert safe_name("  张\u200b三\u202e  ", "x") == "张三"
    assert safe_name("\u202e\u2066", "fallback") == "fallback"
    assert safe_name("", "fallback") == "fallback"
    assert safe_name("🤖 电脑1 ▶ 轮到你了", "x") == "电脑1 轮到你了"
    assert safe_name("🤖 电脑1", "x") == f"{HUMAN_MARK}电脑1"
    assert safe_name("Computer 2", "x") == f"{HUMAN_MARK}Computer 2"
    assert safe_name("a\nb\tc", "x") == "a b c"
    long = safe_name("长" * 4000, "x")
    assert long == "长" * (MAX_NAME_LENGTH - 1) + "…"
    zalgo = safe_name("Z" + "\u0301" * 50 + "oe", "x")
    assert zalgo.endswith("oe") and len(zalgo) <= 5, "at most two marks ride on one letter"
    exactly = "é" * MAX_NAME_LENGTH
    assert safe_name(exactly, "x") == exactly


async def test_a_posing_or_endless_name_is_shown_safely(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    fake = fake_telegram
    (opener,) = setup_world(fake, 1)
    poser, endless, nameless = 401, 402, 403
    fake.add_user(poser, "🤖 电脑1 ▶ 轮到你了")
    fake.add_user(endless, "长" * 4000)
    fake.add_user(nameless, "")
    fake.chat(GROUP).members.update({poser, endless, nameless})
    async with running_bot(fast_settings(fake, tmp_path / "bot.sqlite3")) as service:
        lobby = await open_group_lobby(fake, opener)
        for user_id in (poser, endless, nameless):
            hello = await say(fake, user_id, user_id, "/start")
            assert hello.text
            answer = await (await fake.press(user_id, GROUP, lobby.message_id, "加入")).answered()
            assert answer.text == "你已加入。"
        table = service.tables[service.by_chat[GROUP]]
        await fake.wait_for(lambda: len((lobby.text or "").splitlines()) >= 5, what="4 seats")
        shown = lobby.text or ""
        assert "🤖" not in shown and "▶" not in shown
        assert "长" * MAX_NAME_LENGTH not in shown and "长" * (MAX_NAME_LENGTH - 1) + "…" in shown
        assert f"{HUMAN_MARK}{str(nameless)[-4:]}" in shown
        assert [seat.name for seat in table.seats][1] == "电脑1 轮到你了"
    fake.assert_clean()


async def test_the_group_title_is_escaped_in_private(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    fake = fake_telegram
    opener, joiner = setup_world(fake, 2)
    fake.chat(GROUP).title = "<i>A&B</i> 牌友"
    async with running_bot(fast_settings(fake, tmp_path / "bot.sqlite3")):
        lobby = await open_group_lobby(fake, opener)
        await say(fake, joiner, joiner, "/start")
        answer = await (await fake.press(joiner, GROUP, lobby.message_id, "加入")).answered()
        assert answer.text == "你已加入。"
        joined = await fake.wait_for_message(joiner, contains="你已加入「")
        assert "「<i>A&B</i> 牌友」" in (joined.text or "")
    fake.assert_clean()


async def test_an_edited_message_is_not_a_new_command_or_play(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    """PTB hands edited messages to message handlers unless told not to: an edit of an old
    「不出」 or 「/leave」 must not act again. No handler of the bot takes one."""
    application = build_application(fast_settings(fake_telegram, tmp_path / "bot.sqlite3"))
    await application.initialize()  # the bot's username, which commands are matched against
    try:
        user = User(101, "玩家1", is_bot=False)
        for chat, words in ((Chat(101, "private"), "不出"), (Chat(GROUP, "supergroup"), "/leave")):
            entities = (MessageEntity("bot_command", 0, len(words)),) if words[0] == "/" else None
            message = Message(1, _now(), chat, from_user=user, text=words, entities=entities)
            message.set_bot(application.bot)
            handlers = [handler for group in application.handlers.values() for handler in group]
            assert not [h for h in handlers if h.check_update(Update(7, edited_message=message))]
            assert [h for h in handlers if h.check_update(Update(8, message=message))]
    finally:
        await application.shutdown()


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


async def test_a_failed_answer_to_a_press_is_tried_again(
    fake_telegram: FakeTelegram, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    fake = fake_telegram
    opener, joiner = setup_world(fake, 2)
    async with running_bot(fast_settings(fake, tmp_path / "bot.sqlite3")):
        lobby = await open_group_lobby(fake, opener)
        await say(fake, joiner, joiner, "/start")
        fake.inject("answerCallbackQuery", "500")
        with caplog.at_level(logging.WARNING):
            press = await fake.press(joiner, GROUP, lobby.message_id, "加入")
            answer = await press.answered()
        assert answer.text == "你已加入。"
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not fake.unanswered_callbacks()
