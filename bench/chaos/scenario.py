"""One chaos run from start to end, and what the fake recorded of it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections import Counter

from bench.botrun import COUNTED, max_in_window
from bench.chaos.checks import check_database, log_errors
from bench.chaos.makers import Makers
from bench.chaos.model import GROUP_LIMIT, KILL_GRACE, SPAM_GROUP, Report
from bench.chaos.people import People
from bench.pgcluster import LIKE_SQLITE, copy_to_sqlite, create_database, throwaway_cluster
from fakebot import CallbackResult, FakeTelegram, Rejection


class Chaos(People, Makers):
    """One run: the fake, the bot process, the tables, the humans and the chaos makers."""

    async def run(self) -> Report:
        report = Report(self.args)
        begun = time.monotonic()
        chaos_seconds = self.args.minutes * 60.0
        async with self.fake:
            self.build_world()
            report.humans = len(self.humans)
            report.variants = Counter(t.variant for t in self.tables)
            tables: list[asyncio.Task[None]] = []
            humans: list[asyncio.Task[None]] = []
            makers: list[asyncio.Task[None]] = []
            try:
                if self.args.standby:
                    cluster = self.stack.enter_context(throwaway_cluster(LIKE_SQLITE))
                    self.database_url = await create_database(cluster, "chaos")
                await self.start_bot()
                if self.args.standby:
                    await self.start_standby()
                await self.greet()
                humans = [asyncio.ensure_future(self.run_human(h)) for h in self.humans]
                tables = [asyncio.ensure_future(self.run_table(t)) for t in self.tables]
                makers = [
                    asyncio.ensure_future(self.killer(chaos_seconds)),
                    asyncio.ensure_future(self.faulter()),
                    asyncio.ensure_future(self.spammer()),
                ]
                chaos_begun = time.monotonic()
                with contextlib.suppress(TimeoutError):  # the chaos runs (a dead bot ends it)
                    await asyncio.wait_for(self.chaos_over.wait(), chaos_seconds)
                self.chaos_over.set()
                for maker in makers:  # a restart under way finishes first
                    with contextlib.suppress(asyncio.CancelledError):
                        await maker
                self.fake.clear_faults()
                report.chaos_seconds = time.monotonic() - chaos_begun
                settle_begun = time.monotonic()
                with contextlib.suppress(TimeoutError):
                    await self.fake.wait_for(
                        lambda: all(t.done() for t in tables),
                        self.args.settle,
                        what="the tables to finish their games",
                    )
                report.tables_unsettled = sum(1 for t in tables if not t.done())
                report.settle_seconds = time.monotonic() - settle_begun
                self.humans_stop = True
                with contextlib.suppress(TimeoutError):  # answers still on their way
                    await self.fake.wait_for(
                        lambda: not self._unanswered()[1], 15, what="the last answers"
                    )
            finally:
                for task in [*tables, *humans, *makers, *self.side_tasks]:
                    task.cancel()
                await asyncio.gather(
                    *tables, *humans, *makers, *self.side_tasks, return_exceptions=True
                )
                stopped = time.time()
                await self.stop_bot()
                self.log.close()
            self._fill(report)
            if self.database_url is not None:  # the checks read a SQLite copy (copy-db's code)
                await copy_to_sqlite(self.database_url, self.db_path)
            self.stack.close()
        report.db = check_database(self.db_path, stopped=stopped, up_since=self.ready_wall)
        report.log_errors = log_errors(self.folder / "bot.log")
        report.seconds = time.monotonic() - begun
        return report

    def _unanswered(self) -> tuple[list[CallbackResult], list[CallbackResult]]:
        """Unanswered presses: (excused by a kill, not excused)."""
        excused, other = [], []
        for press in self.fake.unanswered_callbacks():
            if any(k - KILL_GRACE <= press.created <= up for k, up in self.kill_windows):
                excused.append(press)
            else:
                other.append(press)
        return excused, other

    def _fill(self, report: Report) -> None:
        fake = self.fake
        report.stats = self.stats
        report.presses_total = len(fake.callbacks)
        excused, other = self._unanswered()
        report.unanswered_excused = len(excused)
        origin = min((r.time for r in fake.requests), default=0.0)
        for press in other:
            tried = [
                r
                for r in fake.requests
                if r.method == "answerCallbackQuery"
                and str(r.raw.get("callback_query_id")) == press.query_id
            ]
            how = (
                "never answered by the bot"
                if not tried
                else "answers tried: "
                + ", ".join(f"{r.status}{' (' + r.fault + ')' if r.fault else ''}" for r in tried)
            )
            report.unanswered.append(
                f"user {press.user_id} pressed {press.data!r} on message {press.message_id} "
                f"at t={press.created - origin:.1f} s; {how}"
            )
        for fault in self.faults:
            report.faults_fired[f"{fault.method} {fault.kind}"] += fault.fired
        report.violations = Counter(v.scope for v in fake.limit_violations)
        report.violation_samples = [str(v) for v in fake.limit_violations[:10]]
        faulted = {"500", "502"}  # answered by an injected failure: never reached "Telegram"
        for table in self.tables:
            strict = [
                r.time
                for r in fake.requests
                if r.chat_id == table.chat_id and r.method in COUNTED and r.status != 429
            ]
            effective = [
                r.time
                for r in fake.requests
                if r.chat_id == table.chat_id
                and r.method in COUNTED
                and r.status != 429
                and r.fault not in faulted
            ]
            most = max_in_window(effective)
            report.group_max = max(report.group_max, most)
            report.group_max_strict = max(report.group_max_strict, max_in_window(strict))
            if most > GROUP_LIMIT:
                report.group_over.append(
                    f"group {table.chat_id} got {most} messages in 60 s (limit {GROUP_LIMIT})"
                )
        report.spam_answered = sum(
            1 for m in fake.chat(SPAM_GROUP).bot_messages if m.reply_to is not None
        )
        report.rejections = [str(r) for r in fake.rejections]
        report.rejection_kinds = Counter(_explain(fake, r) for r in fake.rejections)
        report.rejections_other = [
            str(r) for r in fake.rejections if _explain(fake, r) == REFUSED_OTHER
        ]
        report.forbidden = len(fake.forbidden)
        self._dump()

    def _dump(self) -> None:
        """Every request the bot made, one JSON line each (kept with --keep or on failure)."""
        with open(self.folder / "requests.jsonl", "w", encoding="utf-8") as out:
            for r in self.fake.requests:
                line = {
                    "t": round(r.time, 3),
                    "method": r.method,
                    "chat": r.chat_id,
                    "status": r.status,
                    "fault": r.fault,
                    "message_id": r.raw.get("message_id"),
                    "query": r.raw.get("callback_query_id"),
                    "text": str(r.raw.get("text", ""))[:80],
                }
                out.write(json.dumps(line, ensure_ascii=False) + "\n")
            for press in self.fake.callbacks.values():
                line = {
                    "press": press.query_id,
                    "t": round(press.created, 3),
                    "user": press.user_id,
                    "data": press.data,
                    "answered": press.is_answered,
                }
                out.write(json.dumps(line) + "\n")
            for window in self.kill_windows:
                out.write(json.dumps({"killed": window[0], "polling": window[1]}) + "\n")


REFUSED_AFTER_TIMEOUT = "a retry after an attempt that timed out but took effect"
REFUSED_REPEAT = "a repeat of a request that had succeeded"
REFUSED_PROBE = "a look for a table message whose send timed out (an edit to the same buttons)"
REFUSED_OTHER = "other"


def _explain(fake: FakeTelegram, rejection: Rejection) -> str:
    """Why the fake refused a request: the bot retried one whose earlier attempt took effect
    (an injected "timeout" with performed=True, which a real lost response also causes), or
    repeated one that had succeeded, or something else."""
    params = rejection.params
    if rejection.method == "editMessageReplyMarkup" and "not modified" in rejection.description:
        return REFUSED_PROBE
    if rejection.method == "answerCallbackQuery":
        keys = ("callback_query_id",)
    elif "message_id" in params:
        keys = ("chat_id", "message_id")
    else:
        return REFUSED_OTHER
    wanted = [str(params.get(k)) for k in keys]
    earlier = [
        r
        for r in fake.requests
        if r.method == rejection.method
        and r.time < rejection.time
        and [str(r.raw.get(k)) for k in keys] == wanted
    ]
    if any(r.fault == "timeout" for r in earlier):
        return REFUSED_AFTER_TIMEOUT
    if any(r.ok for r in earlier):
        return REFUSED_REPEAT
    return REFUSED_OTHER
