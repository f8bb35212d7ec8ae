"""``bench.chaos``'s report: the counts, the invariants, the section of ``bench/results/bot.md``."""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence

from bench.botrun import machine_lines, markdown_table, percentile
from bench.chaos.model import (
    ALIVE_AT_LEAST,
    BOT_ENV,
    GROUP_LIMIT,
    KILLS,
    P_DOUBLE,
    P_LEAVE,
    SPAM_COMMANDS,
    SPAM_SECONDS,
    STALL_SECONDS,
    Report,
)


def format_report(report: Report) -> str:
    s, db, args = report.stats, report.db, report.args
    latencies = s.latencies
    fired = sum(report.faults_fired.values())
    rows = [
        ["tables (groups playing; + 1 spam group)", f"{args.tables} ({counts(report.variants)})"],
        ["simulated humans", report.humans],
        ["games opened / dealt", f"{sum(db.games.values())} / {db.started}"],
        [
            "games finished / playing / cancelled / open lobbies",
            " / ".join(str(db.games[k]) for k in ("finished", "playing", "cancelled", "lobby")),
        ],
        ["games with a desertion (逃跑)", db.deserted_games],
        ["actions stored", db.actions],
        ["turns decided by humans", s.turns],
        ["presses (of them double presses)", f"{report.presses_total} ({s.double_presses})"],
        ["presses answered within 20 s: p50 / p95 / max s", _latency(latencies)],
        ["presses not answered within 20 s (later answered or not)", s.press_timeouts],
        ["buttons gone before the press", s.press_misses],
        ["/leave (answered)", f"{s.leaves} ({s.leaves_confirmed})"],
        ["blocks (unblocked again with /start)", f"{s.blocks} ({s.unblocks})"],
        [
            "SIGKILLs (planned); seconds from each start to the first poll",
            f"{s.kills} ({s.kills_planned}); "
            + (", ".join(f"{v:.1f}" for v in s.restart_seconds) or "n/a"),
        ],
        *(
            [[
                "takeovers by the standby: seconds from the SIGKILL to its first poll "
                "(median, max)",
                f"{len(s.takeover_seconds)}: {statistics.median(s.takeover_seconds):.2f}, "
                f"{max(s.takeover_seconds):.2f}",
            ]]
            if s.takeover_seconds
            else []
        ),
        [
            "fault stretches; faulted requests",
            f"{sum(s.fault_stretches.values())}; {fired} ({counts(report.faults_fired)})",
        ],
        ["spam /help sent / answered", f"{s.spam_sent} / {report.spam_answered}"],
        [
            "flood-limit violations (group / private / global)",
            " / ".join(str(report.violations[k]) for k in ("group", "private", "global")),
        ],
        [
            "most group messages in any 60 s (all but 429s; also 500/502s)",
            f"{report.group_max} ({report.group_max_strict}); limit {GROUP_LIMIT}",
        ],
        [
            "unanswered presses: excused by a kill / others",
            f"{report.unanswered_excused} / {len(report.unanswered)}",
        ],
        [
            "requests the fake refused (4xx, not 403/429); 403s to blocked users",
            f"{len(report.rejections)}; {report.forbidden}",
        ],
        ["bot log warnings and errors", sum(report.log_errors.values())],
        [
            "wall time: total / chaos / settle s",
            f"{report.seconds:.0f} / "
            f"{report.chaos_seconds:.0f} / {report.settle_seconds:.0f}"
            + (
                f" ({report.tables_unsettled} tables still playing)"
                if report.tables_unsettled
                else ""
            ),
        ],
    ]
    lines = [markdown_table(["what", "count"], rows), ""]
    failures = report.failures
    checks = [
        (
            "1. every stored log replays",
            not [f for f in db.failures if "refuses" in f or "no deal" in f],
        ),
        ("2. no action lost or doubled (seqs, results, ratings)", not db.failures),
        ("3. every press answered (outside kill windows)", not report.unanswered),
        ("4. limits never exceeded", not report.violation_samples and not report.group_over),
        (
            f"5. no game stalls ({STALL_SECONDS:g} s without a move while the bot is up)",
            not db.stalled,
        ),
    ]
    lines += [f"- {name}: {'held' if ok else '**FAILED**'}" for name, ok in checks]
    if failures:
        lines += ["", f"Invariant failures and problems ({len(failures)}):"]
        lines += [f"- {line}" for line in failures[:25]]
        if len(failures) > 25:
            lines.append(f"- ... and {len(failures) - 25} more")
    if s.starts:
        lines += ["", "Bot starts (the first, then one after each SIGKILL):"]
        lines += [f"- {line}" for line in s.starts]
    if report.rejections:
        lines += ["", "Requests the fake refused, by cause:"]
        lines += [f"- {n} × {kind}" for kind, n in report.rejection_kinds.most_common()]
        lines += [f"  - {line[:300]}" for line in report.rejections_other[:5]]
    if report.log_errors:
        lines += ["", "Bot log warnings and errors (most common 8, digits as N):"]
        lines += [f"- {n} × `{line}`" for line, n in report.log_errors.most_common(8)]
    return "\n".join(lines)


def counts(counter: Counter[str]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(counter.items())) or "none"


def _latency(values: Sequence[float]) -> str:
    if not values:
        return "n/a"
    return " / ".join(
        f"{v:.2f}" for v in (percentile(values, 50), percentile(values, 95), max(values))
    )


def section(report: Report, command: str, start: tuple[str, str, str], body: str) -> str:
    settings = ", ".join(f"{k}={v}" for k, v in BOT_ENV.items() if k != "LOG_LEVEL")
    standby = bool(getattr(report.args, "standby", False))
    title = (
        "## Chaos with a standby: the active instance killed, PostgreSQL "
        "(`bench.chaos --standby`)"
        if standby
        else "## Chaos: kills, Telegram faults and odd users (`bench.chaos`)"
    )
    how = (
        [
            "- Two instances on one PostgreSQL database (a throwaway local cluster, "
            "`synchronous_commit=off` as durable as the bot's SQLite): each SIGKILL hits the "
            "active one; the standby takes over, and the killed one is started again 1–4 s "
            "later as the next standby. The checks read a copy of the database made with "
            "`copy-db`'s code"
        ]
        if standby
        else []
    )
    return "\n".join(
        [
            title,
            "",
            f"`{command}`",
            "",
            *machine_lines(start),
            f"- The bot as a subprocess (`python -m bot run`) with {settings}; the fake with "
            "Telegram's limits (20 a minute per group, 1 a second per private chat with 3 at once, "
            "30 a second overall)",
            f"- {report.args.minutes:g} min of chaos: {KILLS[0]}–{KILLS[1]} SIGKILLs and restarts "
            f"planned, the bot polling at least {ALIVE_AT_LEAST[0]:g}–{ALIVE_AT_LEAST[1]:g} s "
            "between them; stretches of 429/500/502/held-then-504 answers on sendMessage, "
            "editMessageText and answerCallbackQuery; humans at 0.5–2 s a decision, pressing twice "
            f"at once ({P_DOUBLE:.0%} of their 出牌, 不出 and 亮王 presses), /leave and blocking "
            f"the bot ({P_LEAVE:.1%} of turns each); {SPAM_COMMANDS} /help in {SPAM_SECONDS:g} s "
            f"in another group. Then up to {report.args.settle:g} s without chaos for the games "
            "to end, and SIGTERM",
            *how,
            "",
            body,
        ]
    )
