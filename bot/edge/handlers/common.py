"""What every handler needs: the service, the user, the reply language, throttling."""

from __future__ import annotations

from telegram import Update, User
from telegram.ext import ContextTypes

from bot.config import Settings
from bot.limits.throttle import Throttle
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


def throttle_of(context: ContextTypes.DEFAULT_TYPE) -> Throttle:
    throttle: Throttle = context.application.bot_data["throttle"]
    return throttle


def command_throttle_of(context: ContextTypes.DEFAULT_TYPE) -> Throttle:
    """Commands per group: a flood of them in one group is answered a few times, not queued."""
    throttle: Throttle = context.application.bot_data["command_throttle"]
    return throttle
