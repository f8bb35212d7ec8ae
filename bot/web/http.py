"""The bot's one web server (aiohttp.web on the bot's event loop): the web table's page, API and
live views when ``WEBAPP_URL`` is set, and Telegram's webhook in webhook mode. Every answer
carries the security headers; a refusal is JSON with its status."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from aiohttp import web

from bot.web.server import Refused, WebTable
from bot.web.webhook import Webhook

#: Telegram's script, and nothing else from outside; frames only inside Telegram's web apps
CSP = (
    "default-src 'none'; script-src 'self' https://telegram.org; style-src 'self'; "
    "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors https://web.telegram.org https://*.telegram.org"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


class HttpServer:
    def __init__(self, *, table: WebTable | None = None, webhook: Webhook | None = None) -> None:
        self.table = table
        self.webhook = webhook
        self._runner: web.AppRunner | None = None
        self.port = 0

    def application(self) -> web.Application:
        app = web.Application(middlewares=[_headers_and_refusals], client_max_size=1024 * 1024)
        if self.table is not None:
            self.table.add_routes(app)
        if self.webhook is not None:
            app.router.add_post(self.webhook.path, self.webhook.handle)
        return app

    async def start(self, host: str, port: int) -> int:
        """Serve on ``host``:``port`` (0: any free port); returns the port."""
        self._runner = web.AppRunner(self.application(), access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port)
        await site.start()
        server = site._server  # the listening socket's port, when 0 was asked for
        sockets = getattr(server, "sockets", None) or []
        self.port = int(sockets[0].getsockname()[1]) if sockets else port
        if self.table is not None:
            self.table.port = self.port
        return self.port

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None


@web.middleware
async def _headers_and_refusals(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    try:
        response = await handler(request)
    except Refused as refusal:
        response = web.Response(
            text=refusal.body(), status=refusal.status, content_type="application/json"
        )
    except web.HTTPException as error:
        error.headers.update(SECURITY_HEADERS)
        raise
    if not response.prepared:
        response.headers.update(SECURITY_HEADERS)
    return response
