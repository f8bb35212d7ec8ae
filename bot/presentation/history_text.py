"""/history's text: a line per past game (when, which game, who, how it came out) and the
message that lists them, with a ▶ button per replayable game.

It reads the games through :class:`PastGame` (what the storage's history records offer),
so the presentation knows what it shows and nothing of where it is kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta, timezone
from typing import Protocol

from bot.game.common import Outcome, Result
from bot.presentation.keyboards import Keyboard
from bot.presentation.render import SeatLabel, variant_name
from bot.presentation.replay_view import open_button
from bot.presentation.result_message import outcome_text
from bot.presentation.strings import MAX_TEXT, Lang, text

#: times are shown in China Standard Time (the games' home; the bot has no time zone setting)
SHOWN_ZONE = timezone(timedelta(hours=8))
BUTTONS_PER_ROW = 5


class PastSeat(Protocol):
    @property
    def seat(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def is_computer(self) -> bool: ...
    @property
    def adjusted_delta(self) -> int | None: ...


class PastGame(Protocol):
    """A past game as /history lists it."""

    @property
    def game_id(self) -> int: ...
    @property
    def variant(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def ended_at(self) -> float: ...
    @property
    def outcome(self) -> str | None: ...
    @property
    def note(self) -> str | None: ...
    @property
    def seats(self) -> Sequence[PastSeat]: ...
    @property
    def replayable(self) -> bool: ...
    @property
    def winners(self) -> Sequence[PastSeat]: ...
    @property
    def escaped(self) -> Sequence[PastSeat]: ...
    def seat_of(self, user_id: int) -> PastSeat | None: ...


def when_text(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).astimezone(SHOWN_ZONE).strftime("%Y-%m-%d %H:%M")


# ---- the lines ------------------------------------------------------------------------------


def result_summary(lang: Lang, game: PastGame) -> str:
    """How a past game came out, in a few words: 双扣/单扣/平扣 or 刨王's side and snow, with
    who won; 逃跑 and the one-minute rule noted."""
    if game.status == "cancelled":
        return text(lang, "history.cancelled")
    names = "、".join(_name(seat.name, seat.is_computer) for seat in game.winners)
    outcome = game.outcome or ""
    if outcome in ("双扣", "单扣", "平扣"):
        head = text(lang, f"outcome.{outcome}")
    else:
        head = _paowang_head(lang, game)
        if outcome in ("小雪", "大雪"):
            head += text(lang, f"history.snow.{outcome}")
    summary = text(lang, "history.won", outcome=head, names=names) if names else head
    if game.escaped:
        escaped = "、".join(_name(seat.name, seat.is_computer) for seat in game.escaped)
        summary += text(lang, "history.escaped", names=escaped)
    if game.note == "short game":
        summary += text(lang, "history.short")
    return summary


def _paowang_head(lang: Lang, game: PastGame) -> str:
    """刨王's side that won, by the result's own rule: the 王 side is one or two seats."""
    winners = tuple(seat.seat for seat in game.winners)
    return outcome_text(lang, Result(Outcome.WIN, (), (), winners), len(game.seats))


def _name(name: str, is_computer: bool) -> str:
    return SeatLabel(name, is_computer).html()


def history_line(lang: Lang, game: PastGame, *, user_id: int | None = None) -> str:
    """One game: number, when, game, players, result (and in a player's own history, their
    score change)."""
    players = "、".join(_name(seat.name, seat.is_computer) for seat in game.seats)
    line = text(
        lang,
        "history.line",
        game=game.game_id,
        when=when_text(game.ended_at),
        variant=variant_name(lang, game.variant),
        players=players,
        result=result_summary(lang, game),
    )
    mine = game.seat_of(user_id) if user_id is not None else None
    if mine is not None and mine.adjusted_delta is not None:
        line += text(lang, "history.mine", delta=f"{mine.adjusted_delta:+d}")
    return line


def history_message(
    lang: Lang, games: Sequence[PastGame], *, group: bool, user_id: int | None = None
) -> tuple[str, Keyboard | None]:
    """The /history answer: a title, a line per game, a ▶ button per replayable game."""
    if not games:
        return text(lang, "history.empty_group" if group else "history.empty_private"), None
    title = text(lang, "history.title_group" if group else "history.title_private")
    hint = ["", text(lang, "history.hint")]
    lines = [title] + [history_line(lang, game, user_id=user_id) for game in games]
    # one message (Telegram's 4,096 characters; a longer one is cut inside its HTML): the
    # oldest games give way
    while len(lines) > 2 and len("\n".join(lines + hint)) > MAX_TEXT:
        lines.pop()
    games = list(games)[: len(lines) - 1]
    buttons = [open_button(lang, game.game_id) for game in games if game.replayable]
    if buttons:
        lines += hint
    rows = [buttons[i : i + BUTTONS_PER_ROW] for i in range(0, len(buttons), BUTTONS_PER_ROW)]
    return "\n".join(lines), Keyboard(rows) if rows else None
