"""Wiring: settings, database, the PTB Application, the service; long polling or webhook."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import secrets
import signal
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from urllib.parse import urlsplit

from telegram import BotCommand, Update
from telegram.ext import Application, ContextTypes, JobQueue, TypeHandler

from bot.config import Settings
from bot.edge import logfilter
from bot.edge.handlers import register_handlers
from bot.edge.handlers.members import ChatMembers
from bot.edge.observe import Metrics, MetricsServer
from bot.edge.outbox import Messenger
from bot.edge.ratelimit import WindowRateLimiter
from bot.edge.standby import Heartbeat, StandbyStopped, become_active
from bot.edge.startup import (
    StartupError,
    api_urls,
    load_settings,
    only_process,
    open_checked,
    preflight,
)
from bot.edge.telegram_log import PollingErrors, install_log_filter
from bot.edge.updates import FairUpdateProcessor
from bot.limits.throttle import Throttle
from bot.presentation.strings import text
from bot.service import GameService, random_seed
from bot.storage import Database
from bot.web.http import HttpServer
from bot.web.server import WebTable
from bot.web.webhook import Webhook

log = logging.getLogger(__name__)

#: messages, button presses, being blocked or unblocked in a private chat, and people joining
#: or leaving a group (sent only where the bot is an admin; they keep the member cache right)
#: the handler group that counts updates for the metrics (before every other group)
METRICS_GROUP = -100
ALLOWED_UPDATES = ["message", "callback_query", "my_chat_member", "chat_member"]
COMMAND_NAMES = (
    "newgame", "rank", "top", "season", "rules", "help", "lang", "hand", "leave", "cancel",
    "settings",
    "stats",
    "history",
)


class JobQueueScheduler:
    """The service's timers on PTB's JobQueue: one job per name, replaced by name."""

    def __init__(self, job_queue: JobQueue) -> None:  # type: ignore[type-arg]
        self.job_queue = job_queue

    def schedule(self, name: str, delay: float, callback: Callable[[], Awaitable[None]]) -> None:
        self.cancel(name)

        async def job(context: ContextTypes.DEFAULT_TYPE) -> None:
            await callback()

        # a job due while the bot was busy (recovering its tables before the job queue
        # starts, say) runs late rather than never: a lost job is a game that waits forever
        self.job_queue.run_once(
            job, when=max(0.0, delay), name=name, job_kwargs={"misfire_grace_time": None}
        )

    def cancel(self, name: str) -> None:
        for job in self.job_queue.get_jobs_by_name(name):
            job.schedule_removal()


def build_application(
    settings: Settings, *, new_seed: Callable[[], int] = random_seed
) -> Application:  # type: ignore[type-arg]
    """The whole bot, ready to ``initialize``/``start`` (tests) or ``run_polling``.
    ``new_seed``: where each game's deal comes from (tests fix it)."""
    metrics = Metrics() if settings.metrics_port is not None else None
    builder = (
        Application.builder()
        .token(settings.token)
        .rate_limiter(
            WindowRateLimiter(
                settings.overall_messages_per_second, max_retries=3, observer=metrics
            )
        )
        .read_timeout(settings.telegram_read_timeout)
        .concurrent_updates(FairUpdateProcessor())
        .post_init(_post_init)
        .post_shutdown(_post_shutdown)
    )
    urls = api_urls(settings)
    if urls is not None:
        builder = builder.base_url(urls[0]).base_file_url(urls[1])
    application = builder.build()
    install_log_filter()
    application.bot_data["settings"] = settings
    application.bot_data["metrics"] = metrics
    if metrics is not None:  # a group of its own: a group runs only its first matching handler
        application.add_handler(TypeHandler(Update, metrics.count_update), group=METRICS_GROUP)
    application.bot_data["new_seed"] = new_seed
    application.bot_data["throttle"] = Throttle(settings.user_actions_per_second)
    application.bot_data["command_throttle"] = Throttle(
        settings.group_commands_per_minute / 60, burst=settings.group_command_burst
    )
    register_handlers(application)
    return application


@contextlib.asynccontextmanager
async def running_application(
    application: Application,  # type: ignore[type-arg]
) -> AsyncIterator[Application]:  # type: ignore[type-arg]
    """Run ``application`` as ``run_polling`` does (initialize, post_init, start, poll), then
    stop it in PTB's order: the bot's long polling, and the end-to-end tests and benchmarks,
    which drive the bot inside their own event loop. Failures to get updates are logged by
    :class:`PollingErrors` (run_polling would send them to the error handler, as ERRORs with
    a traceback each, when most are Telegram's passing 502s)."""
    await application.initialize()
    try:
        assert application.post_init is not None
        await application.post_init(application)
        await application.start()
        assert application.updater is not None
        await application.updater.start_polling(
            poll_interval=0,
            timeout=10,
            allowed_updates=ALLOWED_UPDATES,
            error_callback=PollingErrors(secret=application.bot.token),
        )
        try:
            yield application
        finally:
            await application.updater.stop()
            await application.stop()
            assert application.post_shutdown is not None
            await application.post_shutdown(application)
    finally:
        await application.shutdown()



async def _post_init(application: Application) -> None:  # type: ignore[type-arg]
    settings: Settings = application.bot_data["settings"]
    db = await open_checked(settings)
    application.bot_data["db"] = db
    metrics: Metrics | None = application.bot_data["metrics"]
    if metrics is not None and settings.metrics_port is not None:
        # up before the lease: a standby answers /healthz too (503, not active)
        await _start_metrics_server(application, metrics, db)
    await become_active(application.bot_data, db, metrics)
    bot = application.bot

    members = ChatMembers(bot, settings)
    application.bot_data["members"] = members
    assert application.job_queue is not None
    service = GameService(
        db=db,
        messenger=Messenger(
            bot,
            private_per_second=settings.private_messages_per_second,
            private_burst=settings.private_burst,
            group_budget=settings.group_messages_per_minute,
            group_log=db.group_sends,
        ),
        scheduler=JobQueueScheduler(application.job_queue),
        settings=settings,
        bot_username=bot.username,
        is_admin=members.is_admin,
        is_member=members.is_member,
        new_seed=application.bot_data["new_seed"],
    )
    application.bot_data["service"] = service
    for lang, code in (("zh", None), ("en", "en")):
        commands = [BotCommand(name, text(lang, f"commands.{name}")) for name in COMMAND_NAMES]
        await bot.set_my_commands(commands, language_code=code)
    await service.messenger.restore_group_windows()
    recovered = await service.recover()
    if settings.webapp_url:
        application.bot_data["web"] = WebTable(
            service,
            token=settings.token,
            throttle=application.bot_data["throttle"],
            max_age=settings.webapp_auth_max_age,
            sockets_per_user=settings.web_sockets_per_user,
            sockets_per_game=settings.web_sockets_per_game,
        )
        if not settings.webhook_url:  # in webhook mode the one server starts with the hook
            server = http_server(settings, table=application.bot_data["web"])
            application.bot_data["http"] = server
            port = await server.start(settings.web_listen, settings.web_port)
            log.info("web table on %s:%d for %s", settings.web_listen, port, settings.webapp_url)
    if metrics is not None:
        _measure_service(application, metrics, service)
        metrics.set_active(True)  # ready: the lease is held, the tables are recovered
    _tune_garbage_collector()
    log.info("bot @%s ready; %d unfinished games recovered", bot.username, recovered)


async def _start_metrics_server(
    application: Application,  # type: ignore[type-arg]
    metrics: Metrics,
    db: Database,
) -> None:
    settings: Settings = application.bot_data["settings"]
    assert settings.metrics_port is not None
    server = MetricsServer(metrics, db.schema_version)
    application.bot_data["metrics_server"] = server
    bound = await server.start(settings.metrics_listen, settings.metrics_port)
    log.info("metrics and /healthz on %s:%d", settings.metrics_listen, bound)


def _measure_service(
    application: Application,  # type: ignore[type-arg]
    metrics: Metrics,
    service: GameService,
) -> None:
    service.time_commands(metrics.time_command)
    service.count_actions(metrics.acted)
    metrics.tables.set_function(lambda: len(service.tables))
    web: WebTable | None = application.bot_data.get("web")
    if web is not None:
        metrics.pages.set_function(web.live.count)


def _tune_garbage_collector() -> None:
    """Fewer, cheaper pauses: a full collection stops every table at once.

    What exists after start-up (libraries, settings, recovered tables) lives as long as the
    process: freezing it keeps it out of every later collection. Young collections are made
    rarer too; the bot creates few reference cycles, so memory does not suffer.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)


async def _post_shutdown(application: Application) -> None:  # type: ignore[type-arg]
    heartbeat: Heartbeat | None = application.bot_data.get("heartbeat")
    if heartbeat is not None:
        await heartbeat.stop()
    server: HttpServer | None = application.bot_data.get("http")
    if server is not None:
        await server.stop()
    metrics_server: MetricsServer | None = application.bot_data.get("metrics_server")
    if metrics_server is not None:
        await metrics_server.stop()
    service: GameService | None = application.bot_data.get("service")
    if service is not None:
        await service.shutdown()
    db = application.bot_data.get("db")
    if db is not None:
        await db.close()


def run() -> int:
    """``python -m bot run``: 0 after a clean stop, 2 for bad settings (one line each on
    stderr), 1 when Telegram cannot be reached."""
    settings = load_settings()
    if settings is None:
        return 2
    logging.basicConfig(
        level=settings.log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    logging.getLogger("httpx").setLevel(logging.WARNING)
    logfilter.install(settings.log_repeat_seconds)
    application = build_application(settings)
    try:
        with only_process(settings):
            asyncio.run(preflight(settings))
            _serve(application, settings)
    except StartupError as error:
        print(error, file=sys.stderr)
        return error.code
    except StandbyStopped:
        log.info("stopped while standing by")
        return 0
    if application.bot_data.get("lease_lost"):
        print(
            "lost the database connection and with it the lease: stopped (start this "
            "instance again; it waits as a standby while another is active)",
            file=sys.stderr,
        )
        return 1
    return 0


def _serve(application: Application, settings: Settings) -> None:  # type: ignore[type-arg]
    if settings.webhook_url:
        asyncio.run(_run_webhook(application, settings, settings.webhook_url))
    else:
        asyncio.run(_run_polling(application))


async def _run_polling(application: Application) -> None:  # type: ignore[type-arg]
    """Long polling until SIGTERM or SIGINT (or the lease is lost)."""
    stop = _stop_on_signals(application)
    async with running_application(application):
        await stop.wait()


async def _run_webhook(
    application: Application,  # type: ignore[type-arg]
    settings: Settings,
    url: str,
) -> None:
    """Webhook mode on the bot's one web server (the web table's too, when it is on), until
    SIGTERM or SIGINT (or the lease is lost); the order of start and stop is PTB's."""
    stop = _stop_on_signals(application)
    secret = webhook_secret(settings)
    await application.initialize()
    try:
        assert application.post_init is not None
        await application.post_init(application)
        await application.start()
        server = http_server(
            settings,
            table=application.bot_data.get("web"),
            webhook=Webhook(application, webhook_path(url), secret),
        )
        application.bot_data["http"] = server
        await server.start(settings.webhook_listen, settings.webhook_port)
        await application.bot.set_webhook(
            url, secret_token=secret, allowed_updates=ALLOWED_UPDATES
        )
        log.info("webhook mode: %s", url)
        await stop.wait()
        await application.stop()
        assert application.post_shutdown is not None
        await application.post_shutdown(application)
    finally:
        await application.shutdown()


def _stop_on_signals(application: Application) -> asyncio.Event:  # type: ignore[type-arg]
    """The event SIGINT and SIGTERM set; a standby waiting for the lease watches it too."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    application.bot_data["stopping"] = stop
    return stop


def http_server(
    settings: Settings, *, table: WebTable | None, webhook: Webhook | None = None
) -> HttpServer:
    return HttpServer(
        table=table,
        webhook=webhook,
        max_connections=settings.web_max_connections,
        header_timeout=settings.web_header_timeout,
        body_timeout=settings.web_body_timeout,
    )


def webhook_path(url: str) -> str:
    """The path the bot serves: the one in the URL it registers with Telegram (a proxy in
    front forwards it as is)."""
    return urlsplit(url).path.strip("/")


def webhook_secret(settings: Settings) -> str:
    """``WEBHOOK_SECRET``, or one made for this run: Telegram sends it with every update and
    PTB refuses a request without it, so that a POST from anyone else is never taken for an
    update. A fresh one per start is fine: the bot registers it anew each time."""
    if settings.webhook_secret is not None:
        return settings.webhook_secret.get_secret_value()
    return secrets.token_urlsafe(32)
