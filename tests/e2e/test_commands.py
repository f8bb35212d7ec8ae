"""Commands through the real bot: /rank, /top, /rules, /help, /lang, the command list."""

from __future__ import annotations

from typing import Any

import pytest
from openskill.models import PlackettLuce

from fakebot import FakeTelegram
from tests.e2e.driver import GROUP, bot_settings, open_lobby, play_out, running_bot, setup_world


@pytest.fixture
def fake_telegram_options() -> dict[str, Any]:
    return {
        "group_messages_per_minute": 600,
        # people here type faster than people do: scale the private limit with them
        "private_messages_per_second": 2000.0,
        "global_messages_per_second": 1000.0,
    }


async def test_commands_answer_in_the_readers_language(
    fake_telegram: FakeTelegram, tmp_path
) -> None:
    fake = fake_telegram
    people = setup_world(fake, 1)
    fake.add_user(900, "Alice", language_code="en")
    async with running_bot(bot_settings(fake, tmp_path / "bot.sqlite3")):
        # the command list is registered in both languages
        assert {c["command"] for c in fake.commands()} >= {"newgame", "rank", "top", "rules"}
        assert any("game" in c["description"] for c in fake.commands(language_code="en"))

        await fake.send_text(people[0], people[0], "/start")
        await fake.wait_for_message(people[0], contains="/newgame")
        await fake.send_text(people[0], people[0], "/rank")
        rank = await fake.wait_for_message(people[0], contains="等级")
        assert "弹壳" in rank.text and "小学生" in rank.text  # 0 points in both ladders
        assert "钢刀" in rank.text and "100" in rank.text  # the next title and the distance

        await fake.send_text(900, 900, "/start")
        await fake.wait_for_message(900, contains="/newgame")
        await fake.send_text(900, 900, "/rules")
        rules = await fake.wait_for_message(900, contains="Combinations")
        assert "Paowang" in rules.text
        # 要不起 passes are 双扣's alone, and said once
        assert rules.text.count("the bot passes for you") == 1
        assert rules.text.index("the bot passes for you") < rules.text.index("Paowang")
        await fake.send_text(900, 900, "/lang zh")
        await fake.wait_for_message(900, contains="语言已设为中文")
        await fake.send_text(900, 900, "/help")
        await fake.wait_for_message(900, contains="命令")

        await fake.send_text(people[0], people[0], "/newgame")
        await fake.wait_for_message(people[0], contains="要在群里用")
        await fake.send_text(people[0], GROUP, "/top")
        await fake.wait_for_message(GROUP, contains="还没有人在本群评定满 10 局")
    fake.assert_clean()


async def test_rank_and_top_after_a_game(fake_telegram: FakeTelegram, tmp_path) -> None:
    fake = fake_telegram
    people = setup_world(fake, 2)
    async with running_bot(bot_settings(fake, tmp_path / "bot.sqlite3")) as service:
        lobby = await open_lobby(fake, people, "双扣", 2)
        game_id = service.by_chat[GROUP]
        await (await fake.press(people[0], GROUP, lobby.message_id, "开始")).answered()
        table = service.tables[game_id]
        await play_out(fake, service, people, game_id)
        await fake.wait_for_message(GROUP, contains="结果")
        deltas = table.engine.result.deltas
        await fake.send_text(people[0], GROUP, "/top")
        # first the skill board: nobody has 10 rated games yet, so both are named unranked
        top = await fake.wait_for_message(GROUP, contains="本群绍兴双扣技术榜")
        assert "还没有人在本群评定满 10 局绍兴双扣" in top.text
        unranked = top.text.split("未定级（评定不足 10 局）：")[1].split("\n")[0]
        assert sorted(unranked.split("、")) == sorted(s.name for s in table.seats if s.is_human)
        # its button switches the message to 等级's board, and back
        await (await fake.press(people[1], GROUP, top.message_id, "看等级榜")).answered()
        await fake.wait_for(
            lambda: "本群绍兴双扣排行" in fake.chat(GROUP).message(top.message_id).text
        )
        board = fake.chat(GROUP).message(top.message_id)
        for index, seat in enumerate(table.seats):
            if seat.is_human:
                assert f"{seat.name} · " in board.text
                assert f"{deltas[index]}分" in board.text
        assert "电脑" not in board.text  # computer players are never on a board
        assert board.labels == ["看技术榜"]
        await (await fake.press(people[0], GROUP, top.message_id, "看技术榜")).answered()
        await fake.wait_for(
            lambda: "技术榜" in fake.chat(GROUP).message(top.message_id).text
        )
        # the season under way: this game's players, not placed yet (3 games make a place)
        await fake.send_text(people[0], GROUP, "/season")
        season = await fake.wait_for_message(GROUP, contains="第 1 赛季")
        assert "第 1 赛季" in season.text and "进行中" in season.text
        assert "未上榜（不足 3 局）" in season.text
        await fake.send_text(people[0], GROUP, "/season 9")
        await fake.wait_for_message(GROUP, contains="没有这个赛季")
        await fake.send_text(people[1], people[1], "/rank")
        rank = await fake.wait_for_message(people[1], contains="等级")
        assert "1局" in rank.text
        # the skill rating beside the title: the two partnerships rated as openskill rates
        # them (each with a computer partner new to the game), shown as 1000 + 40 (mu - 3 sigma)
        rows = await service.db.results.for_game(game_id)
        seat = next(i for i, s in enumerate(table.seats) if s.user_id == people[1])
        team, other = [i for i in (0, 1, 2, 3) if i % 2 == seat % 2], [
            i for i in (0, 1, 2, 3) if i % 2 != seat % 2
        ]
        won = [any(rows[i].won for i in side) for side in (team, other)]
        ranks = [1, 1] if won[0] == won[1] else ([1, 2] if won[0] else [2, 1])
        model = PlackettLuce()
        mine = model.rate([[model.rating(), model.rating()] for _ in range(2)], ranks=ranks)[0][0]
        expected = round(1000 + 40 * (mine.mu - 3 * mine.sigma))
        assert f"技术分 {expected}（评定 1 局）" in rank.text
        assert "技术分 1000（评定 0 局）" in rank.text  # 刨王: not played yet
    fake.assert_clean()


async def test_a_second_newgame_points_to_the_open_lobby(
    fake_telegram: FakeTelegram, tmp_path
) -> None:
    fake = fake_telegram
    people = setup_world(fake, 2)
    async with running_bot(bot_settings(fake, tmp_path / "bot.sqlite3")) as service:
        lobby = await open_lobby(fake, people, "双扣", 0)
        await fake.send_text(people[1], GROUP, "/newgame 刨王")
        pointer = await fake.wait_for_message(GROUP, contains="已有一局")
        assert pointer.reply_to == lobby.message_id
        assert len(service.tables) == 1
        assert "等待玩家" in (fake.chat(GROUP).message(lobby.message_id) or lobby).text
    fake.assert_clean()
