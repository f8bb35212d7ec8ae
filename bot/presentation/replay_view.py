"""A finished game's replay as pure functions: the deal and the log become a list of steps,
trick by trick, and a step becomes a text and its ◀ ▶ buttons (or, for the web table, JSON).

Step 0 is the deal (with 刨王's 亮王 answers, which come before the first lead); each further
step is one trick: the plays and passes in it, who took it, and every hand after it. The last
step ends the game. Nothing is invented: every step is the engine's own state after the
logged actions, replayed from the stored deal.

A finished game has no secrets, so every hand is shown face up; only finished games reach
here (the service checks).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

from bot.game.cards import Card, format_cards
from bot.game.common import (
    Action,
    Combo,
    Event,
    GameOver,
    Passed,
    Played,
    PlayerOut,
    RevealDeclined,
    Revealed,
    TrickTaken,
)
from bot.game.replay import replay
from bot.game.variants import Variant
from bot.presentation.callbacks import Act, Callback
from bot.presentation.keyboards import Button, Keyboard, keyboard, page_button, press_button
from bot.presentation.names import play_name
from bot.presentation.render import SeatLabel, event_lines, place_name, play_html, variant_name
from bot.presentation.strings import Lang, text

#: callback data keeps the shown step in six digits and the target in three
MAX_STEPS = 1000
VERSION_MODULO = 1_000_000


@dataclass(frozen=True, slots=True)
class Step:
    """The game after one step of its replay.

    ``plays`` is the step's trick in order: (seat, the play, or None for 不出); ``events``
    the trick's notable events (taken, players out, 亮王) as the group was told them."""

    number: int
    hands: tuple[tuple[Card, ...], ...]  # every seat's cards after the step, sorted
    plays: tuple[tuple[int, Combo | None], ...]
    events: tuple[Event, ...]
    taker: int | None  # who took the trick (None: the deal, or a game ended inside a trick)
    trick_points: int  # 刨王: the points the trick carried
    points: tuple[int, ...]  # 刨王: points per seat after the step; () in 双扣
    finish_order: tuple[int, ...]
    revealed: tuple[int, ...]  # 刨王: 大王 each seat showed (0: none); () in 双扣
    declined: tuple[int, ...]  # 刨王: seats that chose 不亮
    leader: int | None  # who leads next (None once the game is over)
    over: bool

    @property
    def cards_left(self) -> int:
        return sum(len(hand) for hand in self.hands)


def replay_steps(
    variant: Variant,
    seed: int | None,
    leader: int | None,
    hands: list[list[str]] | None,
    actions: Sequence[Action],
) -> list[Step]:
    """The replay's steps: the deal, then one step per trick, from the stored deal and log.

    Raises the engine's ``IllegalPlay`` if the log does not fit the deal (it always does for
    a game the bot played: every action was the engine's before it was logged)."""
    game = replay(variant, seed, leader, hands, [])
    steps: list[Step] = []
    plays: list[tuple[int, Combo | None]] = []
    notable: list[Event] = []
    revealed: dict[int, int] = {}
    declined: list[int] = []
    taker: int | None = None
    trick_points = 0

    def step() -> Step:
        view = game.view(None)
        size = len(game.hands)
        return Step(
            number=len(steps),
            hands=tuple(tuple(sorted(hand)) for hand in game.hands),
            plays=tuple(plays),
            events=tuple(notable),
            taker=taker,
            trick_points=trick_points,
            points=tuple(view.points),
            finish_order=tuple(view.finish_order),
            revealed=tuple(revealed.get(s, 0) for s in range(size)) if variant.has_reveal else (),
            declined=tuple(declined),
            leader=None if game.over else game.turn,
            over=game.over,
        )

    for action in actions:
        if not steps and action.kind in ("play", "pass"):
            steps.append(step())  # the deal, after the 亮王 answers
            notable.clear()
        events = game.apply(action)
        boundary = False
        for event in events:
            if isinstance(event, Played):
                plays.append((event.seat, event.combo))
            elif isinstance(event, Passed):
                plays.append((event.seat, None))
            elif isinstance(event, Revealed):
                revealed[event.seat] = event.jokers
                notable.append(event)
            elif isinstance(event, RevealDeclined):
                declined.append(event.seat)
            elif isinstance(event, TrickTaken):
                taker, trick_points = event.seat, event.points
                notable.append(event)
                boundary = True
            elif isinstance(event, PlayerOut):
                notable.append(event)
            elif isinstance(event, GameOver):
                boundary = True
        if boundary and steps:
            steps.append(step())
            plays.clear()
            notable.clear()
            taker, trick_points = None, 0
    if not steps or plays:  # a game over at the deal (四王), or a log that stops mid-trick
        steps.append(step())
    return steps


# ---- a step as the private chat shows it ----------------------------------------------------


def step_text(
    lang: Lang,
    *,
    game_id: int,
    variant: str,
    when: str,
    labels: Sequence[SeatLabel],
    steps: Sequence[Step],
    index: int,
    result_html: str = "",
) -> str:
    """One step of the replay: where it is, every hand face up, the trick, and at the last
    step the game's result (``result_html``, the group's result message)."""
    current = steps[index]
    where = _where(lang, index, len(steps))
    lines = [
        text(
            lang,
            "replay.title",
            game=game_id,
            variant=variant_name(lang, variant),
            when=when,
            where=where,
        ),
        "",
    ]
    for seat, label in enumerate(labels):
        lines += _seat_lines(lang, current, seat, label)
    lines.append("")
    if index == 0:
        lines += _deal_lines(lang, current, labels)
    else:
        lines += _trick_lines(lang, variant, current, labels)
    if current.over:
        lines.append("")
        lines.append(text(lang, "replay.over"))
        if result_html:
            lines.append(result_html)
    elif current.leader is not None and index > 0:
        lines.append(text(lang, "replay.next", name=labels[current.leader].html()))
    return "\n".join(lines)


def _where(lang: Lang, index: int, count: int) -> str:
    """Where the step is: the deal, or trick n of the game's."""
    if index == 0:
        return text(lang, "replay.at_deal")
    return text(lang, "replay.at_trick", n=index, total=count - 1)


def _seat_lines(lang: Lang, step: Step, seat: int, label: SeatLabel) -> list[str]:
    """A seat: its name, cards left or place, points and 亮王; then its cards face up."""
    extra = ""
    if step.points:
        extra += text(lang, "table.points", points=step.points[seat])
    if step.revealed and step.revealed[seat]:
        extra += text(lang, "table.revealed", jokers="👑" * step.revealed[seat])
    hand = step.hands[seat]
    if seat in step.finish_order and not hand:
        place = place_name(lang, step.finish_order.index(seat) + 1)
        head = text(lang, "replay.seat_out", n=seat + 1, name=label.html(), place=place)
        return [head + extra]
    head = text(lang, "replay.seat", n=seat + 1, name=label.html(), cards=len(hand))
    return [head + extra, "   " + escape(format_cards(list(hand)))]


def _deal_lines(lang: Lang, step: Step, labels: Sequence[SeatLabel]) -> list[str]:
    """The deal: 亮王 answers, then who leads."""
    lines = event_lines(lang, step.events, labels)
    if step.declined:
        names = "、".join(labels[seat].html() for seat in step.declined)
        lines.append(text(lang, "replay.declined", names=names))
    if step.leader is not None:
        lines.append(text(lang, "replay.leads", name=labels[step.leader].html()))
    return lines


def _trick_lines(
    lang: Lang, variant: str, step: Step, labels: Sequence[SeatLabel]
) -> list[str]:
    """The trick: every play and pass in order (each named as played on the one before),
    then what it did (taken, with its points; players out)."""
    lines = [text(lang, "replay.trick")]
    beaten: Combo | None = None
    for seat, combo in step.plays:
        play = play_html(lang, variant, combo, beaten)
        lines.append(text(lang, "replay.play", name=labels[seat].html(), play=play))
        if combo is not None:
            beaten = combo
    lines += event_lines(lang, step.events, labels)
    return lines


def step_keyboard(
    lang: Lang, *, game_id: int, index: int, count: int, web_url: str | None = None
) -> Keyboard:
    """⏮ ◀ ▶ ⏭: only the moves that go somewhere (an edit to the same step would change
    nothing, which Telegram refuses). The data carries the step shown and the step wanted."""

    def button(label: str, target: int) -> Button:
        data = Callback(game_id, index % VERSION_MODULO, Act.REPLAY, target).encode()
        return press_button(text(lang, label), data)

    row: list[Button] = []
    if index > 0:
        if index > 1:
            row.append(button("replay.btn_first", 0))
        row.append(button("replay.btn_prev", index - 1))
    if index < count - 1:
        row.append(button("replay.btn_next", index + 1))
        if index < count - 2:
            row.append(button("replay.btn_last", count - 1))
    rows = [row] if row else []
    if web_url is not None:
        web = page_button(text(lang, "replay.btn_web"), web_url)
        rows.append([web])
    return keyboard(rows)


#: the page's texts for a replay (``replay.*`` keys without the prefix)
WEB_KEYS = ("web_title", "over", "points", "btn_first", "btn_prev", "btn_next", "btn_last")


def step_json(
    lang: Lang,
    *,
    game_id: int,
    variant: str,
    when: str,
    labels: Sequence[SeatLabel],
    steps: Sequence[Step],
    index: int,
) -> dict[str, Any]:
    """One step for the web table: every seat with its cards face up (card codes, as the
    table's views carry them), the trick's plays named, and the trick's event lines."""
    current = steps[index]
    seats = []
    for seat, label in enumerate(labels):
        out = seat in current.finish_order
        seats.append(
            {
                "name": label.name,
                "computer": label.is_computer,
                "hand": [int(card) for card in current.hands[seat]],
                "cards": len(current.hands[seat]),
                "place": current.finish_order.index(seat) + 1 if out else None,
                "place_name": place_name(lang, current.finish_order.index(seat) + 1)
                if out
                else "",
                "points": current.points[seat] if current.points else None,
                "revealed": current.revealed[seat] if current.revealed else 0,
            }
        )
    plays = []
    beaten: Combo | None = None
    for seat, combo in current.plays:
        plays.append(
            {
                "seat": seat,
                "pass": combo is None,
                "cards": [] if combo is None else [int(card) for card in sorted(combo.cards)],
                "name": "" if combo is None else play_name(lang, variant, combo, beaten),
            }
        )
        if combo is not None:
            beaten = combo
    lines = event_lines(lang, current.events, labels) if index > 0 else _deal_lines(
        lang, current, labels
    )
    return {
        "game_id": game_id,
        "variant": variant,
        "variant_name": variant_name(lang, variant),
        "when": when,
        "step": index,
        "steps": len(steps),
        "where": _where(lang, index, len(steps)),
        "seats": seats,
        "plays": plays,
        "lines": lines,
        "taker": current.taker,
        "trick_points": current.trick_points,
        "leader": current.leader,
        "over": current.over,
        "result": None,
        "lang": lang,
        "strings": {key: text(lang, f"replay.{key}") for key in WEB_KEYS},
    }


def open_button(lang: Lang, game_id: int) -> Button:
    """The button of a history line: opens the game's replay in the presser's private chat
    (no step: a new replay message)."""
    data = Callback(game_id, 0, Act.REPLAY).encode()
    return press_button(text(lang, "history.button", game=game_id), data)


__all__ = [
    "MAX_STEPS",
    "Step",
    "open_button",
    "replay_steps",
    "step_json",
    "step_keyboard",
    "step_text",
]
