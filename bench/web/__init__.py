"""The web table (the Mini App): Bot API calls per action with every seat on a page, and the
live views' latency and memory with 50 tables of pages at once.

``.venv/bin/python -m bench.web`` runs the real bot with its web table (``WEBAPP_URL`` set, the
server on 127.0.0.1, any free port) against the fake Bot API server with Telegram's limits (20
messages a minute per group, about one a second per private chat with 3 at once, 30 a second
overall) and the bot's default settings (20 group messages a minute, 1.2 s before a 要不起
pass). Every human is a page: signed ``initData`` (``fakebot.miniapp.init_data_for``), the
game taken from the 🃏 牌桌 ``web_app`` button of their hand message, the live WebSocket
(``/api/live``) open, and each decision sent as ``POST /api/action``. A page decides only from
the views it receives: it acts on a view whose ``turn`` is its ``seat`` (not ``auto_pass``),
answers 刨王's 亮王 gate when ``me.reveal`` or ``me.ready`` says so, and stops at
``status`` ``finished``.

1. **Calls per action** (``--games`` deals of each variant, fixed seeds; 双扣 with 4 humans,
   刨王 with 5; all games at once, each in its own group, the bot in this process). From the
   moment every page of a game has its first view to the end of the game (the group's result
   sent and its channel drained), every request the bot makes to the fake for that game's
   group or its players' private chats is counted, whatever its method or answer (a 429 too);
   requests without a chat (getUpdates, getMe, setMyCommands, deleteWebhook) are not. Divided
   by the game's actions (``table.seq`` at the end minus at the start: plays and passes, the
   bot's 要不起 passes, 刨王's 亮王 answers). What to play is the bot's AI player's choice from
   the seat's own view; the person thinks ``--think`` seconds (uniform) first, which puts the
   pace near ``bench.bot_calls``' human-pace game, whose keyboards figure (read from its
   section of ``bench/results/bot.md``) is compared.
2. **50 tables at once** (``--tables``, a fifth of them 刨王 with 5 humans; the bot in a child
   process, ``--bot-process``, so its event loop serves only the bot; the fake and the pages
   in this one). Memory: the bot's RSS and its Python allocations (tracemalloc, on only while
   the pages connect) with every page connected less before the first one, per connection.
   Then two phases of ``--seconds`` each on the same pages: people with a small think time
   (``--load-think``), then as fast as they can (no thinking). Latency: from just before a
   play's or pass's ``POST /api/action`` is sent to the moment the first view with a newer
   ``seq`` has arrived at *every* open page of the table over its WebSocket (timestamped with
   ``time.perf_counter()`` as this process's reader takes it; views are parsed only for
   ``seq`` then, the whole view only when the page decides).

It prints the figures and rewrites the ``bench.web`` section of ``bench/results/bot.md``.
"""
