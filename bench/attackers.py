"""The attackers of ``bench.attack``: clients of the web table that misbehave on purpose.

Each one runs for a bounded time and gives up on every single operation after a time-out, so
a bot that refuses, closes or never answers ends the attack on time instead of hanging it: a
hardened bot is expected to do exactly that. What each saw comes back as counts.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import aiohttp

from bot.game import shuangkou

#: seconds any one client operation (connect, send, read) may take before it counts as refused
OP_TIMEOUT = 10.0
SLOW_HEAD = b"GET /api/state?game=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: " + b"a" * 200


@dataclass
class SlowResult:
    """Slow connections: how the bot treated them."""

    tried: int
    connected: int = 0
    not_connected: Counter[str] = field(default_factory=Counter)  # why, by error
    closed_by_bot: int = 0  # EOF or an answer before the attack ended
    answers: Counter[str] = field(default_factory=Counter)  # first line of what the bot said
    open_at_end: int = 0
    bytes_sent: int = 0


async def slow_connections(
    host: str, port: int, count: int, interval: float, seconds: float, open_rate: float
) -> SlowResult:
    """``count`` connections that send a request head one byte every ``interval`` seconds
    (each at its own phase) for ``seconds``, opened at ``open_rate`` a second."""
    result = SlowResult(count)
    deadline = time.monotonic() + seconds
    rng = random.Random(1)

    async def one(index: int) -> None:
        await asyncio.sleep(index / open_rate)
        try:
            async with asyncio.timeout(OP_TIMEOUT):
                reader, writer = await asyncio.open_connection(host, port)
        except (OSError, TimeoutError) as error:
            result.not_connected[type(error).__name__] += 1
            return
        result.connected += 1
        closed = asyncio.create_task(reader.read(200))  # EOF, or the bot's answer
        try:
            await asyncio.wait({closed}, timeout=rng.uniform(0, interval))
            for byte in SLOW_HEAD:
                if closed.done() or time.monotonic() >= deadline:
                    break
                writer.write(bytes((byte,)))
                result.bytes_sent += 1
                await asyncio.wait({closed}, timeout=min(interval, deadline - time.monotonic()))
            if closed.done():
                result.closed_by_bot += 1
                if closed.exception() is not None:
                    result.answers[type(closed.exception()).__name__] += 1
                else:
                    said = closed.result().split(b"\r\n", 1)[0].decode(errors="replace")
                    result.answers[said or "EOF"] += 1
            else:
                result.open_at_end += 1
        except OSError:
            result.closed_by_bot += 1
            result.answers["reset"] += 1
        finally:
            closed.cancel()
            with contextlib.suppress(BaseException):
                await closed
            writer.transport.abort()

    await asyncio.gather(*(one(n) for n in range(count)))
    return result


@dataclass
class HttpTally:
    """HTTP requests an attacker made: answers by status (or error), and how long they took."""

    statuses: Counter[str] = field(default_factory=Counter)
    seconds: list[float] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)  # request bodies sent, bytes

    def add(self, status: str, began: float) -> None:
        self.statuses[status] += 1
        self.seconds.append(time.perf_counter() - began)


async def _get(session: aiohttp.ClientSession, url: str, headers: dict[str, str]) -> str:
    async with asyncio.timeout(OP_TIMEOUT), session.get(url, headers=headers) as response:
        await response.read()
        return str(response.status)


async def state_pollers(
    session: aiohttp.ClientSession,
    base: str,
    init_datas: Sequence[str],
    game: int,
    seconds: float,
) -> HttpTally:
    """One client per ``init_datas`` asking ``GET /api/state`` again as soon as answered."""
    tally = HttpTally()
    deadline = time.monotonic() + seconds
    url = f"{base}api/state?game={game}"

    async def client(init_data: str) -> None:
        headers = {"Authorization": f"tma {init_data}"}
        while time.monotonic() < deadline:
            began = time.perf_counter()
            try:
                tally.add(await _get(session, url, headers), began)
            except (aiohttp.ClientError, TimeoutError, OSError) as error:
                tally.add(type(error).__name__, began)
                await asyncio.sleep(0.1)  # a refused connection is not retried in a hot loop

    await asyncio.gather(*(client(i) for i in init_datas))
    return tally


@dataclass
class SocketTally:
    """Live sockets an attacker opened: how many the bot took, viewed, and kept."""

    tried: int
    opened: int = 0
    first_views: int = 0
    refused: Counter[str] = field(default_factory=Counter)  # why a socket did not open or view
    closed_by_bot: int = 0  # closed before the attack ended
    open_at_end: int = 0


async def live_sockets(
    session: aiohttp.ClientSession,
    base: str,
    init_datas: Sequence[str],
    game: int,
    seconds: float,
    open_rate: float,
) -> SocketTally:
    """A live socket per ``init_datas`` (the same one many times, for one user's many),
    opened at ``open_rate`` a second, each held until ``seconds`` from the start."""
    tally = SocketTally(len(init_datas))
    deadline = time.monotonic() + seconds

    async def one(index: int, init_data: str) -> None:
        await asyncio.sleep(index / open_rate)
        if time.monotonic() >= deadline:
            tally.refused["not opened in time"] += 1
            return
        try:
            async with asyncio.timeout(OP_TIMEOUT):
                socket = await session.ws_connect(f"{base}api/live", heartbeat=None)
        except (aiohttp.ClientError, TimeoutError, OSError) as error:
            tally.refused[type(error).__name__] += 1
            return
        tally.opened += 1
        try:
            async with asyncio.timeout(OP_TIMEOUT):
                await socket.send_str(json.dumps({"auth": init_data, "game": game}))
                first = await socket.receive()
            if first.type != aiohttp.WSMsgType.TEXT or '"seq"' not in first.data:
                tally.refused[f"no view ({first.type.name}, code {socket.close_code})"] += 1
                return
            tally.first_views += 1
            try:
                async with asyncio.timeout(max(0.0, deadline - time.monotonic())):
                    async for message in socket:
                        if message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.ERROR):
                            break
                tally.closed_by_bot += 1
            except TimeoutError:
                tally.open_at_end += 1
        except (aiohttp.ClientError, TimeoutError, OSError) as error:
            tally.refused[type(error).__name__] += 1
        finally:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(OP_TIMEOUT):
                    await socket.close()

    await asyncio.gather(*(one(n, i) for n, i in enumerate(init_datas)))
    return tally


def big_body(game: int, size: int) -> bytes:
    """A ``POST /api/action`` body of about ``size`` bytes: a play of valid card codes, so
    that a server which reads the cards before it asks whose seat it is reads every one."""
    codes = [int(card) for card in shuangkou.Game.deal(seed=1).hands[0]]
    head = json.dumps({"game": game, "kind": "play", "cards": []})[:-2]
    parts = [head]
    length = len(head) + 2
    index = 0
    while length + 6 < size:
        text = str(codes[index % len(codes)])
        parts.append(text if index == 0 else ", " + text)
        length += len(parts[-1])
        index += 1
    parts.append("]}")
    return "".join(parts).encode()


async def big_bodies(
    session: aiohttp.ClientSession,
    base: str,
    init_data: str,
    body: bytes,
    count: int,
    seconds: float,
) -> HttpTally:
    """``count`` posts of ``body`` to ``/api/action``, started evenly over ``seconds``."""
    tally = HttpTally()
    headers = {"Authorization": f"tma {init_data}", "Content-Type": "application/json"}

    async def one(index: int) -> None:
        await asyncio.sleep(index * seconds / max(1, count))
        began = time.perf_counter()
        try:
            async with (
                asyncio.timeout(OP_TIMEOUT),
                session.post(f"{base}api/action", data=body, headers=headers) as response,
            ):
                await response.read()
                tally.add(str(response.status), began)
        except (aiohttp.ClientError, TimeoutError, OSError) as error:
            tally.add(type(error).__name__, began)
        tally.sizes.append(len(body))

    await asyncio.gather(*(one(n) for n in range(count)))
    return tally
