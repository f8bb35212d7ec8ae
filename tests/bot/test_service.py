from __future__ import annotations

import asyncio
import sqlite3
import threading

import pytest

from bot.game.players import AiPlayer
from bot.game.variants import PAOWANG, SHUANGKOU, auto_passes, cannot_beat
from bot.presentation.callbacks import Act, Callback
from bot.presentation.strings_zh import ZH
from bot.service.base import Reply
from bot.service.result_message import result_text
from bot.storage import open_database
from tests.bot.harness import running_service, user, wait_until

GROUP = -100


@pytest.fixture
async def db(tmp_path):
    database = await open_database(str(tmp_path / "bot.sqlite3"))
    yield database
    await database.close()


@pytest.fixture
async def env(db):
    async with running_service(db) as pair:
        yield pair


async def test_a_table_of_computers_plays_shuangkou_to_the_end(db, env) -> None:
    service, messenger = env
    opener = user(1)
    await service.new_game(chat_id=GROUP, chat_title="g", opener=opener, variant=SHUANGKOU)
    table = service.tables[service.by_chat[GROUP]]
    for _ in range(4):
        await service.on_lobby_callback(opener, Callback(table.game_id, 0, Act.COMPUTER))
    reply = await service.on_lobby_callback(opener, Callback(table.game_id, 0, Act.START))
    assert reply.text == ""
    await wait_until(lambda: table.status == "finished", messenger.changed)
    await table.channel.drain()
    record = await db.games.get(table.game_id)
    assert record.status == "finished"
    actions = await db.actions.list(table.game_id)
    assert len(actions) == len(table.log) > 20
    shown = "\n".join(messenger.everything_shown(GROUP))
    assert "结果" in shown


async def _computers_only(service, variant):
    """A table opened by user 1 and filled with computers, started."""
    opener = user(1)
    await service.new_game(chat_id=GROUP, chat_title="g", opener=opener, variant=variant)
    table = service.tables[service.by_chat[GROUP]]
    while not table.full:
        await service.on_lobby_callback(opener, Callback(table.game_id, 0, Act.COMPUTER))
    await service.on_lobby_callback(opener, Callback(table.game_id, 0, Act.START))
    return table


async def test_a_table_of_computers_plays_paowang_to_the_end(db, env) -> None:
    service, messenger = env
    table = await _computers_only(service, PAOWANG)
    await wait_until(lambda: table.status == "finished", messenger.changed)
    await table.channel.drain()
    assert (await db.games.get(table.game_id)).status == "finished"


async def _humans_and_computers(service, messenger, variant, humans: int):
    people = [user(10 + i) for i in range(humans)]
    for person in people:
        await service.start_private(person, None)
    await service.new_game(chat_id=GROUP, chat_title="g", opener=people[0], variant=variant)
    table = service.tables[service.by_chat[GROUP]]
    for person in people[1:]:
        reply = await service.on_lobby_callback(person, Callback(table.game_id, 0, Act.JOIN))
        assert reply.url is None, reply
    while not table.full:
        await service.on_lobby_callback(people[0], Callback(table.game_id, 0, Act.COMPUTER))
    await service.on_lobby_callback(people[0], Callback(table.game_id, 0, Act.START))
    return table, people


async def _play_humans(service, messenger, table, people, on_prompt=None) -> int:
    """Humans answer the gate, then use 提示 then 出牌 (or 不出) until the game ends.

    ``on_prompt(index)`` is called each time a human is asked to play or pass."""
    presses = 0
    while table.status == "playing":
        await wait_until(
            lambda: (
                table.status != "playing"
                or any(
                    table.seats[i].live_message_id and i in table.ready_pending
                    for i in range(table.size)
                )
                or (
                    not table.gate_open
                    and table.engine.turn is not None
                    and table.seats[table.engine.turn].plays_itself
                    and table.seats[table.engine.turn].live_message_id is not None
                )
            ),
            messenger.changed,
        )
        if table.status != "playing":
            break
        if table.gate_open:
            for index in sorted(table.ready_pending):
                seat = table.seats[index]
                person = next(p for p in people if p.user_id == seat.user_id)
                holder = index in table.engine.reveal_pending
                act = Callback(
                    table.game_id,
                    seat.version,
                    Act.REVEAL if holder else Act.READY,
                    1 if holder else None,
                )
                await service.on_hand_callback(person, act)
            continue
        index = table.engine.turn
        seat = table.seats[index]
        if on_prompt is not None:
            on_prompt(index)
        person = next(p for p in people if p.user_id == seat.user_id)
        reply = await service.on_hand_callback(
            person, Callback(table.game_id, seat.version, Act.HINT)
        )
        presses += 1
        if seat.selected and (presses % 3 or not table.engine.can_pass(index)):
            reply = await service.on_hand_callback(
                person, Callback(table.game_id, seat.version, Act.PLAY)
            )
        else:
            reply = await service.on_hand_callback(
                person, Callback(table.game_id, seat.version, Act.PASS)
            )
        assert "err" not in reply.text
    return presses


@pytest.mark.parametrize("variant,humans", [(SHUANGKOU, 2), (PAOWANG, 3)])
async def test_humans_and_computers_finish_a_game_and_are_rated(db, env, variant, humans) -> None:
    service, messenger = env
    table, people = await _humans_and_computers(service, messenger, variant, humans)
    await _play_humans(service, messenger, table, people)
    await table.channel.drain()
    result = table.engine.result
    rows = await db.results.for_game(table.game_id)
    for index, seat in enumerate(table.seats):
        if seat.is_human:
            rating = await db.ratings.get(user_id=seat.user_id, game=variant.name)
            assert rating.games == 1
            assert rating.score == result.deltas[index]
        # the score after the game is written down with it; computers have none
        assert rows[index].score_after == (rating.score if seat.is_human else None)
    # a restart forgets the table: its result screen is read back, word for word
    rebuilt = await service.parts.stored.finished(table.game_id)
    assert rebuilt is not None and rebuilt.settlement is not None
    assert result_text(rebuilt, rebuilt.settlement) == result_text(table, table.settlement)
    group_text = "\n".join(messenger.everything_shown(GROUP))
    # the deal is random: a 亮王 line only when someone (a human, or a computer choosing to)
    # showed a 大王
    if variant is PAOWANG and table.engine.any_revealed:
        assert "亮王" in group_text


async def test_two_newgames_at_once_open_one_lobby(db, env) -> None:
    import asyncio

    service, messenger = env
    first, second = await asyncio.gather(
        service.new_game(chat_id=GROUP, chat_title="g", opener=user(1), variant=SHUANGKOU),
        service.new_game(chat_id=GROUP, chat_title="g", opener=user(2), variant=PAOWANG),
    )
    assert sorted([first.text, second.text])[0] == ""
    assert "已有" in first.text + second.text
    assert len(service.tables) == 1
    lobbies = [m for m in messenger.chat(GROUP) if "等待玩家" in m.text]
    assert len(lobbies) == 1


async def _humans_asked_without_a_play(service, messenger, variant) -> tuple[object, int]:
    """A table of humans plays to the end; how often one was asked who could only pass."""
    table, people = await _humans_and_computers(service, messenger, variant, variant.seats)
    asked = 0

    def on_prompt(index: int) -> None:
        nonlocal asked
        asked += cannot_beat(table.engine, index)

    await _play_humans(service, messenger, table, people, on_prompt)
    assert table.status == "finished"
    return table, asked


@pytest.mark.parametrize("auto_pass", [True, False])
async def test_shuangkou_passes_for_a_player_who_cannot_beat_the_table(
    db, monkeypatch, auto_pass: bool
) -> None:
    async with running_service(db, seed=7, auto_pass=auto_pass) as (service, messenger):
        table, asked = await _humans_asked_without_a_play(service, messenger, SHUANGKOU)
        forced = len(auto_passes(SHUANGKOU, table.seed, table.leader, table.log))
        assert forced > 5  # the deal of seed 7 has plenty of them
        if auto_pass:
            assert asked == 0  # nobody was asked who could only pass
        else:
            assert asked == forced  # every one of them was asked
        assert (await db.games.get(table.game_id)).status == "finished"


async def test_paowang_asks_even_a_player_who_cannot_beat_the_table(db, monkeypatch) -> None:
    """Passing for them at once would tell the group who cannot beat a high single, and so
    who does not hold a 大王."""
    async with running_service(db, seed=7) as (service, messenger):
        _, asked = await _humans_asked_without_a_play(service, messenger, PAOWANG)
        assert asked > 0


async def test_a_timer_job_that_fails_is_tried_again(db, monkeypatch) -> None:
    """A computer's turn whose write fails changes nothing and runs again a little later:
    the table never waits for a timer that is gone."""
    async with running_service(db, retry_delay=0.01) as (service, messenger):
        append = service.db.actions.append
        failed: list[int] = []

        async def flaky_append(**entry):
            if entry["seq"] == 3 and not failed:
                failed.append(entry["seq"])
                raise sqlite3.OperationalError("disk I/O error")
            return await append(**entry)

        monkeypatch.setattr(service.db.actions, "append", flaky_append)
        opener = user(1)
        await service.new_game(chat_id=GROUP, chat_title="g", opener=opener, variant=SHUANGKOU)
        table = service.tables[service.by_chat[GROUP]]
        for _ in range(4):
            await service.on_lobby_callback(opener, Callback(table.game_id, 0, Act.COMPUTER))
        await service.on_lobby_callback(opener, Callback(table.game_id, 0, Act.START))
        await wait_until(lambda: table.status == "finished", messenger.changed)
        assert failed == [3]
        stored = await db.actions.list(table.game_id)
        assert [a.seq for a in stored] == list(range(len(table.log)))


async def test_computers_decide_off_the_event_loop(db, monkeypatch) -> None:
    """Near the end of a 双扣 game the AI plays deals out: its choices run in worker threads,
    so that the other tables and the web do not wait for them."""
    threads: list[int] = []
    choose = AiPlayer.choose

    def spy(self, view):
        threads.append(threading.get_ident())
        return choose(self, view)

    monkeypatch.setattr(AiPlayer, "choose", spy)
    async with running_service(db) as (service, messenger):
        table = await _computers_only(service, SHUANGKOU)
        await wait_until(lambda: table.status == "finished", messenger.changed)
    assert len(threads) >= 20
    assert threading.get_ident() not in threads


async def test_a_timer_job_that_failed_after_its_action_moves_on_not_again(db, monkeypatch) -> None:
    """A computer's turn went through, then storing the human's prompt failed: the retry
    prompts the human again; it must not run the computer's turn again, on the human's seat."""
    # seat 1 (a computer) leads the deal of seed 1; the human sits at 0
    async with running_service(
        db, retry_delay=0.01, seed=1, turn_seconds=600, auto_pass=False
    ) as (service, messenger):
        human = user(10)
        failed: list[int] = []
        chose_for_the_human: list[int] = []
        save = service.db.games.save
        choose = service.parts.computers.choice

        async def flaky_save(game_id, **fields):
            prompt = "hand_message_ids" in fields and not failed
            if prompt and table.log and table.log[-1][1] != 0:  # after a computer's action
                failed.append(len(table.log))
                raise sqlite3.OperationalError("database is locked")
            return await save(game_id, **fields)

        async def spy(current, index):
            if index == 0:
                chose_for_the_human.append(len(current.log))
            return await choose(current, index)

        monkeypatch.setattr(service.db.games, "save", flaky_save)
        monkeypatch.setattr(service.parts.computers, "choice", spy)

        def prompts() -> int:  # messages sent to the human (the deal, then each prompt)
            return len(messenger.chat(human.user_id))

        table, _ = await _humans_and_computers(service, messenger, SHUANGKOU, 1)
        assert table.seat_of(human.user_id) == 0
        await wait_until(lambda: bool(failed), messenger.changed)
        before = prompts()
        await wait_until(lambda: prompts() > before or bool(chose_for_the_human), messenger.changed)
        assert not chose_for_the_human
        assert table.engine.turn == 0 and len(table.log) == failed[0]


async def test_a_paowang_game_shows_paowang_names_only(db, env) -> None:
    """Everything the group and the players read names 刨王's plays by 刨王's names: the
    hand messages, the 出牌 button, the table, the hints."""
    service, messenger = env
    table, people = await _humans_and_computers(service, messenger, PAOWANG, 2)
    await _play_humans(service, messenger, table, people)
    await table.channel.drain()
    shown = [
        version
        for (chat, _), message in messenger.messages.items()
        for version in message.versions
    ]
    labels = [
        button.text
        for message in messenger.messages.values()
        for markup in message.markups
        if markup is not None
        for row in markup.inline_keyboard
        for button in row
    ]
    everything = "\n".join(shown + labels)
    for word in ("（对子）", "（顺子）", "（连对）", "（炸弹）", "（天王炸）"):
        assert word not in everything
    # plays are named at all. Which plays reach the group depends on timing (the table's
    # edits are merged under Telegram's limits), so any of 刨王's names will do: a game whose
    # shown plays held no single was once taken for one without names
    paowang_names = {name for key, name in ZH.items() if key.startswith("kind.paowang.")}
    assert any(f"（{name}）" in everything for name in paowang_names)
    assert any(label.startswith("出牌：") for label in labels)  # the button names them too
    for label in labels:
        assert label.removeprefix("出牌：") not in ("对子", "顺子", "连对", "炸弹", "天王炸")


async def test_a_computer_choice_made_as_the_player_came_back_is_dropped(db, monkeypatch) -> None:
    """The computer plays for a seat in 托管 (outside the table's lock: it may think for
    tens of milliseconds); the player presses 「我回来了」 meanwhile. The choice arrives
    stamped with a timer the table has replaced: the door drops it, the player decides."""
    async with running_service(
        db, seed=1, turn_seconds=600, auto_pass=False
    ) as (service, messenger):
        human = user(10)
        thinking, release = asyncio.Event(), asyncio.Event()
        choose = service.parts.computers.choice

        async def slow(current, index):
            if index == 0:
                thinking.set()
                await release.wait()
            return await choose(current, index)

        monkeypatch.setattr(service.parts.computers, "choice", slow)
        act = service.parts.door.act
        for_seat_0: list[tuple[object, object]] = []

        async def recording(command, early=None):
            reply = await act(command, early)
            if command.seat == 0 and not command.source.human:
                for_seat_0.append((command, reply))
                messenger.changed.set()
            return reply

        monkeypatch.setattr(service.parts.door, "act", recording)
        table, _ = await _humans_and_computers(service, messenger, SHUANGKOU, 1)
        table.seats[0].takeover = True  # seat 1 leads: seat 0's first turn is the computer's
        await asyncio.wait_for(thinking.wait(), 20)
        actions = len(table.log)
        reply = await service.on_hand_callback(human, Callback(table.game_id, 0, Act.TAKEBACK))
        assert not table.seats[0].takeover, reply
        release.set()
        await wait_until(lambda: bool(for_seat_0), messenger.changed)
        (command, dropped), = for_seat_0
        assert command.timer is not None and command.timer < table.timer
        assert dropped == Reply() and len(table.log) == actions and table.engine.turn == 0
        assert table.seats[0].live_message_id is not None  # asked, with buttons
