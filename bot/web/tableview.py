"""What the web table shows one person: a table rendered as JSON from one seat's view.

Everything comes from ``game.view(seat)`` (or the public view for someone not seated), the
same views the group and hand messages render, so no other hand can leave the server. While
刨王's 亮王 gate is open the group hears nothing of the answers (a reveal is held until
everyone answered), and neither does the page (``Table.shown_view``); its ``seq`` counts the
plays and passes only, never the hidden answers.

Cards travel as their integer codes (``rank * 8 + suit``, suit 0–3 for ♠♥♣♦, 4 for none).
The legal plays carry a *signature* the page computes for a selection in the same way
(:func:`signature`), so it can name a selection and tell whether it is legal with no round
trip: the engines list one representative per distinct play, and two selections with the
same ranks are the same play unless suits matter (双扣's 同花顺, five or more of one suit).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.game.cards import NO_SUIT
from bot.game.common import Combo, SeatView
from bot.game.levels import level_for
from bot.game.variants import BOMB_KINDS, hint_order
from bot.presentation.achievement_text import earned_line
from bot.presentation.names import bomb_name, play_name
from bot.presentation.render import variant_name
from bot.presentation.result_message import how_lines
from bot.presentation.stats_text import plain_text
from bot.presentation.strings import Lang
from bot.service import (
    Acted,
    Deserted,
    Finished,
    GateClosed,
    Source,
    Table,
    TableEvent,
    TookBack,
    outcome_text,
    result_text,
)

#: the fewest cards of one suit that can make a play whose suits matter (同花顺)
FLUSH_MIN = 5

JSON = dict[str, Any]


def suits_matter(variant: str) -> bool:
    return variant == "shuangkou"


def signature(cards: Sequence[int], *, with_suits: bool) -> str:
    """What makes a selection one play rather than another: its ranks, and its one suit when
    suits matter and it could be a 同花顺. The page's ``signature`` in app.js is the same."""
    ranks = ".".join(str(card >> 3) for card in sorted(cards, key=lambda c: (c >> 3, c & 7)))
    suits = {card & 7 for card in cards}
    # a 同花顺 is a run of singles: cards of one suit with a rank twice (a 连对 of spades,
    # say) are the same play whatever their suits
    distinct = len({card >> 3 for card in cards}) == len(cards)
    if (
        with_suits
        and len(cards) >= FLUSH_MIN
        and distinct
        and len(suits) == 1
        and NO_SUIT not in suits
    ):
        return f"{ranks}|{suits.pop()}"
    return ranks


def _play(lang: Lang, variant: str, seat: int, combo: Combo | None, beaten: Combo | None) -> JSON:
    if combo is None:
        return {"seat": seat, "pass": True}
    return {
        "seat": seat,
        "cards": [int(card) for card in sorted(combo.cards)],
        "name": play_name(lang, variant, combo, beaten),
    }


def _trick(lang: Lang, variant: str, entries: Sequence[tuple[int, Combo | None]]) -> list[JSON]:
    shown: list[JSON] = []
    previous: Combo | None = None
    for seat, combo in entries:
        shown.append(_play(lang, variant, seat, combo, previous))
        if combo is not None:
            previous = combo
    return shown


def _seats(table: Table, view: SeatView, seat: int | None) -> list[JSON]:
    revealed, jokers = view.revealed, view.revealed_jokers
    deciding = set() if view.over or table.gate_open else {view.turn}
    seats: list[JSON] = []
    for index, person in enumerate(table.seats):
        place = view.finish_order.index(index) + 1 if index in view.finish_order else None
        entry: JSON = {
            "name": person.name,
            "computer": person.is_computer,
            "takeover": person.takeover,
            "gone": person.escaped,
            "cards": view.hand_sizes[index],
            "place": place,
            "turn": index in deciding,
            "you": index == seat,
            "partner": index in view.partners,
            "opponent": index in view.opponents,
        }
        if view.points:
            entry["points"] = view.points[index]
            entry["crowns"] = jokers[index] if index < len(jokers) and revealed[index] else 0
        seats.append(entry)
    return seats


def _my_turn(table: Table, view: SeatView, seat: int | None, lang: Lang) -> JSON:
    """The seat's own choices now: legal plays with names and signatures, 不出, 亮王."""
    game = table.engine
    me: JSON = {
        "legal": [],
        "can_pass": False,
        "reveal": False,
        "ready": False,
        "auto_pass": False,
    }
    if seat is None or view.over:
        return me
    if table.gate_open:
        if seat in table.ready_pending:
            me["reveal"] = view.reveal_pending
            me["ready"] = not view.reveal_pending
        return me
    if view.turn != seat or table.seats[seat].takeover:
        return me
    with_suits = suits_matter(view.variant)
    plays = sorted(table.variant.legal_plays(view), key=hint_order(view.on_table is None))
    me["legal"] = [
        {
            "cards": [int(card) for card in sorted(combo.cards)],
            "name": play_name(lang, view.variant, combo, view.on_table),
            "sig": signature([int(card) for card in combo.cards], with_suits=with_suits),
        }
        for combo in plays
    ]
    me["can_pass"] = game.can_pass(seat)
    return me


def table_view(table: Table, seat: int | None, lang: Lang, *, now: float) -> JSON:
    """The table as ``seat`` may see it (None: a spectator's public view), in ``lang``."""
    view = table.shown_view(seat)  # while the 亮王 gate is open: no answer shows
    variant = view.variant
    deciding = not view.over and not table.gate_open and view.turn is not None
    seconds_left = None
    # the time of the seat to act (a person's), or of the 亮王 gate, the same for every page
    timed = table.gate_open or (deciding and table.seats[view.turn or 0].plays_itself)
    if timed and table.deadline is not None:
        seconds_left = max(0.0, round(table.deadline - now, 1))
    on_table = None
    if view.on_table is not None and view.on_table_seat is not None:
        plays = [combo for _, combo in view.trick if combo is not None]
        beaten = plays[-2] if len(plays) >= 2 else None
        on_table = _play(lang, variant, view.on_table_seat, view.on_table, beaten)
    return {
        "game_id": table.game_id,
        # plays and passes so far: a page can tell a newer view from an older one (never the
        # log's length, which counts the hidden 亮王 answers)
        "seq": table.public_seq,
        "variant": variant,
        "variant_name": variant_name(lang, variant),
        "status": table.status,
        "seat": seat,
        "seats": _seats(table, view, seat),
        "turn": view.turn if deciding else None,
        "seconds_left": seconds_left,
        "gate": table.gate_open,
        "trick": _trick(lang, variant, view.trick),
        "last_trick": _trick(lang, variant, view.last_trick),
        "on_table": on_table,
        "trick_points": view.trick_points,
        "hand": [int(card) for card in sorted(view.hand)],
        "suits_matter": suits_matter(variant),
        "me": _my_turn(table, view, seat, lang),
        "result": _result(table, lang, seat) if table.status == "finished" else None,
    }


def _result(table: Table, lang: Lang, seat: int | None) -> JSON | None:
    """The result screen: the headline, how it was won (once), and a row per seat with the
    score change, the new total and title (up or down) and the cards left in hand; the group's
    whole text too."""
    result = table.engine.result
    settlement = table.settlement
    if result is None or settlement is None:
        return None
    deltas = {row.seat: row.adjusted_delta for row in settlement.rows}
    variant = table.variant.name
    rows: list[JSON] = []
    for index, person in enumerate(table.seats):
        row: JSON = {
            "seat": index,
            "name": person.name,
            "you": index == seat,
            "computer": person.is_computer,
            "escaped": person.escaped,
            "won": index in result.winners,
            "delta": deltas.get(index, 0),
            "left": [int(card) for card in sorted(table.engine.hands[index])],
            "score": None,
        }
        pair = settlement.before_after.get(person.user_id or 0) if person.is_human else None
        if pair is not None:
            before, after = level_for(variant, pair[0].score), level_for(variant, pair[1].score)
            row |= {
                "score": pair[1].score,
                "title": after.title,
                "title_change": (after.level > before.level) - (after.level < before.level),
            }
        rows.append(row)
    labels = table.labels()
    viewer = table.seats[seat].user_id if seat is not None else None
    earned = settlement.earned.get(viewer, []) if viewer is not None else []
    return {
        "headline": outcome_text(lang, result, table.size),
        # the viewer's own new achievements (told to them alone, as in private)
        "earned": earned_line(lang, earned) if earned else None,
        "how": [plain_text(line) for line in how_lines(lang, result, labels)],
        "rows": rows,
        "short_game": settlement.short_game,
        "html": result_text(table, settlement),
        "deltas": [deltas.get(index, 0) for index in range(table.size)],
        "winners": list(result.winners),
    }


def event_json(lang: Lang, variant: str, seq: int, event: TableEvent) -> JSON | None:
    """A public event as a page hears it, to animate (the view that follows says where
    things stand): ``seq`` is the table's ``seq`` once it happened."""
    if isinstance(event, Acted):
        combo = event.played
        shown = _play(lang, variant, event.seat, combo, event.beaten)
        return {
            "type": "play" if combo is not None else "pass",
            "seq": seq,
            **shown,
            "bomb": combo is not None and combo.kind in BOMB_KINDS,
            # a bomb's moment names it by its size (五炸), or by its own name (三连炸)
            "effect": (
                bomb_name(lang, variant, combo)
                if combo is not None and combo.kind in BOMB_KINDS
                else None
            ),
            "timed_out": event.source is Source.TIMER,
        }
    kinds: dict[type[TableEvent], str] = {
        GateClosed: "gate_closed",
        Finished: "finished",
        Deserted: "deserted",
        TookBack: "took_back",
    }
    name = kinds.get(type(event))
    if name is None:
        return None
    seat = getattr(event, "seat", None)
    return {"type": name, "seq": seq} | ({} if seat is None else {"seat": seat})
