"""Text and inline keyboards: what the group and each player see. Pure functions of views.

Group renderings take the *public* view only (``game.view(None)``), so nothing hidden can
reach the group by construction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo

from bot.game.cards import Card, format_cards
from bot.game.common import (
    Combo,
    Event,
    PlayerOut,
    Revealed,
    SeatView,
    TrickTaken,
)
from bot.presentation.callbacks import Act, Callback
from bot.presentation.names import beaten_in_trick, play_name
from bot.presentation.strings import Lang, text

CARDS_PER_ROW = 6
TRICK_ENTRIES = 6  # the table shows at most this many plays of the current trick


@dataclass(frozen=True, slots=True)
class SeatLabel:
    """How a seat is named to others."""

    name: str
    is_computer: bool = False
    takeover: bool = False

    def html(self) -> str:
        return ("🤖 " if self.is_computer else "") + escape(self.name)


def variant_name(lang: Lang, variant: str) -> str:
    return text(lang, f"variant.{variant}")


def place_name(lang: Lang, place: int) -> str:
    return text(lang, f"place.{place}") if place <= 5 else text(lang, "place", n=place)


def play_html(lang: Lang, variant: str, combo: Combo | None, beaten: Combo | None = None) -> str:
    """A play's cards and its name (``beaten``: the play it was played on, if any)."""
    if combo is None:
        return text(lang, "pass")
    name = play_name(lang, variant, combo, beaten)
    return f"{escape(format_cards(sorted(combo.cards)))}（{name}）"


def on_table_html(lang: Lang, view: SeatView) -> str:
    """The play to beat, named as it was played (a 双顺 on a 单顺 is a 骑牌)."""
    return play_html(lang, view.variant, view.on_table, beaten_in_trick(view.trick))


# ---- lobby -------------------------------------------------------------------------------


def lobby_text(lang: Lang, variant: str, seats: Sequence[SeatLabel], size: int) -> str:
    lines = [
        text(
            lang, "lobby.title", variant=variant_name(lang, variant), seated=len(seats), seats=size
        )
    ]
    for n in range(size):
        if n < len(seats):
            key = "lobby.computer" if seats[n].is_computer else "lobby.seat"
            lines.append(text(lang, key, n=n + 1, name=escape(seats[n].name)))
        else:
            lines.append(text(lang, "lobby.seat_empty", n=n + 1))
    lines.append("")
    lines.append(text(lang, "lobby.hint_start"))
    return "\n".join(lines)


def lobby_keyboard(lang: Lang, game_id: int, *, computers: bool = True) -> InlineKeyboardMarkup:
    """The lobby's buttons; 加电脑 only where the group allows computer seats."""

    def button(label: str, act: Act) -> InlineKeyboardButton:
        return InlineKeyboardButton(
            text(lang, label), callback_data=Callback(game_id, 0, act).encode()
        )

    middle = [button("lobby.start", Act.START)]
    if computers:
        middle.insert(0, button("lobby.add_computer", Act.COMPUTER))
    return InlineKeyboardMarkup(
        [
            [button("lobby.join", Act.JOIN), button("lobby.leave", Act.LEAVE)],
            middle,
            [button("lobby.cancel", Act.CANCEL)],
        ]
    )


# ---- the group's table --------------------------------------------------------------------


def table_text(
    lang: Lang,
    view: SeatView,
    seats: Sequence[SeatLabel],
    *,
    number: int,
    reveal_phase: bool = False,
) -> str:
    """The live table message from the public view."""
    lines = [text(lang, "table.title", variant=variant_name(lang, view.variant), number=number)]
    lines += [_seat_line(lang, view, seat, label) for seat, label in enumerate(seats)]
    lines.append("")
    if view.over:
        lines.append(text(lang, "table.over"))
    elif reveal_phase:
        lines.append(text(lang, "table.reveal_phase"))
    else:
        lines += _trick_lines(lang, view, seats)
    return "\n".join(lines)


def _seat_line(lang: Lang, view: SeatView, seat: int, label: SeatLabel) -> str:
    """One seat on the table: its place once out, else its cards, points, 亮王, 托管."""
    marker = "▶ " if view.turn == seat and not view.over else ""
    name = label.html()
    if seat in view.finish_order:
        place = place_name(lang, view.finish_order.index(seat) + 1)
        return text(lang, "table.seat_out", marker=marker, n=seat + 1, name=name, place=place)
    extra = ""
    if view.points:
        extra += text(lang, "table.points", points=view.points[seat])
    if view.revealed and view.revealed[seat]:
        jokers = view.revealed_jokers[seat] if view.revealed_jokers else 1
        extra += text(lang, "table.revealed", jokers="👑" * jokers)
    if label.takeover:
        extra += text(lang, "table.takeover")
    cards = view.hand_sizes[seat]
    return text(lang, "table.seat", marker=marker, n=seat + 1, name=name, cards=cards, extra=extra)


def _trick_lines(lang: Lang, view: SeatView, seats: Sequence[SeatLabel]) -> list[str]:
    """The trick so far (passes included: who beat whom), the play to beat, whose turn."""
    lines: list[str] = []
    if len(view.trick) > 1:
        plays = " › ".join(
            f"{seats[seat].html()} "
            + (escape(format_cards(sorted(combo.cards))) if combo else text(lang, "pass"))
            for seat, combo in view.trick[-TRICK_ENTRIES:]
        )
        lines.append(text(lang, "table.trick", plays=plays))
    if view.on_table is not None and view.on_table_seat is not None:
        name = seats[view.on_table_seat].html()
        lines.append(text(lang, "table.last_play", name=name, play=on_table_html(lang, view)))
    if view.trick_points:
        lines.append(text(lang, "table.trick_points", points=view.trick_points))
    if view.turn is not None:
        key = "table.turn" if view.on_table is not None else "table.leading"
        lines.append(text(lang, key, name=seats[view.turn].html()))
    return lines


def event_lines(lang: Lang, events: Sequence[Event], seats: Sequence[SeatLabel]) -> list[str]:
    """Short group lines for the events worth a message: tricks, players out, reveals."""
    lines: list[str] = []
    for event in events:
        if isinstance(event, TrickTaken):
            points = text(lang, "event.trick_points", points=event.points) if event.points else ""
            line = text(lang, "event.trick", name=seats[event.seat].html(), points=points)
            if event.next_leader is not None and event.next_leader != event.seat:
                line += text(lang, "event.jiefeng", name=seats[event.next_leader].html())
            lines.append(line)
        elif isinstance(event, PlayerOut):
            lines.append(
                text(
                    lang,
                    "event.out",
                    name=seats[event.seat].html(),
                    place=place_name(lang, event.place),
                )
            )
        elif isinstance(event, Revealed):
            lines.append(
                text(lang, "event.revealed", name=seats[event.seat].html(), jokers=event.jokers)
            )
    return lines


# ---- a player's hand ----------------------------------------------------------------------


def sorted_hand(view: SeatView) -> list[Card]:
    return sorted(view.hand)


def hand_text(
    lang: Lang,
    view: SeatView,
    seats: Sequence[SeatLabel],
    *,
    deciding: bool,
    selected: Sequence[Card] = (),
    note: str = "",
    takeover: bool = False,
) -> str:
    """A player's hand message: what they hold and what they need to decide."""
    assert view.seat is not None
    hand = sorted_hand(view)
    lines = [text(lang, "hand.title", variant=variant_name(lang, view.variant), count=len(hand))]
    if note:
        lines.append(note)
    lines += _hand_status(lang, view, seats, deciding=deciding, takeover=takeover)
    lines += _hand_table(lang, view, seats)
    lines.append("")
    lines.append(escape(format_cards(hand)) or "—")
    if selected:
        lines.append(text(lang, "hand.selected", cards=escape(format_cards(sorted(selected)))))
    return "\n".join(lines)


def _hand_status(
    lang: Lang, view: SeatView, seats: Sequence[SeatLabel], *, deciding: bool, takeover: bool
) -> list[str]:
    """Where the player stands: over, out, in 托管, to play (and on what), or waiting."""
    assert view.seat is not None
    if view.over:
        return [text(lang, "hand.game_over")]
    if view.seat in view.finish_order:
        place = place_name(lang, view.finish_order.index(view.seat) + 1)
        return [text(lang, "hand.you_are_out", place=place)]
    if takeover:
        return [text(lang, "hand.takeover_on")]
    if deciding and view.turn == view.seat:
        if view.on_table is not None and view.on_table_seat is not None:
            name = seats[view.on_table_seat].html()
            to_beat = text(lang, "hand.to_beat", name=name, play=on_table_html(lang, view))
            return [text(lang, "hand.your_turn"), to_beat]
        return [text(lang, "hand.your_turn"), text(lang, "hand.lead")]
    if view.turn is not None:
        return [text(lang, "hand.waiting", name=seats[view.turn].html())]
    return []


def _hand_table(lang: Lang, view: SeatView, seats: Sequence[SeatLabel]) -> list[str]:
    """What the player sees of the others: cards left, points, reveals, known partners."""
    counts = " ".join(
        f"{escape(label.name)}:{view.hand_sizes[seat]}"
        for seat, label in enumerate(seats)
        if seat != view.seat
    )
    lines = [text(lang, "hand.others", counts=counts)]
    if view.points:
        points = " ".join(
            f"{escape(label.name)}:{view.points[seat]}" for seat, label in enumerate(seats)
        )
        lines.append(text(lang, "hand.points", points=points))
    if view.revealed and any(view.revealed):
        names = "、".join(seats[seat].html() for seat, shown in enumerate(view.revealed) if shown)
        lines.append(text(lang, "hand.revealed", names=names))
    if view.partners:
        names = "、".join(seats[seat].html() for seat in view.partners)
        lines.append(text(lang, "hand.partner", name=names))
    return lines


def play_button_label(
    lang: Lang, variant: str, combo: Combo | None, selected_any: bool, on: Combo | None = None
) -> str:
    """The 出牌 button: the selection's name, as a play on ``on`` (the play to beat)."""
    if not selected_any:
        return text(lang, "btn.play_empty")
    if combo is None:
        return text(lang, "btn.play_none")
    return text(lang, "btn.play", kind=play_name(lang, variant, combo, on))


def hand_keyboard(
    lang: Lang,
    *,
    game_id: int,
    version: int,
    hand: Sequence[Card],
    selected: set[int],
    play_label: str,
    can_pass: bool,
    web_url: str | None = None,
) -> InlineKeyboardMarkup:
    """Cards as buttons (selected ones marked), then 出牌 / 不出 / 提示 / 清空."""

    def data(act: Act, arg: int | None = None) -> str:
        return Callback(game_id, version, act, arg).encode()

    rows: list[list[InlineKeyboardButton]] = []
    row: list[InlineKeyboardButton] = []
    for index, card in enumerate(hand):
        label = f"✔{card}" if index in selected else str(card)
        row.append(InlineKeyboardButton(label, callback_data=data(Act.TOGGLE, index)))
        if len(row) == CARDS_PER_ROW:
            rows.append(row)
            row = []
    if row:
        rows.append(row)
    actions = [InlineKeyboardButton(play_label, callback_data=data(Act.PLAY))]
    if can_pass:
        actions.append(InlineKeyboardButton(text(lang, "btn.pass"), callback_data=data(Act.PASS)))
    rows.append(actions)
    rows.append(
        [
            InlineKeyboardButton(text(lang, "btn.hint"), callback_data=data(Act.HINT)),
            InlineKeyboardButton(text(lang, "btn.clear"), callback_data=data(Act.CLEAR)),
        ]
    )
    if web_url is not None:
        rows.append([web_table_button(lang, web_url)])
    return InlineKeyboardMarkup(rows)


def web_table_button(lang: Lang, url: str) -> InlineKeyboardButton:
    """🃏 牌桌: opens the web table (a Mini App; Telegram allows these in private chats)."""
    return InlineKeyboardButton(text(lang, "btn.web_table"), web_app=WebAppInfo(url))


def table_link_keyboard(lang: Lang, url: str) -> InlineKeyboardMarkup:
    """The group's table message: a link that opens the table's public view (spectators)."""
    return InlineKeyboardMarkup([[InlineKeyboardButton(text(lang, "btn.watch_table"), url=url)]])


def reveal_keyboard(lang: Lang, *, game_id: int, version: int) -> InlineKeyboardMarkup:
    def data(arg: int) -> str:
        return Callback(game_id, version, Act.REVEAL, arg).encode()

    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(text(lang, "btn.reveal_yes"), callback_data=data(1)),
                InlineKeyboardButton(text(lang, "btn.reveal_no"), callback_data=data(0)),
            ]
        ]
    )


def ready_keyboard(lang: Lang, *, game_id: int, version: int) -> InlineKeyboardMarkup:
    data = Callback(game_id, version, Act.READY).encode()
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(text(lang, "btn.ready"), callback_data=data)]]
    )


def takeback_keyboard(lang: Lang, *, game_id: int) -> InlineKeyboardMarkup:
    data = Callback(game_id, 0, Act.TAKEBACK).encode()
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(text(lang, "btn.takeback"), callback_data=data)]]
    )


def again_keyboard(lang: Lang, *, game_id: int) -> InlineKeyboardMarkup:
    data = Callback(game_id, 0, Act.AGAIN).encode()
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(text(lang, "result.again"), callback_data=data)]]
    )
