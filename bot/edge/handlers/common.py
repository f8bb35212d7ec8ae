"""What every handler needs: the service, the user, the reply language, throttling."""

from __future__ import annotations

import time
from dataclasses import dataclass

from telegram import Update, User
from telegram.ext import ContextTypes

from bot.config import Settings
from bot.service import GameService, UserInfo


def service_of(context: ContextTypes.DEFAULT_TYPE) -> GameService:
    service: GameService = context.application.bot_data["service"]
    return service


def settings_of(context: ContextTypes.DEFAULT_TYPE) -> Settings:
    settings: Settings = context.application.bot_data["settings"]
    return settings


def user_info(user: User) -> UserInfo:
    return UserInfo(user.id, user.full_name, user.username, user.language_code)


def effective_user(update: Update) -> UserInfo | None:
    return user_info(update.effective_user) if update.effective_user else None


@dataclass
class _Bucket:
    tokens: float
    at: float


class Throttle:
    """Per-user token buckets: one person hammering buttons cannot slow other tables."""

    def __init__(self, rate: float, burst: float | None = None) -> None:
        self.rate = rate
        self.burst = burst if burst is not None else max(2.0, rate * 2)
        self._buckets: dict[int, _Bucket] = {}

    def allow(self, user_id: int, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        bucket = self._buckets.get(user_id)
        if bucket is None:
            bucket = self._buckets[user_id] = _Bucket(self.burst, now)
        bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.at) * self.rate)
        bucket.at = now
        if bucket.tokens < 1:
            return False
        bucket.tokens -= 1
        if len(self._buckets) > 10_000:  # forget idle users now and then
            self._buckets = {k: b for k, b in self._buckets.items() if now - b.at < 60}
        return True


def throttle_of(context: ContextTypes.DEFAULT_TYPE) -> Throttle:
    throttle: Throttle = context.application.bot_data["throttle"]
    return throttle


def command_throttle_of(context: ContextTypes.DEFAULT_TYPE) -> Throttle:
    """Commands per group: a flood of them in one group is answered a few times, not queued."""
    throttle: Throttle = context.application.bot_data["command_throttle"]
    return throttle
