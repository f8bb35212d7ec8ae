"""Who a user is in a group: the service's ``is_admin`` and ``is_member``, answered from a
:class:`~bot.edge.handlers.member_cache.MemberCache` that asks Telegram (``getChatMember``) only
when it must, and the two handlers that teach it from the updates the bot receives anyway."""

from __future__ import annotations

import asyncio
import logging

from telegram import Bot, ChatMember, Update
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import BadRequest, Forbidden, TelegramError
from telegram.ext import ContextTypes

from bot.config import Settings
from bot.edge.handlers.member_cache import MemberCache, Standing

log = logging.getLogger(__name__)

#: seconds a lookup may take, waiting for its place among the games' calls included: a page
#: that waits longer is better told "try again"
LOOKUP_TIMEOUT = 5.0
_GROUPS = (ChatType.GROUP, ChatType.SUPERGROUP)


def standing_of(member: ChatMember) -> Standing:
    """Telegram's ChatMember as a member/admin pair."""
    admin = member.status in (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)
    if member.status in (ChatMemberStatus.LEFT, ChatMemberStatus.BANNED):
        return Standing(member=False, admin=False)
    # a restricted user may or may not still be in the group
    inside = member.status != ChatMemberStatus.RESTRICTED or bool(
        getattr(member, "is_member", False)
    )
    return Standing(member=inside, admin=admin)


class ChatMembers:
    def __init__(self, bot: Bot, settings: Settings) -> None:
        self.bot = bot
        self.cache = MemberCache(
            self._fetch,
            member_seconds=settings.member_cache_seconds,
            nonmember_seconds=settings.nonmember_cache_seconds,
            admin_seconds=settings.admin_cache_seconds,
            per_second=settings.member_lookups_per_second,
            burst=settings.member_lookup_burst,
            size=settings.member_cache_size,
        )

    async def _fetch(self, chat_id: int, user_id: int) -> Standing | None:
        try:
            async with asyncio.timeout(LOOKUP_TIMEOUT):
                member: ChatMember = await self.bot.get_chat_member(chat_id, user_id)
        except (BadRequest, Forbidden) as error:
            # Telegram's answer, not a failure: no such user there, or the bot is no longer
            # in the group; either way no seat and no view for them
            log.info("%s in %s: %s", user_id, chat_id, error)
            return Standing(member=False, admin=False)
        except (TelegramError, TimeoutError) as error:  # not known: rights are not assumed
            log.warning("could not look up %s in %s: %r", user_id, chat_id, error)
            return None
        return standing_of(member)

    async def is_admin(self, chat_id: int, user_id: int) -> bool:
        return await self.cache.is_admin(chat_id, user_id)

    async def is_member(
        self, chat_id: int, user_id: int, *, recheck: bool = False
    ) -> bool | None:
        return await self.cache.is_member(chat_id, user_id, recheck=recheck)


def members_of(context: ContextTypes.DEFAULT_TYPE) -> ChatMembers | None:
    """The app's ChatMembers; None before ``post_init`` made it."""
    members: ChatMembers | None = context.application.bot_data.get("members")
    return members


async def note_sender(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Whoever writes or presses a button in a group is in it (runs before every other
    handler, and answers nothing). Someone previewing a public group could press a button
    without joining, but such a group's table is public anyway."""
    members = members_of(context)
    if members is None:
        return
    user = update.effective_user
    if update.message is not None:
        chat = update.message.chat
        if update.message.sender_chat is not None:  # posted as a channel or the group itself
            return
    elif update.callback_query is not None and update.callback_query.message is not None:
        chat = update.callback_query.message.chat
    else:
        return
    if chat.type not in _GROUPS:
        return
    if user is not None and not user.is_bot:
        members.cache.seen(chat.id, user.id)
    if update.message is not None:  # a join or leave notice: no lookup for those either
        for joined in update.message.new_chat_members or ():
            members.cache.learned(chat.id, joined.id, Standing(member=True, admin=False))
        gone = update.message.left_chat_member
        if gone is not None:
            members.cache.learned(chat.id, gone.id, Standing(member=False, admin=False))


async def on_chat_member(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Someone joined, left, was banned, promoted or restricted (Telegram sends these only to
    a bot that is an admin of the group: elsewhere the cache's expiry does the work)."""
    members = members_of(context)
    changed = update.chat_member
    if members is None or changed is None:
        return
    member = changed.new_chat_member
    members.cache.learned(changed.chat.id, member.user.id, standing_of(member))
