"""Every handler wired in one place, plus the error handler."""

from __future__ import annotations

import logging

from telegram import Update
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

from bot.callbacks import CALLBACK_PATTERN
from bot.handlers import buttons, commands, private

log = logging.getLogger(__name__)

COMMANDS = (
    ("start", commands.start),
    ("newgame", commands.newgame),
    ("rank", commands.rank),
    ("top", commands.top),
    ("rules", commands.rules),
    ("help", commands.help_command),
    ("lang", commands.lang),
    ("leave", commands.leave),
    ("cancel", commands.cancel),
    ("kick", commands.kick),
    ("hand", commands.hand),
)


async def on_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Log first; answer a pending button so the player's client stops spinning."""
    log.error("update %r failed", update, exc_info=context.error)
    if isinstance(update, Update) and update.callback_query is not None:
        try:
            await update.callback_query.answer()
        except Exception:  # the answer itself may be what failed
            log.debug("could not answer the failed callback", exc_info=True)


def register_handlers(application: Application) -> None:  # type: ignore[type-arg]
    # Only new messages: an edited old message is not a new command or play (PTB's handlers
    # take edits too unless told otherwise).
    new_message = filters.UpdateType.MESSAGE
    for name, callback in COMMANDS:
        application.add_handler(CommandHandler(name, callback, filters=new_message))
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
    application.add_error_handler(on_error)
