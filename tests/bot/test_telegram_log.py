"""What the log says when Telegram fails: a passing failure to get updates is a WARNING line
without a traceback, one the bot can act on an ERROR with it, an answer that is not JSON (a 502
page) one short WARNING line, and a flood of any of them is one line a minute."""

from __future__ import annotations

import json
import logging

import pytest
from telegram.error import BadRequest, Conflict, Forbidden, NetworkError, TimedOut

from bot.edge.telegram_log import (
    PTB_REQUEST_LOGGER,
    REPEAT_SECONDS,
    PollingErrors,
    _NotJsonAnswer,
    is_transient,
)

TOKEN = "123456789:AAFakeTokenForTests_abcdefghijklmno"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "bot.edge.telegram_log"]


@pytest.mark.parametrize(
    "error",
    [
        NetworkError("Bad Gateway"),  # what PTB raises for a 502 answer
        NetworkError("Internal Server Error"),
        NetworkError("httpx.RemoteProtocolError: Server disconnected without sending a response."),
        NetworkError("httpx.ConnectError: All connection attempts failed"),
        TimedOut("Timed out"),
    ],
)
def test_a_passing_failure_is_one_warning_line_without_a_traceback(
    error: NetworkError, caplog: pytest.LogCaptureFixture
) -> None:
    assert is_transient(error)
    caplog.set_level(logging.DEBUG)
    PollingErrors()(error)
    [record] = records(caplog)
    assert record.levelno == logging.WARNING
    assert record.exc_info is None
    assert str(error) in record.getMessage() and "\n" not in record.getMessage()


@pytest.mark.parametrize(
    "error",
    [
        Conflict("terminated by other getUpdates request"),
        BadRequest("Bad Request: wrong parameter"),
        Forbidden("Forbidden"),
    ],
)
def test_a_failure_the_bot_can_act_on_stays_an_error(
    error: Exception, caplog: pytest.LogCaptureFixture
) -> None:
    assert not is_transient(error)  # type: ignore[arg-type]
    PollingErrors()(error)  # type: ignore[arg-type]
    [record] = records(caplog)
    assert record.levelno == logging.ERROR
    assert record.exc_info is not None and record.exc_info[1] is error


def test_a_flood_is_one_line_a_minute_with_a_count(caplog: pytest.LogCaptureFixture) -> None:
    clock = Clock()
    errors = PollingErrors(clock=clock, every=60)
    for _ in range(10):  # PTB backs off to a retry every 30 s at most: 10 come in 4 minutes
        errors(NetworkError("Bad Gateway"))
        clock.now += 5
    assert len(records(caplog)) == 1
    clock.now += 60
    errors(NetworkError("Bad Gateway"))
    first, second = records(caplog)
    assert "more" not in first.getMessage()
    assert "(9 more since the last line)" in second.getMessage()
    assert second.levelno == logging.WARNING


def test_a_real_error_is_not_hidden_by_a_flood_of_passing_ones(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = Clock()
    errors = PollingErrors(clock=clock)
    errors(NetworkError("Bad Gateway"))
    errors(Conflict("terminated by other getUpdates request"))
    errors(NetworkError("Bad Gateway"))
    errors(Conflict("terminated by other getUpdates request"))
    assert [r.levelno for r in records(caplog)] == [logging.WARNING, logging.ERROR]


def test_the_token_is_never_written(caplog: pytest.LogCaptureFixture) -> None:
    PollingErrors(secret=TOKEN)(
        NetworkError(f"httpx.ConnectError: http://127.0.0.1:9/bot{TOKEN}/getUpdates")
    )
    [record] = records(caplog)
    assert TOKEN not in record.getMessage() and "<token>" in record.getMessage()


NGINX_502 = (
    "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
    "<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n"
    "</html>\r\n"
)


def _ptb_logs_a_page_that_is_not_json(page: str) -> None:
    """What PTB's request layer does with an answer that is not JSON."""
    try:
        json.loads(page)
    except ValueError:
        logger = logging.getLogger(PTB_REQUEST_LOGGER)
        logger.exception('Can not load invalid JSON data: "%s"', page)


def test_an_html_error_page_is_one_short_warning_line_and_not_one_per_retry(
    caplog: pytest.LogCaptureFixture,
) -> None:
    logger = logging.getLogger(PTB_REQUEST_LOGGER)
    clock = Clock()
    quiet = _NotJsonAnswer(clock)
    installed, logger.filters = logger.filters, [quiet]  # the bot's own, if a test installed it
    try:
        for _ in range(5):
            _ptb_logs_a_page_that_is_not_json(NGINX_502)
            clock.now += 1
        clock.now += REPEAT_SECONDS
        _ptb_logs_a_page_that_is_not_json("x" * 1000)
    finally:
        logger.filters = installed
    first, second = [r for r in caplog.records if r.name == PTB_REQUEST_LOGGER]
    for record in (first, second):
        assert record.levelno == logging.WARNING and record.exc_info is None
        assert "\n" not in record.getMessage() and len(record.getMessage()) < 250
    assert "502 Bad Gateway" in first.getMessage()
    assert "(4 more since the last line)" in second.getMessage()


def test_polling_failures_quote_the_status_not_the_page(caplog: pytest.LogCaptureFixture) -> None:
    page = NGINX_502.encode()
    PollingErrors()(NetworkError(f"Bad Gateway (502). Parsing the server response {page!r} failed"))
    [record] = records(caplog)
    assert record.getMessage().endswith("NetworkError: Bad Gateway (502)")
