"""What the bot benchmarks share (running the Application is bot.edge.app.running_application):
the fake's request log read as calls, percentiles, ``bench/results/bot.md`` with one section
per benchmark (each run rewrites its own section and leaves the other's alone), and the bot run
as a deployment runs it (``python -m bot run``)."""

from __future__ import annotations

import asyncio
import html
import math
import os
import re
import signal
import socket
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench import machine, now

if TYPE_CHECKING:
    from fakebot import FakeTelegram

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "bot.md"
TITLE = "# Bot benchmarks: Bot API calls and load"
INTRO = (
    "The real `Application` (PTB 22, handlers, service, SQLite, its rate limiter) against the "
    "fake Bot API server of `fakebot`, on 127.0.0.1. Each section is rewritten by the "
    "benchmark named in its title; the machine and the time are those of that run."
)
COUNTED = ("sendMessage", "editMessageText", "editMessageReplyMarkup", "editMessageCaption")
_TAG = re.compile(r"<[^>]+>")


def plain(html_text: str) -> str:
    """What a Telegram client shows for the bot's HTML: tags dropped, entities decoded."""
    return html.unescape(_TAG.sub("", html_text))


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0..100) by the nearest-rank method; NaN when empty."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def max_in_window(times: Sequence[float], window: float = 60.0) -> int:
    """The most events in any ``window`` seconds (a sliding window, as Telegram counts)."""
    ordered = sorted(times)
    best = start = 0
    for end, at in enumerate(ordered):
        while at - ordered[start] >= window:
            start += 1
        best = max(best, end - start + 1)
    return best


def load_average() -> str:
    try:
        one, five, fifteen = os.getloadavg()
    except OSError:
        return "n/a"
    return f"{one:.2f} / {five:.2f} / {fifteen:.2f}"


def code_version() -> str:
    """The commit measured, and the files of the bot that differed from it (shared tree)."""

    def git(*args: str) -> str:
        try:
            done = subprocess.run(
                ["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10, check=True
            )
        except (OSError, subprocess.SubprocessError):
            return ""
        return done.stdout.rstrip("\n")

    head = git("rev-parse", "--short", "HEAD").strip() or "unknown"
    changed = git("status", "--porcelain", "--", "bot").splitlines()
    names = sorted(line[3:] for line in changed)
    return f"commit {head}" + (f" plus uncommitted changes to {', '.join(names)}" if names else "")


def started() -> tuple[str, str, str]:
    """What to say about the start of a run: the machine, the code, the load average."""
    return machine(), code_version(), load_average()


def machine_lines(start: tuple[str, str, str]) -> list[str]:
    described, code, load = start
    return [
        f"- Machine: {described}",
        f"- Code: {code}",
        f"- Date: {now()}",
        f"- Load average (1 / 5 / 15 min): {load} at start, {load_average()} at the end "
        "(the machine is shared with other work)",
    ]


def write_section(name: str, body: str, path: Path = RESULTS) -> None:
    """Replace the section ``name`` of the results file (or add it), keeping the others."""
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    block = f"{start}\n{body.strip()}\n{end}"
    text = path.read_text(encoding="utf-8") if path.exists() else f"{TITLE}\n\n{INTRO}\n"
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.DOTALL)
    if pattern.search(text):
        text = pattern.sub(lambda _: block, text)
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


# ---- a bot process seen from outside (/proc), as an operator would see it ------------------

CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


@dataclass(frozen=True)
class ProcSample:
    """One look at a process: CPU seconds used so far, resident memory, open files."""

    cpu: float
    rss: int  # bytes
    files: int


def proc_sample(pid: int) -> ProcSample:
    """What /proc says of ``pid`` now; zeros once it has gone (a bench must not die of it)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            # the command name may hold spaces: the fields start after its closing bracket
            fields = stat.read().rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime + stime
        with open(f"/proc/{pid}/statm", encoding="ascii") as statm:
            rss = int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        files = len(os.listdir(f"/proc/{pid}/fd"))
    except (OSError, IndexError, ValueError):
        return ProcSample(0.0, 0, 0)
    return ProcSample(cpu, rss, files)


def free_port(host: str = "127.0.0.1") -> int:
    """A port nobody listens on now, for a child process that must be told its port."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


# ---- the bot as a deployment runs it --------------------------------------------------------


def bot_env(fake: FakeTelegram, db_path: Path, **settings: str) -> dict[str, str]:
    """This process's environment plus the bot's settings, pointed at the fake."""
    env = dict(os.environ)
    env.update(
        TELEGRAM_BOT_TOKEN=fake.token,
        TELEGRAM_API_BASE_URL=fake.base_url,
        DATABASE_PATH=str(db_path),
        **settings,
    )
    return env


async def run_bot(env: dict[str, str], stderr: Any, **options: Any) -> asyncio.subprocess.Process:
    """``python -m bot run`` with ``env``, its log to ``stderr``; ``options`` as
    ``create_subprocess_exec`` takes them."""
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "run",
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=stderr,
        **options,
    )


async def first_poll(
    fake: FakeTelegram, process: asyncio.subprocess.Process, since: int, timeout: float
) -> bool:
    """Whether the bot in ``process`` polls (a getUpdates among the fake's requests from
    ``since`` on) within ``timeout`` seconds. False when it exits first: a bot that cannot start
    must not keep a benchmark waiting out the whole timeout."""
    polled = asyncio.ensure_future(
        fake.wait_for(
            lambda: any(r.method == "getUpdates" for r in fake.requests[since:]),
            timeout,
            what="the bot's first poll",
        )
    )
    exited = asyncio.ensure_future(process.wait())
    await asyncio.wait((polled, exited), return_when=asyncio.FIRST_COMPLETED)
    for task in (polled, exited):
        task.cancel()
    await asyncio.gather(polled, exited, return_exceptions=True)
    return process.returncode is None and not polled.cancelled() and polled.exception() is None


async def terminate(process: asyncio.subprocess.Process, grace: float = 30.0) -> bool:
    """SIGTERM, as a deployment stops the bot, then SIGKILL if it has not exited within
    ``grace`` seconds; whether SIGTERM sufficed."""
    process.send_signal(signal.SIGTERM)
    try:
        await asyncio.wait_for(process.wait(), grace)
    except TimeoutError:
        process.kill()
        await process.wait()
        return False
    return True
