"""/history and replays through the real bot: games finished in the test are listed in the
group and in the player's private chat, and a replay steps through a whole game, in the
presser's private chat, to the result the group was shown. Forged, stale and premature
presses are refused and change nothing; a person who never started the bot is told to."""

from __future__ import annotations

import re
from typing import Any

import pytest

from bot.service import GameService
from bot.service.tables import Table
from fakebot import CallbackAnswer, FakeMessage, FakeTelegram
from tests.e2e.driver import GROUP, bot_settings, running_bot, setup_world
from tests.e2e.helpers_robust import finish, say, start_game

STRANGER = 555
SEAT_CARDS = re.compile(r"^\d\. .+ · (\d+)张", re.MULTILINE)
STEP = re.compile(r"第 (\d+)/(\d+) 轮")


@pytest.fixture
def fake_telegram_options() -> dict[str, Any]:
    return {
        "group_messages_per_minute": 600,
        "private_messages_per_second": 2000.0,
        "global_messages_per_second": 1000.0,
    }


def result_part(message: FakeMessage) -> str:
    """The result text of the group's result message (earlier lines may share it)."""
    shown = message.text or ""
    start = shown.index("🏆")
    return shown[start:]


async def finish_game(
    fake: FakeTelegram, service: GameService, people: list[int], variant: str, computers: int
) -> tuple[Table, str]:
    table = await start_game(fake, service, people, variant, computers)
    await finish(fake, service, people, table)
    name = "绍兴双扣" if variant == "双扣" else "通化刨王"
    message = await fake.wait_for_message(GROUP, contains=f"{name} 结果")
    return table, result_part(message)


async def press(
    fake: FakeTelegram, user: int, chat: int, message: int, label: str
) -> CallbackAnswer:
    return await (await fake.press(user, chat, message, label)).answered()


async def raw(fake: FakeTelegram, user: int, chat: int, message: int, data: str) -> CallbackAnswer:
    return await (await fake.press_raw(user, chat, message, data)).answered()


def cards_left(message: FakeMessage) -> int:
    return sum(int(n) for n in SEAT_CARDS.findall(message.text or ""))


def winners_text(table: Table) -> str:
    result = table.engine.result
    names = []
    for seat in result.winners:
        label = table.seats[seat]
        names.append(("🤖 " if label.is_computer else "") + label.name)
    return "、".join(names)


async def test_history_lists_finished_games_and_a_replay_steps_to_the_result(
    fake_telegram: FakeTelegram, database_url: str
) -> None:
    """On SQLite and on PostgreSQL (``database_url``)."""
    fake = fake_telegram
    people = setup_world(fake, 1)
    player = people[0]
    fake.add_user(STRANGER, "路人")  # never starts the bot
    fake.chat(GROUP).members.add(STRANGER)
    async with running_bot(bot_settings(fake, database_url)) as service:
        await say(fake, player, player, "/start")
        empty = await say(fake, player, GROUP, "/history")
        assert "本群还没有打完的牌局" in (empty.text or "") and not empty.rows
        mine = await say(fake, player, player, "/history", expect="你还没有")
        assert not mine.rows

        first, first_result = await finish_game(fake, service, people, "双扣", 3)
        second, second_result = await finish_game(fake, service, people, "刨王", 4)

        # the group's list: newest first, one line each, a ▶ button each
        listed = await say(fake, player, GROUP, "/history")
        shown = listed.text or ""
        assert "本群最近的牌局" in shown
        lines = [line for line in shown.splitlines() if line.startswith("#")]
        assert [line.split()[0] for line in lines] == [
            f"#{second.game_id}",
            f"#{first.game_id}",
        ]
        assert "绍兴双扣" in lines[1] and "通化刨王" in lines[0]
        for line in lines:
            assert "玩家1" in line and "🤖 电脑1" in line
        outcome = first.engine.result.outcome
        if outcome == "平扣":
            assert lines[1].endswith("平扣")
        else:
            assert f"{outcome}：{winners_text(first)} 胜" in lines[1]
        assert f"{winners_text(second)} 胜" in lines[0]
        assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d", lines[0])
        assert listed.labels == [f"▶ #{second.game_id}", f"▶ #{first.game_id}"]

        # the player's own list, with their score change
        private = await say(fake, player, player, "/history", expect="你最近的牌局")
        rows = await service.db.results.for_game(first.game_id)
        delta = next(r.adjusted_delta for r in rows if r.user_id == player)
        assert f"你 {delta:+d}" in (private.text or "")
        assert private.labels == listed.labels

        # ▶ #first in the group: the replay arrives in the private chat, at the deal
        before = len(fake.chat(player).bot_messages)
        answer = await press(fake, player, GROUP, listed.message_id, f"▶ #{first.game_id}")
        assert answer.text is not None and "私聊" in answer.text and not answer.show_alert
        assert len(fake.chat(player).bot_messages) == before + 1
        replay = fake.chat(player).bot_messages[-1]
        assert f"回放 #{first.game_id}" in (replay.text or "") and "发牌" in (replay.text or "")
        assert cards_left(replay) == 108
        assert replay.labels == ["▶", "⏭"]

        # step through the whole game, trick by trick, to the group's result
        steps = 0
        left = cards_left(replay)
        while "▶" in replay.labels:
            answer = await press(fake, player, player, replay.message_id, "▶")
            assert not answer.show_alert
            current = fake.chat(player).message(replay.message_id)
            assert current is not None
            replay = current
            steps += 1
            match = STEP.search(replay.text or "")
            assert match is not None and int(match.group(1)) == steps
            now = cards_left(replay)
            assert now < left, (steps, now, left)  # every trick has a play
            left = now
            assert ("本局结束" in (replay.text or "")) == ("▶" not in replay.labels)
        assert match is not None and int(match.group(2)) == steps
        assert steps >= 5
        assert first_result in (replay.text or "")
        assert len(fake.chat(player).bot_messages) == before + 1  # one message, edited
        last_text = replay.text

        # refused, and nothing changes: a step out of range, a step not on the keyboard,
        # a step pressed outside the replay message, a forged game, an unfinished game
        refusals = [
            (player, player, f"{first.game_id}:{steps}:y:999", "没有这一步"),
            (player, player, f"{first.game_id}:{steps}:y:3", "过期"),
            (player, GROUP, f"{first.game_id}:0:y:1", "过期"),
            (player, GROUP, "987654:0:y:", "只能回放已经结束的牌局"),
            (player, GROUP, "987654:0:y:4", "只能回放已经结束的牌局"),
        ]
        for user, chat, data, words in refusals:
            where = replay.message_id if chat == player else listed.message_id
            answer = await raw(fake, user, chat, where, data)
            assert answer.show_alert and words in (answer.text or ""), (data, answer)
        assert fake.chat(player).message(replay.message_id).text == last_text  # type: ignore[union-attr]
        assert len(fake.chat(player).bot_messages) == before + 1

        # ⏮ back to the deal, ⏭ to the end
        await press(fake, player, player, replay.message_id, "⏮")
        current = fake.chat(player).message(replay.message_id)
        assert current is not None and "发牌" in (current.text or "")
        await press(fake, player, player, replay.message_id, "⏭")
        current = fake.chat(player).message(replay.message_id)
        assert current is not None and current.text == last_text

        # the 刨王 game from the private list: its last step has its result
        await press(fake, player, player, private.message_id, f"▶ #{second.game_id}")
        paowang = fake.chat(player).bot_messages[-1]
        assert f"回放 #{second.game_id}" in (paowang.text or "")
        await press(fake, player, player, paowang.message_id, "⏭")
        paowang = fake.chat(player).message(paowang.message_id)  # type: ignore[assignment]
        assert second_result in (paowang.text or "")
        assert "分" in (paowang.text or "")  # points per seat

        # someone who never started the bot: told to, and sent nothing
        answer = await press(fake, STRANGER, GROUP, listed.message_id, f"▶ #{first.game_id}")
        assert answer.show_alert and "开始" in (answer.text or "")
        assert not fake.chat(STRANGER).bot_messages

        # a game in progress and a lobby have no replay yet
        third = await start_game(fake, service, people, "双扣", 3)
        assert third.status == "playing"
        log_before = list(third.log)
        for data in (f"{third.game_id}:0:y:", f"{third.game_id}:0:y:1"):
            answer = await raw(fake, player, GROUP, listed.message_id, data)
            assert answer.show_alert and "只能回放已经结束的牌局" in (answer.text or "")
        # (the answer comes after anything the press sent)
        assert not any(f"回放 #{third.game_id}" in t for t in fake.chat(player).texts)
        assert third.status == "playing" and third.log[: len(log_before)] == log_before
        await fake.send_text(player, GROUP, "/cancel")
        await fake.wait_for(lambda: third.status == "cancelled", what="the third game cancelled")
        lobby_answer = await say(fake, player, GROUP, "/newgame 双扣", expect="等待玩家")
        lobby_id = service.by_chat[GROUP]
        assert lobby_id != third.game_id and lobby_answer.rows
        for game_id in (lobby_id, third.game_id):  # a lobby, a cancelled game
            answer = await raw(fake, player, GROUP, listed.message_id, f"{game_id}:0:y:")
            assert answer.show_alert and "只能回放已经结束的牌局" in (answer.text or "")
    assert not fake.unanswered_callbacks()
    fake.assert_clean()
