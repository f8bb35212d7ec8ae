"""One game of ``bench.bot_calls`` played against the real bot, its requests put in boxes."""

from __future__ import annotations

import asyncio
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.bot_calls.people import Outcome, Person, Scenario
from bench.harness import open_lobby
from bot.config import Settings
from bot.edge.app import build_application, running_application
from bot.game.variants import auto_passes
from bot.service import GameService
from bot.service.tables import Table
from fakebot import FakeTelegram, RequestRecord

GROUP = -1_002_000_000_001
OPENER = 500  # opens the 4-computer game; never starts the bot, so is not seated
ACTION_ACTS = ("p", "n")  # 出牌, 不出
SELECTION_ACTS = ("t", "h", "r")  # card toggle, 提示, 清空


def settings_for(fake: FakeTelegram, db_path: Path, computer_delay: float) -> Settings:
    """The bot's own defaults, pointed at the fake; only the computer delay varies."""
    return Settings(
        telegram_bot_token=fake.token,
        telegram_api_base_url=fake.base_url,
        database_path=str(db_path),
        computer_delay=computer_delay,
    )  # type: ignore[call-arg]


def _is_hand_keyboard(params: dict[str, Any]) -> bool:
    markup = params.get("reply_markup")
    if not isinstance(markup, dict):
        return False
    data = [b.get("callback_data", "") for row in markup.get("inline_keyboard", []) for b in row]
    return any(d.split(":")[2:3] == ["t"] for d in data)


def classify(record: RequestRecord, acts: dict[str, str], lobby_id: int | None) -> str | None:
    """The box of one request, or None for requests that are no message (getUpdates...)."""
    method, params = record.method, record.params
    chat = params.get("chat_id")
    if method == "answerCallbackQuery":
        act = acts.get(str(params.get("callback_query_id")), "?")
        if act in ACTION_ACTS:
            return "action:answer"
        if act in SELECTION_ACTS:
            return "selection:answer"
        return "other:answer"
    if chat is None or method not in ("sendMessage", "editMessageText", "editMessageReplyMarkup"):
        return None
    if int(chat) < 0:
        if method == "editMessageText" and params.get("message_id") == lobby_id:
            return "start:lobby edit"
        return "action:group " + ("post" if method == "sendMessage" else "edit")
    if method == "editMessageText":
        return "selection:hand edit" if _is_hand_keyboard(params) else "action:retire edit"
    if method == "editMessageReplyMarkup":
        return "other:buttons cleared"
    if params.get("reply_markup"):
        return "action:prompt"
    return "other:private send"  # the hands dealt at the start, replies to typed text


async def play_game(scenario: Scenario, seed: int) -> Outcome:
    outcome = Outcome(scenario)
    rng = random.Random(seed)
    async with FakeTelegram() as fake:
        outcome.group_limit = fake.group_messages_per_minute
        people = [101 + i for i in range(scenario.humans)]
        fake.add_group(GROUP, "牌友群")
        for index, user_id in enumerate(people):
            fake.add_user(user_id, f"玩家{index + 1}")
        fake.add_user(OPENER, "开局者")
        with tempfile.TemporaryDirectory(prefix="bench-calls-") as folder:
            settings = settings_for(fake, Path(folder) / "bot.sqlite3", scenario.computer_delay)
            async with running_application(build_application(settings)) as application:
                service: GameService = application.bot_data["service"]
                await _play(fake, service, people, scenario, rng, outcome)
    return outcome


async def _play(
    fake: FakeTelegram,
    service: GameService,
    people: list[int],
    scenario: Scenario,
    rng: random.Random,
    outcome: Outcome,
) -> None:
    opener = people[0] if people else OPENER
    lobby = await open_lobby(fake, GROUP, "shuangkou", people, opener, 30)
    for _ in range(4 - scenario.humans):
        await (await fake.press(opener, GROUP, lobby.message_id, "加电脑")).answered(30)
    game_id = service.by_chat[GROUP]
    table = service.tables[game_id]
    first = len(fake.requests)
    began = time.monotonic()
    await (await fake.press(opener, GROUP, lobby.message_id, "开始")).answered(120)
    persons = [
        Person(fake, table, table.seat_of(u) or 0, u, scenario.pace, rng, outcome) for u in people
    ]
    await asyncio.gather(*(p.play() for p in persons))
    await fake.wait_for_message(GROUP, contains="🏆", timeout=600)
    assert table.has_channel
    await table.channel.drain()
    await asyncio.sleep(1.0)  # let the last requests finish
    outcome.seconds = time.monotonic() - began
    acts: dict[str, str] = {}
    for person in persons:
        acts.update(person.queries)
    outcome.all_group_times = [
        r.time
        for r in fake.requests
        if r.ok and (r.chat_id or 0) < 0 and r.method in ("sendMessage", "editMessageText")
    ]
    for record in fake.requests[first:]:
        if record.status == 429:
            outcome.retried["group" if (record.chat_id or 0) < 0 else "private"] += 1
            continue
        if not record.ok:
            continue
        box = classify(record, acts, lobby.message_id)
        if box is not None:
            outcome.boxes[box] += 1
        if box and box.startswith("action:group"):
            outcome.group_times.append(record.time)
    outcome.actions = len(table.log)
    outcome.human_actions = sum(1 for _, seat, _ in table.log if table.seats[seat].is_human)
    outcome.auto_passes = _auto_passes(table)
    outcome.selection_presses = sum(1 for act in acts.values() if act in SELECTION_ACTS)
    outcome.violations.update(v.scope for v in fake.limit_violations)
    outcome.rejections = [str(r) for r in fake.rejections]


def _auto_passes(table: Table) -> int:
    """Humans' passes the bot made for them (要不起): no answer, retire edit or prompt."""
    if table.seed is None:
        return 0
    forced = auto_passes(table.variant, table.seed, table.leader, table.log)
    return sum(1 for n in forced if table.seats[table.log[n][1]].is_human)
