"""``bench.attack``'s report: the Markdown section of ``bench/results/bot.md``."""

from __future__ import annotations

import argparse
import math
import resource
from collections.abc import Sequence
from typing import TYPE_CHECKING

from bench.botrun import machine_lines, markdown_table, percentile

if TYPE_CHECKING:
    from bench.attack.runner import Run

GOAL_P99 = 1.0  # seconds: a playing group is answered within this under every attack
GOAL_LOG_BYTES = 3 * 2**20  # "a few MB"


def secs(seconds: float) -> str:
    if math.isnan(seconds):
        return "–"
    return "none" if seconds == math.inf else f"{seconds:.3f}"


def _mib(value: float) -> str:
    return f"{value / 2**20:,.1f}"


def _answered(values: Sequence[float]) -> str:
    return f"{sum(1 for v in values if v != math.inf)}/{len(values)}"


def report(run: Run, start: tuple[str, str, str], command: str, args: argparse.Namespace) -> str:
    header = [
        "attack",
        "s",
        "/help answered",
        "/help p50 / p99 s",
        "提示 answered",
        "提示 p50 / p99 s",
        "bot CPU s",
        "bot RSS MiB: before → peak",
        "bot open files: before → peak (limit)",
        "log growth KiB",
        "getChatMember / min",
        "load (1 min) at the end",
    ]
    rows = []
    for m in run.results:
        minutes = m.seconds / 60 or 1.0
        rows.append(
            [
                m.name,
                f"{m.seconds:.0f}",
                _answered(m.probes.help),
                f"{secs(percentile(m.probes.help, 50))} / "
                f"**{secs(percentile(m.probes.help, 99))}**",
                _answered(m.probes.presses),
                f"{secs(percentile(m.probes.presses, 50))} / "
                f"**{secs(percentile(m.probes.presses, 99))}**",
                f"{m.cpu:.1f}",
                f"{_mib(m.rss_before)} → {_mib(m.rss_peak)}",
                f"{m.files_before} → {m.files_peak} ({m.nofile or 'inherited'})",
                f"{m.log_bytes / 1024:,.1f}",
                f"{m.member_calls / minutes:,.0f}",
                f"{m.load:.1f}",
            ]
        )
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    lines = [
        "## The web table under attack (`bench.attack`)",
        "",
        f"`{command}`",
        "",
        *machine_lines(start),
        "- **Measured while the machine was shared**: 2 cores, other engineers' test runs and "
        "benchmarks on them at the same time; the bot, the fake, the attackers and the probes "
        "on those same cores. Figures are what this run saw, not the bot alone on a quiet box",
        f"- The bot: `python -m bot run` in a child process, default settings but 900 s turns, "
        f"the web table on 127.0.0.1; the fake with Telegram's limits. {run.groups} groups each "
        f"with a 双扣 game in progress (setup {run.setup_seconds:.0f} s); "
        + (
            "one bot process for the attacks with the same open-file limit (`--reuse-bot`)"
            if args.reuse_bot
            else "a fresh bot process on the same database for each attack"
        )
        + f" (starts took {', '.join(f'{s:.1f}' for s in run.starts)} s). "
        f"Open-file limit: {args.nofile} for "
        f"the slow connections, else inherited ({soft} soft / {hard} hard)",
        f"- Probes: `/help` in every group every {args.help_interval:g} s (from a player, timed "
        "to the bot's reply in the group, or in the player's private chat where the bot "
        "answers when the group's minute is spent); 提示 by the first table's player to act every "
        f"{args.press_interval:g} s (timed to the callback's answer); no answer within "
        f"{args.wait:g} s counts as none, and as infinitely late in the percentiles",
        "",
        markdown_table(header, rows),
        "",
        "What each attacker saw:",
        "",
    ]
    for m in run.results:
        calls = ", ".join(f"{k} {v}" for k, v in m.bot_calls.most_common(5))
        missed = ", ".join(f"{k} ×{v}" for k, v in m.probes.missed.most_common())
        lines.append(
            f"- **{m.name}**: {m.outcome}. The bot's Bot API calls meanwhile: {calls or 'none'}; "
            f"RSS at the end {_mib(m.rss_after)} MiB; this process's CPU {m.own_cpu:.1f} s"
            + (f"; 提示 presses that got nothing: {missed}" if missed else "")
            + (
                f"; /help answered privately (the group's minute spent) ×{m.probes.help_private}"
                if m.probes.help_private
                else ""
            )
            + "."
        )
    if run.log_tail:
        commonest = "; ".join(run.log_tail)
        lines += ["", f"The bot's log over the whole run, commonest lines: {commonest}"]
    lines += ["", *verdict(run, args.wait)]
    return "\n".join(lines)


def verdict(run: Run, wait: float) -> list[str]:
    lines = []
    for m in run.results:
        if m.name == "no attack":
            continue
        worst = max(percentile(m.probes.help, 99), percentile(m.probes.presses, 99))
        answered = worst <= GOAL_P99
        small_log = m.log_bytes <= GOAL_LOG_BYTES
        met = "met" if answered and small_log else "**missed**"
        said = (
            f"some got no answer within the {wait:g} s waited"
            if worst == math.inf
            else f"{secs(worst)} s"
        )
        lines.append(
            f"- {m.name}: a playing group answered within {GOAL_P99:g} s at p99 "
            f"(worst of /help and 提示: {said}) {'yes' if answered else '**no**'}; log "
            f"growth {m.log_bytes / 2**20:.2f} MiB ≤ {GOAL_LOG_BYTES / 2**20:g} MiB "
            f"{'yes' if small_log else '**no**'}: goal {met}."
        )
    return lines
