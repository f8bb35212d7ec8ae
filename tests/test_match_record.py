"""bench.tune --record: a match spread over runs is the same match as one run of it."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from bench import match_record
from bench.search_match import DealOutcome, run_match
from bench.tune import compare_models, shuangkou_factory

SEED = 7


def _compare(deals: int, record: Path | None) -> None:
    compare_models(
        "heuristic", "committed", deals=deals, seed=SEED, jobs=1,
        factory_of=shuangkou_factory, variant="shuangkou", record=record,
    )


def _figure(printed: str) -> tuple[str, int]:
    found = re.search(r": ([+-]\d\.\d{3} \[[+-]\d\.\d{3}, [+-]\d\.\d{3}\]) \((\d+) deals", printed)
    assert found, printed
    return found[1], int(found[2])


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_a_match_in_parts_plays_each_deal_once_and_gives_the_one_runs_figure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "match.jsonl"
    _compare(2, record)
    assert [line["deal"] for line in _lines(record)] == [0, 1]
    _compare(4, record)
    in_parts = capsys.readouterr().out.splitlines()[-1]
    assert [line["deal"] for line in _lines(record)] == [0, 1, 2, 3]
    assert "2 of them this run" in in_parts
    _compare(4, record)  # nothing left to play: the figure again, from the record alone
    again = capsys.readouterr().out
    assert "0 of them this run" in again and _figure(again) == _figure(in_parts)
    _compare(4, None)
    assert _figure(capsys.readouterr().out) == _figure(in_parts) and _figure(in_parts)[1] == 4
    _compare(2, record)  # a shorter match: the deals past it are in the record, not the figure
    first_two = capsys.readouterr().out
    _compare(2, None)
    assert _figure(first_two) == _figure(capsys.readouterr().out) and _figure(first_two)[1] == 2


def test_lines_of_another_version_or_cut_short_are_left_out_and_the_next_line_kept(
    tmp_path: Path,
) -> None:
    record = tmp_path / "runs" / "match.jsonl"  # its folder is made too
    key = match_record.MatchKey("moves: a among b", "paowang", 3, "v1")
    with match_record.open_to_append(record) as out:
        match_record.write(out, key, DealOutcome(0, 1.5, 2, 0, 0.0))
        older = dataclasses.replace(key, version="v0")
        match_record.write(out, older, DealOutcome(1, 9.0, 2, 0, 0.0))
        match_record.write(
            out, dataclasses.replace(key, match="moves: b among a"), DealOutcome(1, 7.0, 2, 0, 0.0)
        )
        match_record.write(out, dataclasses.replace(key, seed=4), DealOutcome(1, 5.0, 2, 0, 0.0))
        match_record.write(out, key, DealOutcome(0, 8.0, 2, 0, 0.0))  # a deal again: first kept
        out.write('{"match": "moves: a among b", "variant": "pao')  # a run stopped mid-line
    with match_record.open_to_append(record) as out:
        match_record.write(out, key, DealOutcome(2, -0.5, 2, 0, 0.0))
    with record.open("ab") as out:
        out.write('{"match": "一'.encode()[:-1])  # cut inside a character
    found = match_record.read(record, key)
    assert found.gains == {0: 1.5, 2: -0.5}
    assert (found.other_versions, found.damaged) == (1, 2)


def test_a_model_is_known_by_its_content_and_the_code_by_its_syntax(tmp_path: Path) -> None:
    first, moved, other = tmp_path / "r.py", tmp_path / "elsewhere.py", tmp_path / "s.py"
    first.write_text("MOVE_BASE = 0.0\n")
    moved.write_text("MOVE_BASE = 0.0\n")
    other.write_text("MOVE_BASE = 0.5\n")
    label = match_record.player_label
    assert label(str(first)) == label(str(moved)) != label(str(other))
    assert label(str(first)).startswith("file:") and label("committed") == "committed"
    code = tmp_path / "code.py"
    code.write_text("x = 1\n")
    before = match_record.version_of([code])
    code.write_text("# why x is 1\nx = (\n    1\n)\n")
    assert match_record.version_of([code]) == before
    code.write_text("x = 2\n")
    assert match_record.version_of([code]) != before


def test_only_plays_the_deals_asked_for() -> None:
    played: list[int] = []
    report = run_match(
        "shuangkou", 10, shuangkou_factory("heuristic"), title="t", seed=SEED,
        baseline=shuangkou_factory("committed"), only=[3, 8],
        progress=lambda outcome: played.append(outcome.deal),
    )
    assert played == [3, 8] and report.deals == 2 and report.seat_games == 8
