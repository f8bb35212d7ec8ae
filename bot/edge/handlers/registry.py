"""Every handler wired in one place, plus the error handler."""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from typing import Any

from telegram import Update
from telegram.constants import ChatType
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

from bot.edge.handlers import buttons, commands, members, private
from bot.edge.handlers.common import command_throttle_of, throttle_of
from bot.presentation.callbacks import CALLBACK_PATTERN

log = logging.getLogger(__name__)

COMMANDS = (
    ("start", commands.start),
    ("newgame", commands.newgame),
    ("rank", commands.rank),
    ("top", commands.top),
    ("season", commands.season),
    ("rules", commands.rules),
    ("help", commands.help_command),
    ("lang", commands.lang),
    ("leave", commands.leave),
    ("cancel", commands.cancel),
    ("kick", commands.kick),
    ("hand", commands.hand),
    ("settings", commands.settings),
    ("stats", commands.stats),
    ("history", commands.history),
)


async def on_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Log first; answer a pending button so the player's client stops spinning."""
    log.error("update %r failed", update, exc_info=context.error)
    if isinstance(update, Update) and update.callback_query is not None:
        try:
            await update.callback_query.answer()
        except Exception:  # the answer itself may be what failed
            log.debug("could not answer the failed callback", exc_info=True)


Callback = Callable[[Update, ContextTypes.DEFAULT_TYPE], Coroutine[Any, Any, None]]


def throttled(command: Callback) -> Callback:
    """The command, unless its chat or its sender sent too many lately: then nothing at all
    (an answer would spend the budget the flood is already taking)."""

    async def guarded(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        chat, user = update.effective_chat, update.effective_user
        in_group = chat is not None and chat.type != ChatType.PRIVATE
        if in_group and chat is not None and not command_throttle_of(context).allow(chat.id):
            return
        if user is not None and not throttle_of(context).allow(user.id):
            return
        await command(update, context)

    return guarded


def register_handlers(application: Application) -> None:  # type: ignore[type-arg]
    # Only new messages: an edited old message is not a new command or play (PTB's handlers
    # take edits too unless told otherwise).
    new_message = filters.UpdateType.MESSAGE
    # before every other handler (a group of its own): who writes or presses in a group is a
    # member, and the group's join and leave notices say who came and went
    groups = filters.ChatType.GROUPS
    application.add_handler(MessageHandler(new_message & groups, members.note_sender), group=-1)
    application.add_handler(CallbackQueryHandler(members.note_sender), group=-1)
    for name, callback in COMMANDS:
        application.add_handler(CommandHandler(name, throttled(callback), filters=new_message))
    application.add_handler(CallbackQueryHandler(buttons.on_button, pattern=CALLBACK_PATTERN))
    # anything else pressed (forged or from an older bot) still gets an answer
    application.add_handler(CallbackQueryHandler(buttons.on_button))
    application.add_handler(
        MessageHandler(
            new_message & filters.ChatType.PRIVATE & filters.TEXT & ~filters.COMMAND,
            private.on_private_text,
        )
    )
    application.add_handler(
        ChatMemberHandler(private.on_my_chat_member, ChatMemberHandler.MY_CHAT_MEMBER)
    )
    application.add_handler(
        ChatMemberHandler(members.on_chat_member, ChatMemberHandler.CHAT_MEMBER)
    )
    application.add_error_handler(on_error)
