"""The simulated people of a load run, and the tables they sit at."""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from bot.presentation.strings import text
from fakebot import CallbackAnswer, CallbackResult, FakeMessage, FakeTelegram

DECISIONS = {"提示", "亮王", "不亮", "知道了，继续"}
OUTDATED = text("zh", "err.outdated")
#: what a press that must change nothing may be answered: outdated, or the game is over
REFUSED = {OUTDATED, text("zh", "err.game_over")}
PASSED = text("zh", "ok.passed")
PLAYED_PREFIX = text("zh", "ok.played", play="")
HINT_PREFIX = text("zh", "ok.hint", play="")
GATE_ACCEPTED = {text("zh", "ok.revealed"), text("zh", "ok.not_revealed")}
_YOU_PLAYED = re.compile(re.escape(text("zh", "hand.you_played", play="")[:-1]) + r"(.+?)（")
_YOU_PASSED = text("zh", "hand.you_passed")


@dataclass(frozen=True)
class TableSpec:
    variant: str  # "shuangkou" | "paowang"
    humans: int

    @property
    def seats(self) -> int:
        return 4 if self.variant == "shuangkou" else 5

    @property
    def computers(self) -> int:
        return self.seats - self.humans


def table_mix(count: int) -> list[TableSpec]:
    """Two 双扣 tables for each 刨王 one; humans per table cycle 0, 1, 0, 2 (双扣) and
    0, 1, 2 (刨王): about one seat in five is a simulated human."""
    specs = []
    for index in range(count):
        if index % 3 == 2:
            specs.append(TableSpec("paowang", (0, 1, 2)[(index // 3) % 3]))
        else:
            specs.append(TableSpec("shuangkou", (0, 1, 0, 2)[(index - index // 3) % 4]))
    return specs


@dataclass
class Knobs:
    """How the simulated people behave (probabilities per decision)."""

    pass_when_allowed: float = 0.25
    typed: float = 0.2  # of the plays after a hint: typed in the private chat
    toggled: float = 0.25  # of the plays after a hint: 清空, then the cards one by one
    duplicate: float = 0.25  # the same 出牌/不出/亮王 button pressed twice at once
    stale_partner: float = 0.4  # another human of the table presses an old button meanwhile


@dataclass
class TableRun:
    index: int
    spec: TableSpec
    group_id: int
    humans: list[int]
    opener: int
    game_id: int | None = None
    started: float = 0.0
    finished: float = 0.0
    over: bool = False
    players: list[Human] = field(default_factory=list)

    def stale_partner(self, me: Human) -> Human | None:
        others = [p for p in self.players if p is not me and p.stale is not None]
        return others[0] if others else None


@dataclass
class HumanStats:
    presses: Counter[str] = field(default_factory=Counter)
    typed: int = 0
    typed_refused: int = 0
    duplicates: int = 0
    stale_presses: int = 0


class Human:
    """A simulated person at full speed: acts as soon as a message with buttons arrives."""

    def __init__(
        self, fake: FakeTelegram, table: TableRun, user_id: int, rng: random.Random, knobs: Knobs
    ) -> None:
        self.fake = fake
        self.table = table
        self.user_id = user_id
        self.rng = rng
        self.knobs = knobs
        self.chat = fake.chat(user_id)
        self.seen = 0
        self.actions: list[tuple[str, str | None]] = []  # accepted, as the retired notes say
        self.stale: tuple[int, str] | None = None  # an old message of ours and a button's data
        self.stats = HumanStats()
        self.problems: list[str] = []
        self.timeout = 900.0

    def _scan(self) -> FakeMessage | None:
        messages = self.chat.messages
        while self.seen < len(messages):
            message = messages[self.seen]
            self.seen += 1
            live = message.from_bot and message.reply_markup and not message.deleted
            if live and DECISIONS & set(message.labels):
                return message
        return None

    async def play(self) -> None:
        while True:
            found = await self.fake.wait_for(
                lambda: self._scan() or ("over" if self.table.over else None),
                self.timeout,
                what=f"a decision for user {self.user_id}",
            )
            if isinstance(found, str):
                return
            try:
                await self._act(found)
            except Exception as error:  # keep going: the checks report it
                self.problems.append(f"user {self.user_id}: {type(error).__name__}: {error}")

    async def _answer(self, result: CallbackResult) -> CallbackAnswer:
        return await result.answered(self.timeout)

    async def _press(self, message: FakeMessage, kind: str, **find: Any) -> CallbackAnswer:
        self.stats.presses[kind] += 1
        result = await self.fake.press(self.user_id, self.user_id, message.message_id, **find)
        return await self._answer(result)

    async def _act(self, message: FakeMessage) -> None:
        labels = message.labels
        if "亮王" in labels:
            await self._gate(message, "亮王" if self.rng.random() < 0.5 else "不亮")
        elif "知道了，继续" in labels:
            await self._gate(message, "知道了，继续")
        else:
            await self._turn(message)

    async def _gate(self, message: FakeMessage, label: str) -> None:
        button = message.find_button(label)
        assert button is not None
        copies = 2 if self.rng.random() < self.knobs.duplicate else 1
        self.stats.duplicates += copies - 1
        self.stats.presses["gate"] += copies
        presses = [
            await self.fake.press(
                self.user_id, self.user_id, message.message_id, data=button["callback_data"]
            )
            for _ in range(copies)
        ]
        answers = [await self._answer(p) for p in presses]
        accepted = [a for a in answers if a.text not in REFUSED]
        if len(accepted) != 1:
            self.problems.append(f"user {self.user_id}: gate answers {answers}")
            return
        if label == "知道了，继续":
            if accepted[0].text:
                self.problems.append(f"user {self.user_id}: ready answered {accepted[0].text}")
            return
        if accepted[0].text not in GATE_ACCEPTED:
            self.problems.append(f"user {self.user_id}: gate answered {accepted[0].text}")
        self.actions.append(("reveal" if label == "亮王" else "decline", None))

    async def _turn(self, message: FakeMessage) -> None:
        if "不出" in message.labels and self.rng.random() < self.knobs.pass_when_allowed:
            await self._decide(message, "不出")
            return
        hint = await self._press(message, "hint", label="提示")
        shown = hint.text or ""
        # the hint is the play's cards and its name: "提示：♠6（单张）"
        play = shown[len(HINT_PREFIX) :].split("（", 1)[0] if shown.startswith(HINT_PREFIX) else ""
        if not play:  # nothing beats the table
            await self._decide(message, "不出")
            return
        style = self.rng.random()
        if style < self.knobs.typed:
            if await self._type(message, play):
                return
        elif style < self.knobs.typed + self.knobs.toggled:
            await self._press(message, "clear", label="清空")
            used: set[str] = set()
            for token in play.split():
                # a press is answered before its edit lands: the keyboard may still mark the
                # hint's cards (✔) that 清空 has just cleared
                button = next(
                    b
                    for b in message.buttons
                    if b["text"].removeprefix("✔") == token and b["callback_data"] not in used
                )
                used.add(button["callback_data"])
                await self._press(message, "toggle", data=button["callback_data"])
        await self._decide(message, "出牌")

    async def _type(self, message: FakeMessage, play: str) -> bool:
        """Type the play; True when taken, False when the bot refused it (then press)."""
        before = len(self.chat.messages)
        await self.fake.send_text(self.user_id, self.user_id, play)
        self.stats.typed += 1

        def outcome() -> str | None:
            if message.reply_markup is None:
                return "taken"
            if any(m.from_bot for m in self.chat.messages[before + 1 :]):
                return "refused"
            return None

        if await self.fake.wait_for(outcome, self.timeout, what="a typed play") == "refused":
            self.stats.typed_refused += 1
            return False
        await self._record_note(message)
        self.stale = None
        return True

    async def _decide(self, message: FakeMessage, label: str) -> None:
        """Press 出牌 or 不出: sometimes twice at once, sometimes while another human of the
        table presses one of their old buttons."""
        button = message.find_button(lambda shown: shown.startswith(label))
        assert button is not None, message.keyboard
        data = button["callback_data"]
        copies = 2 if self.rng.random() < self.knobs.duplicate else 1
        partner = (
            self.table.stale_partner(self) if self.rng.random() < self.knobs.stale_partner else None
        )
        kind = "pass" if label == "不出" else "play"
        self.stats.presses[kind] += copies
        self.stats.duplicates += copies - 1
        presses = [
            await self.fake.press(self.user_id, self.user_id, message.message_id, data=data)
            for _ in range(copies)
        ]
        stale_press = None
        if partner is not None and partner.stale is not None:
            old_message, old_data = partner.stale
            stale_press = await self.fake.press_raw(
                partner.user_id, partner.user_id, old_message, old_data
            )
            partner.stats.stale_presses += 1
        answers = [await self._answer(p) for p in presses]
        accepted = [
            a
            for a in answers
            if a.text is not None and (a.text == PASSED or a.text.startswith(PLAYED_PREFIX))
        ]
        refused = [a for a in answers if a not in accepted]
        if len(accepted) != 1 or any(a.text not in REFUSED for a in refused):
            self.problems.append(f"user {self.user_id}: {label} answered {answers}")
        if stale_press is not None:
            stale = await self._answer(stale_press)
            if stale.text not in REFUSED:
                self.problems.append(f"user {partner.user_id if partner else '?'}: stale {stale}")
        if accepted:
            await self._record_note(message)
            self.stale = (message.message_id, data)
        elif label == "出牌" and "不出" in message.labels:
            await self._decide(message, "不出")

    async def _record_note(self, message: FakeMessage) -> None:
        """The accepted action, as the retired hand's note says. A press is answered before
        its rendering (the answer must not wait behind the chat's pace), so the note is
        waited for: an action that never shows its note is a problem, reported."""

        def note() -> tuple[str, str | None] | None:
            shown = message.text or ""
            played = _YOU_PLAYED.search(shown)
            if played:
                return ("play", played.group(1))
            return ("pass", None) if _YOU_PASSED in shown else None

        try:
            action = await self.fake.wait_for(note, 120.0, what="the retired hand's note")
        except TimeoutError:
            shown = message.text or ""
            self.problems.append(f"user {self.user_id}: no note in the retired hand {shown!r}")
            return
        self.actions.append(action)


@dataclass
class Scenario:
    tables: list[TableRun]
    seconds: float = 0.0  # from the first 开始 to the last game's end

    @property
    def humans(self) -> list[Human]:
        return [p for t in self.tables for p in t.players]
