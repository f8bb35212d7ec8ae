"""The load run's report: the Markdown section of ``bench/results/bot.md``."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from bench.botrun import machine_lines, markdown_table, percentile
from bench.load.people import HumanStats

if TYPE_CHECKING:
    from bench.load.runner import LoadRun

KIND_GROUPS: dict[str, tuple[str, ...]] = {
    "出牌 / 不出 presses": ("button:p", "button:n"),
    "typed plays": ("text",),
    "selection presses (提示, card, 清空)": ("button:h", "button:t", "button:r"),
    "亮王 gate presses": ("button:v", "button:k"),
    "lobby presses (加入, 加电脑, 开始)": ("button:j", "button:c", "button:s"),
    "commands (/start, /newgame)": ("command",),
}
PLAY_KINDS = (
    "button:p",
    "button:n",
    "text",
    "button:h",
    "button:t",
    "button:r",
    "button:v",
    "button:k",
)
GOAL_P99 = 0.050


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def _own(samples: list[dict[str, Any]], kinds: tuple[str, ...] | None = None) -> list[float]:
    return [s["seconds"] for s in samples if kinds is None or s["kind"] in kinds]


def _latency_rows(samples: list[dict[str, Any]]) -> list[list[str]]:
    rows = []
    groups: list[tuple[str, tuple[str, ...] | None]] = [
        ("all updates", None),
        ("game updates (all but lobby and commands)", PLAY_KINDS),
        *KIND_GROUPS.items(),
    ]
    for name, kinds in groups:
        chosen = [s for s in samples if kinds is None or s["kind"] in kinds]
        if not chosen:
            continue
        own = [s["seconds"] for s in chosen]
        local = [s["seconds"] - s["api_seconds"] for s in chosen]
        calls = sum(s["calls"] for s in chosen) / len(chosen)
        rows.append(
            [
                name,
                str(len(chosen)),
                _ms(percentile(own, 50)),
                _ms(percentile(own, 99)),
                _ms(max(own)),
                _ms(percentile(local, 50)),
                _ms(percentile(local, 99)),
                f"{calls:.2f}",
                f"{sum(s['limiter_wait'] for s in chosen) * 1000:.1f}",
            ]
        )
    return rows


def _memory_figures(bot: dict[str, Any], key: str) -> tuple[int, float, float]:
    """(most tables open at once, bytes per table then, bytes left after all games ended)."""
    base = bot["memory"]["baseline"][key]
    samples = bot["memory"]["samples"]
    most = max((s["tables"] for s in samples), default=0)
    at_most = [s[key] for s in samples if s["tables"] == most]
    per_table = (max(at_most) - base) / most if most else 0.0
    return most, per_table, bot["memory"]["after"][key] - base


def _kib(value: float) -> str:
    return f"{value / 1024:,.0f} KiB"


def _input_line(run: LoadRun) -> str:
    stats = HumanStats()
    for human in run.scenario.humans:
        stats.presses.update(human.stats.presses)
        stats.typed += human.stats.typed
        stats.typed_refused += human.stats.typed_refused
        stats.duplicates += human.stats.duplicates
        stats.stale_presses += human.stats.stale_presses
    presses = ", ".join(f"{k} {v}" for k, v in sorted(stats.presses.items()))
    return (
        f"{sum(stats.presses.values())} presses ({presses}), {stats.typed} typed plays "
        f"({stats.typed_refused} refused, then pressed), {stats.duplicates} second presses of "
        f"the button just pressed, {stats.stale_presses} old buttons pressed by another human "
        "of the table at the same moment as a 出牌/不出"
    )


def _cpu(run: LoadRun) -> str:
    cpu, wall = run.bot["cpu_seconds"], run.bot["wall_seconds"]
    return f"{cpu:.0f} s over {wall:.0f} s ({cpu / wall:.0%} of a core)"


def _invariants(run: LoadRun) -> str:
    check = run.check
    if not check.problems and check.finished == len(run.specs):
        return "all held"
    return f"**{len(check.problems)} problems**: " + "; ".join(check.problems[:5])


PLAYERS = "bot/game/players/"
#: the measuring's own allocations (samples, snapshots), left out of the bot's
INSTRUMENTS = ("bot/edge/metrics.py", "bench/", "tracemalloc.py")


def _bots_own(growth: dict[str, int]) -> dict[str, int]:
    return {k: v for k, v in growth.items() if not any(i in k for i in INSTRUMENTS)}


def _memory_lines(runs: list[LoadRun]) -> list[str]:
    """Memory per table: RSS in the timing run, Python allocations by file in the traced one."""
    lines = ["Memory, in the bot process:", ""]
    for run in runs:
        if len(run.specs) == 1:
            continue
        bot = run.bot
        if not run.traced:
            most, per_table, left = _memory_figures(bot, "rss")
            lines.append(
                f"- {run.name}, RSS: {_kib(per_table)} per table ((RSS when the most tables, "
                f"{most}, were open − RSS before the first lobby) / {most}); "
                f"{_kib(left)} more than before the first lobby once every game had ended "
                f"({len(bot['open_tables_after'])} tables still registered, "
                f"{bot['cached_players_after']} computer players still cached)"
            )
            continue
        peak = _bots_own(bot["allocations"].get("peak", {}))
        after = _bots_own(bot["allocations"].get("after", {}))
        tables = next((m["tables"] for m in bot["memory"]["samples"] if m.get("peak_snapshot")), 0)
        grown, cache = sum(peak.values()), sum(v for k, v in peak.items() if k.startswith(PLAYERS))
        left = sum(after.values())
        left_cache = sum(v for k, v in after.items() if k.startswith(PLAYERS))
        per_plan = left_cache / max(1, sum(bot["plan_cache_entries"].values()))
        limits = bot["plan_cache_limits"]
        bound = sum(limits.values())
        top = ", ".join(
            f"{name} {_kib(size)}"
            for name, size in list(after.items())[:6]
            if not name.startswith(PLAYERS)
        )
        per_table = (grown - cache) / tables if tables else 0.0
        lines.append(
            f"- {run.name} (tracemalloc, Python allocations by the file that made them): "
            f"with {tables} tables open, about 40 actions into their games on average, "
            "allocations had grown "
            f"by {_kib(grown)} since before the first lobby: {_kib(cache)} of it in "
            f"`{PLAYERS}` (the computer players' plan caches: module-level, shared by every "
            f"game, bounded) and {_kib(grown - cache)} elsewhere, "
            f"**{_kib(per_table)} per table**. Once every game had ended: {_kib(left)} left, "
            f"{_kib(left_cache)} of it the plan caches, {_kib(left - left_cache)} elsewhere "
            f"(biggest: {top}). The plan caches then held "
            + ", ".join(f"{v:,} plans ({k})" for k, v in bot["plan_cache_entries"].items())
            + f", {per_plan:.0f} bytes a plan: at their bounds ("
            + ", ".join(f"{v:,} ({k})" for k, v in limits.items())
            + f") they would hold about {per_plan * bound / 2**20:.0f} MiB and no more (the "
            "searches' caches then start again empty, the whole hands' forget the oldest)"
        )
    return [*lines, ""]


def report(runs: list[LoadRun], start: tuple[str, str, str], command: str) -> str:
    main = max((r for r in runs if not r.traced), key=lambda r: len(r.specs))
    variants = Counter(s.variant for s in main.specs)
    humans = sum(s.humans for s in main.specs)
    seats = sum(s.seats for s in main.specs)
    lines = [
        "## Load: many tables at once (`bench.load`)",
        "",
        f"`{command}`",
        "",
        *machine_lines(start),
        f"- {len(main.specs)} tables at once ({variants['shuangkou']} 双扣, "
        f"{variants['paowang']} 刨王), {seats} seats: {humans} simulated humans, "
        f"{seats - humans} computers; each table its own group, each human their own chat. "
        "Lobbies open over 10 s, games start over 5 s once all are full",
        "- Simulated humans act as soon as their buttons arrive: 提示 then 出牌, or 清空 and "
        "the cards one by one then 出牌, or the play typed, or 不出; a quarter of 出牌/不出/亮王 "
        "presses are pressed twice at once; 40% of 出牌/不出 presses come with another human "
        "of the table pressing one of their old buttons at the same moment",
        "- Limits: fake and bot at 1,000,000 messages a minute per group and a second per chat "
        "and overall (the bot's own cost is the point, not Telegram's pacing; so the group "
        "channel sends a table edit after nearly every action instead of coalescing them); "
        "turn timers at 900 s (none fired); `min_game_seconds` 0 (every game scored)",
        "- Two processes: the fake server and the simulated people in one; the bot "
        "(`build_application`, instrumented with `bot/edge/metrics.py`) in the other, so its event "
        "loop serves only the bot. Both share the 2 cores",
        "",
        markdown_table(
            [
                "run",
                "tables",
                "computer delay",
                "games finished",
                "actions (by humans)",
                "seconds",
                "actions / s",
                "bot CPU",
                "bot CPU / action",
                "SQL statements / action",
                "invariants",
            ],
            [
                [
                    run.name,
                    str(len(run.specs)),
                    f"{run.computer_delay:g} s",
                    f"{run.check.finished}/{run.check.games}",
                    f"{run.check.actions} ({run.check.human_actions})",
                    f"{run.scenario.seconds:.0f}",
                    f"{run.check.actions / run.scenario.seconds:.0f}",
                    _cpu(run),
                    f"{run.bot['cpu_seconds'] / max(1, run.check.actions) * 1000:.1f} ms",
                    f"{run.bot['sql_statements'] / max(1, run.check.actions):.1f}",
                    _invariants(run),
                ]
                for run in runs
            ],
        ),
        "",
        "Invariants checked after each run, from the bot's database and the fake's records: "
        "every game finished; each stored log has seq 0..n-1 and replays through the engine "
        "alone (deal from the stored seed, then `play`/`pass_turn`/`reveal`) to a finished "
        "game; each human's accepted actions, as the notes of their retired hand messages show "
        "them, are exactly their seat's entries of the log, in order; of each pair of "
        "presses of one button exactly one was accepted and the other answered 「按钮已过期」 "
        "(or 「这局已经结束了」), and every old button too; the group's trick / out / 亮王 "
        "lines are the replay's, in order, and its final table (below the title) is the replay's; "
        "the results rows are the replay's deltas (which sum to 0), each human's rating moved "
        "by exactly their delta (so each game's ratings sum to its humans' deltas); every "
        "press was answered.",
        "",
    ]
    for run in runs:
        if run.traced:
            continue
        lines += [
            f"### {run.name}: the bot's time per update",
            "",
            f"Human input: {_input_line(run)}. Requests refused by the fake: "
            f"{sum(run.check.refused.values())}"
            + (
                " (" + ", ".join(f"{k}: {v}" for k, v in run.check.refused.most_common()) + ")"
                if run.check.refused
                else ""
            )
            + f"; flood limits exceeded: {run.check.violations}.",
            "",
            markdown_table(
                [
                    "updates",
                    "n",
                    "own p50",
                    "own p99",
                    "own max",
                    "less API p50",
                    "less API p99",
                    "calls / update",
                    "limiter waits, total ms",
                ],
                _latency_rows(run.bot["updates"]),
            ),
            "",
        ]
        jobs = run.bot["jobs"]
        times = [j["seconds"] for j in jobs]
        full = [
            (at, seconds) for generation, at, seconds in run.bot["gc_pauses"] if generation == 2
        ]
        updates = run.bot["updates"]
        spared = [
            s["seconds"]
            for s in updates
            if not any(
                at < s["started"] + s["seconds"] + s["limiter_wait"] and s["started"] < at + took
                for at, took in full
            )
        ]
        lines += [
            f"Timer jobs (computer turns, run by PTB's JobQueue, not updates): {len(jobs)}, "
            f"p50 {_ms(percentile(times, 50))} ms, p99 {_ms(percentile(times, 99))} ms, "
            f"{sum(j['calls'] for j in jobs) / max(1, len(jobs)):.2f} calls each. "
            f"Garbage collector: {len(run.bot['gc_pauses'])} collections, of which "
            f"{len(full)} full (generation 2) ones stopping the bot for "
            f"{', '.join(_ms(took) for _, took in full) or 'none'} ms; "
            f"{len(updates) - len(spared)} updates were in progress during one, and the "
            f"others' own p99 is {_ms(percentile(spared, 99))} ms.",
            "",
        ]
    lines += [
        "**own** (ms) = from the start of PTB's processing of an update (a handler in the "
        "first group, before the bot's) to the end of its last handler group (a handler in "
        "the last group), less the time its calls waited inside the rate limiter "
        "(`bot/edge/metrics.py`). The handlers await every call they make (the callback "
        "answer comes last), so this is the update arriving at the bot's handlers to its last"
        " API call returning. It includes waiting for the table's lock (held by a computer's "
        "turn, say), the database transaction, rendering, the HTTP round trips to the local "
        "fake server, and the time the event loop spends on other updates and jobs meanwhile."
        " Not in it: the getUpdates long poll and the parsing of the update before dispatch, "
        "and the group table edits and posts, which the group's channel sends later on its "
        "own task. **less API** also takes out the time inside the HTTP requests (encoding, "
        "round trip, "
        "decoding, and the loop's delay in resuming after the answer arrived).",
        "",
    ]
    lines += _memory_lines(runs)
    p99 = percentile(_own(main.bot["updates"]), 99)
    play99 = percentile(_own(main.bot["updates"], PLAY_KINDS), 99)
    met = p99 < GOAL_P99
    lines.append(
        f"Goal p99 < 50 ms ({main.name}): all updates {_ms(p99)} ms, game updates "
        f"{_ms(play99)} ms: "
        + ("**met**." if met else f"**missed** by {_ms(p99 - GOAL_P99)} ms (all updates).")
    )
    return "\n".join(lines)
