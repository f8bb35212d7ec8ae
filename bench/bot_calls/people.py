"""The games of ``bench.bot_calls`` (who plays, at what pace) and the simulated people in them."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from bot.game.cards import format_cards
from bot.game.players import make_player
from bot.service.tables import Table
from fakebot import FakeMessage, FakeTelegram


@dataclass
class Pace:
    think: tuple[float, float]  # seconds before the first press of a turn
    tap: tuple[float, float]  # seconds between presses within a turn

    def pause(self, rng: random.Random, span: tuple[float, float]) -> float:
        low, high = span
        return rng.uniform(low, high) if high > 0 else 0.0


FULL_SPEED = Pace((0.0, 0.0), (0.0, 0.0))


@dataclass
class Scenario:
    name: str
    humans: int
    computer_delay: float
    pace: Pace


@dataclass
class Outcome:
    scenario: Scenario
    actions: int = 0
    human_actions: int = 0
    auto_passes: int = 0  # 双扣 passes the bot made for a human who could not beat the table
    seconds: float = 0.0  # from 开始 to the group's last message
    boxes: Counter[str] = field(default_factory=Counter)
    styles: Counter[str] = field(default_factory=Counter)
    selection_presses: int = 0
    group_times: list[float] = field(default_factory=list)  # game messages (from 开始)
    all_group_times: list[float] = field(default_factory=list)  # lobby ones too
    group_limit: int = 20
    retried: Counter[str] = field(default_factory=Counter)  # 429 answers, by chat kind
    violations: Counter[str] = field(default_factory=Counter)  # flood limits exceeded, by scope
    rejections: list[str] = field(default_factory=list)

    @property
    def action_calls(self) -> int:
        return sum(v for k, v in self.boxes.items() if k.startswith("action:"))

    @property
    def selection_calls(self) -> int:
        return sum(v for k, v in self.boxes.items() if k.startswith("selection:"))


class Person:
    """A simulated human: waits for their prompt, thinks, selects and plays like a person."""

    def __init__(
        self,
        fake: FakeTelegram,
        table: Table,
        seat: int,
        user_id: int,
        pace: Pace,
        rng: random.Random,
        outcome: Outcome,
    ) -> None:
        self.fake = fake
        self.table = table
        self.seat = seat
        self.user_id = user_id
        self.pace = pace
        self.rng = rng
        self.outcome = outcome
        self.chat = fake.chat(user_id)
        self.brain = make_player("ai", seed=rng.randrange(1 << 30))
        self.seen = 0
        self.queries: dict[str, str] = {}  # callback query id -> act

    def _next(self) -> FakeMessage | str | None:
        messages = self.chat.messages
        while self.seen < len(messages):
            message = messages[self.seen]
            self.seen += 1
            if message.from_bot and message.reply_markup and "提示" in message.labels:
                return message
        return "over" if self.table.status != "playing" else None

    async def play(self) -> None:
        while True:
            found = await self.fake.wait_for(self._next, 600, what=f"{self.user_id}'s turn")
            if isinstance(found, str):
                return
            await asyncio.sleep(self.pace.pause(self.rng, self.pace.think))
            await self._turn(found)
            await self.fake.wait_for(
                lambda m=found: m.reply_markup is None or self.table.status != "playing",
                600,
                what="the hand message retired",
            )

    async def _tap(self) -> None:
        await asyncio.sleep(self.pace.pause(self.rng, self.pace.tap))

    async def _press(self, message: FakeMessage, **find: Any) -> str:
        result = await self.fake.press(self.user_id, self.user_id, message.message_id, **find)
        self.queries[result.query_id] = result.data.split(":")[2]
        answer = await result.answered(600)
        return answer.text or ""

    async def _turn(self, message: FakeMessage) -> None:
        game = self.table.engine
        choice = self.brain.choose(game.view(self.seat))
        styles = self.outcome.styles
        if choice is None and game.can_pass(self.seat):
            styles["不出"] += 1
            await self._press(message, label="不出")
            return
        if choice is None:  # the brain never passes a lead; just in case
            choice = min(self.table.variant.legal_plays(game.view(self.seat)), key=len_key)
        roll = self.rng.random()
        if roll < 0.2:
            styles["typed"] += 1
            await self.fake.send_text(self.user_id, self.user_id, format_cards(choice.cards))
            return
        if roll < 0.45:
            styles["cards one by one, 出牌"] += 1
            used: set[str] = set()
            for card in choice.cards:
                button = next(
                    b
                    for b in message.buttons
                    if b["text"] == str(card) and b["callback_data"] not in used
                )
                used.add(button["callback_data"])
                await self._press(message, data=button["callback_data"])
                await self._tap()
        elif roll < 0.55:
            styles["提示 twice, 出牌"] += 1
            await self._press(message, label="提示")
            await self._tap()
            await self._press(message, label="提示")
            await self._tap()
        else:
            styles["提示, 出牌"] += 1
            await self._press(message, label="提示")
            await self._tap()
        button = message.find_button(lambda label: label.startswith("出牌"))
        assert button is not None, message.keyboard
        answer = await self._press(message, data=button["callback_data"])
        if not answer.startswith("已出") and "不出" in message.labels:  # refused: pass instead
            await self._press(message, label="不出")


def len_key(combo: Any) -> int:
    return len(combo.cards)
