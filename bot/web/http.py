"""The bot's one web server (aiohttp.web on the bot's event loop): the web table's page, API and
live views when ``WEBAPP_URL`` is set, and Telegram's webhook in webhook mode. Every answer
carries the security headers; a refusal is JSON with its status. Connections are capped and
timed (bot/web/guard.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from aiohttp import web

from bot.web.guard import ConnectionGuard, neutral_server_header
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


#: connections waiting to be accepted (aiohttp's TCPSite default)
BACKLOG = 128


class HttpServer:
    def __init__(
        self,
        *,
        table: WebTable | None = None,
        webhook: Webhook | None = None,
        max_connections: int = 512,
        header_timeout: float = 10.0,
        body_timeout: float = 20.0,
    ) -> None:
        self.table = table
        self.webhook = webhook
        self.guard = ConnectionGuard(
            max_connections=max_connections,
            header_timeout=header_timeout,
            body_timeout=body_timeout,
        )
        self._runner: web.AppRunner | None = None
        self._listener: asyncio.Server | None = None
        self.port = 0

    def application(self) -> web.Application:
        app = web.Application(
            middlewares=[_headers_and_refusals, self.guard.middleware],
            client_max_size=1024 * 1024,
        )
        if self.table is not None:
            self.table.add_routes(app)
        if self.webhook is not None:
            app.router.add_post(self.webhook.path, self.webhook.handle)
        return app

    async def start(self, host: str, port: int) -> int:
        """Serve on ``host``:``port`` (0: any free port); returns the port."""
        neutral_server_header()
        self._runner = web.AppRunner(self.application(), access_log=None)
        await self._runner.setup()
        assert self._runner.server is not None
        # listening ourselves rather than with a TCPSite: its protocol factory cannot be
        # wrapped, and the guard must see each connection before aiohttp does
        self._listener = await asyncio.get_running_loop().create_server(
            self.guard.factory(self._runner.server), host, port, backlog=BACKLOG
        )
        sockets = self._listener.sockets
        self.port = int(sockets[0].getsockname()[1]) if sockets else port
        if self.table is not None:
            self.table.port = self.port
        return self.port

    async def stop(self) -> None:
        if self._listener is not None:
            self._listener.close()  # no new connections; the runner closes the open ones
            self._listener = None
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
        for name, value in SECURITY_HEADERS.items():  # a static file says how to cache it
            response.headers.setdefault(name, value)
    return response
