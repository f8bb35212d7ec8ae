"""No log floods: a warning or error that repeats is written once per interval, and the next
one written says how many were left out.

A fault that repeats at network speed (file descriptors exhausted: every accept, every request
to Telegram failing with a traceback) once wrote 1.7 million tracebacks, 760 MB, in 3.5
minutes. Repeats are told apart by where they come from and what they say before their
arguments are filled in (the first line only: asyncio puts object reprs after it, as in
"socket.accept() out of system resource"), so a flood from one place is one key, however its
arguments differ.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

#: kinds of message remembered at once (a message made with an f-string is a new kind each
#: time: the oldest are forgotten rather than memory growing)
KEEP = 1024
#: characters of a message's first line that make its kind
KIND_CHARS = 200

Key = tuple[str, int, str, str]


@dataclass
class _Seen:
    since: float  # when the last line of this kind was written
    left_out: int = 0


class RepeatFilter(logging.Filter):
    """A handler's filter: records at ``level`` or above pass once per ``interval`` seconds
    for each kind; below ``level`` everything passes."""

    def __init__(
        self,
        interval: float,
        *,
        level: int = logging.WARNING,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        self.interval = interval
        self.level = level
        self.clock = clock
        self._seen: OrderedDict[Key, _Seen] = OrderedDict()
        self._lock = threading.Lock()  # records come from worker threads too

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < self.level:
            return True
        key = _kind(record)
        now = self.clock()
        with self._lock:
            seen = self._seen.get(key)
            if seen is not None and now - seen.since < self.interval:
                seen.left_out += 1
                return False
            left_out = seen.left_out if seen is not None else 0
            self._seen[key] = _Seen(now)
            self._seen.move_to_end(key)
            while len(self._seen) > KEEP:
                self._seen.popitem(last=False)
        if left_out:
            # no % in what is added: the record's own arguments are still to be filled in
            record.msg = (
                f"{record.msg} [and {left_out} more like this in the "
                f"{_seconds(now - seen.since if seen else 0.0)} before, left out]"
            )
        return True


def install(interval: float, logger: logging.Logger | None = None) -> None:
    """Put the filter on every handler of ``logger`` (the root by default): a filter on a
    logger would miss the records its children pass up."""
    for handler in (logger or logging.getLogger()).handlers:
        if not any(isinstance(f, RepeatFilter) for f in handler.filters):
            handler.addFilter(RepeatFilter(interval))


def _kind(record: logging.LogRecord) -> Key:
    first_line = str(record.msg).partition("\n")[0][:KIND_CHARS]
    error = record.exc_info[0].__name__ if record.exc_info and record.exc_info[0] else ""
    return (record.name, record.levelno, first_line, error)


def _seconds(value: float) -> str:
    return f"{value:.0f} s"
