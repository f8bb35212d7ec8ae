"""Many tables at once through the fake Bot API server: correctness under load, latency, memory.

``.venv/bin/python -m bench.load`` plays ``--tables`` games at once (two thirds 双扣, one
third 刨王; most seats computers, some simulated humans who press buttons at full speed,
including two users of one table pressing at the same moment and the same button pressed
twice), then checks every game against an independent replay through the engine, and
reports the bot's own time per update and its memory per table. It prints the figures and
rewrites the ``bench.load`` section of ``bench/results/bot.md``.

Two processes: this one runs the fake server and the simulated people; the bot runs in a child
process (``--bot-process``), instrumented with :mod:`bot.edge.metrics`, so its event loop serves
only the bot. The scenario and the checks are also used in-process by
``tests/e2e/test_load_small.py``. ``BENCH_LOAD_PROFILE=file`` writes a cProfile of the bot
process to ``file``.
"""

# the scenario and its checks run in-process by tests/e2e/test_load_small.py
from bench.load.checks import check_games
from bench.load.people import Knobs, TableSpec
from bench.load.scenario import FAKE_LIMITS, bot_overrides, run_scenario

__all__ = ["FAKE_LIMITS", "Knobs", "TableSpec", "bot_overrides", "check_games", "run_scenario"]
