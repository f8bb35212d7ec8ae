"""What the group reads of a game as it goes: a line per action, and the result.

It follows the actions (their lines, merged by the table's paced channel) and the end (the
result with its 「再来一局」 button, the last message; the channel closes once its last posts
are out).
"""

from __future__ import annotations

import asyncio

from bot.presentation.render import again_keyboard, event_lines
from bot.service.events import Acted, Closed, Finished
from bot.service.result_message import result_text
from bot.service.tables import Table


class GroupLines:
    def __init__(self) -> None:
        self._closing: set[asyncio.Task[None]] = set()

    async def on_acted(self, table: Table, event: Acted) -> None:
        channel = table.channel
        for line in event_lines(table.lang, list(event.events), table.labels()):
            channel.post(line)

    async def on_finished(self, table: Table, event: Finished) -> None:
        channel = table.channel
        channel.stop_following()  # the result, with its button, stays the last message
        channel.post(
            result_text(table, event.settlement),
            again_keyboard(table.lang, game_id=table.game_id),
        )
        channel.table_changed()

    async def on_closed(self, table: Table, _event: Closed) -> None:
        if table.status != "finished" or not table.has_channel:
            return  # a cancelled table's channel is closed by the cancel, once
        # the channel's last posts may wait for the group's pace: close it when drained
        closing = asyncio.create_task(table.channel.close())
        self._closing.add(closing)
        closing.add_done_callback(self._closing.discard)

    async def shutdown(self) -> None:
        """Let the finished tables' last posts go out."""
        for task in list(self._closing):
            await task
