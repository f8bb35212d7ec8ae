"""``bench.bot_calls``' report: the Markdown section of ``bench/results/bot.md``."""

from __future__ import annotations

from bench.bot_calls.people import Outcome, Pace
from bench.botrun import machine_lines, markdown_table, max_in_window

GOAL_CALLS_PER_ACTION = 3.0


def _per(count: float, of: int) -> str:
    return f"{count / of:.2f}" if of else "–"


def report(outcomes: list[Outcome], start: tuple[str, str, str], command: str, pace: Pace) -> str:
    lines = [
        "## Bot API calls per action, group messages per minute (`bench.bot_calls`)",
        "",
        f"`{command}`",
        "",
        *machine_lines(start),
        "- The bot with its default settings (group budget 20 a minute, sliding; "
        "the overall rate limiter; 45 s turns); the fake with Telegram's limits (20 a minute per "
        "group, sends and edits alike, sliding window; 1 a second per private chat, 3 at "
        "once; 30 a second overall), answering 429 with `retry_after` past them",
        f"- Human pace: real time; {pace.think[0]:g}–{pace.think[1]:g} s of thought before the "
        f"first press of a turn, {pace.tap[0]:g}–{pace.tap[1]:g} s between presses after it. "
        "What to play is the bot's AI player's choice from the seat's view; how to enter it "
        "is drawn per turn: 提示, 出牌 (45%); 提示 twice, 出牌 (10%); the cards one by one, "
        "出牌 (25%); typed in the private chat (20%); 不出 when the choice is to pass",
        "- One full game per row, counted from 开始 to the group's last message; the lobby "
        "and the deal (each human's first hand) are left out",
        "",
        "**Action calls** are the calls a play or a pass causes: the answer to the 出牌/不出 "
        "press, the edit that retires the presser's hand message (its buttons go), the next "
        "human's prompt (a new message with buttons), and every group send (trick, out, "
        "result lines, merged) and edit (the live table). **Selection calls** are the answer and "
        "the hand edit of each card toggle, 提示 or 清空. A typed play has no answer. "
        "Per action = divided by every play and pass of the game, the computers' included "
        "(they cause no answer and no retire edit, and no prompt unless a human is next). "
        "In 双扣 the bot passes for a human who holds nothing that beats the table (要不起), "
        "without asking: such a pass costs no private call either.",
        "",
    ]
    header = [
        "game",
        "actions (by humans; 要不起 of them)",
        "min",
        "answers",
        "retire edits",
        "prompts",
        "group posts",
        "group edits",
        "action calls / action",
        "selection presses",
        "selection calls / press",
        "group msgs (per min)",
        "max group msgs in 60 s",
        "429s (private / group)",
    ]
    rows = []
    for o in outcomes:
        b = o.boxes
        minutes = o.seconds / 60
        group = len(o.group_times)
        rows.append(
            [
                o.scenario.name,
                f"{o.actions} ({o.human_actions}; {o.auto_passes})",
                f"{minutes:.1f}",
                _per(b["action:answer"], o.actions),
                _per(b["action:retire edit"], o.actions),
                _per(b["action:prompt"], o.actions),
                _per(b["action:group post"], o.actions),
                _per(b["action:group edit"], o.actions),
                f"**{_per(o.action_calls, o.actions)}**",
                str(o.selection_presses),
                _per(o.selection_calls, o.selection_presses),
                f"{group} ({group / minutes:.1f})" if minutes else str(group),
                f"{max_in_window(o.all_group_times)} (limit {o.group_limit})",
                f"{o.retried['private']} / {o.retried['group']}",
            ]
        )
    lines += [markdown_table(header, rows), ""]
    lines += ["Per row: calls per action unless said otherwise; humans' ways of playing:"]
    for o in outcomes:
        styles = ", ".join(f"{k} {v}" for k, v in o.styles.most_common()) or "none (computers)"
        problems = o.rejections[:3]
        lines.append(
            f"- {o.scenario.name}: {styles}; flood limits exceeded (answered 429, then retried "
            f"by the bot): {dict(o.violations) or 'none'}; "
            f"requests refused: {len(o.rejections)}"
            + (f" ({'; '.join(problems)})" if problems else "")
        )
    lines.append("")
    lines += _verdict(outcomes)
    return "\n".join(lines)


def _verdict(outcomes: list[Outcome]) -> list[str]:
    lines = []
    for o in outcomes:
        per = o.action_calls / o.actions if o.actions else 0.0
        window = max_in_window(o.all_group_times)
        b = o.boxes
        if per <= GOAL_CALLS_PER_ACTION:
            calls = f"{per:.2f} action calls per action: goal ≤ {GOAL_CALLS_PER_ACTION:g} met"
        else:
            parts = ", ".join(
                f"{name} {b[key] / o.actions:.2f}"
                for name, key in (
                    ("answers", "action:answer"),
                    ("retire edits", "action:retire edit"),
                    ("prompts", "action:prompt"),
                    ("group posts", "action:group post"),
                    ("group edits", "action:group edit"),
                )
            )
            calls = (
                f"{per:.2f} action calls per action: goal ≤ {GOAL_CALLS_PER_ACTION:g} "
                f"**missed by {per - GOAL_CALLS_PER_ACTION:.2f}** ({parts})"
            )
        limit = f"max {window} group messages in any 60 s: the limit of {o.group_limit} " + (
            "held" if window <= o.group_limit and not o.violations["group"] else "**exceeded**"
        )
        lines.append(f"- {o.scenario.name}: {calls}; {limit}.")
    return lines
