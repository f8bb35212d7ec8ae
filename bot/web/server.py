"""The web table's server: the page, a JSON API and live views, in the bot's own process.

aiohttp.web serves all three (HTTP, WebSocket and static files in one well-kept library that
runs on the bot's event loop). Every request carries the Mini App's ``initData``: the
``Authorization: tma <initData>`` header for HTTP, the first message for the WebSocket. The
user is taken from checked data only; a person acts only for their own seat and sees only
their seat's view, or the public view when they are a member of the group but not seated.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable, Iterator
from typing import Any

from aiohttp import WSMsgType, web

from bot.game.cards import Card
from bot.limits.throttle import Throttle
from bot.presentation.callbacks import Act, Callback
from bot.presentation.strings import Lang, text, web_strings
from bot.service import GameService, Reply, Table, UserInfo
from bot.web.assets import Assets
from bot.web.initdata import InitDataError, WebUser, check_init_data
from bot.web.inputs import (
    MAX_ACTION_BYTES,
    BadInput,
    action_of,
    game_id_of,
    loads,
    read_capped,
    step_of,
)
from bot.web.live import Crowded, LiveViews, Page
from bot.web.tableview import JSON, event_json, table_view

log = logging.getLogger(__name__)

#: seconds a new WebSocket has to say who it is
HELLO_TIMEOUT = 10.0
#: why a replay is refused -> the answer (a finished game's replay only; see GET /api/replay).
#: An outsider hears "no replay" as for a game that does not exist: nothing tells them which do
REPLAY_REFUSALS = {
    "no replay": (404, "no replay"),
    "not a member of this group": (404, "no replay"),
    "try again": (429, "try again"),
    "no such step": (400, "no such step"),
}

class Refused(Exception):
    """A refusal: answered as ``{"error": reason}`` with ``status``."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason

    def body(self) -> str:
        return json.dumps({"error": self.reason}, ensure_ascii=False)


@contextlib.contextmanager
def _refusing() -> Iterator[None]:
    """Malformed input (bot.web.inputs) is answered as a refusal with its status."""
    try:
        yield
    except BadInput as bad:
        raise Refused(bad.status, bad.reason) from None


class WebTable:
    """The server and its live views, wired to the game service."""

    def __init__(
        self,
        service: GameService,
        *,
        token: str,
        throttle: Throttle,
        max_age: float,
        clock: Callable[[], float] = time.time,
        sockets_per_user: int = 4,
        sockets_per_game: int = 64,
    ) -> None:
        self.service = service
        self.token = token
        self.throttle = throttle
        self.max_age = max_age
        self.clock = clock
        self.live = LiveViews(per_user=sockets_per_user, per_game=sockets_per_game)
        self.assets = Assets()
        service.watch(self.live.changed, self.live.watching, self.live.heard)
        self.port = 0  # where the server listens, once started
        self._sockets: set[web.WebSocketResponse] = set()

    # ---- the routes -----------------------------------------------------------------------

    def add_routes(self, app: web.Application) -> None:
        """The page, its static files, the JSON API and the live socket."""
        app.router.add_get("/", self._page)
        app.router.add_get("/static/{name}", self._static)
        app.router.add_get("/api/state", self._state)
        app.router.add_post("/api/action", self._action)
        app.router.add_get("/api/live", self._live)
        app.router.add_get("/api/replay/{game}", self._replay)
        app.router.add_get("/healthz", self._health)
        app.on_shutdown.append(self._close_sockets)

    async def _close_sockets(self, _app: web.Application) -> None:
        for socket in list(self._sockets):
            await socket.close(code=1001, message=b"server stopping")

    # ---- who is asking ------------------------------------------------------------------

    def _check(self, init_data: str) -> WebUser:
        try:
            return check_init_data(init_data, self.token, max_age=self.max_age, now=self.clock())
        except InitDataError as error:
            raise Refused(401, str(error)) from None

    def _user(self, request: web.Request) -> WebUser:
        header = request.headers.get("Authorization", "")
        scheme, _, init_data = header.partition(" ")
        if scheme.lower() != "tma":
            raise Refused(401, "no initData")
        return self._check(init_data.strip())

    async def _find(self, game_id: int) -> Table:
        """The game's table: in play, finished lately, or finished before a restart (read
        back from the database, so a result screen survives the bot)."""
        table = self.service.table(game_id)
        if table is not None and table.dealt:
            return table
        table = self.live.finished(game_id)
        if table is None:
            table = await self.service.finished_table(game_id)
            if table is None:
                raise Refused(404, "no such game")
            self.live.keep_finished(table)
        return table

    def _following(self, table: Table, user_id: int) -> int | None:
        """The game 再来一局 started after this one, where the user is seated."""
        following = self.service.table_in_chat(table.chat_id)
        if (
            following is not None
            and following.previous_game_id == table.game_id
            and following.status == "playing"
            and following.seat_of(user_id) is not None
        ):
            return following.game_id
        return None

    async def _seat_or_spectator(self, table: Table, user: WebUser) -> int | None:
        """The user's seat; None for a member of the group who is not seated; 429 "try
        again" while membership cannot be checked (the lookups' budget is spent: the page
        retries rather than wait behind the games' calls). Anyone else hears what they would
        for a game that does not exist (no 403 against 404 to tell them which ids do)."""
        seat = table.seat_of(user.user_id)
        if seat is not None:
            return seat
        member = await self.service.is_member(table.chat_id, user.user_id)
        if member is None:
            raise Refused(429, "try again")
        if member:
            return None
        raise Refused(404, "no such game")

    async def _language(self, table: Table, user: WebUser, seat: int | None) -> Lang:
        """A seated player's language is on their seat (no query inside the table's lock,
        where live views are rendered); a spectator's is looked up."""
        if seat is not None:
            return table.seats[seat].language
        info = UserInfo(user.user_id, user.first_name, user.username, user.language_code)
        return await self.service.language(info)

    def view_for(self, table: Table, seat: int | None, lang: Lang, *, strings: bool) -> JSON:
        """The seat's view; ``strings``: with the page's texts (a page's first view only)."""
        view = table_view(table, seat, lang, now=self.service.clock())
        playing = table.status == "playing" and not table.engine.over and not table.gate_open
        if seat is not None and playing and table.engine.turn == seat:
            # 要不起: the bot passes for them in a moment (as it does for the keyboards)
            view["me"]["auto_pass"] = self.service.cannot_beat(table, seat)
            if view["me"]["auto_pass"]:
                view["me"]["can_pass"] = False
        if seat is not None and table.status == "finished":
            view["next_lobby"] = self._next_lobby(table, table.seats[seat].user_id or 0)
        if strings:
            view["strings"] = web_strings(lang)
        view["lang"] = lang
        return view

    def _lobby_after(self, table: Table) -> Table | None:
        """The lobby 再来一局 opened after this finished game, while it waits for 开始."""
        lobby = self.service.table_in_chat(table.chat_id)
        if lobby is None or lobby.status != "lobby" or lobby.previous_game_id != table.game_id:
            return None
        return lobby

    def _next_lobby(self, table: Table, user_id: int) -> JSON | None:
        lobby = self._lobby_after(table)
        if lobby is None or lobby.seat_of(user_id) is None:
            return None
        return {
            "game": lobby.game_id,
            "full": lobby.full,
            # the opener starts it here as in the group (an admin may, in the group)
            "can_start": lobby.full and lobby.opener_id == user_id,
        }

    # ---- routes ---------------------------------------------------------------------------

    async def _page(self, request: web.Request) -> web.StreamResponse:
        return self.assets.response(request, "index.html")

    async def _static(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        if name == "index.html":
            raise web.HTTPNotFound()
        return self.assets.response(request, name)

    async def _health(self, _request: web.Request) -> web.StreamResponse:
        return web.json_response({"ok": True, "pages": self.live.count()})

    async def _state(self, request: web.Request) -> web.StreamResponse:
        user = self._user(request)
        table = await self._find(_game_id(request.query.get("game"), user))
        seat = await self._seat_or_spectator(table, user)
        lang = await self._language(table, user, seat)
        return web.json_response(self.view_for(table, seat, lang, strings=True), dumps=_dumps)

    async def _replay(self, request: web.Request) -> web.StreamResponse:
        """A finished game's replay at ``?step=N`` (the deal by default), for its players and
        its group's members."""
        user = self._user(request)
        with _refusing():
            game_id = game_id_of(request.match_info["game"])
            step = step_of(request.query.get("step", "0"))
        info = UserInfo(user.user_id, user.first_name, user.username, user.language_code)
        view = await self.service.replay_step(game_id, info, step)
        if isinstance(view, str):
            raise Refused(*REPLAY_REFUSALS.get(view, (400, view)))
        return web.json_response(view, dumps=_dumps)

    async def _action(self, request: web.Request) -> web.StreamResponse:
        # the cheap checks first (who, how often, how much), so that a flood of big or bad
        # bodies costs a header's HMAC each; the body is parsed only once it is known small
        user = self._user(request)
        if not self.throttle.allow(user.user_id):
            raise Refused(429, "too fast")
        with _refusing():
            asked = action_of(loads(await read_capped(request, MAX_ACTION_BYTES)))
        table = await self._find(_game_id(asked.game, user))
        if await self._seat_or_spectator(table, user) is None:
            raise Refused(403, "not your seat")
        reply = await self._act(user, table, asked.kind, asked.cards)
        # the table may have moved on (再来一局 opens a lobby: the page stays on the result)
        seat = table.seat_of(user.user_id)
        view = self.view_for(table, seat, await self._language(table, user, seat), strings=False)
        payload = {"accepted": reply.accepted, "message": reply.text, "view": view}
        return web.json_response(payload, dumps=_dumps)

    async def _act(self, user: WebUser, table: Table, kind: str, cards: list[Card]) -> Reply:
        info = UserInfo(user.user_id, user.first_name, user.username, user.language_code)
        if kind == "again":
            return await self.service.play_again(info, Callback(table.game_id, 0, Act.AGAIN))
        if kind == "start":  # 开始 the lobby 再来一局 opened, from the finished game's page
            lobby = self._lobby_after(table)
            if lobby is None:
                return Reply(text(await self.service.language(info), "err.outdated"))
            return await self.service.on_lobby_callback(info, Callback(lobby.game_id, 0, Act.START))
        return await self.service.web_action(user.user_id, table.game_id, kind, cards)

    # ---- live views -----------------------------------------------------------------------

    async def _live(self, request: web.Request) -> web.StreamResponse:
        socket = web.WebSocketResponse(heartbeat=20.0, max_msg_size=16 * 1024)
        await socket.prepare(request)
        self._sockets.add(socket)
        try:
            hello = await _hello(socket)
            if hello is None:
                return socket
            try:
                user = self._check(str(hello.get("auth", "")))
                table = await self._find(_game_id(hello.get("game"), user))
                seat = await self._seat_or_spectator(table, user)
                try:  # past the caps: refused like any other, and nothing else done
                    page = self.live.open(user.user_id, table.game_id)
                except Crowded as crowded:
                    raise Refused(429, str(crowded)) from None
            except Refused as refusal:
                await socket.send_str(refusal.body())
                await socket.close(code=4000 + refusal.status)
                return socket
            page.next_game = self._following(table, user.user_id)
            if seat is not None:  # the page takes over from the hand message's buttons
                async with table.lock:
                    await self.service.page_opened(table, seat)
            try:
                await self._serve(socket, page, table, user, seat)
            finally:
                self.live.close(page)
                if seat is not None and not self.live.watching(table.game_id, user.user_id):
                    async with table.lock:  # their turn, and no page: the prompt after all
                        await self.service.page_closed(table, seat)
        finally:
            self._sockets.discard(socket)
        return socket

    async def _serve(
        self,
        socket: web.WebSocketResponse,
        page: Page,
        table: Table,
        user: WebUser,
        seat: int | None,
    ) -> None:
        """Send the page its view whenever it is behind, until either side closes."""

        lang = await self._language(table, user, seat)
        first = True

        async def send_views() -> None:
            nonlocal first
            while True:
                await page.behind.wait()
                page.behind.clear()
                # after the action that woke us has finished (actions hold the lock), so
                # the view is never one taken halfway through it
                async with table.lock:
                    view = self.view_for(table, seat, lang, strings=first)
                    heard = [] if first else list(page.events)
                    page.events.clear()
                first = False
                view["next_game"] = page.next_game
                # what happened since the last view, to animate (the first view has no
                # "since": the page starts from where things stand)
                shown = [event_json(lang, table.variant.name, seq, e) for seq, e in heard]
                view["events"] = [e for e in shown if e is not None]
                await socket.send_str(_dumps(view))

        async def send_or_close() -> None:
            try:
                await send_views()
            except (asyncio.CancelledError, ConnectionError):
                raise
            except Exception:
                # a view that cannot be made: close, and the page reconnects and resyncs
                # (rather than a page waiting for views that never come)
                log.exception("live view of game %s failed", table.game_id)
                await socket.close(code=1011, message=b"view failed")

        sender = asyncio.create_task(send_or_close())
        try:
            async for message in socket:  # pings are answered by aiohttp; nothing else is read
                if message.type in (WSMsgType.ERROR, WSMsgType.CLOSE):
                    break
        finally:
            sender.cancel()
            with contextlib.suppress(asyncio.CancelledError, ConnectionError):
                await sender


async def _hello(socket: web.WebSocketResponse) -> dict[str, Any] | None:
    """The first message: ``{"auth": initData, "game": id}``; None if it never comes."""
    try:
        message = await asyncio.wait_for(socket.receive(), HELLO_TIMEOUT)
    except TimeoutError:
        await socket.close(code=4001, message=b"no hello")
        return None
    if message.type != WSMsgType.TEXT:
        return None
    try:
        hello = loads(message.data)
    except BadInput:
        hello = None
    if not isinstance(hello, dict) or not isinstance(hello.get("auth", ""), str):
        await socket.close(code=4400, message=b"bad hello")
        return None
    return hello


def _game_id(value: object, user: WebUser) -> int:
    """The game asked for: ``game`` as given, else the direct link's ``startapp`` (g<id>)."""
    raw = value if value not in (None, "") else user.start_param.removeprefix("g")
    with _refusing():
        return game_id_of(raw)


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
