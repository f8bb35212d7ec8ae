"""Telegram's webhook on the bot's web server: updates posted by Telegram go to PTB's update
queue, as PTB's own webhook server would put them (PTB's custom-webhook example).

Only a request on the registered path with the secret Telegram was given
(``X-Telegram-Bot-Api-Secret-Token``) is taken: anyone else's POST is refused and changes
nothing.
"""

from __future__ import annotations

import hmac
import logging
from typing import Any

from aiohttp import web
from telegram import Update

from bot.web.inputs import BadInput, loads, read_capped

log = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
#: an update is a few KB; the web server's own cap on any body is the same 1 MB
MAX_UPDATE_BYTES = 1024 * 1024


class Webhook:
    def __init__(self, application: Any, path: str, secret: str) -> None:
        """``application``: PTB's Application (its bot decodes, its queue takes updates);
        ``path``: the path of the registered URL; ``secret``: the registered secret."""
        self.application = application
        self.path = "/" + path.strip("/")
        self.secret = secret

    async def handle(self, request: web.Request) -> web.StreamResponse:
        # a header aiohttp could not decode as UTF-8 keeps its bytes as surrogates
        given = request.headers.get(SECRET_HEADER, "").encode("utf-8", "surrogateescape")
        if not hmac.compare_digest(given, self.secret.encode()):
            return web.json_response({"error": "wrong secret"}, status=403)
        try:
            update = self._update(loads(await read_capped(request, MAX_UPDATE_BYTES)))
        except BadInput as bad:
            log.warning("a webhook request that is no update: %s", bad.reason)
            return web.json_response({"error": bad.reason}, status=bad.status)
        await self.application.update_queue.put(update)
        return web.Response()

    def _update(self, data: object) -> Update:
        if not isinstance(data, dict):
            raise BadInput(400, "not an object")
        update_id = data.get("update_id")
        if not isinstance(update_id, int) or isinstance(update_id, bool) or update_id < 0:
            raise BadInput(400, "no update_id")
        try:
            return Update.de_json(data, self.application.bot)
        except Exception as error:
            # PTB's decoder is no validator: a shape it does not expect trips it anywhere
            # (AttributeError, KeyError, TypeError, ...); only Telegram holds the secret, so
            # this is a bug to see in the log, but still one request's, not the server's
            raise BadInput(400, f"not an update ({type(error).__name__})") from None
