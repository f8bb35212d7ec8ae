"""A Telegram bot hosting the Chinese climbing card games 绍兴双扣 and 通化刨王."""

__version__ = "0.1.0"
