"""Every user-facing text, Chinese first and English complete. Nothing else holds wording:
the texts are in ``strings_zh.py`` and ``strings_en.py`` (the web table's in
``strings_web.py``, the league's in ``strings_league.py``), read through :func:`text`.

Texts are HTML (the bot sends with parse_mode HTML): placeholders filled with names must be
escaped by the caller (``render`` does it).
"""

from __future__ import annotations

from typing import Literal

from bot.presentation.strings_en import EN
from bot.presentation.strings_league import LEAGUE_EN, LEAGUE_ZH
from bot.presentation.strings_web import WEB_EN, WEB_ZH
from bot.presentation.strings_zh import ZH

_ZH = ZH | WEB_ZH | LEAGUE_ZH
_EN = EN | WEB_EN | LEAGUE_EN

Lang = Literal["zh", "en"]
LANGUAGES: tuple[Lang, ...] = ("zh", "en")

CATALOG: dict[Lang, dict[str, str]] = {"zh": _ZH, "en": _EN}

#: the longest text Telegram takes in one message
MAX_TEXT = 4096


def text(lang: Lang | str, key: str, **values: object) -> str:
    """The text ``key`` in ``lang`` (falling back to Chinese), filled with ``values``."""
    table = CATALOG["en"] if lang == "en" else _ZH
    template = table.get(key) or _ZH[key]
    return template.format(**values) if values else template


def web_strings(lang: Lang) -> dict[str, str]:
    """The web table's texts in ``lang`` (keys without ``web.``), and the places' names."""
    keys = [key for key in _ZH if key.startswith("web.") or key.startswith("place.")]
    return {key.removeprefix("web."): text(lang, key) for key in keys}


def language_of(telegram_code: str | None, default: Lang = "zh") -> Lang:
    """The language for a Telegram ``language_code``: Chinese for zh*, English otherwise."""
    if not telegram_code:
        return default
    return "zh" if telegram_code.lower().startswith("zh") else "en"
