"""/settings: a group's admins change how its next games are played, from an inline menu.

Every test goes through the fake Telegram: the admin opens the menu, presses its buttons,
and the next game shows the change (a turn that really times out at the chosen time, the
game /newgame opens, the language of the group's posts, computer seats, the one-minute
rule). Presses from others, forged data and outdated menus change nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.service.group_options import CHOICES, OPTION_NAMES
from bot.service.group_settings import OPEN, REVISION_MODULO
from fakebot import FakeMessage, FakeTelegram
from tests.e2e.driver import ADMIN, GROUP, running_bot, setup_world
from tests.e2e.helpers_robust import (
    FAST,
    fast_settings,
    finish,
    say,
    seed_where,
    start_game,
)

MENU_TITLE = "本群设置"
CHANGED = "⚙️ 管理员 把"


@pytest.fixture
def fake_telegram_options() -> dict[str, Any]:
    return FAST


def _world(fake: FakeTelegram, people: int = 1) -> list[int]:
    ids = setup_world(fake, people)
    fake.add_user(ADMIN, "管理员")
    return ids


def _change_lines(fake: FakeTelegram) -> list[str]:
    return [
        line
        for text in fake.sent_to(GROUP)
        for line in text.split("\n")
        if line.startswith("⚙️ ") and "改为" in line
    ]


async def _open_menu(fake: FakeTelegram) -> FakeMessage:
    count = len(fake.chat(GROUP).messages)
    await fake.send_text(ADMIN, GROUP, "/settings")
    menu: FakeMessage = await fake.wait_for(
        lambda: next(
            (
                m
                for m in fake.chat(GROUP).messages[count:]
                if m.from_bot and MENU_TITLE in (m.text or "") and m.rows
            ),
            None,
        ),
        what="the settings menu",
    )
    return menu


async def _choose(fake: FakeTelegram, menu: FakeMessage, option: str, label: str) -> str | None:
    """The admin opens ``option`` on the menu and picks the choice labelled ``label``; the
    answer to the pick."""
    opened = await (await fake.press(ADMIN, GROUP, menu.message_id, contains=option)).answered()
    assert opened.text is None, opened
    await fake.wait_for(
        lambda: any(label in b for b in fake.chat(GROUP).message(menu.message_id).labels),  # type: ignore[union-attr]
        what=f"the choices of {option}",
    )
    # the current value is marked ✓ and can be picked again
    picked = await (
        await fake.press(ADMIN, GROUP, menu.message_id, lambda s: s.removeprefix("✓ ") == label)
    ).answered()
    return picked.text


def _data(revision: int, arg: int) -> str:
    return f"0:{revision % REVISION_MODULO}:g:{arg}"


async def test_only_a_groups_admins_may_open_or_press_the_menu(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    fake = fake_telegram
    people = _world(fake, 1)
    player = people[0]
    async with running_bot(fast_settings(fake, tmp_path / "bot.sqlite3")) as service:
        refusal = await say(fake, player, GROUP, "/settings")
        assert "只有群管理员" in (refusal.text or "")
        assert not refusal.rows
        await say(fake, player, player, "/start")
        private = await say(fake, player, player, "/settings")
        assert "群里用" in (private.text or "")

        menu = await _open_menu(fake)
        shown = fake.chat(GROUP).message(menu.message_id)
        assert shown is not None
        # one button per option, and a close button
        assert len(shown.labels) == len(OPTION_NAMES) + 1
        assert any("出牌时间" in label and "60 秒" in label for label in shown.labels)

        before = shown.text
        answer = await (
            await fake.press(player, GROUP, menu.message_id, contains="出牌时间")
        ).answered()
        assert answer.show_alert and "只有群管理员" in (answer.text or "")
        forged = await (
            await fake.press_raw(player, GROUP, menu.message_id, _data(0, 0))
        ).answered()
        assert forged.text is not None
        assert fake.chat(GROUP).message(menu.message_id).text == before  # type: ignore[union-attr]
        record = await service.db.group_settings.get(GROUP)
        assert (record.changes, record.revision) == ({}, 0)
        assert not _change_lines(fake)


async def test_a_change_posts_one_line_and_the_next_game_times_out_at_the_new_turn_time(
    fake_telegram: FakeTelegram, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The menu offers a turn time under a second here (the real menu starts at 20 s), so
    that a time-out at the chosen value comes while the test waits: the environment's turn
    time is 60 s."""
    monkeypatch.setitem(CHOICES, "turn_seconds", (0.3, *CHOICES["turn_seconds"]))
    fake = fake_telegram
    people = _world(fake, 1)
    settings = fast_settings(fake, tmp_path / "bot.sqlite3", turn_seconds=60.0)
    async with running_bot(settings, deals=[seed_where("shuangkou", 0)]) as service:
        menu = await _open_menu(fake)
        assert await _choose(fake, menu, "出牌时间", "0.3 秒") == "已保存。"
        lines = await fake.wait_for(lambda: _change_lines(fake), what="the change line")
        assert lines == ["⚙️ 管理员 把出牌时间改为 0.3 秒，下一局起生效。"]
        assert (await service.group_options(GROUP)).turn_seconds == 0.3

        table = await start_game(fake, service, people, "双扣", 3)
        assert table.options is not None and table.options.turn_seconds == 0.3
        await fake.wait_for_message(GROUP, contains="⏰ 玩家1 超时")
        # exactly one line per change, however often the menu was redrawn
        assert len(_change_lines(fake)) == 1


async def test_a_game_in_progress_keeps_its_own_turn_time(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    fake = fake_telegram
    people = _world(fake, 1)
    settings = fast_settings(fake, tmp_path / "bot.sqlite3")
    async with running_bot(settings, deals=[seed_where("shuangkou", 0)]) as service:
        table = await start_game(fake, service, people, "双扣", 3)
        menu = await _open_menu(fake)
        assert await _choose(fake, menu, "出牌时间", "20 秒") == "已保存。"
        assert table.options is not None and table.options.turn_seconds == 60.0
        await fake.send_text(people[0], GROUP, "/cancel")
        await fake.wait_for(lambda: table.status == "cancelled", what="the cancel")

        table = await start_game(fake, service, people, "双扣", 3)
        assert table.options is not None and table.options.turn_seconds == 20.0

        def deadline() -> float | None:
            return table.deadline if table.engine.turn == 0 else None

        # the human leads: their deadline is 20 s away, not the environment's 60
        left = await fake.wait_for(deadline, what="the deadline") - service.clock()
        assert 15.0 < left <= 20.0


async def test_every_option_reaches_the_next_game(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    """亮王 time, computer delay, auto-pass, language, the default game: all chosen in one
    menu, all in the next game's options; the group's posts speak the chosen language."""
    fake = fake_telegram
    people = _world(fake, 1)
    async with running_bot(fast_settings(fake, tmp_path / "bot.sqlite3")) as service:
        menu = await _open_menu(fake)
        assert await _choose(fake, menu, "亮王时间", "15 秒") == "已保存。"
        assert await _choose(fake, menu, "电脑出牌间隔", "0.5 秒") == "已保存。"
        assert await _choose(fake, menu, "要不起自动不出", "关") == "已保存。"
        assert await _choose(fake, menu, "默认", "通化刨王") == "已保存。"
        # the menu now speaks the group's language
        assert await _choose(fake, menu, "群消息语言", "English") == "已保存。"
        shown = fake.chat(GROUP).message(menu.message_id)
        assert shown is not None and "This group's settings" in (shown.text or "")
        assert len(_change_lines(fake)) == 4  # the English line is not a 改为 line
        assert any("set Group language to English" in t for t in fake.sent_to(GROUP))
        # the group's answers speak it too, whatever the asker's language
        stats = await say(fake, people[0], GROUP, "/stats")
        assert "has not finished a game yet" in (stats.text or "")

        await say(fake, people[0], people[0], "/start")  # so that opening seats them
        count = len(fake.chat(GROUP).messages)
        await fake.send_text(people[0], GROUP, "/newgame")  # no argument: the group's default
        lobby = await fake.wait_for(
            lambda: next(
                (m for m in fake.chat(GROUP).messages[count:] if m.from_bot and m.rows), None
            ),
            what="the lobby",
        )
        assert "Paowang · waiting for players" in (lobby.text or "")
        table = service.tables[service.by_chat[GROUP]]
        assert table.variant.name == "paowang"
        record = await service.db.group_settings.get(GROUP)
        assert record.revision == 5
        options = await service.group_options(GROUP)
        assert (options.reveal_seconds, options.computer_delay, options.auto_pass) == (
            15,
            0.5,
            False,
        )
        assert (options.default_variant, options.language) == ("paowang", "en")
        # the game dealt from this lobby plays by all of them
        for _ in range(4):
            added = await (
                await fake.press(people[0], GROUP, lobby.message_id, "Add computer")
            ).answered()
            assert added.text is None, added
        started = await (await fake.press(people[0], GROUP, lobby.message_id, "Start")).answered()
        assert started.text is None, started
        assert table.options is not None and service.deps.options(table) == table.options
        assert (
            table.options.reveal_seconds,
            table.options.computer_delay,
            table.options.auto_pass,
            table.options.language,
        ) == (15, 0.5, False, "en")
        assert table.lang == "en"


async def test_no_computer_seats_when_the_group_turned_them_off(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    fake = fake_telegram
    people = _world(fake, 2)
    async with running_bot(fast_settings(fake, tmp_path / "bot.sqlite3")) as service:
        menu = await _open_menu(fake)
        assert await _choose(fake, menu, "允许电脑玩家", "关") == "已保存。"
        for user_id in people:
            await fake.send_text(user_id, user_id, "/start")
        await fake.send_text(people[0], GROUP, "/newgame 双扣")
        lobby = await fake.wait_for_message(GROUP, contains="等待玩家")
        assert "加入" in lobby.labels and "加电脑" not in lobby.labels
        table = service.tables[service.by_chat[GROUP]]
        # the button the lobby would have had, forged
        data = next(b["callback_data"] for row in lobby.rows for b in row if b["text"] == "加入")
        game, version, _, _ = data.split(":")
        seats_before = [(seat.user_id, seat.is_computer) for seat in table.seats]
        forged = await (
            await fake.press_raw(people[0], GROUP, lobby.message_id, f"{game}:{version}:c:")
        ).answered()
        assert forged.text == "本群设置不允许电脑玩家。"
        assert [(seat.user_id, seat.is_computer) for seat in table.seats] == seats_before
        assert not any(seat.is_computer for seat in table.seats)


async def test_forged_or_outdated_presses_change_nothing(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    fake = fake_telegram
    _world(fake, 1)
    async with running_bot(fast_settings(fake, tmp_path / "bot.sqlite3")) as service:
        menu = await _open_menu(fake)
        turn = OPTION_NAMES.index("turn_seconds")
        for arg in (99, turn * 10 + len(CHOICES["turn_seconds"]), 79, OPEN + len(OPTION_NAMES)):
            answer = await (
                await fake.press_raw(ADMIN, GROUP, menu.message_id, _data(0, arg))
            ).answered()
            assert answer.text == "这个按钮已过期。", (arg, answer)
        garbage = await (
            await fake.press_raw(ADMIN, GROUP, menu.message_id, "0:0:g:abc")
        ).answered()
        assert garbage.text is not None
        assert (await service.db.group_settings.get(GROUP)).revision == 0

        # another admin's menu, drawn before a change: outdated, drawn anew
        other = await _open_menu(fake)
        assert await _choose(fake, menu, "出牌时间", "30 秒") == "已保存。"
        stale = await (
            await fake.press(ADMIN, GROUP, other.message_id, contains="出牌时间")
        ).answered()
        assert stale.text == "设置刚被别人改过，菜单已更新。"
        redrawn = await fake.wait_for(
            lambda: "30 秒" in (fake.chat(GROUP).message(other.message_id).text or ""),  # type: ignore[union-attr]
            what="the other menu drawn anew",
        )
        assert redrawn
        record = await service.db.group_settings.get(GROUP)
        assert (record.changes, record.revision) == ({"turn_seconds": 30}, 1)
        assert len(_change_lines(fake)) == 1
        # the same value again: no change, no line
        again = await _choose(fake, menu, "出牌时间", "30 秒")
        assert again == "没有变化。"
        assert len(_change_lines(fake)) == 1


async def test_without_the_one_minute_rule_a_short_game_counts(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    """The environment says games under an hour do not count; the group turned the rule off,
    so a quick game changes the scores."""
    fake = fake_telegram
    people = _world(fake, 1)
    settings = fast_settings(fake, tmp_path / "bot.sqlite3", min_game_seconds=3600.0)
    async with running_bot(settings) as service:
        menu = await _open_menu(fake)
        assert await _choose(fake, menu, "一分钟规则", "关") == "已保存。"
        table = await start_game(fake, service, people, "双扣", 3)
        result = await finish(fake, service, people, table)
        assert "不足一分钟" not in (result.text or "")
        record = await service.db.games.get(table.game_id)
        assert record is not None and record.note is None  # not "short game"
        rows = await service.db.results.for_game(table.game_id)
        assert [row.adjusted_delta for row in rows] == [row.delta for row in rows]
        rating = await service.db.ratings.get(user_id=people[0], game="shuangkou")
        assert rating.games == 1 and rating.score == rows[0].adjusted_delta


async def test_with_the_one_minute_rule_the_same_short_game_does_not_count(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    """The control for the test above: the environment's rule, untouched by the group."""
    fake = fake_telegram
    people = _world(fake, 1)
    settings = fast_settings(fake, tmp_path / "bot.sqlite3", min_game_seconds=3600.0)
    async with running_bot(settings) as service:
        table = await start_game(fake, service, people, "双扣", 3)
        result = await finish(fake, service, people, table)
        assert "不足一分钟" in (result.text or "")
        record = await service.db.games.get(table.game_id)
        assert record is not None and record.note == "short game"
        rows = await service.db.results.for_game(table.game_id)
        assert all(row.adjusted_delta == 0 for row in rows)


async def test_the_settings_survive_a_restart(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    fake = fake_telegram
    people = _world(fake, 1)
    settings = fast_settings(fake, tmp_path / "bot.sqlite3")
    async with running_bot(settings) as service:
        menu = await _open_menu(fake)
        assert await _choose(fake, menu, "默认", "通化刨王") == "已保存。"
        assert await _choose(fake, menu, "出牌时间", "90 秒") == "已保存。"
    async with running_bot(settings) as service:
        assert (await service.group_options(GROUP)).default_variant == "paowang"
        table = await start_game(fake, service, people, "刨王", 4)
        assert table.options is not None and table.options.turn_seconds == 90.0
        game_id = table.game_id
        record = await service.db.games.get(game_id)
        assert record is not None and record.options is not None
        assert record.options["turn_seconds"] == 90.0
        # a change during the game is for the next one
        menu = await _open_menu(fake)
        assert await _choose(fake, menu, "出牌时间", "120 秒") == "已保存。"
    async with running_bot(settings) as service:
        assert (await service.group_options(GROUP)).turn_seconds == 120
        # the game in progress comes back with the options it was dealt with
        table = service.tables[game_id]
        assert table.options is not None and table.options.turn_seconds == 90.0
        assert table.options.default_variant == "paowang"


async def test_a_change_that_lost_to_another_admins_redraws_the_menu_in_the_groups_language(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    """Two admins at once: the second change finds the settings moved on (here another
    change written behind the menu's back), is refused, and the menu is drawn anew in the
    group's chosen language, like every other drawing of it."""
    fake = fake_telegram
    _world(fake, 1)
    async with running_bot(fast_settings(fake, tmp_path / "bot.sqlite3")) as service:
        menu = await _open_menu(fake)
        assert await _choose(fake, menu, "群消息语言", "English") == "已保存。"
        record = await service.db.group_settings.get(GROUP)
        assert await service.db.group_settings.change(
            GROUP, "turn_seconds", 90, revision=record.revision, by=ADMIN, at=0.0
        )
        lost = await _choose(fake, menu, "亮王 time", "15 s")
        assert lost == "设置刚被别人改过，菜单已更新。"
        shown = fake.chat(GROUP).message(menu.message_id)
        assert shown is not None and "This group's settings" in (shown.text or "")
        after = await service.db.group_settings.get(GROUP)
        assert after.changes == {"language": "en", "turn_seconds": 90}


async def test_play_again_leaves_the_computers_out_once_the_group_turned_them_off(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    """再来一局 copies the finished game's seats, but not computer seats the group's admins
    have since turned off: the new lobby has the humans and no 加电脑."""
    fake = fake_telegram
    people = _world(fake, 1)
    async with running_bot(fast_settings(fake, tmp_path / "bot.sqlite3")) as service:
        table = await start_game(fake, service, people, "双扣", 3)
        result = await finish(fake, service, people, table)
        menu = await _open_menu(fake)
        assert await _choose(fake, menu, "允许电脑玩家", "关") == "已保存。"
        again = await (await fake.press(people[0], GROUP, result.message_id, "再来一局")).answered()
        assert again.text is None, again
        lobby = service.tables[service.by_chat[GROUP]]
        assert lobby.status == "lobby"
        assert [seat.user_id for seat in lobby.seats if seat.user_id is not None] == people
        assert not any(seat.is_computer for seat in lobby.seats)
        shown = await fake.wait_for_message(GROUP, contains="等待玩家")
        assert "加电脑" not in shown.labels
