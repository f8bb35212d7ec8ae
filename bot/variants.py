"""One face for both engines, so the bot, the simulator and the players are written once."""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.game.cards import Card, parse_cards
from bot.game.common import Combo, Event, SeatView


@dataclass(frozen=True)
class Variant:
    """A game variant: its name, its seat count and its engine module."""

    name: str  # "shuangkou" | "paowang"
    seats: int
    module_name: str

    @property
    def module(self) -> Any:
        return importlib.import_module(self.module_name)

    @property
    def has_reveal(self) -> bool:
        return self.name == "paowang"

    @property
    def auto_passes(self) -> bool:
        """Whether a player with nothing that beats the table passes without being asked.

        Not in 刨王: there, who can beat a high single says who holds the 大王, and a seat
        that passes at once while another is asked would tell the group exactly that.
        """
        return self.name == "shuangkou"

    def deal(self, seed: int, leader: int | None = None) -> Any:
        return self.module.Game.deal(seed, leader=leader)

    def from_hands(self, hands: Sequence[Sequence[Card]], leader: int) -> Any:
        return self.module.Game(hands=[list(hand) for hand in hands], leader=leader)

    def classify(self, cards: Sequence[Card], revealed: bool = False) -> Combo | None:
        if self.has_reveal:
            return self.module.classify(list(cards), revealed=revealed)  # type: ignore[no-any-return]
        return self.module.classify(list(cards))  # type: ignore[no-any-return]

    def desertion_scores(
        self, game: Any, seat: int, fixed: Sequence[int | None], *, seconds: float
    ) -> tuple[int | None, ...]:
        """The scores fixed when ``seat`` abandons ``game`` after ``seconds`` (逃跑): per seat,
        a score that replaces the game's result, or None (scored by the result)."""
        return self.module.desertion_scores(  # type: ignore[no-any-return]
            game, seat, fixed, seconds=seconds
        )

    def legal_plays(self, view: SeatView) -> list[Combo]:
        """The plays the viewing seat could make now, from its view alone."""
        if self.has_reveal:
            revealed = bool(view.revealed and view.seat is not None and view.revealed[view.seat])
            return self.module.legal_plays(  # type: ignore[no-any-return]
                list(view.hand), view.on_table, revealed=revealed
            )
        return self.module.legal_plays(list(view.hand), view.on_table)  # type: ignore[no-any-return]


SHUANGKOU = Variant("shuangkou", 4, "bot.game.shuangkou")
PAOWANG = Variant("paowang", 5, "bot.game.paowang")
VARIANTS: dict[str, Variant] = {SHUANGKOU.name: SHUANGKOU, PAOWANG.name: PAOWANG}

# What people type after /newgame.
ALIASES = {
    "双扣": "shuangkou",
    "绍兴双扣": "shuangkou",
    "shuangkou": "shuangkou",
    "sk": "shuangkou",
    "刨王": "paowang",
    "通化刨王": "paowang",
    "paowang": "paowang",
    "pw": "paowang",
}


def variant_for(argument: str | None) -> Variant | None:
    if not argument:
        return SHUANGKOU
    name = ALIASES.get(argument.strip().lower())
    return VARIANTS.get(name) if name else None


# ---- the action log: what storage keeps and replay reads ---------------------------------

# (kind, seat, cards text); kind is play | pass | reveal | decline
Action = tuple[str, int, str | None]


def apply_action(game: Any, action: Action) -> list[Event]:
    """Apply one logged action to an engine game (raises IllegalPlay if it does not fit)."""
    kind, seat, cards = action
    if kind == "play":
        return game.play(seat, parse_cards(cards or ""))  # type: ignore[no-any-return]
    if kind == "pass":
        return game.pass_turn(seat)  # type: ignore[no-any-return]
    if kind in ("reveal", "decline"):
        return game.reveal(seat, kind == "reveal")  # type: ignore[no-any-return]
    raise ValueError(f"unknown action kind: {kind!r}")


def cannot_beat(game: Any, seat: int) -> bool:
    """要不起: ``seat`` faces a play and holds nothing that beats it."""
    return game.on_table is not None and not game.legal_plays(seat)


def auto_passes(variant: Variant, seed: int, leader: int | None, log: Sequence[Action]) -> set[int]:
    """Where in a game's log the bot passed by itself for a seat that could not beat the
    table (要不起; in variants that do that). Human seats only see the rest of their turns."""
    if not variant.auto_passes:
        return set()
    game = variant.deal(seed, leader)
    found = set()
    for position, action in enumerate(log):
        if action[0] == "pass" and cannot_beat(game, action[1]):
            found.add(position)
        apply_action(game, action)
    return found
