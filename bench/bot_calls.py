"""Bot API calls per game action and group messages per minute in a 4-seat 双扣 game.

``.venv/bin/python -m bench.bot_calls`` runs the real bot (``build_application``, its default
settings: 20 messages a minute per group, the overall rate limiter, 45 s turns) against the fake Bot
API server with Telegram's limits (20 a minute per group, sends and edits alike, sliding; about
one a second per private chat with 3 at once; 30 a second overall) and plays whole games:

- human pace: 4 simulated humans in real time (the bot uses real time, so the clock is not
  scaled): each thinks ``--think`` seconds (uniform) before the first press of a turn and
  taps ``--tap`` seconds apart after it; they select the way people do: 提示 then 出牌
  (sometimes 提示 twice), or the cards one by one then 出牌, or the play typed in the private
  chat, and 不出 when they choose to pass;
- the same 1 human with 3 computers at the bot's default computer delay (1.2 s);
- full speed: 1 human with 3 computers, and 4 computers, computer delay 0 and no thinking.

What the simulated people play is decided by the bot's own AI player reading their seat's
view (their brain); only their presses and typed messages reach the bot.

Every request the bot makes after 开始 is read from the fake's log and put in one box:
*action calls* (the answer to 出牌/不出, the edit that retires the presser's hand message, the
next player's prompt, every group send and edit) and *selection calls* (the answer and the
hand edit of a card toggle, 提示 or 清空). It prints the figures and rewrites the
``bench.bot_calls`` section of ``bench/results/bot.md``.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.botrun import (
    machine_lines,
    markdown_table,
    max_in_window,
    started,
    write_section,
)
from bot.config import Settings
from bot.edge.app import build_application, running_application
from bot.game.cards import format_cards
from bot.game.players import make_player
from bot.game.variants import auto_passes
from bot.service import GameService
from bot.service.tables import Table
from fakebot import FakeMessage, FakeTelegram, RequestRecord

SECTION = "bench.bot_calls"
GROUP = -1_002_000_000_001
OPENER = 500  # opens the 4-computer game; never starts the bot, so is not seated
GOAL_CALLS_PER_ACTION = 3.0
ACTION_ACTS = ("p", "n")  # 出牌, 不出
SELECTION_ACTS = ("t", "h", "r")  # card toggle, 提示, 清空


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
        game = self.table.game
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
    for user_id in people:
        await fake.send_text(user_id, user_id, "/start")
    await fake.wait_for(lambda: all(fake.chat(u).bot_messages for u in people), 30)
    opener = people[0] if people else OPENER
    await fake.send_text(opener, GROUP, "/newgame 双扣")
    lobby = await fake.wait_for_message(GROUP, contains="等待玩家", timeout=30)
    for user_id in people[1:]:
        await (await fake.press(user_id, GROUP, lobby.message_id, "加入")).answered(30)
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
    assert table.channel is not None
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


# ---- the report ----------------------------------------------------------------------------


def _per(count: float, of: int) -> str:
    return f"{count / of:.2f}" if of else "–"


def report(outcomes: list[Outcome], start: tuple[str, str, str], command: str, pace: Pace) -> str:
    lines = [
        "## Bot API calls per action, group messages per minute (`bench.bot_calls`)",
        "",
        f"`{command}`",
        "",
        *machine_lines(start),
        "- The bot with its default settings (group budget 20 a minute, sliding; "
        "the overall rate limiter; 45 s turns); the fake with Telegram's limits (20 a minute per "
        "group, sends and edits alike, sliding window; 1 a second per private chat, 3 at "
        "once; 30 a second overall), answering 429 with `retry_after` past them",
        f"- Human pace: real time; {pace.think[0]:g}–{pace.think[1]:g} s of thought before the "
        f"first press of a turn, {pace.tap[0]:g}–{pace.tap[1]:g} s between presses after it. "
        "What to play is the bot's AI player's choice from the seat's view; how to enter it "
        "is drawn per turn: 提示, 出牌 (45%); 提示 twice, 出牌 (10%); the cards one by one, "
        "出牌 (25%); typed in the private chat (20%); 不出 when the choice is to pass",
        "- One full game per row, counted from 开始 to the group's last message; the lobby "
        "and the deal (each human's first hand) are left out",
        "",
        "**Action calls** are the calls a play or a pass causes: the answer to the 出牌/不出 "
        "press, the edit that retires the presser's hand message (its buttons go), the next "
        "human's prompt (a new message with buttons), and every group send (trick, out, "
        "result lines, merged) and edit (the live table). **Selection calls** are the answer and "
        "the hand edit of each card toggle, 提示 or 清空. A typed play has no answer. "
        "Per action = divided by every play and pass of the game, the computers' included "
        "(they cause no answer and no retire edit, and no prompt unless a human is next). "
        "In 双扣 the bot passes for a human who holds nothing that beats the table (要不起), "
        "without asking: such a pass costs no private call either.",
        "",
    ]
    header = [
        "game",
        "actions (by humans; 要不起 of them)",
        "min",
        "answers",
        "retire edits",
        "prompts",
        "group posts",
        "group edits",
        "action calls / action",
        "selection presses",
        "selection calls / press",
        "group msgs (per min)",
        "max group msgs in 60 s",
        "429s (private / group)",
    ]
    rows = []
    for o in outcomes:
        b = o.boxes
        minutes = o.seconds / 60
        group = len(o.group_times)
        rows.append(
            [
                o.scenario.name,
                f"{o.actions} ({o.human_actions}; {o.auto_passes})",
                f"{minutes:.1f}",
                _per(b["action:answer"], o.actions),
                _per(b["action:retire edit"], o.actions),
                _per(b["action:prompt"], o.actions),
                _per(b["action:group post"], o.actions),
                _per(b["action:group edit"], o.actions),
                f"**{_per(o.action_calls, o.actions)}**",
                str(o.selection_presses),
                _per(o.selection_calls, o.selection_presses),
                f"{group} ({group / minutes:.1f})" if minutes else str(group),
                f"{max_in_window(o.all_group_times)} (limit {o.group_limit})",
                f"{o.retried['private']} / {o.retried['group']}",
            ]
        )
    lines += [markdown_table(header, rows), ""]
    lines += ["Per row: calls per action unless said otherwise; humans' ways of playing:"]
    for o in outcomes:
        styles = ", ".join(f"{k} {v}" for k, v in o.styles.most_common()) or "none (computers)"
        problems = o.rejections[:3]
        lines.append(
            f"- {o.scenario.name}: {styles}; flood limits exceeded (answered 429, then retried "
            f"by the bot): {dict(o.violations) or 'none'}; "
            f"requests refused: {len(o.rejections)}"
            + (f" ({'; '.join(problems)})" if problems else "")
        )
    lines.append("")
    lines += _verdict(outcomes)
    return "\n".join(lines)


def _verdict(outcomes: list[Outcome]) -> list[str]:
    lines = []
    for o in outcomes:
        per = o.action_calls / o.actions if o.actions else 0.0
        window = max_in_window(o.all_group_times)
        b = o.boxes
        if per <= GOAL_CALLS_PER_ACTION:
            calls = f"{per:.2f} action calls per action: goal ≤ {GOAL_CALLS_PER_ACTION:g} met"
        else:
            parts = ", ".join(
                f"{name} {b[key] / o.actions:.2f}"
                for name, key in (
                    ("answers", "action:answer"),
                    ("retire edits", "action:retire edit"),
                    ("prompts", "action:prompt"),
                    ("group posts", "action:group post"),
                    ("group edits", "action:group edit"),
                )
            )
            calls = (
                f"{per:.2f} action calls per action: goal ≤ {GOAL_CALLS_PER_ACTION:g} "
                f"**missed by {per - GOAL_CALLS_PER_ACTION:.2f}** ({parts})"
            )
        limit = f"max {window} group messages in any 60 s: the limit of {o.group_limit} " + (
            "held" if window <= o.group_limit and not o.violations["group"] else "**exceeded**"
        )
        lines.append(f"- {o.scenario.name}: {calls}; {limit}.")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bot_calls", description=__doc__)
    parser.add_argument("--think", type=float, nargs=2, default=(0.8, 2.0), metavar=("MIN", "MAX"))
    parser.add_argument("--tap", type=float, nargs=2, default=(0.4, 0.8), metavar=("MIN", "MAX"))
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument(
        "--only", choices=("human", "default", "full"), action="append", help="rows to run"
    )
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args(argv)
    pace = Pace(tuple(args.think), tuple(args.tap))  # type: ignore[arg-type]
    chosen = set(args.only or ("human", "default", "full"))
    scenarios = []
    if "human" in chosen:
        scenarios.append(Scenario("4 humans, human pace", 4, 1.2, pace))
    if "default" in chosen:
        scenarios.append(Scenario("1 human (human pace) + 3 computers (1.2 s)", 1, 1.2, pace))
    if "full" in chosen:
        scenarios.append(Scenario("1 human + 3 computers, full speed", 1, 0.0, FULL_SPEED))
        scenarios.append(Scenario("4 computers, full speed", 0, 0.0, FULL_SPEED))
    start = started()
    outcomes = []
    for number, scenario in enumerate(scenarios):
        print(f"playing: {scenario.name} ...", file=sys.stderr, flush=True)
        outcomes.append(asyncio.run(play_game(scenario, args.seed + number)))
    given = list(argv if argv is not None else sys.argv[1:])
    command = " ".join([".venv/bin/python -m bench.bot_calls", *given])
    body = report(outcomes, start, command, pace)
    print(body)
    if not args.no_write:
        write_section(SECTION, body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
