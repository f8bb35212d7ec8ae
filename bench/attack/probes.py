"""The groups at play during an attack, and the probes that time their answers."""

from __future__ import annotations

import argparse
import asyncio
import math
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from bench.web.tables import TableSpec, add_world
from fakebot import FakeMessage, FakeTelegram
from fakebot.miniapp import init_data_for

SPECTATOR_BASE = 700_000


@dataclass
class World:
    fake: FakeTelegram
    specs: list[TableSpec]
    games: list[int] = field(default_factory=list)
    spectators: list[int] = field(default_factory=list)  # members of the first group, unseated

    @property
    def target(self) -> TableSpec:
        return self.specs[0]

    def init_data(self, user_id: int) -> str:
        return init_data_for(self.fake.token, user_id, f"观众{user_id}")

    def to_act(self) -> tuple[int, int] | None:
        """(player, hand message) of the first table's player whose hand has 提示 (whose turn
        it is)."""
        for user_id in self.target.people:
            # the hand is not always the newest message: a /help answered privately (the
            # group's minute spent) may have come after it
            for message in reversed(self.fake.chat(user_id).bot_messages[-4:]):
                if any(b.get("text") == "提示" for b in message.buttons):
                    return user_id, message.message_id
        return None


def build_world(fake: FakeTelegram, groups: int, spectators: int) -> World:
    specs = [TableSpec(n, "shuangkou") for n in range(groups)]
    add_world(fake, specs)
    world = World(fake, specs)
    group = fake.chat(specs[0].group)
    for n in range(spectators):
        user_id = SPECTATOR_BASE + n
        fake.add_user(user_id, f"观众{n + 1}", language_code="zh-hans")
        group.members.add(user_id)
        world.spectators.append(user_id)
    return world


def _reply_to(fake: FakeTelegram, chat_id: int, message_id: int) -> FakeMessage | None:
    for message in reversed(fake.chat(chat_id).bot_messages[-20:]):
        if message.reply_to == message_id:
            return message
    return None


def _help_in_private(fake: FakeTelegram, user_id: int, after: int) -> FakeMessage | None:
    """The /help answer the bot sent the asker privately (it does when the group's minute is
    spent: the probes' own /help and the tables' posts spend it), among the chat's messages
    from index ``after`` on; hand prompts and edits arrive there too, so it is found by text."""
    for message in fake.chat(user_id).messages[after:]:
        if message.from_bot and "/newgame" in (message.text or ""):
            return message
    return None


async def timed(
    wait: Callable[[], Awaitable[Any]], began: float, timeout: float, missed: Counter[str]
) -> float:
    """Seconds from ``began`` until ``wait`` is done; infinite if not within ``timeout`` (or
    if there was nothing to press), with the reason counted in ``missed``."""
    try:
        async with asyncio.timeout(timeout):
            await wait()
    except TimeoutError:
        missed["no answer in time"] += 1
        return math.inf
    except (LookupError, ValueError):
        missed["no button to press"] += 1
        return math.inf
    return time.perf_counter() - began


@dataclass
class Probes:
    """What a playing group and a player got while an attack ran (seconds; inf: none)."""

    help: list[float] = field(default_factory=list)
    presses: list[float] = field(default_factory=list)
    missed: Counter[str] = field(default_factory=Counter)  # 提示 presses that got nothing
    help_private: int = 0  # /help answered in the asker's private chat (the group was full)


async def probe(world: World, seconds: float, args: argparse.Namespace) -> Probes:
    """/help in every group and 提示 at the first table, on a fixed schedule for ``seconds``."""
    fake = world.fake
    probes = Probes()
    tasks: list[asyncio.Task[None]] = []
    began = time.monotonic()

    async def one_help(spec: TableSpec, sender: int) -> None:
        at = time.perf_counter()
        before = len(fake.chat(sender).messages)
        sent = await fake.send_text(sender, spec.group, "/help")

        def answer() -> tuple[str, FakeMessage] | None:
            found = _reply_to(fake, spec.group, sent.message_id)
            if found is not None:
                return "group", found
            private = _help_in_private(fake, sender, before)
            return None if private is None else ("private", private)

        where: list[str] = []

        async def answered() -> None:
            where.append((await fake.wait_for(answer, 3600))[0])

        latency = await timed(answered, at, args.wait, Counter())
        probes.help.append(latency)
        probes.help_private += where == ["private"]

    async def one_press(user_id: int, message_id: int) -> None:
        at = time.perf_counter()

        async def answered() -> None:
            result = await fake.press(user_id, user_id, message_id, "提示")
            await result.answered(3600)

        probes.presses.append(await timed(answered, at, args.wait, probes.missed))

    async def schedule(
        interval: float, offset: float, start: Callable[[int], Awaitable[None] | None]
    ) -> None:
        n = 0
        while True:
            due = began + offset + n * interval
            if due >= began + seconds:
                return
            await asyncio.sleep(max(0.0, due - time.monotonic()))
            job = start(n)
            if job is not None:
                tasks.append(asyncio.ensure_future(job))
            n += 1

    def help_job(spec: TableSpec) -> Callable[[int], Awaitable[None]]:
        return lambda n: one_help(spec, spec.people[n % len(spec.people)])

    def press_job(_n: int) -> Awaitable[None] | None:
        hand = world.to_act()
        if hand is None:
            probes.missed["nobody's turn prompt"] += 1
            probes.presses.append(math.inf)
            return None
        return one_press(*hand)

    interval = args.help_interval
    schedules = [
        schedule(interval, interval * g / len(world.specs), help_job(spec))
        for g, spec in enumerate(world.specs)
    ]
    schedules.append(schedule(args.press_interval, 0.25, press_job))
    await asyncio.gather(*schedules)
    await asyncio.gather(*tasks)
    return probes
