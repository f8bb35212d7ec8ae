"""Who a user is in a group, asked of Telegram (``getChatMember``): the service's
``is_admin`` and ``is_member``."""

from __future__ import annotations

import logging

from telegram import Bot, ChatMember
from telegram.constants import ChatMemberStatus
from telegram.error import TelegramError

log = logging.getLogger(__name__)


class ChatMembers:
    def __init__(self, bot: Bot) -> None:
        self.bot = bot

    async def _member(self, chat_id: int, user_id: int) -> ChatMember | None:
        try:
            member: ChatMember = await self.bot.get_chat_member(chat_id, user_id)
        except TelegramError as error:  # refused either way: rights are not assumed
            log.warning("could not look up %s in %s: %s", user_id, chat_id, error)
            return None
        return member

    async def is_admin(self, chat_id: int, user_id: int) -> bool:
        member = await self._member(chat_id, user_id)
        return member is not None and member.status in (
            ChatMemberStatus.ADMINISTRATOR,
            ChatMemberStatus.OWNER,
        )

    async def is_member(self, chat_id: int, user_id: int) -> bool:
        member = await self._member(chat_id, user_id)
        if member is None or member.status in (ChatMemberStatus.LEFT, ChatMemberStatus.BANNED):
            return False
        # a restricted user may or may not still be in the group
        return member.status != ChatMemberStatus.RESTRICTED or bool(
            getattr(member, "is_member", False)
        )
