"""Tables in progress: locks, timers, persistence, and what to tell whom."""

from bot.service.base import Reply, Scheduler, UserInfo
from bot.service.service import GameService

__all__ = ["GameService", "Reply", "Scheduler", "UserInfo"]
