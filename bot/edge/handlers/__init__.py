"""python-telegram-bot handlers, thin: parse the update, call the service, answer."""

from bot.edge.handlers.registry import register_handlers

__all__ = ["register_handlers"]
