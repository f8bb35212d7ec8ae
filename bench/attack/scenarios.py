"""The attacks, and one attack measured: the probes alongside, what it cost the bot."""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from bench.attack.bot import BotRun, Monitor
from bench.attack.probes import Probes, World, probe, timed
from bench.attack.report import secs
from bench.attackers import (
    HttpTally,
    SlowResult,
    SocketTally,
    big_bodies,
    big_body,
    live_sockets,
    slow_connections,
    state_pollers,
)
from bench.botrun import percentile
from bot.presentation.callbacks import Act, Callback
from fakebot.miniapp import init_data_for

ATTACKS = ("slow", "spectators", "bodies", "sockets", "presses")


@dataclass
class Measured:
    name: str
    seconds: float = 0.0
    probes: Probes = field(default_factory=Probes)
    cpu: float = 0.0  # the bot's CPU seconds in the attack
    rss_before: int = 0
    rss_peak: int = 0
    rss_after: int = 0
    files_before: int = 0
    files_peak: int = 0
    nofile: int | None = None
    log_bytes: int = 0
    member_calls: int = 0  # getChatMember requests the bot made
    bot_calls: Counter[str] = field(default_factory=Counter)  # every request, by method
    own_cpu: float = 0.0  # this process's (the fake, the attackers, the probes)
    load: float = 0.0  # the machine's 1-minute load average as the attack ended
    outcome: str = ""  # what the attacker saw, in words
    detail: Any = None


Attack = Callable[[World, BotRun, float], Awaitable[tuple[str, Any]]]


async def measured(
    world: World, bot: BotRun, name: str, seconds: float, attack: Attack, args: argparse.Namespace
) -> Measured:
    """Run ``attack`` for ``seconds`` with the probes alongside, and what it cost the bot."""
    fake = world.fake
    result = Measured(name, nofile=bot.nofile)
    monitor = Monitor(bot.pid)
    log0, first, own0 = bot.log_size(), len(fake.requests), time.process_time()
    began = time.monotonic()
    attacking = asyncio.ensure_future(attack(world, bot, seconds))
    result.probes = await probe(world, seconds, args)
    result.outcome, result.detail = await attacking
    result.seconds = time.monotonic() - began
    last = await monitor.stop()
    result.cpu = last.cpu - monitor.first.cpu
    result.rss_before, result.rss_peak, result.rss_after = (
        monitor.first.rss,
        monitor.peak_rss,
        last.rss,
    )
    result.files_before, result.files_peak = monitor.first.files, monitor.peak_files
    result.log_bytes = bot.log_size() - log0
    result.own_cpu = time.process_time() - own0
    result.load = os.getloadavg()[0]
    window = fake.requests[first:]
    result.bot_calls = Counter(r.method for r in window if r.method != "getUpdates")
    result.member_calls = result.bot_calls["getChatMember"]
    return result


def _session() -> aiohttp.ClientSession:
    # no pool limit, no reuse between attackers: every client is its own connection
    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0, force_close=True))


def _base(bot: BotRun) -> str:
    return f"http://127.0.0.1:{bot.port}/"


def _tally_words(tally: HttpTally) -> str:
    answers = ", ".join(f"{k} ×{v}" for k, v in tally.statuses.most_common())
    took = (
        f"; answered in p50 {secs(percentile(tally.seconds, 50))} / p99 "
        f"{secs(percentile(tally.seconds, 99))} s"
    )
    return f"{sum(tally.statuses.values())} requests ({answers or 'none'}){took}"


def _sockets_words(tally: SocketTally) -> str:
    refused = ", ".join(f"{k} ×{v}" for k, v in tally.refused.most_common(3))
    return (
        f"{tally.opened} of {tally.tried} sockets opened, {tally.first_views} got a view, "
        f"{tally.closed_by_bot} closed by the bot, {tally.open_at_end} open at the end"
        + (f"; refused: {refused}" if refused else "")
    )


def slow_attack(args: argparse.Namespace) -> Attack:
    async def run(world: World, bot: BotRun, seconds: float) -> tuple[str, Any]:
        found: SlowResult = await slow_connections(
            "127.0.0.1", bot.port, args.slow, args.slow_interval, seconds, args.open_rate
        )
        failed = ", ".join(f"{k} ×{v}" for k, v in found.not_connected.most_common())
        said = ", ".join(f"{k!r} ×{v}" for k, v in found.answers.most_common(3))
        return (
            f"{found.connected} of {found.tried} connected"
            + (f" (not: {failed})" if failed else "")
            + f", {found.closed_by_bot} closed by the bot"
            + (f" ({said})" if said else "")
            + f", {found.open_at_end} still open at the end; {found.bytes_sent} bytes sent "
            "(the kernel completes connections the bot has not accepted: its open files say "
            "how many it took)",
            found,
        )

    return run


def spectators_attack(args: argparse.Namespace) -> Attack:
    async def run(world: World, bot: BotRun, seconds: float) -> tuple[str, Any]:
        pollers = world.spectators[: args.pollers]
        watchers = world.spectators[args.pollers : args.pollers + args.spectator_sockets]
        game = world.games[0]
        async with _session() as session:
            polled, watched = await asyncio.gather(
                state_pollers(
                    session, _base(bot), [world.init_data(u) for u in pollers], game, seconds
                ),
                live_sockets(
                    session,
                    _base(bot),
                    [world.init_data(u) for u in watchers],
                    game,
                    seconds,
                    args.open_rate,
                ),
            )
        return (
            f"`GET /api/state` by {len(pollers)} clients: {_tally_words(polled)}; live "
            f"sockets: {_sockets_words(watched)}",
            (polled, watched),
        )

    return run


def bodies_attack(args: argparse.Namespace) -> Attack:
    async def run(world: World, bot: BotRun, seconds: float) -> tuple[str, Any]:
        body = big_body(world.games[0], args.body_bytes)
        outsider = world.spectators[0]
        async with _session() as session:
            tally = await big_bodies(
                session, _base(bot), world.init_data(outsider), body, args.bodies, seconds
            )
        cards = body.count(b",") + 1
        return (
            f"{args.bodies} bodies of {len(body):,} bytes ({cards:,} card codes): "
            + _tally_words(tally),
            tally,
        )

    return run


def sockets_attack(args: argparse.Namespace) -> Attack:
    async def run(world: World, bot: BotRun, seconds: float) -> tuple[str, Any]:
        hand = world.to_act()
        acting = hand[0] if hand is not None else None
        seated = next(u for u in world.target.people if u != acting)
        init_data = init_data_for(world.fake.token, seated, "攻击者")
        async with _session() as session:
            tally = await live_sockets(
                session,
                _base(bot),
                [init_data] * args.sockets,
                world.games[0],
                seconds,
                args.open_rate,
            )
        return f"one seated player: {_sockets_words(tally)}", tally

    return run


def presses_attack(args: argparse.Namespace) -> Attack:
    async def run(world: World, bot: BotRun, seconds: float) -> tuple[str, Any]:
        fake = world.fake
        users = world.spectators[: args.press_users]
        group = world.target.group
        stale = Callback(world.games[0], 0, Act.JOIN).encode()
        message = fake.chat(group).bot_messages[-1].message_id
        began = time.monotonic()
        latencies: list[float] = []
        missed: Counter[str] = Counter()

        async def one(index: int) -> None:
            await asyncio.sleep(max(0.0, began + index * seconds / args.presses - time.monotonic()))
            at = time.perf_counter()

            async def answered() -> None:
                result = await fake.press_raw(users[index % len(users)], group, message, stale)
                await result.answered(3600)

            latencies.append(await timed(answered, at, args.wait, missed))

        await asyncio.gather(*(one(n) for n in range(args.presses)))
        answered = [s for s in latencies if s != math.inf]
        return (
            f"{len(latencies)} presses of a stale 加入 by {len(users)} members: "
            f"{len(answered)} answered within {args.wait:g} s, p50 "
            f"{secs(percentile(latencies, 50))} / p99 {secs(percentile(latencies, 99))} s",
            latencies,
        )

    return run


async def quiet(world: World, bot: BotRun, seconds: float) -> tuple[str, Any]:
    await asyncio.sleep(seconds)
    return "no attack: the probes alone", None
