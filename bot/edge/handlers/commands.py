"""Commands: /start /newgame /rank /top /rules /help /lang /leave /cancel /kick /hand
/settings /history /stats."""

from __future__ import annotations

from telegram import Chat, Update
from telegram.constants import ChatType
from telegram.ext import ContextTypes

from bot.edge.handlers.common import effective_user, service_of, settings_of, user_info
from bot.game.variants import VARIANTS, variant_for
from bot.presentation.strings import LANGUAGES, Lang, text
from bot.service import Delivery, GameService, UserInfo


def _is_group(update: Update) -> bool:
    chat = update.effective_chat
    return chat is not None and chat.type in (ChatType.GROUP, ChatType.SUPERGROUP)


async def _reply(
    update: Update,
    context: ContextTypes.DEFAULT_TYPE,
    body: str,
    reply_to: int | None = None,
) -> None:
    """Answer a command in its chat, through the service's messenger so that the answer is
    paced with everything else sent there (a group's budget, a private chat's window).
    In a group the answer quotes the command (or ``reply_to``); when the group's budget is
    nearly spent (the game's own messages come first) it goes to the asker's private chat
    or waits, merged with others, for the group's next room: never silence."""
    message = update.effective_message
    if not body or message is None:
        return
    service = service_of(context)
    if not _is_group(update):
        await service.messenger.send(message.chat_id, body, reply_to=reply_to)
        return
    chat = update.effective_chat
    user = effective_user(update)
    await service.answer_in_group(
        message.chat_id,
        user,
        body,
        reply_to=reply_to if reply_to is not None else message.message_id,
        chat_title=(chat.title or "") if chat is not None else "",
    )


async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    user = effective_user(update)
    if user is None:
        return
    service = service_of(context)
    if _is_group(update):
        lang = await service.language(user)
        await _reply(update, context, text(lang, "help"))
        return
    payload = context.args[0] if context.args else None
    reply = await service.start_private(user, payload)
    await _reply(update, context, reply.text)


async def _group_command(
    update: Update, context: ContextTypes.DEFAULT_TYPE
) -> tuple[UserInfo, Chat, GameService, Lang] | None:
    """Who sent a group-only command, where, and in which language; None (answered) if it
    was sent elsewhere."""
    user = effective_user(update)
    chat = update.effective_chat
    if user is None or chat is None:
        return None
    service = service_of(context)
    lang = await service.language(user)
    if not _is_group(update):
        await _reply(update, context, text(lang, "err.group_only"))
        return None
    return user, chat, service, lang


async def newgame(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    sent = await _group_command(update, context)
    if sent is None:
        return
    user, chat, service, lang = sent
    if context.args:
        variant = variant_for(context.args[0])
    else:  # the group's default game (/settings)
        variant = VARIANTS[(await service.group_options(chat.id)).default_variant]
    if variant is None:
        await _reply(update, context, text(lang, "help"))
        return
    message = update.effective_message
    reply = await service.new_game(
        chat_id=chat.id,
        chat_title=chat.title or "",
        opener=user,
        variant=variant,
        command_message_id=message.message_id if message is not None else None,
    )
    await _reply(update, context, reply.text, reply.reply_to)


async def rank(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    user = effective_user(update)
    if user is not None:
        await _reply(update, context, await service_of(context).rank(user))


async def top(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    sent = await _group_command(update, context)
    if sent is None:
        return
    user, chat, service, _ = sent
    message = update.effective_message
    await service.show_top(
        chat.id,
        user,
        reply_to=message.message_id if message is not None else None,
        chat_title=chat.title or "",
    )


async def season(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/season: the group's current season; /season N: season N."""
    sent = await _group_command(update, context)
    if sent is None:
        return
    user, chat, service, _ = sent
    message = update.effective_message
    number = None
    if context.args:
        given = context.args[0]
        number = int(given) if given.isascii() and given.isdigit() and len(given) <= 4 else 0
    await service.show_season(
        chat.id,
        user,
        number,
        reply_to=message.message_id if message is not None else None,
        chat_title=chat.title or "",
    )


async def rules(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    user = effective_user(update)
    if user is None:
        return
    lang = await service_of(context).language(user)
    variant = variant_for(context.args[0] if context.args else None)
    names = [variant.name] if context.args and variant else ["shuangkou", "paowang"]
    auto_pass = settings_of(context).auto_pass
    if _is_group(update) and update.effective_chat is not None:  # the group's own choice
        auto_pass = (await service_of(context).group_options(update.effective_chat.id)).auto_pass
    parts = []
    for name in names:
        part = text(lang, f"rules.{name}")
        if auto_pass and VARIANTS[name].auto_passes:
            part += "\n" + text(lang, "rules.auto_pass")
        parts.append(part)
    await _reply(update, context, "\n\n".join(parts))


async def help_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    user = effective_user(update)
    if user is not None:
        await _reply(update, context, text(await service_of(context).language(user), "help"))


async def lang(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    user = effective_user(update)
    if user is None:
        return
    service = service_of(context)
    choice = (context.args[0].lower() if context.args else "")[:2]
    if choice not in LANGUAGES:
        await _reply(update, context, text(await service.language(user), "lang.choose"))
        return
    chosen: Lang = "en" if choice == "en" else "zh"
    await service.set_language(user, chosen)
    await _reply(update, context, text(chosen, "lang.set"))


async def leave(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    user = effective_user(update)
    if user is not None:
        reply = await service_of(context).leave(user)
        await _reply(update, context, reply.text)


async def cancel(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    sent = await _group_command(update, context)
    if sent is None:
        return
    user, chat, service, _ = sent
    reply = await service.cancel_in_chat(chat.id, user)
    await _reply(update, context, reply.text)


async def kick(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    message = update.effective_message
    sent = await _group_command(update, context)
    if sent is None or message is None:
        return
    user, chat, service, lang = sent
    target = message.reply_to_message.from_user if message.reply_to_message else None
    if target is None:
        await _reply(update, context, text(lang, "err.kick_reply"))
        return
    reply = await service.kick(chat.id, user, user_info(target).user_id)
    await _reply(update, context, reply.text)


async def settings(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/settings: the group's settings menu, for its admins."""
    message = update.effective_message
    sent = await _group_command(update, context)
    if sent is None or message is None:
        return
    user, chat, service, _ = sent
    # an admin posting as the group itself (anonymous) is an admin too
    anonymous = message.sender_chat is not None and message.sender_chat.id == chat.id
    admin = anonymous or await service.is_admin(chat.id, user.user_id)
    reply = await service.open_settings(chat.id, user, admin=admin)
    await _reply(update, context, reply.text)


async def history(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/history: in a group its last games, in a private chat the sender's own; each with a
    button that opens its replay in the presser's private chat."""
    user = effective_user(update)
    chat = update.effective_chat
    message = update.effective_message
    if user is None or chat is None or message is None:
        return
    group = _is_group(update)
    reply = await service_of(context).show_history(
        chat.id,
        user,
        group=group,
        reply_to=message.message_id if group else None,
        chat_title=chat.title or "",
    )
    await _reply(update, context, reply.text)


async def hand(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    user = effective_user(update)
    if user is not None:
        reply = await service_of(context).resend_hand(user)
        await _reply(update, context, reply.text)


async def stats(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/stats: the sender's record with a picture of their score (in a group: the group's
    games and all; as a reply in a group: the record of the one replied to)."""
    user = effective_user(update)
    message = update.effective_message
    chat = update.effective_chat
    if user is None or message is None or chat is None:
        return
    group = _is_group(update)
    replied = message.reply_to_message
    subject = None
    if (
        group
        and replied is not None
        and replied.from_user is not None
        and not replied.from_user.is_bot
        and replied.forum_topic_created is None  # in a topic every message "replies" to it
    ):
        subject = user_info(replied.from_user)
    service = service_of(context)
    answer = await service.stats(user, chat_id=chat.id if group else None, of=subject)
    if answer.photo is None:
        await _reply(update, context, answer.text)
        return
    reply_to = message.message_id if group else None
    caption = answer.text if answer.fits_caption else None
    sent = await service.messenger.send_photo(
        chat.id, answer.photo, caption, filename="stats.png", reply_to=reply_to, optional=group
    )
    if sent.delivery is Delivery.SKIPPED:  # no room for a picture: the record as text
        await _reply(update, context, answer.text)
    elif caption is None and sent.delivery is Delivery.OK:
        await _reply(update, context, answer.text, sent.message_id)
