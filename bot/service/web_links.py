"""Where the web table opens: the Mini App's address for a game, and the direct link a group
can follow (``t.me/<bot>/<app>?startapp=g<game>``). None when the web table is off."""

from __future__ import annotations

from urllib.parse import urlencode, urlsplit, urlunsplit

from bot.config import Settings


def web_table_url(settings: Settings, game_id: int) -> str | None:
    """The page for ``game_id`` (the ``web_app`` button of a hand message)."""
    if not settings.webapp_url:
        return None
    parts = urlsplit(settings.webapp_url)
    query = f"{parts.query}&" if parts.query else ""
    return urlunsplit(parts._replace(query=query + urlencode({"game": game_id})))


def direct_link(settings: Settings, bot_username: str, game_id: int) -> str | None:
    """The Mini App's direct link for the group's table message (spectators open the public
    view with it); needs the app's short name from @BotFather."""
    if not settings.webapp_url or not settings.miniapp_short_name:
        return None
    return f"https://t.me/{bot_username}/{settings.miniapp_short_name}?startapp=g{game_id}"
