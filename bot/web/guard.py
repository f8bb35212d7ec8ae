"""The web server's defence at the connection level: a cap on open connections, a time limit
for each request head (and for idle keep-alive connections), a time limit for request bodies,
and no library version in the ``Server`` header.

aiohttp has none of the first three: a connection may dribble its request head forever, and
every connection holds one of the process's file descriptors, the same ones the bot needs for
Telegram. So the listening socket's protocol factory is wrapped: each connection is counted
(one past the cap is closed at once) and carries a timer that runs whenever no request is being
handled on it, from the moment it opens and again after each answer. A request whose head has
arrived stops the timer (the middleware sees it); the head itself is what the timer waits for.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import cast

from aiohttp import web, web_response

log = logging.getLogger(__name__)

#: what the ``Server`` header says: nothing about which library or which version answers
SERVER_NAME = "cardbot"

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

#: where the middleware leaves a request's body time limit for whoever reads the body
BODY_TIMEOUT = web.RequestKey("body_timeout", float)


class BodyTooSlow(Exception):
    """A request's body did not arrive within its time limit (raised by the body's reader)."""


def neutral_server_header() -> None:
    """Every answer aiohttp makes names it and its version in ``Server``, including the 400s
    its parser sends before any of our code runs (a malformed head), so no middleware or
    response hook reaches them all: the one constant it fills the header from is replaced."""
    web_response.SERVER_SOFTWARE = SERVER_NAME  # type: ignore[attr-defined]


class ConnectionGuard:
    """Counts the server's connections and times the silent ones."""

    def __init__(
        self, *, max_connections: int, header_timeout: float, body_timeout: float
    ) -> None:
        self.max_connections = max_connections
        self.header_timeout = header_timeout
        self.body_timeout = body_timeout
        self._open: dict[asyncio.BaseTransport, _Guarded] = {}
        self.refused = 0  # connections closed at once, the cap being reached
        self._full = False  # said once per time the cap is reached, not per connection
        self.timed_out = 0  # connections closed for a head (or a body) that did not come

    @property
    def count(self) -> int:
        return len(self._open)

    def factory(self, inner: Callable[[], asyncio.Protocol]) -> Callable[[], asyncio.Protocol]:
        """The protocol factory to listen with, around aiohttp's (``AppRunner.server``)."""
        return lambda: _Guarded(self, inner)

    def _admit(self, connection: _Guarded, transport: asyncio.BaseTransport) -> bool:
        if len(self._open) >= self.max_connections:
            if not self._full:
                log.warning("web connections at the cap (%d): refusing new ones", self.count)
                self._full = True
            self.refused += 1
            return False
        self._full = False
        self._open[transport] = connection
        return True

    def _release(self, transport: asyncio.BaseTransport) -> None:
        self._open.pop(transport, None)

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """The head has arrived: stop the connection's timer until the answer is written
        (aiohttp writes it in the same task). The body is read by the handler that wants it,
        after its cheaper checks and no further than its own size limit
        (``bot.web.inputs.read_capped``), against the time limit left here for it; one that
        does not come in time is a 408 and the connection closes."""
        transport = request.transport
        connection = self._open.get(transport) if transport is not None else None
        task = asyncio.current_task()
        if connection is not None and task is not None:
            connection.busy()
            task.add_done_callback(lambda _task: connection.done())
        request[BODY_TIMEOUT] = self.body_timeout
        try:
            return await handler(request)
        except BodyTooSlow:
            self.timed_out += 1
            if connection is not None:
                # else aiohttp lingers on, reading what is left of the body for 10 s
                connection.close_after_answer = True
            response = web.json_response({"error": "request body too slow"}, status=408)
            response.force_close()
            return response


class _Guarded(asyncio.Protocol):
    """One connection: aiohttp's protocol inside, made only once the cap lets it in."""

    def __init__(self, guard: ConnectionGuard, factory: Callable[[], asyncio.Protocol]) -> None:
        self._guard = guard
        self._factory = factory
        self._inner: asyncio.Protocol | None = None
        self._transport: asyncio.Transport | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._running = 0  # requests being handled (pipelined ones overlap their ends)
        self.close_after_answer = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        stream = cast(asyncio.Transport, transport)
        if not self._guard._admit(self, stream):
            # closed before aiohttp sees it: no parser, no task, the descriptor freed now
            stream.abort()
            return
        self._transport = stream
        self._inner = self._factory()
        self._inner.connection_made(stream)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._transport is None:
            return
        self._guard._release(self._transport)
        self._transport = None
        if self._inner is not None:
            self._inner.connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._inner is not None:
            self._inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self._inner.eof_received() if self._inner is not None else None

    def pause_writing(self) -> None:
        if self._inner is not None:
            self._inner.pause_writing()

    def resume_writing(self) -> None:
        if self._inner is not None:
            self._inner.resume_writing()

    def busy(self) -> None:
        self._running += 1
        self._disarm()

    def done(self) -> None:
        self._running -= 1
        if self._running == 0:
            if self.close_after_answer and self._transport is not None:
                self._transport.close()  # after the answer is sent; the timer still runs
            self._arm()

    def _arm(self) -> None:
        self._disarm()
        if self._transport is not None:
            loop = asyncio.get_running_loop()
            self._timer = loop.call_later(self._guard.header_timeout, self._too_slow)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _too_slow(self) -> None:
        self._timer = None
        if self._transport is not None:
            self._guard.timed_out += 1
            # abort, not close: an idle peer that does not read would keep close() waiting
            self._transport.abort()
