"""How achievements read: their names, the private note, the line on the result page."""

from __future__ import annotations

from collections.abc import Sequence

from bot.presentation.strings import Lang, text


def names(lang: Lang, keys: Sequence[str]) -> str:
    return "、".join(text(lang, f"achievement.{key}") for key in keys)


def earned_note(lang: Lang, keys: Sequence[str]) -> str:
    """The private message that tells a player what they earned."""
    lines = "\n".join(text(lang, "achievement.line", name=text(lang, f"achievement.{key}"))
                      for key in keys)
    return text(lang, "achievement.earned", names=lines)


def earned_line(lang: Lang, keys: Sequence[str]) -> str:
    """The result page's line of the viewer's new achievements."""
    return text(lang, "achievement.page", names=names(lang, keys))
