"""Tables in progress: locks, timers, persistence, and what to tell whom."""

from bot.service.service import GameService, Reply, Scheduler, UserInfo

__all__ = ["GameService", "Reply", "Scheduler", "UserInfo"]
