"""The benchmarks' instrumentation times every update, whatever handlers the bot has."""

from __future__ import annotations

from telegram import CallbackQuery, Chat, Message, Update, User
from telegram.ext import ApplicationBuilder, CallbackQueryHandler, MessageHandler, filters

from bot.edge.metrics import instrument


async def test_an_update_a_group_minus_one_handler_takes_is_still_timed(monkeypatch) -> None:
    """The member cache notes who pressed in group -1, and a group runs only its first
    matching handler: instrumentation sharing that group timed no press at all."""
    application = ApplicationBuilder().token("1:x").build()
    handled: list[str] = []

    async def note(_update: object, _context: object) -> None:
        handled.append("note")

    async def press(_update: object, _context: object) -> None:
        handled.append("press")

    application.add_handler(CallbackQueryHandler(note), group=-1)
    application.add_handler(CallbackQueryHandler(press))
    application.add_handler(MessageHandler(filters.TEXT, press))
    timings = instrument(application)

    async def offline(_bot: object) -> None:  # no getMe: nothing here talks to Telegram
        return None

    monkeypatch.setattr(type(application.bot), "initialize", offline)
    monkeypatch.setattr(type(application.bot), "shutdown", offline)
    await application.initialize()
    user = User(7, "P", is_bot=False)
    chat = Chat(7, Chat.PRIVATE)
    message = Message(1, date=None, chat=chat, text="hi", from_user=user)  # type: ignore[arg-type]
    query = CallbackQuery("q", user, chat_instance="c", data="1:0:p:0", message=message)
    await application.process_update(Update(1, callback_query=query))
    await application.process_update(Update(2, message=message))
    assert handled == ["note", "press", "press"]
    assert [sample.kind for sample in timings.samples] == ["button:p", "text"]
    await application.shutdown()
