"""Telegram's webhook on the bot's web server: updates posted by Telegram go to PTB's update
queue, as PTB's own webhook server would put them (PTB's custom-webhook example).

Only a request on the registered path with the secret Telegram was given
(``X-Telegram-Bot-Api-Secret-Token``) is taken: anyone else's POST is refused and changes
nothing.
"""

from __future__ import annotations

import hmac
import json
import logging
from typing import Any

from aiohttp import web
from telegram import Update

log = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


class Webhook:
    def __init__(self, application: Any, path: str, secret: str) -> None:
        """``application``: PTB's Application (its bot decodes, its queue takes updates);
        ``path``: the path of the registered URL; ``secret``: the registered secret."""
        self.application = application
        self.path = "/" + path.strip("/")
        self.secret = secret

    async def handle(self, request: web.Request) -> web.StreamResponse:
        given = request.headers.get(SECRET_HEADER, "")
        if not hmac.compare_digest(given.encode(), self.secret.encode()):
            return web.Response(status=403)
        try:
            data = json.loads(await request.read())
            update = Update.de_json(data, self.application.bot)
        except (ValueError, TypeError, KeyError):
            log.warning("a webhook request that is no update")
            return web.Response(status=400)
        await self.application.update_queue.put(update)
        return web.Response()
