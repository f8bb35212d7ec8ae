"""Faults a test injects (429, 500, 502, timeouts, drops...) and how the server applies them."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

from aiohttp import web

from fakebot.errors import ApiError
from fakebot.methods import MethodsMixin
from fakebot.models import Fault

FAULTS = ("429", "500", "502", "timeout", "drop", "403_blocked", "400_not_found")
_BAD_GATEWAY_HTML = (
    "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
    "<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n"
    "</body>\r\n</html>\r\n"
)


class FaultsMixin(MethodsMixin):
    """Injected failures: what a test asks for, and what the request it hits is answered."""

    def inject(
        self,
        method: str,
        fault: str,
        *,
        times: int = 1,
        chat_id: int | None = None,
        retry_after: int = 1,
        hold: float = 60.0,
        performed: bool = False,
    ) -> Fault:
        """Make the next ``times`` valid calls of ``method`` (to ``chat_id`` if given) fail.

        ``fault``: "429" (with ``retry_after``), "500", "502" (nginx HTML page), "timeout"
        (hold the request ``hold`` seconds, past the client's read timeout, or until the client
        gives up), "drop" (close the connection without answering), "403_blocked", or
        "400_not_found" (the target message is gone: it is marked deleted). With
        ``performed=True`` a "timeout"/"drop" happens *after* the method took effect, the
        way a lost response does. Faults are not rejections: see :attr:`fault_log`."""
        if fault not in FAULTS:
            raise ValueError(f"unknown fault {fault!r}; one of {FAULTS}")
        spec = self.validator.spec.method(method)
        if spec is None:
            raise ValueError(f"{method!r} is not a Bot API method")
        entry = Fault(spec.name, fault, times, chat_id, retry_after, hold, performed)
        self.faults.append(entry)
        return entry

    def clear_faults(self) -> None:
        self.faults.clear()

    def _take_fault(self, method: str, params: dict[str, Any]) -> Fault | None:
        for fault in self.faults:
            if fault.exhausted or fault.method != method:
                continue
            if fault.chat_id is not None and params.get("chat_id") != fault.chat_id:
                continue
            fault.fired += 1
            return fault
        return None

    async def _fault(
        self, fault: Fault, method: str, params: dict[str, Any], request: web.Request
    ) -> web.StreamResponse:
        """Apply an injected fault: raise its ApiError or return the response to send."""
        if fault.kind == "429":
            raise ApiError(
                429,
                f"Too Many Requests: retry after {fault.retry_after}",
                kind="fault",
                retry_after=fault.retry_after,
            )
        if fault.kind == "500":
            raise ApiError(500, "Internal Server Error", kind="fault")
        if fault.kind == "502":
            return web.Response(status=502, text=_BAD_GATEWAY_HTML, content_type="text/html")
        if fault.kind == "403_blocked":
            raise ApiError(403, "Forbidden: bot was blocked by the user", kind="fault")
        if fault.kind == "400_not_found":
            chat = self.chats.get(params.get("chat_id"))  # type: ignore[arg-type]
            message = chat.message(params.get("message_id", 0)) if chat else None
            if message is not None:
                message.deleted = True
            raise ApiError(400, f"Bad Request: {_not_found_text(method)}", kind="fault")
        if fault.performed:
            with_effect = self._run(method, params)
            if inspect.isawaitable(with_effect):
                await with_effect
            self._notify()
        if fault.kind == "drop":
            if request.transport is not None:
                request.transport.close()
            return web.Response(status=499)
        # "timeout": hold past the client's read timeout (or until it gives up, which cancels
        # this handler, or until the fake stops)
        try:
            async with asyncio.timeout(fault.hold):
                while not self._closing:
                    await self._changed.wait()
        except TimeoutError:
            pass
        return web.json_response(
            {"ok": False, "error_code": 504, "description": "Gateway Timeout"}, status=504
        )


def _not_found_text(method: str) -> str:
    if method.startswith("edit"):
        return "message to edit not found"
    if method.startswith("delete"):
        return "message to delete not found"
    if method.startswith("pin"):
        return "message to pin not found"
    return "chat not found"
