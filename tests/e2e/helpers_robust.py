"""Helpers for the robustness tests (faults, bad input, secrets, absent players, lobby).

They build on :mod:`tests.e2e.driver` (the bot as ``run_polling`` runs it, and people who
play when asked) and add: full-speed limits, starting a game in one call, snapshots of a
game to compare before and after bad input, the settlement check, and a recorder that sees
every message the service sends together with the hands held at that moment.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.config import Settings
from bot.edge.outbox import Messenger
from bot.game import paowang_scoring
from bot.game.cards import Card, format_cards
from bot.service import GameService
from bot.service.base import Delivery, Sent
from bot.service.tables import Table
from fakebot import CallbackAnswer, FakeMessage, FakeTelegram
from tests.e2e.driver import GROUP, bot_settings, live_message, open_lobby, play_out

#: the fake's options for games at full speed (limits are not what these tests are about)
FAST: dict[str, Any] = {
    "group_messages_per_minute": 100_000,
    "private_messages_per_second": 100_000.0,
    "private_burst": None,
    "global_messages_per_second": 100_000.0,
}

SUITED = re.compile(r"[♠♥♣♦](?:10|[2-9JQKA])")
ESCAPE_SHUANGKOU = -20


def fast_settings(fake: FakeTelegram, db_path: Path, **overrides: Any) -> Settings:
    """The driver's settings with the bot's own pacing out of the way."""
    values: dict[str, Any] = {
        "overall_messages_per_second": 100_000.0,
        "group_messages_per_minute": 100_000,
    }
    values.update(overrides)
    return bot_settings(fake, db_path, **values)


def assert_clean_but_lost_table_probes(fake: FakeTelegram) -> None:
    """``fake.assert_clean()``, but for the looks for a table message whose send timed out
    after it arrived (an edit to the same buttons, answered "not modified" by design)."""
    problems = [
        str(r)
        for r in fake.rejections
        if not (r.method == "editMessageReplyMarkup" and "not modified" in r.description)
    ]
    problems += [str(v) for v in fake.limit_violations]
    assert not problems, "the fake Telegram refused requests:\n  " + "\n  ".join(problems)


def seed_where(variant: str, leader: int) -> int:
    """The first seed whose deal has ``leader`` lead (the engine's own rule)."""
    from bot.game.variants import VARIANTS

    deal = VARIANTS[variant].deal
    return next(seed for seed in range(10_000) if deal(seed, None).leader == leader)


async def start_game(
    fake: FakeTelegram,
    service: GameService,
    people: list[int],
    variant: str,
    computers: int,
) -> Table:
    """Open a lobby (people[0] opens, the others join), add computers, press 开始.

    Like the driver's ``open_lobby``, but it also works for a second game in the group."""
    if not all(fake.user(user_id).started for user_id in people):
        lobby = await open_lobby(fake, people, variant, computers)
    else:
        group = fake.chat(GROUP)
        count = len(group.messages)
        await fake.send_text(people[0], GROUP, f"/newgame {variant}")
        lobby = await fake.wait_for(
            lambda: next(
                (m for m in group.messages[count:] if m.from_bot and "加入" in m.labels), None
            ),
            what="the new lobby",
        )
        for user_id in people[1:]:
            await (await fake.press(user_id, GROUP, lobby.message_id, "加入")).answered()
        for _ in range(computers):
            await (await fake.press(people[0], GROUP, lobby.message_id, "加电脑")).answered()
    table = service.tables[service.by_chat[GROUP]]
    answer = await (await fake.press(people[0], GROUP, lobby.message_id, "开始")).answered()
    assert answer.text is None, answer
    assert table.status == "playing", table.status
    return table


async def finish(
    fake: FakeTelegram, service: GameService, people: list[int], table: Table
) -> FakeMessage:
    """Let the humans still seated play the game out; the result message once posted."""
    await play_out(fake, service, people, table.game_id, timeout=60.0)
    result = await fake.wait_for_message(GROUP, contains="结果")
    assert table.has_channel
    await table.channel.drain()
    return result


async def wait_turn_of(fake: FakeTelegram, table: Table, user_id: int) -> FakeMessage:
    """Wait until it is ``user_id``'s turn and their live hand message has its buttons."""

    def ready() -> FakeMessage | None:
        seat = table.seat_of(user_id)
        if seat is None or table.status != "playing" or table.engine.turn != seat:
            return None
        if table.gate_open:
            return None
        message = live_message(fake, user_id)
        if message is None or "提示" not in message.labels:
            return None
        return message

    found: FakeMessage = await fake.wait_for(ready, 30.0, what=f"the turn of {user_id}")
    return found


async def hint_and_play(fake: FakeTelegram, user_id: int, message: FakeMessage) -> CallbackAnswer:
    """Press 提示 then the 出牌 button on a live hand message (or 不出 if nothing fits)."""
    hint = await (await fake.press(user_id, user_id, message.message_id, "提示")).answered()
    current = fake.chat(user_id).message(message.message_id)
    assert current is not None
    if hint.text and "只能不出" in hint.text:
        return await (await fake.press(user_id, user_id, message.message_id, "不出")).answered()
    return await (
        await fake.press(user_id, user_id, message.message_id, lambda s: s.startswith("出牌"))
    ).answered()


async def decider(fake: FakeTelegram, table: Table, people: list[int]) -> tuple[int, FakeMessage]:
    """Wait until one of ``people`` is asked to act; (that person, their live hand message).

    The message must be the one the bot keeps live for the seat, not only the chat's latest
    with buttons: a hand whose retiring edit failed keeps its old buttons, and a seat that
    cannot beat is passed for by the bot (要不起) with no new message, so the old buttons
    alone would show a turn that moves on by itself.
    """

    def found() -> tuple[int, FakeMessage] | None:
        if table.status != "playing" or table.gate_open or table.engine.turn is None:
            return None
        seat = table.seats[table.engine.turn]
        if seat.user_id not in people:
            return None
        message = live_message(fake, seat.user_id)
        if message is None or "提示" not in message.labels:
            return None
        if message.message_id != seat.live_message_id:
            return None
        return seat.user_id, message

    result: tuple[int, FakeMessage] = await fake.wait_for(found, 30.0, what="a human's turn")
    return result


async def say(
    fake: FakeTelegram, user_id: int, chat_id: int, text: str, *, expect: str | None = None
) -> FakeMessage:
    """``user_id`` writes ``text`` in a chat; the bot's answer to it.

    Never "the bot's next message": the table's own posts can arrive before the answer. In a
    group the answer quotes what it answers; in a private chat it is the first message after
    it without buttons (hand and 亮王 prompts always have buttons, answers never do). An
    answer that quotes something else (the open table it points to) is found by ``expect``,
    a part of its text.
    """
    chat = fake.chat(chat_id)
    sent = await fake.send_text(user_id, chat_id, text)
    index = chat.messages.index(sent)
    private = chat_id == user_id

    def is_answer(message: FakeMessage) -> bool:
        if not message.from_bot:
            return False
        if expect is not None:
            return expect in (message.text or "")
        if private:
            return message.reply_markup is None or not message.rows
        return message.reply_to == sent.message_id

    def answer() -> FakeMessage | None:
        return next((m for m in chat.messages[index + 1 :] if is_answer(m)), None)

    reply: FakeMessage = await fake.wait_for(answer, what=f"the answer to {text!r}")
    return reply


# ---- comparing a game before and after ------------------------------------------------------


@dataclass(frozen=True)
class Snapshot:
    """Everything a bad input must not change."""

    status: str
    log: tuple[tuple[str, int, str | None], ...]
    turn: int | None
    hands: tuple[tuple[int, ...], ...]
    versions: tuple[int, ...]
    flags: tuple[tuple[bool, bool, int], ...]  # takeover, escaped, timeouts
    seats: tuple[int | None, ...]
    selected: tuple[frozenset[int], ...]


def snapshot(table: Table) -> Snapshot:
    game = table.engine
    return Snapshot(
        status=table.status,
        log=tuple(table.log),
        turn=game.turn if game is not None else None,
        hands=tuple(tuple(hand) for hand in game.hands) if game is not None else (),
        versions=tuple(seat.version for seat in table.seats),
        flags=tuple((s.takeover, s.escaped, s.timeouts) for s in table.seats),
        seats=tuple(seat.user_id for seat in table.seats),
        selected=tuple(frozenset(seat.selected) for seat in table.seats),
    )


# ---- the settlement -----------------------------------------------------------------------


def escape_penalty(table: Table, seat: int) -> int:
    """What the rules charge ``seat`` for 逃跑: -20 in 双扣; in 刨王 the seat's side's losing
    row ×4 (no snow, no ×2 for 亮王), from the teams of the deal."""
    if table.variant.name == "shuangkou":
        return ESCAPE_SHUANGKOU

    assert table.seed is not None
    game = table.variant.deal(table.seed, table.leader)
    return int(paowang_scoring.escape_penalty(game, seat))


def expected_scores(table: Table, escaped: dict[int, int], shown: str) -> list[int]:
    """Each seat's score: the game's result, or the escapers' penalties; in 刨王 a desertion
    fixes every score (partners 0, the other side a win ×1 when the result says it counted)."""
    result = table.engine.result
    if table.variant.name != "paowang" or not escaped:
        return [escaped.get(seat, result.deltas[seat]) for seat in range(table.size)]

    (first,) = escaped  # one deserter in these tests
    game = table.engine
    counted = "另一方每人按赢 1 局计分" in shown
    assert counted or "另一方也不计分" in shown, shown
    win, _ = paowang_scoring.settlement_row(len(game.wang_side), first not in game.wang_side)
    partners = game.side_of(first)
    return [
        escaped.get(seat, 0 if seat in partners or not counted else win)
        for seat in range(table.size)
    ]


async def check_settlement(
    service: GameService,
    table: Table,
    result_message: FakeMessage,
    *,
    escaped: dict[int, int] | None = None,
    short: bool = False,
) -> None:
    """The results and the ratings are what the game's result says, with the bot's rules.

    ``escaped``: seat -> the penalty that seat must get (逃跑). ``short``: the one-minute rule
    applies (no score moves). The game is finished in the database and replays to the result.
    """
    escaped = escaped or {}
    result = table.engine.result
    assert result is not None
    scores = expected_scores(table, escaped, result_message.text or "")
    record = await service.db.games.get(table.game_id)
    assert record is not None and record.status == "finished", record
    rows = await service.db.results.for_game(table.game_id)
    assert [row.seat for row in rows] == list(range(table.size))
    for row, seat in zip(rows, table.seats, strict=True):
        assert row.user_id == seat.user_id
        assert row.delta == result.deltas[row.seat]
        assert row.escaped == (row.seat in escaped), (row, escaped)
        expected = scores[row.seat]
        if short and row.seat not in escaped:
            expected = 0
        assert row.adjusted_delta == expected, (row, expected)
        if seat.is_human and seat.user_id is not None:
            rating = await service.db.ratings.get(user_id=seat.user_id, game=table.variant.name)
            assert rating.games == 1
            assert rating.score == expected, (seat, rating, expected)
            assert f"{expected:+d}" in (result_message.text or "")
    replayed = await service.parts.stored.rebuild(record)
    assert replayed is not None and replayed.result == result


# ---- every message with the hands of that moment ---------------------------------------------


@dataclass
class Sent_:
    chat_id: int
    text: str
    kind: str  # "send" or "edit"
    markup: Any
    hands: dict[int, Counter[Card]]  # user_id -> cards held at that moment (humans)
    held: Counter[Card]  # every card held by anyone at that moment
    played: Counter[Card]


@dataclass
class Recorder:
    """Wraps the service's messenger: each send or edit is recorded with the hands of every
    table at the moment the service asked for it (group lines and the table are rendered
    just before, and hands only shrink, so a card held then was never played)."""

    service: GameService
    messages: list[Sent_] = field(default_factory=list)
    tables: dict[int, Table] = field(default_factory=dict)

    def install(self) -> None:
        messenger: Messenger = self.service.messenger
        send, edit = messenger.send, messenger.edit

        async def recorded_send(chat_id: int, text: str, markup: Any = None, **kw: Any) -> Sent:
            self._record(chat_id, text, "send", markup)
            return await send(chat_id, text, markup, **kw)

        async def recorded_edit(
            chat_id: int, message_id: int, text: str, markup: Any = None
        ) -> Delivery:
            self._record(chat_id, text, "edit", markup)
            return await edit(chat_id, message_id, text, markup)

        messenger.send = recorded_send  # type: ignore[method-assign]
        messenger.edit = recorded_edit  # type: ignore[method-assign]

    def _record(self, chat_id: int, text: str, kind: str, markup: Any) -> None:
        for game_id, table in self.service.tables.items():
            self.tables.setdefault(game_id, table)
        hands: dict[int, Counter[Card]] = {}
        held: Counter[Card] = Counter()
        played: Counter[Card] = Counter()
        for table in self.tables.values():
            if not table.dealt:
                continue
            for seat, hand in zip(table.seats, table.engine.hands, strict=True):
                held.update(hand)
                if seat.user_id is not None:
                    hands[seat.user_id] = Counter(hand)
            for action in table.log:
                if action.kind == "play":
                    played.update(action.cards)
        self.messages.append(Sent_(chat_id, text, kind, markup, hands, held, played))


def shown_cards(text: str) -> Counter[str]:
    """The most copies of each card (suited, or a joker) one line of ``text`` shows: lines are
    separate displays (the trick so far and the last play may name the same cards). A 亮王
    line's "2张大王" names no card, nor does a play's name after its cards ("大王（大王·亮）":
    刨王's joker entries are named by their cards)."""
    most: Counter[str] = Counter()
    for line in text.split("\n"):
        cleaned = re.sub(r"\d张大王|（[^）]*）", "", line)
        shown = Counter(SUITED.findall(cleaned))
        for joker in ("小王", "大王"):
            shown[joker] = cleaned.count(joker)
        for card, count in shown.items():
            most[card] = max(most[card], count)
    return +most


def counter_by_name(cards: Iterable[Card]) -> Counter[str]:
    names: Counter[str] = Counter()
    for card in cards:
        names[str(card)] += 1
    return names


def hand_line(hand: Iterable[Card]) -> str:
    from html import escape

    return escape(format_cards(sorted(hand))) or "—"


async def open_group_lobby(fake: FakeTelegram, opener: int, chat_id: int = GROUP) -> FakeMessage:
    """``opener`` starts the bot and opens a lobby in ``chat_id``; the lobby message."""
    await say(fake, opener, opener, "/start")
    count = len(fake.chat(chat_id).messages)
    await fake.send_text(opener, chat_id, "/newgame")
    lobby: FakeMessage = await fake.wait_for(
        lambda: next(
            (m for m in fake.chat(chat_id).messages[count:] if m.from_bot and "加入" in m.labels),
            None,
        ),
        what="the lobby",
    )
    return lobby
