"""A fake Telegram Bot API server that the real PTB ``Application`` talks to in tests.

Why a server and not a mocked ``Bot``: the end-to-end tests must exercise exactly what runs in
production: PTB's request encoding, its polling loop, its rate limiter and retry handling, and
the bot's handlers. So the fake speaks HTTP on 127.0.0.1, validates every request against the
official spec, keeps the chats' state the way Telegram would (messages, keyboards, edits,
deletions, who started or blocked the bot), enforces flood limits, and lets the test act as
users (type commands, press buttons) and wait for outcomes on conditions rather than sleeps.

This module is the HTTP side (the server, dispatch, flood limits). The rest is mixins over
:class:`fakebot.state.FakeState`, one concern each: :mod:`.world` (users, groups, membership),
:mod:`.acting` (users typing and pressing), :mod:`.reading` (records and waiting),
:mod:`.updates` (the update queue, getUpdates, webhooks), :mod:`.methods` and
:mod:`.messages` (the Bot API methods), :mod:`.faults` (injected failures).

Usage::

    async with FakeTelegram(group_messages_per_minute=1000) as fake:
        fake.add_user(1, "Alice")
        fake.add_group(-1001, "牌桌")
        app = Application.builder().token(fake.token).base_url(fake.base_url) \\
            .base_file_url(fake.base_file_url).build()
        ...
        await fake.send_text(1, -1001, "/newgame@CardTestBot 刨王")
        msg = await fake.wait_for_message(-1001, contains="加入")
        press = await fake.press(1, -1001, msg.message_id, "加入")
        answer = await press.answered()
        fake.assert_clean()
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import re
from types import TracebackType
from typing import Any

from aiohttp import web

from fakebot.acting import ActingMixin
from fakebot.errors import ApiError, bad_request
from fakebot.faults import FaultsMixin
from fakebot.models import LimitViolation, Rejection, RequestRecord
from fakebot.reading import ReadingMixin
from fakebot.spec import Upload
from fakebot.world import WorldMixin

#: Methods that put or change a message in a chat: they count against the flood limits.
COUNTED_METHODS = frozenset(
    {
        "forwardMessage",
        "forwardMessages",
        "copyMessage",
        "copyMessages",
        "editMessageText",
        "editMessageCaption",
        "editMessageMedia",
        "editMessageLiveLocation",
        "stopMessageLiveLocation",
        "editMessageChecklist",
        "editMessageReplyMarkup",
        "stopPoll",
    }
)

_NOT_FOUND = {"ok": False, "error_code": 404, "description": "Not Found"}


def _counts(method: str) -> bool:
    return method in COUNTED_METHODS or (method.startswith("send") and method != "sendChatAction")


class FakeTelegram(WorldMixin, ActingMixin, ReadingMixin, FaultsMixin):
    """The fake Bot API server plus the Python API tests use to act as Telegram users.

    Limits default to Telegram's (20 messages a minute per group, sends and edits alike; about
    one a second per private chat, with ``private_burst`` messages allowed at once; 30 a second
    overall). Tests that run games at full speed raise them, e.g.
    ``FakeTelegram(group_messages_per_minute=10_000, private_messages_per_second=1000)``.
    With ``enforce_limits=True`` a message over a limit is answered 429 with
    ``parameters.retry_after``; either way it is recorded in :attr:`limit_violations`.
    """

    # ------------------------------------------------------------------ lifecycle

    @property
    def port(self) -> int:
        if self._runner is None:
            raise RuntimeError("the fake is not started")
        return self._port

    @property
    def base_url(self) -> str:
        """What to pass to ``ApplicationBuilder.base_url`` (PTB appends token and method)."""
        return f"http://{self.host}:{self.port}/bot"

    @property
    def base_file_url(self) -> str:
        """What to pass to ``ApplicationBuilder.base_file_url``."""
        return f"http://{self.host}:{self.port}/file/bot"

    async def start(self) -> FakeTelegram:
        """Listen on a free port of 127.0.0.1."""
        if self._runner is not None:
            raise RuntimeError("already started")
        self._closing = False
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        runner = web.AppRunner(
            app, handler_cancellation=True, access_log=None, shutdown_timeout=1.0
        )
        await runner.setup()
        site = web.TCPSite(runner, self.host, self._port)
        await site.start()
        self._runner = runner
        self._port = runner.addresses[0][1]
        return self

    async def stop(self) -> None:
        """Release pending long polls and held requests, then close the server."""
        if self._runner is None:
            return
        self._closing = True
        self._notify()
        if self._pusher is not None:
            self._pusher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._pusher
        runner, self._runner = self._runner, None
        await runner.cleanup()

    async def __aenter__(self) -> FakeTelegram:
        return await self.start()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    # ------------------------------------------------------------------ HTTP

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        match = re.fullmatch(r"/bot([^/]+)/([^/]*)", request.path)
        if match is None:
            return web.json_response(_NOT_FOUND, status=404)
        token, method_name = match.groups()
        record = RequestRecord(method=method_name, raw={}, time=self.clock())
        self.requests.append(record)
        self._notify()  # waiters may watch for requests in flight (status None)
        try:
            response = await self._dispatch(request, token, method_name, record)
        except asyncio.CancelledError:
            record.status = None  # the client went away (e.g. PTB cancelled a long poll)
            self._notify()
            raise
        self._notify()
        return response

    async def _dispatch(
        self, request: web.Request, token: str, method_name: str, record: RequestRecord
    ) -> web.StreamResponse:
        """Validate, apply faults and flood limits, run the method; record everything."""
        try:
            record.raw = await self._read_params(request)
            if token != self.token:
                raise ApiError(401, "Unauthorized", kind="bad_token")
            method, params = self.validator.validate_request(method_name, record.raw)
            record.method, record.params = method.name, params
            chat_id = self._flood_chat(params)
            record.chat_id = chat_id
            fault = self._take_fault(method.name, params)
            if fault is not None:
                record.fault = fault.kind
                self.fault_log.append(record)
                response = await self._fault(fault, method.name, params, request)
                record.status = response.status
                return response
            counted = _counts(method.name)
            if counted:
                self._flood_gate(method.name, chat_id)
            result = self._run(method.name, params)
            if inspect.isawaitable(result):
                result = await result
            if counted:
                self.flood.record(chat_id, self.clock())
            status, body = 200, {"ok": True, "result": result}
        except ApiError as err:
            status, body = err.status, err.payload()
            self._record_error(record, err)
        record.status, record.response = status, body
        return web.json_response(body, status=status, dumps=_dumps)

    async def _read_params(self, request: web.Request) -> dict[str, Any]:
        """Query string plus body: urlencoded or multipart form, or a JSON object."""
        params: dict[str, Any] = dict(request.query)
        if not request.can_read_body:
            return params
        if request.content_type == "application/json":
            try:
                data = json.loads(await request.read() or b"{}")
            except ValueError:
                raise bad_request("can't parse JSON object", kind="wrong_type") from None
            if not isinstance(data, dict):
                raise bad_request("JSON object expected", kind="wrong_type")
            for key, value in data.items():
                if value is not None:
                    params[key] = value if isinstance(value, str) else json.dumps(value)
            return params
        if request.content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
            form = await request.post()
            for key, value in form.items():
                if isinstance(value, web.FileField):
                    params[key] = Upload(key, value.filename, value.content_type, value.file.read())
                else:
                    params[key] = value
        return params

    def _record_error(self, record: RequestRecord, err: ApiError) -> None:
        entry = Rejection(
            record.method, err.status, err.description, err.kind, record.raw, record.time
        )
        query = self.callbacks.get(str(record.raw.get("callback_query_id", "")))
        if record.method == "answerCallbackQuery" and query is not None:
            query.refused.append(err.description)
        if record.fault is not None or err.kind == "flood":
            return
        if err.kind == "forbidden":
            self.forbidden.append(entry)
        elif err.kind == "conflict" and err.description.startswith("Conflict: terminated"):
            self.conflicts.append(entry)
        else:
            self.rejections.append(entry)

    # ------------------------------------------------------------------ flood limits

    def _flood_chat(self, params: dict[str, Any]) -> int | None:
        chat_id = params.get("chat_id")
        if isinstance(chat_id, str):
            chat = self._find_chat(chat_id)
            return chat.id if chat else None
        return chat_id if isinstance(chat_id, int) else None

    def _flood_gate(self, method: str, chat_id: int | None) -> None:
        now = self.clock()
        over = self.flood.check(chat_id, now)
        if not over:
            return
        retry_after = max(wait for _, _, wait in over)
        for scope, window, wait in over:
            self.limit_violations.append(
                LimitViolation(method, chat_id, scope, window.limit, window.period, wait, now)
            )
        if self.enforce_limits:
            raise ApiError(
                429,
                f"Too Many Requests: retry after {retry_after}",
                kind="flood",
                retry_after=retry_after,
            )


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
