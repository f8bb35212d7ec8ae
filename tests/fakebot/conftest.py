"""Makes the fake's fixtures available to its own tests (and shows how others import them)."""

from tests.fakebot.fixtures import fake_telegram, fake_telegram_options

__all__ = ["fake_telegram", "fake_telegram_options"]
