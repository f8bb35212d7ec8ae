"""A fake Telegram Bot API server for end-to-end tests of the bot with the real PTB stack.

See :mod:`fakebot.server` for the server (its parts: :mod:`.world`, :mod:`.acting` and
:mod:`.reading` are the test-facing API; :mod:`.updates`, :mod:`.methods`, :mod:`.messages`
and :mod:`.faults` the Bot API side; :mod:`.state` what they share), :mod:`.validator` and
:mod:`.prose` for the validation against the official ``api.json`` (:mod:`.spec`),
:mod:`.formatting` for entity parsing, :mod:`.limits` for flood limits and clocks,
:mod:`.fixtures` for the pytest fixture.
"""

from fakebot.errors import ApiError
from fakebot.limits import ManualClock, ScaledClock
from fakebot.models import (
    CallbackAnswer,
    CallbackResult,
    FakeChat,
    FakeMessage,
    FakeUser,
    Fault,
    LimitViolation,
    Rejection,
    RequestRecord,
)
from fakebot.server import FakeTelegram
from fakebot.spec import ApiSpec
from fakebot.validator import Validator

__all__ = [
    "ApiError",
    "ApiSpec",
    "CallbackAnswer",
    "CallbackResult",
    "FakeChat",
    "FakeMessage",
    "FakeTelegram",
    "FakeUser",
    "Fault",
    "LimitViolation",
    "ManualClock",
    "Rejection",
    "RequestRecord",
    "ScaledClock",
    "Validator",
]
