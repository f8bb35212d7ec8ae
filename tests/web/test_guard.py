"""The web server's connection-level defence, on the real server with raw sockets: a head
that does not come in time closes the connection (dribbling does not help), idle keep-alive
connections close too, a slow body gets 408, connections past the cap are closed at once
while those under it are served, and no answer names aiohttp's version."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
from aiohttp import web

from bot.config import Settings
from bot.web.guard import SERVER_NAME
from bot.web.http import HttpServer
from bot.web.inputs import read_capped

HEAD = b"GET /ok HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


class _Server(HttpServer):
    """The bot's server with two routes of its own: ``/ok``, and ``/hold`` that answers
    only once the test lets it."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.release = asyncio.Event()
        self.holding = asyncio.Event()

    def application(self) -> web.Application:
        app = super().application()
        app.router.add_get("/ok", self._ok)
        app.router.add_post("/ok", self._echo)
        app.router.add_get("/hold", self._hold)
        return app

    async def _ok(self, _request: web.Request) -> web.StreamResponse:
        return web.json_response({"ok": True})

    async def _echo(self, request: web.Request) -> web.StreamResponse:
        # as the bot's own handlers read a body: within the guard's time and a size cap
        return web.json_response({"got": len(await read_capped(request, 1 << 20))})

    async def _hold(self, _request: web.Request) -> web.StreamResponse:
        self.holding.set()
        await self.release.wait()
        return web.json_response({"held": True})


@contextlib.asynccontextmanager
async def serving(**kwargs: Any) -> AsyncIterator[_Server]:
    server = _Server(**kwargs)
    await server.start("127.0.0.1", 0)
    try:
        yield server
    finally:
        await server.stop()


@contextlib.asynccontextmanager
async def raw(port: int) -> AsyncIterator[tuple[asyncio.StreamReader, asyncio.StreamWriter]]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        yield reader, writer
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()


async def until_closed(reader: asyncio.StreamReader, timeout: float = 5.0) -> bytes:
    """Everything the server sends until it closes the connection (a reset counts)."""
    received = b""
    async with asyncio.timeout(timeout):
        try:
            while chunk := await reader.read(65536):
                received += chunk
        except ConnectionResetError:
            pass
    return received


async def answer(reader: asyncio.StreamReader) -> tuple[int, dict[str, str], bytes]:
    """One HTTP answer on a kept-alive connection: status, headers, body."""
    async with asyncio.timeout(5.0):
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode().split("\r\n")
        headers = {
            name.lower(): value.strip()
            for name, _, value in (line.partition(":") for line in lines[1:] if line)
        }
        body = await reader.readexactly(int(headers.get("content-length", "0")))
    return int(lines[0].split()[1]), headers, body


async def get_ok(port: int) -> int:
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"http://127.0.0.1:{port}/ok") as response,
    ):
        assert (await response.json()) == {"ok": True}
        return response.status


async def test_a_head_that_does_not_come_closes_the_connection() -> None:
    async with serving(header_timeout=0.4) as server, raw(server.port) as (reader, writer):
        opened = time.monotonic()
        writer.write(b"GET /ok HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # no blank line: no end
        await writer.drain()
        # meanwhile a whole request is answered
        assert await get_ok(server.port) == 200
        assert await until_closed(reader) == b""
        assert time.monotonic() - opened >= 0.3
        assert server.guard.timed_out == 1
        assert server.guard.count == 0


async def test_dribbling_a_head_does_not_keep_the_connection() -> None:
    async with serving(header_timeout=0.5) as server, raw(server.port) as (reader, writer):
        opened = time.monotonic()
        writer.write(b"GET /ok HTTP/1.1\r\n")

        async def dribble() -> None:
            # a header line every 50 ms: data keeps coming, a head never ends
            with contextlib.suppress(ConnectionError):
                for _ in range(200):
                    writer.write(b"X-Slow: 1\r\n")
                    await writer.drain()
                    await asyncio.sleep(0.05)

        dribbler = asyncio.create_task(dribble())
        try:
            assert await until_closed(reader, timeout=5.0) == b""
        finally:
            dribbler.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await dribbler
        assert time.monotonic() - opened < 4.0  # long before the dribble would have ended
        assert server.guard.timed_out == 1


async def test_an_idle_kept_alive_connection_closes_and_a_busy_one_does_not() -> None:
    async with serving(header_timeout=0.4) as server:
        async with raw(server.port) as (reader, writer):
            writer.write(HEAD)
            status, _headers, body = await answer(reader)
            assert status == 200 and json.loads(body) == {"ok": True}
            # the answer is in; the connection now idles and is closed as a slow head is
            assert await until_closed(reader) == b""
        assert server.guard.timed_out == 1
        # a request still being handled is never timed out: another connection times out
        # while /hold waits, and /hold then answers on its connection
        async with raw(server.port) as (reader, writer):
            writer.write(b"GET /hold HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            await asyncio.wait_for(server.holding.wait(), 5.0)
            async with raw(server.port) as (idle_reader, _idle_writer):
                assert await until_closed(idle_reader) == b""
            assert server.guard.timed_out == 2
            server.release.set()
            status, _headers, body = await answer(reader)
            assert status == 200 and json.loads(body) == {"held": True}
            # and the next request on it, within the time, is answered too
            writer.write(HEAD)
            status, _headers, _body = await answer(reader)
            assert status == 200


async def test_a_body_that_does_not_come_gets_408_and_a_whole_one_is_read() -> None:
    async with serving(body_timeout=0.3, header_timeout=30.0) as server:
        async with raw(server.port) as (reader, writer):
            writer.write(
                b"POST /ok HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n0123456789"
            )
            # closed once answered (not after aiohttp's 10 s of reading what is left)
            received = await until_closed(reader, timeout=3.0)
        assert received.startswith(b"HTTP/1.1 408 ")
        assert json.loads(received.partition(b"\r\n\r\n")[2]) == {"error": "request body too slow"}
        assert server.guard.timed_out == 1
        async with aiohttp.ClientSession() as session:
            url = f"http://127.0.0.1:{server.port}/ok"
            async with session.post(url, data=b"x" * 5000) as response:
                assert response.status == 200
                assert await response.json() == {"got": 5000}


async def test_connections_past_the_cap_are_closed_at_once_and_those_under_it_served() -> None:
    async with serving(max_connections=3, header_timeout=30.0) as server:
        async with contextlib.AsyncExitStack() as stack:
            held = [await stack.enter_async_context(raw(server.port)) for _ in range(3)]
            await _until(lambda: server.guard.count == 3)
            for _ in range(5):
                async with raw(server.port) as (reader, writer):
                    writer.write(HEAD)
                    # closed without an answer, long before any time-out
                    assert await until_closed(reader, timeout=2.0) == b""
            assert server.guard.refused == 5
            assert server.guard.count == 3
            for reader, writer in held:  # the three let in are served as usual
                writer.write(HEAD)
                status, _headers, _body = await answer(reader)
                assert status == 200
            _reader, closing_writer = held.pop()
            closing_writer.close()
            await _until(lambda: server.guard.count == 2)
            assert await get_ok(server.port) == 200  # room again
        await _until(lambda: server.guard.count == 0)


async def test_no_answer_names_the_library_or_its_version() -> None:
    async with serving() as server:
        async with raw(server.port) as (reader, writer):
            writer.write(HEAD)
            _status, headers, _body = await answer(reader)
            assert headers["server"] == SERVER_NAME
            writer.write(b"GET /nowhere HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            status, headers, _body = await answer(reader)
            assert status == 404 and headers["server"] == SERVER_NAME
        # a head aiohttp's parser refuses is answered before any of our code runs
        async with raw(server.port) as (reader, writer):
            writer.write(b"NOT HTTP AT ALL\r\n\r\n")
            received = await until_closed(reader)
        assert received.split(b"\r\n")[0].endswith(b" 400 Bad Request")
        assert b"aiohttp" not in received.lower() and b"python" not in received.lower()
        assert f"Server: {SERVER_NAME}\r\n".encode() in received


async def _until(condition: Any, timeout: float = 5.0) -> None:
    """Wait for a condition the event loop brings about (a connection made or lost)."""
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.01)


def test_the_defaults_leave_telegram_its_file_descriptors() -> None:
    settings = Settings(telegram_bot_token="1:a")
    # well under the usual 1,024 open files, with room for Telegram's and the database's
    assert settings.web_max_connections <= 512
    assert 0 < settings.web_header_timeout <= 30 and 0 < settings.web_body_timeout <= 60
    guard = HttpServer().guard  # the server's own defaults are the settings'
    assert guard.max_connections == settings.web_max_connections
    assert guard.header_timeout == settings.web_header_timeout
    assert guard.body_timeout == settings.web_body_timeout
