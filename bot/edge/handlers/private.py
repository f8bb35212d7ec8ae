"""Text typed in the private chat: plays such as "33 44 55", "♠3 ♠4 ♠5 ♠6 ♠7" or "不出"."""

from __future__ import annotations

from telegram import Update
from telegram.constants import ChatMemberStatus, ChatType
from telegram.ext import ContextTypes

from bot.edge.handlers.common import effective_user, service_of, throttle_of, user_info
from bot.presentation.strings import text


async def on_private_text(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    user = effective_user(update)
    message = update.effective_message
    if user is None or message is None or not message.text:
        return
    service = service_of(context)
    # answers go through the messenger: a private chat takes about one message a second,
    # and the hand messages share that pace with these. They are optional: skipped when
    # another message already waits for the chat, so fast typing builds no queue that the
    # player's next hand prompt would wait behind.
    if not throttle_of(context).allow(user.user_id):
        lang = await service.language(user)
        await service.messenger.send(message.chat_id, text(lang, "err.slow_down"), optional=True)
        return
    reply = await service.typed_play(user, message.text)
    reply_text = (
        reply.text if reply is not None else text(await service.language(user), "err.no_game")
    )
    if reply_text:
        await service.messenger.send(message.chat_id, reply_text, optional=True)


async def on_my_chat_member(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """The bot was blocked or unblocked in a private chat."""
    change = update.my_chat_member
    if change is None or change.chat.type != ChatType.PRIVATE:
        return
    user = user_info(change.from_user)
    works = change.new_chat_member.status not in (
        ChatMemberStatus.BANNED,
        ChatMemberStatus.LEFT,
    )
    await service_of(context).private_chat_changed(user, works=works)
