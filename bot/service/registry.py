"""Which tables the bot hosts, found by game, by group and by player."""

from __future__ import annotations

from bot.service.tables import Table


class TableRegistry:
    """Every lobby and game in progress in memory: one per group, at most one per player."""

    def __init__(self) -> None:
        self.tables: dict[int, Table] = {}
        self.by_chat: dict[int, int] = {}  # group chat id -> game id
        self.by_user: dict[int, int] = {}  # user id -> the game id they sit in

    def add(self, table: Table) -> None:
        self.tables[table.game_id] = table
        self.by_chat[table.chat_id] = table.game_id

    def remove(self, table: Table) -> None:
        """Forget the table and everyone seated at it."""
        self.tables.pop(table.game_id, None)
        if self.by_chat.get(table.chat_id) == table.game_id:
            del self.by_chat[table.chat_id]
        for index in range(len(table.seats)):
            self.unseat(table, index)

    def seat(self, table: Table, user_id: int) -> None:
        self.by_user[user_id] = table.game_id

    def unseat(self, table: Table, index: int) -> None:
        """The player of seat ``index`` no longer sits at ``table`` (they may join another)."""
        user_id = table.seats[index].user_id
        if user_id is not None and self.by_user.get(user_id) == table.game_id:
            del self.by_user[user_id]

    def get(self, game_id: int) -> Table | None:
        return self.tables.get(game_id)

    def in_chat(self, chat_id: int) -> Table | None:
        game_id = self.by_chat.get(chat_id)
        return self.tables.get(game_id) if game_id is not None else None

    def of_user(self, user_id: int) -> Table | None:
        game_id = self.by_user.get(user_id)
        return self.tables.get(game_id) if game_id is not None else None

    def busy(self, user_id: int) -> bool:
        """The user sits at some table."""
        return user_id in self.by_user
