"""python-telegram-bot handlers, thin: parse the update, call the service, answer."""

from bot.handlers.registry import register_handlers

__all__ = ["register_handlers"]
