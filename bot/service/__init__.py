"""Tables in progress: locks, timers, persistence, and what to tell whom.

This module is the service's public face: the Telegram edge (``bot.edge``) and the web table
(``bot.web``) import from here and from nothing else in ``bot.service`` (an import-linter
contract in ``pyproject.toml`` holds them to it)."""

from bot.presentation.strings import MAX_TEXT
from bot.service.base import Delivery, Messages, Reply, Scheduler, Sent, UserInfo
from bot.service.commands import Source
from bot.service.events import (
    PUBLIC_EVENTS,
    Acted,
    Deserted,
    Finished,
    GateClosed,
    TableEvent,
    TookBack,
)
from bot.service.result_message import outcome_text, result_text
from bot.service.service import GameService, random_seed
from bot.service.tables import Table

__all__ = [
    "MAX_TEXT",
    "PUBLIC_EVENTS",
    "Acted",
    "Delivery",
    "Deserted",
    "Finished",
    "GameService",
    "GateClosed",
    "Messages",
    "Reply",
    "Scheduler",
    "Sent",
    "Source",
    "Table",
    "TableEvent",
    "TookBack",
    "UserInfo",
    "outcome_text",
    "random_seed",
    "result_text",
]
