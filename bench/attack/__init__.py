"""The web table under attack: does a playing group still get its answers?

``.venv/bin/python -m bench.attack`` runs the real bot as a deployment does (``python -m bot
run``, a child process, its default settings and log level, the web table on: ``WEBAPP_URL``
set, the server on 127.0.0.1) against the fake Bot API server of ``fakebot`` with Telegram's
limits (20 messages a minute per group, one a second per private chat with 3 at once, 30 a
second overall). ``--groups`` groups each have a 双扣 game in progress with four people at it
who take their time (45 s turns are long enough for that; the bench makes them 900 s so no
timer moves a game during a run). Then, one attack at a time, each on a freshly started bot
over the same database (the games are recovered; one attack's damage does not spill into the
next):

1. **slow connections** (``--slow``, 1,100): TCP connections to the web server that send a
   request head one byte every ``--slow-interval`` seconds, with the bot's open-file limit
   (``RLIMIT_NOFILE``) at ``--nofile`` (1,024, a common default);
2. **spectator flood**: ``--pollers`` (40) clients asking ``GET /api/state`` of the first
   group's game as fast as they are answered, and ``--spectator-sockets`` (500) live sockets,
   each a different member of the group who is not seated, with valid signed ``initData``;
3. **big bodies**: ``--bodies`` (100) ``POST /api/action`` of ``--body-bytes`` (1 MB: a play
   of valid card codes) from a member who has no seat, evenly over ``--body-seconds``;
4. **many sockets from one seated user** (``--sockets``, 3,000) to their own game;
5. **press flood**: ``--presses`` (1,980) button presses in ``--press-seconds`` (10) from
   ``--press-users`` (99) members of the first group (a stale 加入 of its game).

During each attack, and in a quiet stretch before the first: every group gets a ``/help``
every ``--help-interval`` seconds (under the bot's 10 commands a minute for a group) from one
of its players, timed from the message to the bot's reply to it in the group; and the player
whose turn it is at the first table presses 提示 every ``--press-interval`` seconds, timed
from the press to its answer. An answer that does not come within ``--wait`` seconds counts
as none (and as infinitely late in the percentiles). From ``/proc``: the bot process's CPU
seconds, resident memory and open files (sampled every 0.5 s), and how much its log grew.

Each attack and each client operation is bounded in time, so a bot that refuses or closes
connections ends an attack early instead of hanging it. The attackers, the probes and the
fake share this process and its event loop: their delays are in the latencies too. It prints
the figures against the goal (a playing group answered within 1 s at p99 under every attack,
no log growing more than a few MB) and rewrites the ``bench.attack`` section of
``bench/results/bot.md``.
"""

# what tests/test_attack_bench.py runs
from bench.attack.runner import main
from bench.attack.scenarios import ATTACKS

__all__ = ["ATTACKS", "main"]
