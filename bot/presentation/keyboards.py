"""How an inline keyboard is made: the type every renderer returns and the service passes
along, and its buttons. The service names them from here and never imports ``telegram``."""

from collections.abc import Sequence

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo

#: an inline keyboard under a message (Telegram's own type: built here, sent by the edge)
Keyboard = InlineKeyboardMarkup
#: one of its buttons
Button = InlineKeyboardButton


def keyboard(rows: Sequence[Sequence[Button]]) -> Keyboard:
    return InlineKeyboardMarkup(rows)


def press_button(label: str, data: str) -> Button:
    """A button whose press comes back to the bot as ``data`` (a callback query)."""
    return InlineKeyboardButton(label, callback_data=data)


def page_button(label: str, url: str) -> Button:
    """A button that opens ``url`` as a Mini App page inside Telegram."""
    return InlineKeyboardButton(label, web_app=WebAppInfo(url))


__all__ = ["Button", "Keyboard", "keyboard", "page_button", "press_button"]
