"""Update queueing and delivery: the queue, getUpdates' long poll, webhooks."""

from __future__ import annotations

import asyncio
import re
from typing import Any
from urllib.parse import urlsplit

import aiohttp

from fakebot.errors import ApiError, bad_request
from fakebot.state import FakeState

#: Update types delivered when the bot does not list any (Telegram's default).
DEFAULT_EXCLUDED_UPDATES = frozenset({"chat_member", "message_reaction", "message_reaction_count"})


class UpdatesMixin(FakeState):
    """The bot's updates: queued by what users do, taken by getUpdates or pushed to a webhook."""

    def _queue(self, kind: str, payload: dict[str, Any]) -> int | None:
        """Queue an update unless the bot's allowed_updates exclude it."""
        allowed = self.allowed_updates
        if (allowed and kind not in allowed) or (not allowed and kind in DEFAULT_EXCLUDED_UPDATES):
            self.dropped_updates.append({kind: payload})
            return None
        update_id = next(self._update_ids)
        self._pending.append({"update_id": update_id, kind: payload})
        return update_id

    def queue_update(self, kind: str, payload: dict[str, Any]) -> int | None:
        """Queue any other update (``my_chat_member``, ``inline_query``...) as is."""
        update_id = self._queue(kind, payload)
        self._notify()
        return update_id

    @property
    def pending_updates(self) -> list[dict[str, Any]]:
        """Updates queued and not yet confirmed by the bot's getUpdates offset."""
        return list(self._pending)

    async def _get_updates(self, params: dict[str, Any]) -> Any:
        if self.webhook is not None:
            raise ApiError(
                409,
                "Conflict: can't use getUpdates method while webhook is active; use "
                "deleteWebhook to delete the webhook first",
                kind="conflict",
            )
        if "allowed_updates" in params:
            self.allowed_updates = list(params["allowed_updates"])
        offset = params.get("offset", 0)
        if offset > 0:
            self._pending = [u for u in self._pending if u["update_id"] >= offset]
        elif offset < 0:
            self._pending = self._pending[offset:]
        limit = params.get("limit", 100)
        timeout = max(0, params.get("timeout", 0))
        self._poll_generation += 1
        generation = self._poll_generation
        self._notify()  # an older long poll is terminated by this one
        try:
            async with asyncio.timeout(timeout):
                while not self._pending and not self._closing:
                    changed = self._changed
                    await changed.wait()
                    if self._poll_generation != generation:
                        raise ApiError(
                            409,
                            "Conflict: terminated by other getUpdates request; make sure that "
                            "only one bot instance is running",
                            kind="conflict",
                        )
        except TimeoutError:
            pass
        return self._pending[:limit]

    def _delete_webhook(self, params: dict[str, Any]) -> Any:
        self.webhook = None
        if params.get("drop_pending_updates"):
            self._pending.clear()
        return True

    def _set_webhook(self, params: dict[str, Any]) -> Any:
        url = params["url"]
        if not url:
            return self._delete_webhook(params)
        if not url.startswith("https://"):
            raise bad_request("bad webhook: An HTTPS URL must be provided for webhook")
        secret = params.get("secret_token")
        if secret is not None and not re.fullmatch(r"[A-Za-z0-9_-]{1,256}", str(secret)):
            raise bad_request("bad webhook: secret token contains unallowed characters")
        self.webhook = dict(params)
        if "allowed_updates" in params:
            self.allowed_updates = list(params["allowed_updates"])
        if params.get("drop_pending_updates"):
            self._pending.clear()
        if self._pusher is None or self._pusher.done():
            self._pusher = asyncio.get_running_loop().create_task(self._push_updates())
        return True

    async def _push_updates(self) -> None:
        """Deliver pending updates to :attr:`webhook_target` one at a time, as Telegram does:
        path and query of the registered URL, its secret in
        ``X-Telegram-Bot-Api-Secret-Token``; an update is dropped from the queue once the bot
        answers 2xx, and tried again a moment later otherwise."""
        async with aiohttp.ClientSession() as session:
            while not self._closing and self.webhook is not None:
                if not self._pending or self.webhook_target is None:
                    changed = self._changed
                    await changed.wait()
                    continue
                update = self._pending[0]
                registered = urlsplit(self.webhook["url"])
                target = self.webhook_target.rstrip("/") + registered.path
                if registered.query:
                    target += "?" + registered.query
                headers = {}
                if self.webhook.get("secret_token"):
                    headers["X-Telegram-Bot-Api-Secret-Token"] = str(self.webhook["secret_token"])
                try:
                    async with session.post(target, json=update, headers=headers) as response:
                        status = response.status
                except aiohttp.ClientError:
                    status = 0
                self.webhook_deliveries.append((update["update_id"], status))
                if 200 <= status < 300:
                    if self._pending and self._pending[0] is update:
                        self._pending.pop(0)
                else:
                    await asyncio.sleep(0.2)

    def _get_webhook_info(self, params: dict[str, Any]) -> Any:
        info: dict[str, Any] = {
            "url": (self.webhook or {}).get("url", ""),
            "has_custom_certificate": False,
            "pending_update_count": len(self._pending),
        }
        if self.webhook and self.webhook.get("allowed_updates") is not None:
            info["allowed_updates"] = self.webhook["allowed_updates"]
        return info
