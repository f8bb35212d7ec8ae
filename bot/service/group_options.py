"""A group's own settings (/settings): what its admins chose, over the bot's environment.

A group that never changed anything plays by the environment's settings. What its admins
change is stored per group (only the changes) and taken by each game when it is dealt, so a
change never alters a game in progress. Every value a group may pick is listed here: the menu
offers only these, and a press naming anything else is refused.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from bot.config import Settings
from bot.presentation.strings import Lang

#: what a group may choose, per option, in the menu's order (the order is part of the
#: callback data: append new options, never reorder)
CHOICES: Final[dict[str, tuple[Any, ...]]] = {
    "turn_seconds": (20, 30, 45, 60, 90, 120),
    "reveal_seconds": (15, 20, 30, 45, 60),
    "computer_delay": (0.5, 1.2, 2.0, 3.0),
    "auto_pass": (True, False),
    "default_variant": ("shuangkou", "paowang"),
    "language": (None, "zh", "en"),  # None: each game speaks its opener's language
    "computers": (True, False),
    "one_minute_rule": (True, False),
    "season": ("month", "week", "off"),  # the group's seasons (/season)
    "shared_top": (False, True),  # in /top's table across the groups that opt in
}
OPTION_NAMES: Final[tuple[str, ...]] = tuple(CHOICES)


@dataclass(frozen=True, slots=True)
class GroupOptions:
    """The settings one game is played with."""

    turn_seconds: float
    reveal_seconds: float
    computer_delay: float
    auto_pass: bool
    default_variant: str
    language: Lang | None
    computers: bool
    one_minute_rule: bool
    season: str = "month"
    shared_top: bool = False

    @classmethod
    def defaults(cls, settings: Settings) -> GroupOptions:
        """The environment's settings: what a group that never changed anything plays by."""
        return cls(
            turn_seconds=settings.turn_seconds,
            reveal_seconds=settings.reveal_seconds,
            computer_delay=settings.computer_delay,
            auto_pass=settings.auto_pass,
            default_variant="shuangkou",
            language=None,
            computers=True,
            one_minute_rule=True,
        )

    def with_changes(self, changes: Mapping[str, Any]) -> GroupOptions:
        """These options with a group's stored changes; a stored value the menu no longer
        offers (an older bot's) is ignored rather than trusted."""
        valid = {name: value for name, value in changes.items() if is_choice(name, value)}
        return dataclasses.replace(self, **valid)

    def value(self, name: str) -> Any:
        return getattr(self, name)


def same_value(a: Any, b: Any) -> bool:
    """Equal as settings: 45 seconds is 45.0 seconds, but True is not 1 second (bool is an
    int in Python) and None is nobody's number."""
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        return a is b
    return bool(type(a) is type(b) or (_number(a) and _number(b))) and a == b


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def is_choice(name: str, value: Any) -> bool:
    return name in CHOICES and any(same_value(value, choice) for choice in CHOICES[name])


def options_json(options: GroupOptions) -> dict[str, Any]:
    """All of a game's options, as stored with the game when it is dealt."""
    return dataclasses.asdict(options)


def options_from_json(data: Mapping[str, Any], fallback: GroupOptions) -> GroupOptions:
    """A game's stored options (any missing or unknown field falls back)."""
    fields = {field.name for field in dataclasses.fields(GroupOptions)}
    return dataclasses.replace(fallback, **{k: v for k, v in data.items() if k in fields})


__all__ = [
    "CHOICES",
    "OPTION_NAMES",
    "GroupOptions",
    "is_choice",
    "options_from_json",
    "options_json",
    "same_value",
]
