"""``bench.web``'s report: the Markdown section of ``bench/results/bot.md``."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from bench.botrun import RESULTS, machine_lines, markdown_table, percentile
from bench.harness import VARIANT_ARG
from bench.web.calls import GameCalls
from bench.web.live import LoadResult
from bench.web.tables import HUMANS

GOAL_CALLS_PER_ACTION = 0.5
GOAL_P99 = 0.100
TELEGRAM_OVERALL = 30.0  # calls a second, Telegram's overall limit for a bot
ASSUMED_SECONDS_PER_ACTION = 3.0  # a busy table: someone decides every 3 s on average
KEYBOARDS_ROW = "4 humans, human pace"


def keyboards_figure(path: Path = RESULTS) -> dict[str, float] | None:
    """``bench.bot_calls``' 4-human game, from its section of the results file."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return None
    section = re.search(
        r"<!-- bench\.bot_calls:start -->(.*?)<!-- bench\.bot_calls:end -->", text, re.DOTALL
    )
    if section is None:
        return None
    header: list[str] = []
    for line in section.group(1).splitlines():
        cells = [c.strip().strip("*") for c in line.strip().strip("|").split("|")]
        if cells and cells[0] == "game":
            header = cells
        elif header and cells and cells[0] == KEYBOARDS_ROW and len(cells) == len(header):
            row = dict(zip(header, cells, strict=True))
            actions = int(row["actions (by humans; 要不起 of them)"].split()[0])
            return {
                "per_action": float(row["action calls / action"]),
                "selection_presses": float(row["selection presses"]),
                "per_press": float(row["selection calls / press"]),
                "actions": actions,
                "minutes": float(row["min"]),
            }
    return None


def _tables_at(per_action: float, seconds: float = ASSUMED_SECONDS_PER_ACTION) -> str:
    return f"{TELEGRAM_OVERALL * seconds / per_action:,.0f}" if per_action else "∞"


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def _kib(value: float) -> str:
    return f"{value / 1024:,.1f} KiB"


BOX_COLUMNS = (
    ("group send", "group sends"),
    ("group edit", "group edits"),
    ("group delete", "group deletes"),
    ("private send", "private sends"),
    ("private edit", "private edits"),
)


def calls_report(results: list[GameCalls], no_chat: dict[str, int]) -> list[str]:
    header = [
        "game",
        "actions (page plays; 要不起 by the bot; 亮王 answers)",
        "s / action",
        *(name for _, name in BOX_COLUMNS),
        "other (429s)",
        "calls",
        "calls / action",
    ]
    rows = []
    totals: dict[str, GameCalls] = {}
    for result in results:
        name = f"{VARIANT_ARG[result.spec.variant]} #{result.spec.index + 1}"
        rows.append(_calls_row(name, result))
        total = totals.setdefault(result.spec.variant, GameCalls(result.spec, 0))
        total.actions += result.actions
        total.page_plays += result.page_plays
        total.auto_passes += result.auto_passes
        total.gate_answers += result.gate_answers
        total.seconds += result.seconds
        total.boxes.update(result.boxes)
        total.refused += result.refused
    for variant, total in totals.items():
        count = sum(1 for r in results if r.spec.variant == variant)
        rows.append(_calls_row(f"**{VARIANT_ARG[variant]}, all {count}**", total, bold=True))
    lines = [markdown_table(header, rows), ""]
    refused = sum(r.refused for r in results)
    lines.append(
        f"Page actions refused: {refused}. Requests in the window naming no chat (getUpdates "
        f"left out): {', '.join(f'{k} {v}' for k, v in sorted(no_chat.items())) or 'none'}."
    )
    return lines


def _calls_row(name: str, result: GameCalls, *, bold: bool = False) -> list[str]:
    b = result.boxes
    known = {key for key, _ in BOX_COLUMNS}
    other = sum(v for k, v in b.items() if k not in known)
    limited = sum(v for k, v in b.items() if k.endswith("429"))
    per = result.calls / result.actions if result.actions else 0.0
    figure = f"{per:.2f}"
    return [
        name,
        f"{result.actions} ({result.page_plays}; {result.auto_passes}; {result.gate_answers})",
        f"{result.seconds / result.actions:.2f}" if result.actions else "–",
        *(str(b[key]) for key, _ in BOX_COLUMNS),
        f"{other} ({limited})",
        str(result.calls),
        f"**{figure}**" if bold else figure,
    ]


def capacity_lines(results: list[GameCalls], keyboards: dict[str, float] | None) -> list[str]:
    seconds = ASSUMED_SECONDS_PER_ACTION
    header = ["how people play", "calls / action", f"busy tables at {TELEGRAM_OVERALL:g} calls/s"]
    rows = []
    if keyboards:
        rows.append(
            [
                "keyboards, 4 humans (`bench.bot_calls`, action calls only)",
                f"{keyboards['per_action']:.2f}",
                _tables_at(keyboards["per_action"]),
            ]
        )
        everything = (
            keyboards["per_action"]
            + keyboards["selection_presses"] * keyboards["per_press"] / keyboards["actions"]
        )
        rows.append(
            [
                "keyboards, 4 humans, with the selection calls (提示, card toggles)",
                f"{everything:.2f}",
                _tables_at(everything),
            ]
        )
    private_rate = 0.0
    for variant in ("shuangkou", "paowang"):
        chosen = [r for r in results if r.spec.variant == variant]
        actions = sum(r.actions for r in chosen)
        calls = sum(r.calls for r in chosen)
        if not actions:
            continue
        per = calls / actions
        rows.append(
            [
                f"pages, {HUMANS[variant]} humans, {VARIANT_ARG[variant]} (all calls)",
                f"{per:.2f}",
                _tables_at(per),
            ]
        )
        private = sum(v for r in chosen for k, v in r.boxes.items() if k.startswith("private"))
        private_rate = max(private_rate, private / actions)
    lines = [
        f"Busy tables one bot can hold under Telegram's {TELEGRAM_OVERALL:g} calls a second "
        f"overall, assuming an action every {seconds:g} s at each table (a human decides "
        f"every {seconds:g} s on average): {TELEGRAM_OVERALL:g} × {seconds:g} / "
        "(calls per action).",
        "",
        markdown_table(header, rows),
        "",
    ]
    if keyboards:
        pace = keyboards["minutes"] * 60 / keyboards["actions"]
        lines.append(
            f"The keyboards figure was measured at {pace:.2f} s an action, the pages' games "
            "at the s / action above. Group messages are paced by time, not by actions (at "
            "most one request every 3 s per group: the bot's 20 a minute), so a slower table "
            "spends more of them per action, but never more than 0.33 a second. With pages a "
            "table therefore costs at most 0.33 group calls a second plus "
            f"{private_rate:.2f} private calls per action (the most of either variant above), "
            f"whatever the pace: {TELEGRAM_OVERALL:g} calls a second hold at least "
            f"{TELEGRAM_OVERALL / (1 / 3 + private_rate / seconds):,.0f} busy tables at an "
            f"action every {seconds:g} s, even if every group got its full 20 a minute."
        )
    return lines


def load_report(result: LoadResult) -> list[str]:
    counts = Counter(s.variant for s in result.specs)
    lines = [
        f"{len(result.specs)} tables at once ({counts['shuangkou']} 双扣 with 4 humans, "
        f"{counts['paowang']} 刨王 with 5), {result.pages} pages, each with its live socket "
        f"open the whole run; lobbies and deals took {result.setup_seconds:.0f} s (setup, not "
        "measured). Phases one after the other on the same pages, the games going on.",
        "",
    ]
    header = [
        "phase",
        "plays and passes timed",
        "p50 ms",
        "p95 ms",
        "p99 ms",
        "max ms",
        "POST answered p50 / p99 ms",
        "not at every page by the end",
    ]
    rows = []
    for phase in result.phases:
        plays = [a for a in phase.acts if a.kind in ("play", "pass") and a.accepted]
        answered = [a.answered - a.sent for a in plays]
        firsts: set[int] = set()
        later = []
        for act in plays:
            if act.table in firsts:
                later.append(act.answered - act.sent)
            firsts.add(act.table)
        for name, values, posts in (
            (f"{phase.name}: all", phase.latencies, answered),
            (f"{phase.name}: all but each table's first", phase.later, later),
        ):
            rows.append(
                [
                    name,
                    str(len(values)),
                    _ms(percentile(values, 50)),
                    _ms(percentile(values, 95)),
                    f"**{_ms(percentile(values, 99))}**",
                    _ms(max(values, default=float("nan"))),
                    f"{_ms(percentile(posts, 50))} / {_ms(percentile(posts, 99))}",
                    str(phase.undelivered) if values is phase.latencies else "",
                ]
            )
    lines += [
        markdown_table(header, rows),
        "",
        "*Each table's first*: its first play after the pages opened. It used to await the "
        "edit that retires the hand prompt sent before the page was open; the prompt is now "
        "retired when the page opens. The second row leaves that play out of each table.",
        "",
    ]
    header = [
        "phase",
        "s",
        "plays + passes sent (refused: too fast)",
        "table actions / s",
        "bot: CPU; loop late p99 / max ms; GC runs (full), longest ms",
        "SQL statements / action",
        "views rendered / action; ms each p50 / p99",
        "this process: CPU; loop late p99 / max ms; GC runs (full), longest ms",
        "bot calls / action (group; private; 429s)",
    ]
    rows = []
    for phase in result.phases:
        plays = [a for a in phase.acts if a.kind in ("play", "pass")]
        refused = sum(1 for a in plays if not a.accepted)
        calls = sum(v for k, v in phase.calls.items())
        limited = sum(v for k, v in phase.calls.items() if k.endswith("429"))
        actions = phase.actions or 1
        count, r50, r99 = phase.renders
        rows.append(
            [
                phase.name,
                f"{phase.seconds:.0f}",
                f"{len(plays)} ({refused})",
                f"{phase.actions / phase.seconds:.1f}",
                f"{phase.cpu / phase.seconds:.0%} of a core; "
                f"{_ms(phase.bot_lag[1])} / {_ms(phase.bot_lag[2])}; "
                f"{phase.bot_gc[0]:.0f} ({phase.bot_gc[1]:.0f}), {_ms(phase.bot_gc[2])}",
                f"{phase.statements / actions:.1f}",
                f"{count / actions:.1f}; {_ms(r50)} / {_ms(r99)}",
                f"{phase.own_cpu / phase.seconds:.0%} of a core; "
                f"{_ms(percentile(phase.lags, 99))} / {_ms(max(phase.lags, default=0.0))}; "
                f"{phase.own_gc[0]:.0f} ({phase.own_gc[1]:.0f}), {_ms(phase.own_gc[2])}",
                f"{calls / actions:.2f} ({phase.calls['group']}; {phase.calls['private']}; "
                f"{limited})",
            ]
        )
    lines += [
        markdown_table(header, rows),
        "",
        "Table actions: every step of `seq` (the bot's 要不起 passes too). In the bot process: "
        "SQL statements counted at the database driver (BEGIN and COMMIT included); views "
        "rendered = calls of "
        "`WebTable.view_for` (each page's live view and each POST's answer), timed by "
        "wrapping it (it runs under the table's lock for the live views); *loop late* = how "
        "much later than asked a 10 ms sleep wakes, in each process; GC = the collector's "
        "runs in the phase and its longest pause.",
        "",
    ]
    for phase in result.phases:
        worst = ", ".join(
            f"{_ms(s)} ms (table {t + 1}, {k} at seq {q})" for s, t, q, k in phase.worst[:3]
        )
        lines.append(
            f"- {phase.name}: {len(phase.latencies)} plays and passes timed; "
            f"{phase.finished_tables} of {len(result.specs)} games had ended by the phase's end; "
            f"slowest: {worst or 'none'}"
        )
    gate = [
        a.answered - a.sent
        for phase in result.phases
        for a in phase.acts
        if a.kind in ("reveal", "decline", "ready") and a.accepted
    ]
    if gate:
        lines.append(
            f"- 亮王 gate answers (刨王; not in the latency above, a 知道了 changes no `seq`): "
            f"{len(gate)}, `POST /api/action` answered in p50 {_ms(percentile(gate, 50))} / "
            f"p99 {_ms(percentile(gate, 99))} / max {_ms(max(gate))} ms"
        )
    lines.append(
        f"- Live messages that were no view: {len(result.odd)}"
        + (f" ({result.odd[0]!r})" if result.odd else "")
        + f"; views older than one the page had already received: {result.backwards}"
    )
    if result.view_bytes:
        size = sum(result.view_bytes) / len(result.view_bytes)
        strings = sum(result.strings_bytes) / len(result.strings_bytes)
        lines.append(
            f"- A live view is {size / 1024:.1f} KiB of JSON on average (each page's last), "
            f"{strings / 1024:.1f} KiB of it the page's strings table (first view only)"
        )
    before, after = result.memory.get("before", {}), result.memory.get("after", {})
    if before and after and result.pages:
        rss = (after["rss"] - before["rss"]) / result.pages
        traced = after.get("traced", 0) / result.pages
        top = ", ".join(f"{name} {_kib(size)}" for name, size in after.get("by_file", [])[:4])
        lines += [
            "",
            f"Memory per open connection, in the bot process: **{_kib(rss)}** of RSS "
            f"((RSS with all {after['pages']} pages connected, each with its first view − RSS "
            f"just before the first connected: {before['rss'] / 2**20:,.1f} → "
            f"{after['rss'] / 2**20:,.1f} MiB) / {result.pages}); **{_kib(traced)}** of Python "
            "allocations still live (tracemalloc, started just before the first page connected "
            f"and stopped once all had, / {result.pages}). Biggest by file: {top}.",
        ]
    return lines


def report(
    calls: list[GameCalls],
    no_chat: dict[str, int],
    loads: list[tuple[str, LoadResult]],
    start: tuple[str, str, str],
    command: str,
    think: tuple[float, float],
) -> str:
    """``loads``: the latency part's result on each database it ran on, by name."""
    keyboards = keyboards_figure()
    lines = [
        "## The web table: calls per action, live-view latency, memory (`bench.web`)",
        "",
        f"`{command}`",
        "",
        *machine_lines(start),
        "- The bot with its default settings (group budget 20 a minute; the overall rate "
        "limiter at 30 a second; 1.2 s before a 要不起 pass) and the web table on 127.0.0.1; "
        "the fake with Telegram's limits (20 a minute per group, 1 a second per private chat "
        "with 3 at once, 30 a second overall). Every human plays on a page: signed initData, "
        "the game from the 🃏 牌桌 button of their hand message, the live WebSocket open, "
        "actions as `POST /api/action`; pages decide from the views they receive",
        "",
        "### Bot API calls per action, every seat on a page",
        "",
        f"All {len(calls)} games at once, each in its own group, one bot in this process; "
        f"fixed seeds. Each person thinks {think[0]:g}–{think[1]:g} s (uniform) before a "
        "decision; what to play is the bot's AI player's choice from the seat's view. Counted: "
        "every request the bot made for the game's group or its players' private chats, from "
        "the moment every page of the game had its first view to the result sent and the "
        "group's channel drained (the lobby, the deal and the first prompt come before); a 429 "
        "answer counts as a call. Per action = per step of `table.seq`: plays and passes from "
        "the pages, the bot's 要不起 passes (双扣), the 亮王 answers (刨王).",
        "",
        *calls_report(calls, no_chat),
        "",
        *capacity_lines(calls, keyboards),
        "",
    ]
    if loads:
        lines += [
            "### Many tables at once: live-view latency and memory",
            "",
            "The bot in a child process (`--bot-process`), so its event loop serves only the "
            "bot; the fake and every page in this one; the 2 cores shared. Latency: from just "
            "before a play's or pass's `POST /api/action` is sent to the moment the first view "
            "with a newer `seq` has arrived at every open page of the table (the acting one "
            "included) over its WebSocket, as this process's reader takes it (so this "
            "process's own event loop delay is in it). What to play: the cheapest legal play, "
            "or 不出 a quarter of the times a page may pass; 亮王 half the time. Only plays and "
            "passes are timed (not 亮王 answers).",
            "",
        ]
        for database, load in loads:
            if len(loads) > 1:
                lines += [f"#### On {database}", ""]
            lines += [*load_report(load), ""]
    lines += verdict(calls, loads)
    return "\n".join(lines)


def verdict(calls: list[GameCalls], loads: list[tuple[str, LoadResult]]) -> list[str]:
    lines = []
    for variant in ("shuangkou", "paowang"):
        chosen = [r for r in calls if r.spec.variant == variant]
        actions = sum(r.actions for r in chosen)
        if not actions:
            continue
        per = sum(r.calls for r in chosen) / actions
        met = "met" if per <= GOAL_CALLS_PER_ACTION else f"**missed** by {per - 0.5:.2f}"
        lines.append(
            f"- Calls per action, {VARIANT_ARG[variant]} on pages: {per:.2f}: goal ≤ "
            f"{GOAL_CALLS_PER_ACTION:g} {met}."
        )
    goal = GOAL_P99 * 1000
    for database, load in loads:
        on = f" on {database}" if len(loads) > 1 else ""
        for phase in load.phases:
            for which, values in (
                ("", phase.latencies),
                (", each table's first left out", phase.later),
            ):
                p99 = percentile(values, 99)
                met = (
                    "met" if p99 <= GOAL_P99 else f"**missed** by {(p99 - GOAL_P99) * 1000:.0f} ms"
                )
                lines.append(
                    f"- Latency to every page{on}, {phase.name}{which}: p99 {_ms(p99)} ms: "
                    f"goal ≤ {goal:g} ms {met}."
                )
    return lines
