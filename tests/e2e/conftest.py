from tests.fakebot.fixtures import fake_telegram, fake_telegram_options  # noqa: F401
