"""/history and replays: the last games of a group (or of a player), one line each with a
button, and a finished game's replay in the presser's private chat, stepped trick by trick.

A replay is the stored deal and log replayed through the engine (``replay_view``); its last
step carries the result exactly as the group was shown it (``result_text`` over the stored
settlement, as ``Recovery.finished`` rebuilds it). Finished games are immutable, so their
replays are kept in a small cache.

Callback data (``callbacks.py``): ``<game>:0:y:`` opens a replay (a new private message);
``<game>:<shown>:y:<step>`` steps the replay message, and only from that message's own
keyboard (anything else is refused and changes nothing).
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode, urlsplit, urlunsplit

from bot.presentation.callbacks import Callback
from bot.presentation.history_text import history_message, when_text
from bot.presentation.keyboards import Keyboard
from bot.presentation.render import SeatLabel
from bot.presentation.replay_view import (
    Step,
    replay_steps,
    step_json,
    step_keyboard,
    step_text,
)
from bot.presentation.strings import Lang, text
from bot.service.base import Delivery, Reply, UserInfo
from bot.service.result_message import outcome_text, result_text
from bot.service.tables import Table
from bot.storage import GameRecord

if TYPE_CHECKING:
    from bot.service.deps import Deps
    from bot.service.group_settings import GroupSettings
    from bot.service.people import People
    from bot.service.stored import StoredGames

#: how many games /history lists: in a group, and a player's own in a private chat
GROUP_GAMES = 10
PLAYER_GAMES = 20
#: finished games kept replayed in memory
CACHE_GAMES = 32
#: replay messages whose shown step is remembered (to skip an edit that changes nothing)
SHOWN_MESSAGES = 10_000


@dataclass(frozen=True)
class Replay:
    """A finished game ready to be shown at any step."""

    record: GameRecord
    steps: list[Step]
    labels: list[SeatLabel]
    table: Table  # the finished table with its stored settlement (for the result text)

    def result_html(self, lang: Lang) -> str:
        """The group's result message, in ``lang``."""
        assert self.table.settlement is not None
        return result_text(dataclasses.replace(self.table, lang=lang), self.table.settlement)

    def when(self) -> str:
        return when_text(self.record.finished_at or self.record.created_at)


def replay_url(webapp_url: str | None, game_id: int) -> str | None:
    """The web table's page showing the replay of ``game_id`` (None: no web table)."""
    if not webapp_url:
        return None
    parts = urlsplit(webapp_url)
    query = f"{parts.query}&" if parts.query else ""
    return urlunsplit(parts._replace(query=query + urlencode({"replay": game_id})))


# ---- the part of the service ------------------------------------------------------------------


class History:
    def __init__(
        self, deps: Deps, people: People, group_settings: GroupSettings, stored: StoredGames
    ) -> None:
        self.deps = deps
        self.people = people
        self.group_settings = group_settings
        self.stored = stored
        self._cache: OrderedDict[int, Replay] = OrderedDict()
        self._shown: OrderedDict[tuple[int, int], int] = OrderedDict()

    async def show(
        self, chat_id: int, user: UserInfo, *, group: bool, reply_to: int | None
    ) -> Reply:
        """/history: in a group its last games, in a private chat the player's own."""
        body, markup = await self.message(chat_id, user, group=group)
        await self.deps.messenger.send(chat_id, body, markup, reply_to=reply_to, optional=group)
        return Reply()

    async def message(
        self, chat_id: int, user: UserInfo, *, group: bool
    ) -> tuple[str, Keyboard | None]:
        """The /history answer: in a group its last games, in a private chat the player's."""
        deps = self.deps
        lang = await self.people.remember(user)
        if group:
            lang = (await self.group_settings.options(chat_id)).language or lang
            games = await deps.db.history.of_chat(chat_id, limit=GROUP_GAMES)
            return history_message(lang, games, group=True)
        games = await deps.db.history.of_user(user.user_id, limit=PLAYER_GAMES)
        return history_message(lang, games, group=False, user_id=user.user_id)

    # ---- replays ---------------------------------------------------------------------------

    async def load(self, game_id: int) -> Replay | None:
        """The finished game's replay; None for anything else (no such game, a lobby, a game
        in progress, a cancelled one)."""
        cached = self._cache.get(game_id)
        if cached is not None:
            self._cache.move_to_end(game_id)
            return cached
        record = await self.deps.db.games.get(game_id)
        if record is None or record.status != "finished":
            return None
        table = await self.stored.finished(game_id)
        if table is None or table.settlement is None:
            return None
        seed = int(record.seed) if record.seed is not None else None
        steps = replay_steps(table.variant, seed, record.leader, record.hands, table.log)
        labels = [SeatLabel(seat.name, seat.is_computer) for seat in table.seats]
        loaded = Replay(record, steps, labels, table)
        self._cache[game_id] = loaded
        while len(self._cache) > CACHE_GAMES:
            self._cache.popitem(last=False)
        return loaded

    async def may_see(self, record: GameRecord, user_id: int) -> bool | None:
        """A replay is for the game's players and the members of its group; None: whether
        the user is a member is not known now (try again)."""
        if record.seat_of(user_id) is not None:
            return True
        return await self.deps.is_member(record.chat_id, user_id)

    def render(
        self, replay: Replay, index: int, lang: Lang
    ) -> tuple[str, Keyboard]:
        record = replay.record
        last = index == len(replay.steps) - 1
        body = step_text(
            lang,
            game_id=record.id,
            variant=record.variant,
            when=replay.when(),
            labels=replay.labels,
            steps=replay.steps,
            index=index,
            result_html=replay.result_html(lang) if last else "",
        )
        markup = step_keyboard(
            lang,
            game_id=record.id,
            index=index,
            count=len(replay.steps),
            web_url=replay_url(self.deps.settings.webapp_url, record.id),
        )
        return body, markup

    async def on_press(
        self, user: UserInfo, chat_id: int | None, message_id: int | None, callback: Callback
    ) -> Reply:
        """▶ #game on a history line (open), or ◀ ▶ on a replay message (step)."""
        deps = self.deps
        lang = await self.people.language(user)
        replay = await self.load(callback.game_id)
        if replay is None:
            return Reply(text(lang, "replay.unavailable"), alert=True)
        allowed = await self.may_see(replay.record, user.user_id)
        if allowed is None:
            return Reply(text(lang, "members.try_again"), alert=True)
        if not allowed:
            return Reply(text(lang, "replay.not_allowed"), alert=True)
        if callback.arg is None:
            return await self._open(user, lang, replay)
        step = callback.arg
        if not 0 <= step < len(replay.steps):
            return Reply(text(lang, "replay.no_step"), alert=True)
        # steps come from the replay message's own keyboard, in the presser's private chat
        if chat_id != user.user_id or message_id is None:
            return Reply(text(lang, "err.outdated"), alert=True)
        key = (chat_id, message_id)
        if self._shown.get(key, callback.version) == step:
            return Reply()  # already shown (a second press of the same button)
        body, markup = self.render(replay, step, lang)
        delivery = await deps.messenger.edit(chat_id, message_id, body, markup)
        if delivery is Delivery.OK:
            self._remember(key, step)
        return Reply()

    async def _open(self, user: UserInfo, lang: Lang, replay: Replay) -> Reply:
        """A new replay message at the deal, in the presser's private chat."""
        deps = self.deps
        player = await deps.db.players.get(user.user_id)
        if player is None or not player.can_message:
            return Reply(text(lang, "replay.start_first"), alert=True)
        body, markup = self.render(replay, 0, lang)
        sent = await deps.messenger.send(user.user_id, body, markup)
        if sent.delivery is Delivery.BLOCKED:
            await deps.db.players.set_can_message(user_id=user.user_id, can_message=False)
            return Reply(text(lang, "replay.start_first"), alert=True)
        if sent.message_id is not None:
            self._remember((user.user_id, sent.message_id), 0)
        return Reply(text(lang, "replay.sent"))

    def _remember(self, key: tuple[int, int], step: int) -> None:
        self._shown[key] = step
        self._shown.move_to_end(key)
        while len(self._shown) > SHOWN_MESSAGES:
            self._shown.popitem(last=False)

    # ---- the web table -------------------------------------------------------------------

    async def web_step(self, game_id: int, user: UserInfo, step: int) -> dict[str, Any] | str:
        """A replay step as the web table shows it, or why not (``no replay``: no such
        finished game; ``not a member of this group``; ``try again``: membership not known
        now; ``no such step``)."""
        replay = await self.load(game_id)
        if replay is None:
            return "no replay"
        allowed = await self.may_see(replay.record, user.user_id)
        if allowed is None:
            return "try again"
        if not allowed:
            return "not a member of this group"
        if not 0 <= step < len(replay.steps):
            return "no such step"
        lang = await self.people.language(user)
        last = step == len(replay.steps) - 1
        view = step_json(
            lang,
            game_id=replay.record.id,
            variant=replay.record.variant,
            when=replay.when(),
            labels=replay.labels,
            steps=replay.steps,
            index=step,
        )
        if last:
            html = replay.result_html(lang)
            view["result"] = {
                "headline": outcome_text(lang, replay.table.result, replay.table.size),
                "html": html,
            }
        view["text"] = self.render(replay, step, lang)[0]
        return view


__all__ = ["History", "Replay"]
