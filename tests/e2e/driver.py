"""Drive the real bot through the fake Bot API server as a group of simulated people."""

from __future__ import annotations

import contextlib
import random
import re
from collections import Counter
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.config import Settings
from bot.edge.app import build_application, running_application
from bot.game import paowang
from bot.service import GameService
from bot.service.tables import Table
from fakebot import FakeMessage, FakeTelegram

GROUP = -1001
#: the fake Bot API server without Telegram's limits, for tests about something else
ROOMY_LIMITS: dict[str, Any] = {
    "group_messages_per_minute": 600,
    "private_messages_per_second": 200.0,
    "global_messages_per_second": 1000.0,
}
ADMIN = 999
CARD_TOKEN = re.compile(r"[♠♥♣♦](?:10|[2-9JQKA])")


def bot_settings(fake: FakeTelegram, database: Path | str, **overrides: Any) -> Settings:
    """The bot's settings against ``fake``, on ``database``: a SQLite file's path, or a
    ``DATABASE_URL`` (the ``database_url`` fixture gives SQLite's, then PostgreSQL's)."""
    where = "database_url" if "://" in str(database) else "database_path"
    values: dict[str, Any] = {
        "telegram_bot_token": fake.token,
        "telegram_api_base_url": fake.base_url,
        where: str(database),
        "computer_delay": 0.0,
        "min_game_seconds": 0.0,
        "turn_seconds": 60.0,
        "reveal_seconds": 60.0,
        "group_messages_per_minute": fake.flood.group[0],
        "overall_messages_per_second": fake.flood.overall[0] / fake.flood.overall[1],
        "private_messages_per_second": fake.flood.private[0] / fake.flood.private[1],
        "private_burst": fake.flood.private[0],
        "user_actions_per_second": 1000.0,
        # the tests send commands faster than any group should (tests/e2e/test_fairness.py
        # has the throttle's own)
        "group_commands_per_minute": 100_000.0,
        "group_command_burst": 1000,
    }
    values.update(overrides)
    return Settings(**values)


@contextlib.asynccontextmanager
async def running_bot(
    settings: Settings, *, deals: Sequence[int] = ()
) -> AsyncIterator[GameService]:
    """The bot built from ``settings``, running; its game service. ``deals``: the seeds the
    next games are dealt from, in order, then the last one again (default: random)."""
    new_seed = seeds_in_order(deals) if deals else playable_seed
    application = build_application(settings, new_seed=new_seed)
    async with running_application(application) as application:
        yield application.bot_data["service"]


def playable_seed() -> int:
    """A random seed whose 刨王 deal does not end at once (all four jokers in one hand, about
    one deal in 160): the tests that take a random deal are about playing it. The instant
    win has tests of its own."""
    while True:
        seed = random.getrandbits(62)
        if not paowang.Game.deal(seed).over:
            return seed


def seeds_in_order(seeds: Sequence[int]) -> Callable[[], int]:
    """A seed source giving ``seeds`` in order, then the last one again."""
    queue = list(seeds)

    def next_seed() -> int:
        return queue.pop(0) if len(queue) > 1 else queue[0]

    return next_seed


@dataclass
class Table_:
    """What a test knows about the game in the group (through the fake only)."""

    people: list[int]
    presses: int = 0
    typed: int = 0
    answers: list[str] = field(default_factory=list)


def setup_world(fake: FakeTelegram, people: int) -> list[int]:
    ids = [101 + i for i in range(people)]
    fake.add_group(GROUP, "牌友群", admins=(ADMIN,), members=ids)
    for index, user_id in enumerate(ids):
        fake.add_user(user_id, f"玩家{index + 1}", language_code="zh-hans")
    return ids


def live_message(fake: FakeTelegram, user_id: int) -> FakeMessage | None:
    """The private message with buttons the bot keeps for a deciding player, if any."""
    for message in reversed(fake.chat(user_id).bot_messages):
        if message.reply_markup and not message.deleted:
            return message
    return None


def labels(message: FakeMessage) -> list[str]:
    return list(message.labels)


async def open_lobby(
    fake: FakeTelegram, people: list[int], variant: str, computers: int
) -> FakeMessage:
    for user_id in people:
        await fake.send_text(user_id, user_id, "/start")
    await fake.wait_for(
        lambda: all(fake.chat(u).bot_messages for u in people), what="hello messages"
    )
    await fake.send_text(people[0], GROUP, f"/newgame {variant}")
    lobby = await fake.wait_for_message(GROUP, contains="等待玩家")
    for user_id in people[1:]:
        result = await fake.press(user_id, GROUP, lobby.message_id, "加入")
        await result.answered()
    for _ in range(computers):
        result = await fake.press(people[0], GROUP, lobby.message_id, "加电脑")
        await result.answered()
    return lobby


async def play_out(
    fake: FakeTelegram,
    service: GameService,
    people: list[int],
    game_id: int,
    *,
    type_every: int = 0,
    timeout: float = 120.0,
) -> Table_:
    """Every person decides when asked: at the 亮王 gate, and on their turns with 提示 then
    出牌 (or 不出 every third time they may). Runs until the result is posted."""
    state = Table_(people)
    table: Table = service.tables[game_id]

    def pending() -> Any:
        if table.status != "playing":
            return "over"
        for user_id in people:
            message = live_message(fake, user_id)
            if message is not None and any(
                label in ("亮王", "不亮", "知道了，继续", "提示") for label in message.labels
            ):
                return (user_id, message)
        return None

    turn = 0
    while True:
        found = await fake.wait_for(pending, timeout, what="a decision or the end")
        if found == "over":
            break
        user_id, message = found
        names = message.labels
        if "亮王" in names:
            label = "亮王" if turn % 2 == 0 else "不亮"
            state.answers.append(
                (
                    await (await fake.press(user_id, user_id, message.message_id, label)).answered()
                ).text
                or ""
            )
            turn += 1
            continue
        if "知道了，继续" in names:
            await (
                await fake.press(user_id, user_id, message.message_id, "知道了，继续")
            ).answered()
            continue
        turn += 1
        may_pass = "不出" in names
        if may_pass and turn % 3 == 0:
            if type_every and turn % type_every == 0:
                await fake.send_text(user_id, user_id, "不出")
                state.typed += 1
                await fake.wait_for(
                    lambda m=message, u=user_id: (
                        live_message(fake, u) is not m or table.status != "playing"
                    ),
                    what="typed pass taken",
                )
                continue
            await (await fake.press(user_id, user_id, message.message_id, "不出")).answered()
            state.presses += 1
            continue
        hint = await (await fake.press(user_id, user_id, message.message_id, "提示")).answered()
        state.presses += 1
        played = hint.text.split("：", 1)[-1] if hint.text and "：" in hint.text else ""
        if type_every and turn % type_every == 0 and played:
            await fake.send_text(user_id, user_id, played)
            state.typed += 1
            await fake.wait_for(
                lambda m=message, u=user_id: (
                    live_message(fake, u) is not m or table.status != "playing"
                ),
                what="typed play taken",
            )
            continue
        # a press is answered before its message is redrawn (the answer must not wait behind
        # the edits): the selection shows once the edit lands, unless the message was retired
        # meanwhile (a newer prompt took its place), and then the loop looks again
        def selection_or_retired(m: FakeMessage = message, u: int = user_id) -> Any:
            current = fake.chat(u).message(m.message_id)
            button = next((lb for lb in current.labels if lb.startswith("出牌")), None) if (
                current is not None
            ) else None
            if button is not None:
                return button
            if table.status != "playing" or live_message(fake, u) is not m:
                return "retired"
            return None

        play_button = await fake.wait_for(selection_or_retired, what="the hinted selection")
        if play_button == "retired":
            continue
        answer = await (
            await fake.press(user_id, user_id, message.message_id, play_button)
        ).answered()
        state.presses += 1
        state.answers.append(answer.text or "")
    return state


def cards_shown(texts: list[str]) -> Counter[str]:
    """The most copies of each suited card any one line of a group message showed.

    Per line, because the table names the last play twice (in the trick and as the play
    to beat); a line never repeats a play."""
    most: Counter[str] = Counter()
    for shown in texts:
        for line in shown.splitlines():
            for card, count in Counter(CARD_TOKEN.findall(line)).items():
                most[card] = max(most[card], count)
    return most


def cards_played(table: Table) -> Counter[str]:
    played: Counter[str] = Counter()
    for action in table.log:
        if action.kind == "play" and action.log_text:
            played.update(CARD_TOKEN.findall(action.log_text))
    return played
