"""Chaos: many tables play while the bot is killed, Telegram misbehaves and people do odd things.

``.venv/bin/python -m bench.chaos [--tables 20] [--minutes 3] [--seed 1]`` runs the real bot as
a subprocess (``python -m bot run``, as a deployment does) against the fake Bot API server of
``fakebot`` on 127.0.0.1, both with Telegram's limits (20 messages a minute per group, about one a
second per private chat with 3 at once, 30 a second overall), short turns (``TURN_SECONDS=20``)
and computers at ``COMPUTER_DELAY=0.5``, and for ``--minutes`` minutes of chaos:

- ``--tables`` groups each hold one or two simulated humans who open games (双扣 or 刨王, by the
  table), join them, fill the other seats with computers and start; they play at a person's pace
  (0.5–2 s of thought, then 提示 and 出牌, or 不出), answer 亮王/不亮 and 知道了，继续 in 刨王,
  and press 我回来了 when the computer took over. Once a game ends the table opens another;
- now and then a human presses a button twice at once, sends /leave (逃跑) or blocks the bot
  (and comes back with /start 15–40 s later);
- one more group gets 200 /help from one user in 20 s;
- 3 to 5 kills are planned: the bot is SIGKILLed and, 1–4 s later, started again on the same
  database (ready once it polls again); it polls at least 10–20 s before the next kill, so a
  slow restart leaves room for fewer kills (the report says how many were made);
- in stretches of 3–10 s Telegram answers sendMessage, editMessageText or answerCallbackQuery
  with 429 (``retry_after`` 1–3 s), 500, 502, or holds it 1–8 s and then answers 504 (the
  method took effect: ``performed=True``). The bot's read timeout is 5 s here, so the longer
  holds are timeouts on the bot's side.

The choreography (who does what, when the kills and the fault stretches come) is drawn from
``random.Random(--seed)``; the timing is real, so two runs differ in what the bot sees.

Then the chaos stops: no faults, no kills, no odd presses; the tables stop opening games and get
``--settle`` seconds to finish the ones they play; the bot is stopped with SIGTERM, and the run
is checked:

1. every stored game log replays: a game is dealt from its seed (or hands) and leader, and the
   engine accepts every stored action in order;
2. no action is lost or doubled: each game's ``seq`` is 0..n-1; a finished game's replay is
   over, its outcome and every seat's rules delta are the stored ones, the applied delta is the
   one a desertion fixed (or 0 in a short game) where one did; a game still ``playing`` is not
   over; every player's rating is the sum of their stored results (no settlement doubled);
3. every press is answered, except those made while the bot was down or in the 10 s before a
   kill (the update was taken and the process died): those are counted apart;
4. no flood limit is exceeded: the fake recorded no violation (group, private or global), and no
   group got more than 20 messages (sends and edits) in any 60 s, counting every request but
   those answered 429 and those an injected 500/502 answered (they never reached "Telegram");
   the count with those too is printed beside it;
5. no game stalls: a game still ``playing`` when the bot is stopped has had a move in the last
   60 s, or the bot has been up for less than that (with 20 s turns and their timers, a game the
   bot still runs never waits that long).

It prints the counts and rewrites the ``bench.chaos`` section of ``bench/results/bot.md``. With
``--keep`` (or when a check fails) the database, the bot's log and ``requests.jsonl`` (every
request the bot made, every press, the kill windows; fake-clock seconds) stay in a temporary
folder whose name is printed.
"""
