"""The two games as the bot knows them: a name, a seat count and the engine's functions.

Everything here is a plain reference to an engine function (no imports by name, no ``Any``):
the bot, the simulator and the players reach both engines through :class:`Variant` and the
:class:`~bot.game.protocol.GameState` protocol.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from bot.game import paowang, paowang_combos, shuangkou
from bot.game.cards import Card
from bot.game.common import Action, Combo, Event, SeatView
from bot.game.protocol import GameState

VariantName = Literal["shuangkou", "paowang"]

__all__ = [
    "ALIASES",
    "PAOWANG",
    "SHUANGKOU",
    "VARIANTS",
    "Action",
    "Variant",
    "VariantName",
    "apply_action",
    "auto_passes",
    "cannot_beat",
    "cheapest_first",
    "hint_order",
    "variant_for",
]


#: the kinds that are bombs, in either game
BOMB_KINDS = shuangkou.BOMB_KINDS | paowang_combos.BOMB_KINDS


def cheapest_first(combo: Combo) -> tuple[int, int, int, int]:
    """Non-bombs before bombs, then by tier/key, then fewer cards: the order in which hints
    are offered and in which a seat that must play falls back to the least it can give."""
    return (int(combo.kind in BOMB_KINDS), combo.tier, combo.key, len(combo.cards))


def hint_order(leading: bool) -> Callable[[Combo], tuple[int, ...]]:
    """The order in which 提示 offers plays. Answering: the cheapest first (non-bombs before
    bombs, then the lowest). Leading: the lowest cards first, each in the largest shape they
    make (a run from the 3 before a pair of 3s before the single 3), bombs last."""
    if not leading:
        return cheapest_first

    def lead_key(combo: Combo) -> tuple[int, ...]:
        lowest = min(card >> 3 for card in combo.cards)
        return (int(combo.kind in BOMB_KINDS), lowest, -len(combo.cards), combo.tier, combo.key)

    return lead_key


@dataclass(frozen=True)
class Variant:
    """A game variant: its name, its seat count and its engine."""

    name: VariantName
    seats: int
    #: deal from a seed; the leader is the engine's own rule when None
    deal: Callable[[int | str, int | None], GameState]
    #: start from given hands with a given leader
    from_hands: Callable[[Sequence[Iterable[Card]], int], GameState]
    #: what cards are as a combination (``revealed``: the player has 亮王, in 刨王)
    classify: Callable[[Sequence[Card], bool], Combo | None]
    #: every legal play of a hand on a play (or leading), for a seat that revealed or not
    plays_of: Callable[[Sequence[Card], Combo | None, bool], list[Combo]]
    #: 亮王: 大王 holders answer before the first lead
    has_reveal: bool
    #: whether a player with nothing that beats the table passes without being asked. Not in
    #: 刨王: there, who can beat a high single says who holds the 大王, and a seat that passes
    #: at once while another is asked would tell the group exactly that.
    auto_passes: bool

    def legal_plays(self, view: SeatView) -> list[Combo]:
        """The plays the viewing seat could make now, from its view alone."""
        revealed = bool(view.revealed and view.seat is not None and view.revealed[view.seat])
        return self.plays_of(list(view.hand), view.on_table, revealed)


def _shuangkou_deal(seed: int | str, leader: int | None) -> GameState:
    return shuangkou.Game.deal(seed, leader=leader)


def _shuangkou_classify(cards: Sequence[Card], revealed: bool) -> Combo | None:
    return shuangkou.classify(cards)  # nothing is revealed in 双扣


def _shuangkou_plays(hand: Sequence[Card], on: Combo | None, revealed: bool) -> list[Combo]:
    return shuangkou.legal_plays(hand, on)


def _paowang_deal(seed: int | str, leader: int | None) -> GameState:
    return paowang.Game.deal(seed, leader=leader)


def _paowang_classify(cards: Sequence[Card], revealed: bool) -> Combo | None:
    return paowang.classify(cards, revealed=revealed)


def _paowang_plays(hand: Sequence[Card], on: Combo | None, revealed: bool) -> list[Combo]:
    return paowang.legal_plays(hand, on, revealed=revealed)


SHUANGKOU = Variant(
    name="shuangkou",
    seats=shuangkou.SEATS,
    deal=_shuangkou_deal,
    from_hands=shuangkou.Game,
    classify=_shuangkou_classify,
    plays_of=_shuangkou_plays,
    has_reveal=False,
    auto_passes=True,
)
PAOWANG = Variant(
    name="paowang",
    seats=paowang.SEATS,
    deal=_paowang_deal,
    from_hands=paowang.Game,
    classify=_paowang_classify,
    plays_of=_paowang_plays,
    has_reveal=True,
    auto_passes=False,
)
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


def apply_action(game: GameState, action: Action | tuple[str, int, str | None]) -> list[Event]:
    """Apply one logged action to an engine game (raises IllegalPlay if it does not fit)."""
    if not isinstance(action, Action):
        action = Action.from_log(*action)
    return game.apply(action)


def cannot_beat(game: GameState, seat: int) -> bool:
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
