"""The log filter: a flood of one warning is one line per interval and a count of the rest,
whatever its arguments; different warnings, and everything below WARNING, pass untouched."""

from __future__ import annotations

import asyncio
import logging
import re
import socket
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.edge import logfilter
from bot.edge.logfilter import RepeatFilter


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Lines(logging.Handler):
    """What a handler with the filter writes, as formatted lines."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []
        self.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@pytest.fixture
def logged() -> Iterator[tuple[Lines, Clock, logging.Logger]]:
    clock = Clock()
    handler = Lines()
    handler.addFilter(RepeatFilter(60.0, clock=clock))
    parent = logging.getLogger("test_logfilter")
    parent.addHandler(handler)
    parent.propagate = False
    parent.setLevel(logging.DEBUG)
    try:
        yield handler, clock, parent
    finally:
        parent.removeHandler(handler)
        parent.propagate = True


def test_a_flood_of_one_error_is_one_line_then_one_line_with_the_count(
    logged: tuple[Lines, Clock, logging.Logger],
) -> None:
    handler, clock, parent = logged
    log = parent.getChild("web")  # a child's records reach the handler, and its filter
    for index in range(10_000):
        try:
            raise OSError(24, "Too many open files")
        except OSError:
            log.exception("request %d from %s failed", index, f"10.0.0.{index % 250}")
        clock.now += 0.001
    assert len(handler.lines) == 1
    assert handler.lines[0].startswith("ERROR test_logfilter.web: request 0 from 10.0.0.0 failed")
    assert "Too many open files" in handler.lines[0]  # the first keeps its traceback
    log.error("request %d from %s failed", 0, "10.0.0.1")  # no traceback: another kind
    assert len(handler.lines) == 2
    clock.now += 60.0
    try:
        raise OSError(24, "Too many open files")
    except OSError:
        log.exception("request %d from %s failed", 10_000, "10.0.0.1")
        clock.now += 60.0
        log.exception("request %d from %s failed", 10_001, "10.0.0.1")
    assert len(handler.lines) == 4
    assert handler.lines[2].startswith("ERROR test_logfilter.web: request 10000 from 10.0.0.1")
    assert "and 9999 more like this in the 70 s before, left out" in handler.lines[2]
    assert "more like this" not in handler.lines[3]  # none left out since


def test_other_messages_and_info_pass(logged: tuple[Lines, Clock, logging.Logger]) -> None:
    handler, _clock, parent = logged
    for index in range(50):
        parent.info("game %d started", index)
        parent.warning("game %d: a view failed", index)
        parent.warning("the cap is reached")
        parent.error("game %d: a view failed", index)
    assert sum("started" in line for line in handler.lines) == 50
    assert sum(line.startswith("WARNING") and "view failed" in line for line in handler.lines) == 1
    assert sum(line.startswith("ERROR") and "view failed" in line for line in handler.lines) == 1
    assert sum("cap is reached" in line for line in handler.lines) == 1


def test_asyncios_accept_failures_are_one_kind(
    logged: tuple[Lines, Clock, logging.Logger],
) -> None:
    """asyncio writes each failure as one message with the objects' reprs after its first
    line: the first line makes the kind."""
    handler, _clock, _parent = logged
    asyncio_log = logging.getLogger("asyncio")
    asyncio_log.addHandler(handler)
    asyncio_log.propagate = False
    loop = asyncio.new_event_loop()
    try:
        for _ in range(200):
            with socket.socket() as listening:
                loop.call_exception_handler(
                    {
                        "message": "socket.accept() out of system resource",
                        "exception": OSError(24, "Too many open files"),
                        "socket": listening,
                    }
                )
    finally:
        loop.close()
        asyncio_log.removeHandler(handler)
        asyncio_log.propagate = True
    assert len(handler.lines) == 1
    assert handler.lines[0].startswith("ERROR asyncio: socket.accept() out of system resource")


def test_install_puts_the_filter_on_the_handlers_once() -> None:
    logger = logging.getLogger("test_logfilter.install")
    handler = Lines()
    logger.addHandler(handler)
    try:
        logfilter.install(60.0, logger)
        logfilter.install(60.0, logger)
        assert sum(isinstance(f, RepeatFilter) for f in handler.filters) == 1
    finally:
        logger.removeHandler(handler)


@given(
    st.lists(
        st.tuples(st.sampled_from(["a %s", "b %s", "c %s"]), st.floats(0.0, 90.0)),
        min_size=1,
        max_size=200,
    )
)
def test_every_record_is_written_or_counted(events: list[tuple[str, float]]) -> None:
    """However records come, each is either written or counted in the next line of its kind,
    and no kind writes two lines less than an interval apart."""
    clock = Clock()
    repeat = RepeatFilter(60.0, clock=clock)
    written: dict[str, list[float]] = {}
    counted: dict[str, int] = {}
    for message, gap in events:
        clock.now += gap
        record = logging.LogRecord("x", logging.WARNING, __file__, 1, message, ("1",), None)
        if repeat.filter(record):
            times = written.setdefault(message, [])
            assert not times or clock.now - times[-1] >= 60.0
            times.append(clock.now)
            said = re.search(r"and (\d+) more like this", record.getMessage())
            counted[message] = counted.get(message, 0) + (int(said.group(1)) if said else 0)
    pending = {key[2]: seen.left_out for key, seen in repeat._seen.items()}
    for message in {m for m, _gap in events}:
        total = sum(1 for m, _gap in events if m == message)
        assert len(written[message]) + counted.get(message, 0) + pending[message] == total
