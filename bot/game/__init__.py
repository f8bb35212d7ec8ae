"""The rules engines: pure Python, no I/O, no asyncio, no Telegram."""

from bot.game.common import Combo, IllegalPlay, Reason, Result, SeatView

__all__ = ["Combo", "IllegalPlay", "Reason", "Result", "SeatView"]
