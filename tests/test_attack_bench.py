"""``bench.attack`` at its smallest: every attack runs against the real bot and the report has
a row, an account and a verdict for each, so the benchmark cannot rot unnoticed."""

from __future__ import annotations

import json
import os

import pytest

from bench.attack import ATTACKS, main
from bench.attackers import big_body
from bench.botrun import proc_sample
from bot.web.inputs import card_of

NAMES = (
    "slow connections",
    "spectator flood",
    "big bodies",
    "many sockets, one seated user",
    "press flood",
)
SMALLEST = [
    "--groups", "1", "--quiet-seconds", "1", "--help-interval", "4", "--wait", "5",
    "--slow", "4", "--slow-seconds", "2", "--slow-interval", "0.5",
    "--pollers", "2", "--spectator-sockets", "3", "--spectator-seconds", "2",
    "--bodies", "2", "--body-bytes", "20000", "--body-seconds", "1",
    "--sockets", "5", "--sockets-seconds", "2",
    "--presses", "10", "--press-users", "3", "--press-seconds", "1",
    "--reuse-bot", "--no-write",
]  # fmt: skip


def test_the_smallest_run_reports_every_attack(capsys: pytest.CaptureFixture[str]) -> None:
    assert len(NAMES) == len(ATTACKS)
    assert main(SMALLEST) == 0
    report = capsys.readouterr().out
    assert report.startswith("## The web table under attack (`bench.attack`)")
    assert "- Machine: " in report and "Measured while the machine was shared" in report
    rows = [line for line in report.splitlines() if line.startswith("| ")]
    assert rows[0].startswith("| attack |")
    assert [row.split(" | ")[0].removeprefix("| ") for row in rows[2:]] == ["no attack", *NAMES]
    for name in NAMES:
        assert f"- **{name}**: " in report  # what the attacker saw
        assert f"- {name}: a playing group answered within 1 s at p99" in report  # verdict
    # the attackers reached the bot: the slow connections were taken, the pages were viewed
    assert "4 of 4 connected" in report
    assert "3 of 3 sockets opened, 3 got a view" in report
    assert "10 presses of a stale 加入 by 3 members: 10 answered" in report


def test_a_big_body_is_a_play_of_valid_cards_of_about_the_size_asked() -> None:
    body = big_body(game=7, size=50_000)
    assert 49_000 < len(body) <= 50_000
    parsed = json.loads(body)
    assert (parsed["game"], parsed["kind"]) == (7, "play")
    assert len(parsed["cards"]) > 10_000
    for code in set(parsed["cards"]):
        card_of(code)  # raises for anything that is no card


def test_proc_sample_sees_this_process_and_gives_zeros_for_one_gone() -> None:
    sample = proc_sample(os.getpid())
    assert sample.cpu > 0 and sample.rss > 10 * 2**20 and sample.files >= 3
    assert proc_sample(2**22 + 12_345).files == 0  # above the largest pid Linux hands out
