"""A Telegram bot hosting the Chinese climbing card games 绍兴双扣 and 通化刨王."""

import os

# python-telegram-bot 22 moves time periods (RetryAfter.retry_after, ...) from int seconds
# to datetime.timedelta; PTB_TIMEDELTA opts in now, so reading them raises no deprecation
# warning and the bot is ready for the next major version (the outbox reads both).
os.environ.setdefault("PTB_TIMEDELTA", "true")

__version__ = "0.1.0"
