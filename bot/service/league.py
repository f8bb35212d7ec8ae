"""The league's face: /top's three boards on one message, /season, and what the league does
at start (the skill ratings take in the games that ended before; the seasons that ended while
the bot was down are announced, and the next end is armed)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from bot.presentation.callbacks import Callback
from bot.presentation.keyboards import Keyboard
from bot.presentation.rank_text import TopBoard, top_keyboard
from bot.presentation.strings import Lang, text
from bot.service.base import Reply, UserInfo
from bot.service.queries import top_text
from bot.service.skill import catch_up

if TYPE_CHECKING:
    from bot.service.deps import Deps
    from bot.service.group_settings import GroupSettings
    from bot.service.people import People
    from bot.service.seasons import Seasons

log = logging.getLogger(__name__)


class League:
    def __init__(
        self, deps: Deps, people: People, group_settings: GroupSettings, seasons: Seasons
    ) -> None:
        self.deps = deps
        self.people = people
        self.group_settings = group_settings
        self.seasons = seasons

    async def start(self) -> None:
        """First the skill ratings take in the games that ended before (a database from
        before them, or one whose ratings were forgotten), so they stay in the order games
        ended; then the seasons' ends (one that fails must not keep the bot from starting)."""
        caught_up = await catch_up(self.deps.db)
        if caught_up:
            log.info("skill ratings: %d ended games taken in", caught_up)
        try:
            await self.seasons.announce_due()
        except Exception:
            log.exception("the seasons' announcements at start failed")
        self.seasons.arm()

    async def _lang(self, chat_id: int, user: UserInfo) -> Lang:
        """A group's posts speak its chosen language, else the asker's."""
        chosen = (await self.group_settings.options(chat_id)).language
        return chosen or await self.people.language(user)

    async def top(self, chat_id: int, user: UserInfo) -> tuple[str, Keyboard]:
        """/top: the skill board, with buttons to the other boards."""
        lang = await self._lang(chat_id, user)
        shared = (await self.group_settings.options(chat_id)).shared_top
        body = await top_text(self.deps.db, chat_id, lang, TopBoard.SKILL)
        return body, top_keyboard(lang, TopBoard.SKILL, shared=shared)

    async def on_top_press(
        self, user: UserInfo, chat_id: int | None, message_id: int | None, callback: Callback
    ) -> Reply:
        """A /top button: the message shows that board (anyone in the group may press)."""
        lang = await self.people.language(user)
        if chat_id is None or message_id is None or callback.arg not in (0, 1, 2):
            return Reply(text(lang, "err.outdated"))
        board = TopBoard(callback.arg)
        shared = (await self.group_settings.options(chat_id)).shared_top
        if board is TopBoard.SHARED and not shared:
            return Reply(text(lang, "err.outdated"))  # the group left the shared board
        group_lang = await self._lang(chat_id, user)
        body = await top_text(self.deps.db, chat_id, group_lang, board)
        markup = top_keyboard(group_lang, board, shared=shared)
        await self.deps.messenger.edit(chat_id, message_id, body, markup)
        return Reply()

    async def season(self, chat_id: int, user: UserInfo, number: int | None) -> str:
        """/season: the current season's tables, or season ``number``'s."""
        return await self.seasons.answer(chat_id, await self._lang(chat_id, user), number)
