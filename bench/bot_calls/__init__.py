"""Bot API calls per game action and group messages per minute in a 4-seat 双扣 game.

``.venv/bin/python -m bench.bot_calls`` runs the real bot (``build_application``, its default
settings: 20 messages a minute per group, the overall rate limiter, 45 s turns) against the fake Bot
API server with Telegram's limits (20 a minute per group, sends and edits alike, sliding; about
one a second per private chat with 3 at once; 30 a second overall) and plays whole games:

- human pace: 4 simulated humans in real time (the bot uses real time, so the clock is not
  scaled): each thinks ``--think`` seconds (uniform) before the first press of a turn and
  taps ``--tap`` seconds apart after it; they select the way people do: 提示 then 出牌
  (sometimes 提示 twice), or the cards one by one then 出牌, or the play typed in the private
  chat, and 不出 when they choose to pass;
- the same 1 human with 3 computers at the bot's default computer delay (1.2 s);
- full speed: 1 human with 3 computers, and 4 computers, computer delay 0 and no thinking.

What the simulated people play is decided by the bot's own AI player reading their seat's
view (their brain); only their presses and typed messages reach the bot.

Every request the bot makes after 开始 is read from the fake's log and put in one box:
*action calls* (the answer to 出牌/不出, the edit that retires the presser's hand message, the
next player's prompt, every group send and edit) and *selection calls* (the answer and the
hand edit of a card toggle, 提示 or 清空). It prints the figures and rewrites the
``bench.bot_calls`` section of ``bench/results/bot.md``.
"""
