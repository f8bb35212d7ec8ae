"""The fake Bot API server's fixtures (``fake_telegram``, ``fake_telegram_options``) for every
test that runs the bot against it."""

from fakebot.fixtures import fake_telegram, fake_telegram_options

__all__ = ["fake_telegram", "fake_telegram_options"]
