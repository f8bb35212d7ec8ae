"""What the log says when Telegram's Bot API fails on its side.

Getting updates: PTB's polling loop retries every failure by itself (backing off up to 30 s)
and hands each one to an error callback, whose default logs it at ERROR with a traceback. Most
of those failures are Telegram's or the network's passing trouble (a 502 from its front, a
reset connection) that the next try gets past: worth one WARNING line, not a traceback per
retry. A failure the bot can do something about (another instance polling with the same
token, a refused request) stays an ERROR. Either way a flood of the same kind is one line per
:data:`REPEAT_SECONDS`, with a count of the lines it stands for.

Any call: an answer that is not JSON (the HTML page of a 502 from Telegram's nginx) makes PTB
log the page at ERROR with json's traceback before it raises the error the caller handles;
:func:`install_log_filter` makes that one WARNING line, the page cut short.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from telegram.error import BadRequest, NetworkError, TelegramError

log = logging.getLogger(__name__)

#: one line per kind of failure (passing or not) at most this often while they go on
REPEAT_SECONDS: Final = 60.0
#: how much of a server's answer a log line quotes
QUOTE_CHARS: Final = 160
#: the logger of PTB's request layer, which logs an answer that is not JSON
PTB_REQUEST_LOGGER: Final = "telegram.request.BaseRequest"
# PTB appends the whole answer to the error's text ("Bad Gateway (502). Parsing the server
# response b'<html>...' failed"); the status says it all
_PAYLOAD_SUFFIX: Final = ". Parsing the server response"


def is_transient(error: TelegramError) -> bool:
    """Whether ``error`` is trouble on the way to Telegram or on its side, which a retry gets
    past: PTB raises NetworkError (TimedOut is one) for a 5xx answer, a refused, reset or
    dropped connection and any other failure of the HTTP client. BadRequest is a NetworkError
    in PTB's tree too, but a 400 is a request Telegram will refuse again."""
    return isinstance(error, NetworkError) and not isinstance(error, BadRequest)


@dataclass
class _Repeats:
    last: float
    more: int = 0


class PollingErrors:
    """The updater's ``error_callback`` (PTB calls it synchronously; it must not raise).

    ``secret``: text never to write (the token: an HTTP error may quote the URL it asked).
    """

    def __init__(
        self,
        *,
        secret: str = "",
        every: float = REPEAT_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._secret = secret
        self._every = every
        self._clock = clock
        self._repeats: dict[bool, _Repeats] = {}

    def __call__(self, error: TelegramError) -> None:
        transient = is_transient(error)
        now = self._clock()
        repeats = self._repeats.get(transient)
        if repeats is not None and now - repeats.last < self._every:
            repeats.more += 1
            return
        more = "" if repeats is None or not repeats.more else (
            f" ({repeats.more} more since the last line)"
        )
        self._repeats[transient] = _Repeats(now)
        what = f"{type(error).__name__}: {_short(str(error).split(_PAYLOAD_SUFFIX, 1)[0])}"
        if self._secret:
            what = what.replace(self._secret, "<token>")
        if transient:
            log.warning("getting updates from Telegram failed, retrying: %s%s", what, more)
        else:
            log.error(
                "getting updates from Telegram failed, retrying: %s%s", what, more, exc_info=error
            )


def _short(text: str) -> str:
    """``text`` on one line and at most :data:`QUOTE_CHARS` long."""
    flat = " ".join(text.split())
    return flat if len(flat) <= QUOTE_CHARS else flat[: QUOTE_CHARS - 1] + "…"


class _NotJsonAnswer(logging.Filter):
    """PTB's "Can not load invalid JSON data" record as one WARNING line, at most one per
    :data:`REPEAT_SECONDS`: the error PTB raises next reaches whoever made the call, who logs
    it at the level it deserves (a retried send, a polling failure); json's traceback, the
    whole HTML page and a copy per retry add nothing to that."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self._clock = clock
        self._repeats: _Repeats | None = None

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.ERROR or record.exc_info is None:
            return True
        now = self._clock()
        if self._repeats is not None and now - self._repeats.last < REPEAT_SECONDS:
            self._repeats.more += 1
            return False
        more = self._repeats.more if self._repeats is not None else 0
        self._repeats = _Repeats(now)
        answer = _short(record.getMessage().partition(": ")[2].strip('"'))
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        record.exc_info, record.exc_text = None, None
        record.msg = "Telegram answered with something that is not JSON: %s%s"
        record.args = (answer, f" ({more} more since the last line)" if more else "")
        return True


_NOT_JSON = _NotJsonAnswer()


def install_log_filter() -> None:
    """Put the filter on PTB's request logger (once: adding the same filter again is a no-op)."""
    logging.getLogger(PTB_REQUEST_LOGGER).addFilter(_NOT_JSON)
