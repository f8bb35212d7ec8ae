"""Inline-button presses: decode, check who pressed, call the service, always answer."""

from __future__ import annotations

import asyncio
import logging

from telegram import CallbackQuery, Update
from telegram.error import BadRequest, NetworkError, TelegramError, TimedOut
from telegram.ext import ContextTypes

from bot.edge.handlers.common import service_of, throttle_of, user_info
from bot.presentation.callbacks import Act, decode
from bot.presentation.strings import text
from bot.service import Reply

log = logging.getLogger(__name__)

LOBBY_ACTS = {Act.JOIN, Act.LEAVE, Act.COMPUTER, Act.START, Act.CANCEL}
MAX_ANSWER = 200
#: a press is answered within Telegram's time for it (about 15 s) or never: a few tries
ANSWER_ATTEMPTS = 4
ANSWER_PAUSE = 0.25


async def on_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    query = update.callback_query
    if query is None:
        return
    user = user_info(query.from_user)
    service = service_of(context)
    callback = decode(query.data)
    reply: Reply
    if not throttle_of(context).allow(user.user_id):
        reply = Reply(text(await service.language(user), "err.slow_down"))
    elif callback is None:
        reply = Reply(text(await service.language(user), "err.outdated"))
    elif callback.act in LOBBY_ACTS:
        reply = await service.on_lobby_callback(user, callback)
    elif callback.act is Act.AGAIN:
        reply = await service.play_again(user, callback)
    elif callback.act is Act.SETTINGS:
        chat = query.message.chat if query.message is not None else None
        reply = await service.on_settings_press(
            user, chat.id if chat else None, _offering(query), callback
        )
    elif callback.act is Act.TOP:  # /top's switch between the skill and 等级 boards
        chat = query.message.chat if query.message is not None else None
        reply = await service.on_top_press(
            user, chat.id if chat else None, _offering(query), callback
        )
    elif callback.act is Act.REPLAY:  # /history's ▶, a replay's ◀ ▶ (steps: private only)
        chat = query.message.chat if query.message is not None else None
        reply = await service.on_replay_press(
            user, chat.id if chat else None, _offering(query), callback
        )
    else:
        chat = query.message.chat if query.message is not None else None
        if chat is not None and chat.id != user.user_id:  # hand buttons live in private chats
            reply = Reply(text(await service.language(user), "err.not_yours"), alert=True)
        else:
            answering = _EarlyAnswer(query)
            reply = await service.on_hand_callback(user, callback, _offering(query), answering)
            if await answering.done():
                return
    await _answer(query, reply)


class _EarlyAnswer:
    """Answers a hand press the moment the service knows the answer: the edits that render
    it wait for the private chat's pace (and the next prompt for another's), and the client
    spins until answered."""

    def __init__(self, query: CallbackQuery) -> None:
        self.query = query
        self.task: asyncio.Task[None] | None = None

    def __call__(self, reply: Reply) -> None:
        if self.task is None:  # one answer per press
            self.task = asyncio.create_task(_answer(self.query, reply))

    async def done(self) -> bool:
        """Whether the press was answered early (waits for that answer to be made)."""
        if self.task is None:
            return False
        await self.task
        return True


async def _answer(query: CallbackQuery, reply: Reply) -> None:
    """Answer the press, again after a pause if Telegram failed on its side (a 5xx, a lost answer):
    the action is done either way, and the player's client spins until answered."""
    for attempt in range(ANSWER_ATTEMPTS):
        try:
            await query.answer(
                _plain(reply.text)[:MAX_ANSWER] or None, show_alert=reply.alert, url=reply.url
            )
            return
        except (NetworkError, TimedOut) as error:  # a 5xx is a NetworkError in PTB
            if isinstance(error, BadRequest) or attempt + 1 == ANSWER_ATTEMPTS:
                log.warning("could not answer press %s: %s", query.id, error)
                return
            await asyncio.sleep(ANSWER_PAUSE * (attempt + 1))
        except TelegramError as error:  # too old, or the like: answering again cannot help
            log.warning("could not answer press %s: %s", query.id, error)
            return


def _offering(query: CallbackQuery) -> int | None:
    """The pressed message's id if its keyboard shows the pressed button, else None: only
    such a message can be outdated by the press (clearing the buttons of a message that has
    none is an error, and a forged press must not touch the message it was made on)."""
    message = query.message
    markup = getattr(message, "reply_markup", None)
    if message is None or markup is None:
        return None
    offered = any(
        button.callback_data == query.data for row in markup.inline_keyboard for button in row
    )
    return message.message_id if offered else None


def _plain(html_text: str) -> str:
    """Callback answers are plain text: drop the few tags our strings use."""
    for tag in ("<b>", "</b>", "<i>", "</i>"):
        html_text = html_text.replace(tag, "")
    return html_text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
