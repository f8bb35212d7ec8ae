"""The people of a chaos run: tables that open games again and again, humans who play them."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time

from bench.chaos.model import (
    CONTROLS,
    END_MARKS,
    GROUP_BASE,
    P_BLOCK,
    P_DOUBLE,
    P_LEAVE,
    P_PASS,
    PRESS_WAIT,
    SEATED,
    SPAM_GROUP,
    SPAMMER,
    TAP,
    THINK,
    UNBLOCK_AFTER,
    USER_BASE,
    ChaosState,
    Human,
    TableState,
)
from fakebot import CallbackAnswer, FakeMessage


class People(ChaosState):
    """The world (groups, humans, the spammer), presses, tables and humans at play."""

    def build_world(self) -> None:
        fake = self.fake
        for n in range(self.args.tables):
            rng = random.Random(self.rng.randrange(1 << 62))
            table = TableState(GROUP_BASE - n - 1, rng.choice(("双扣", "刨王")), rng)
            for k in range(rng.choice((1, 2))):
                user_id = USER_BASE + 10 * n + k
                name = f"{'甲乙'[k]}{n + 1:02d}"
                fake.add_user(user_id, name)
                human = Human(user_id, name, table, random.Random(rng.randrange(1 << 62)))
                table.humans.append(human)
                self.humans.append(human)
            fake.add_group(table.chat_id, f"牌桌{n + 1}", members=[h.user_id for h in table.humans])
            self.tables.append(table)
        fake.add_user(SPAMMER, "刷屏者")
        fake.add_group(SPAM_GROUP, "热闹群", members=[SPAMMER])

    async def greet(self) -> None:
        for human in self.humans:
            await self.fake.send_text(human.user_id, human.user_id, "/start")
        await self.fake.wait_for(
            lambda: all(self.fake.chat(h.user_id).bot_messages for h in self.humans),
            60,
            what="every human's hello",
        )

    # ---- pressing ------------------------------------------------------------------------

    async def press(
        self,
        human: Human,
        chat_id: int,
        message_id: int,
        *,
        label: str | None = None,
        data: str | None = None,
        double: bool = False,
    ) -> CallbackAnswer | None:
        """Press a button (twice at once if ``double``); the answer, or None when the button
        was gone or no answer came within PRESS_WAIT."""
        fake, stats = self.fake, self.stats
        try:
            if data is not None:
                result = await fake.press(human.user_id, chat_id, message_id, data=data)
            else:
                result = await fake.press(human.user_id, chat_id, message_id, label)
        except (LookupError, ValueError):
            stats.press_misses += 1
            return None
        self.presses.append(result)
        stats.presses += 1
        if double:
            try:
                again = await fake.press(human.user_id, chat_id, message_id, data=result.data)
            except (LookupError, ValueError):
                pass
            else:
                self.presses.append(again)
                stats.presses += 1
                stats.double_presses += 1
        begun = time.monotonic()
        try:
            answer = await result.answered(PRESS_WAIT)
        except TimeoutError:
            stats.press_timeouts += 1
            return None
        stats.latencies.append(time.monotonic() - begun)
        return answer

    # ---- a table: lobby, start, wait for the end, again ----------------------------------

    async def run_table(self, table: TableState) -> None:
        try:
            while not self.chaos_over.is_set():
                opener = await self._opener(table)
                if opener is None:
                    return
                since = time.monotonic()
                lobby = await self._open_lobby(table, opener)
                if lobby is None:
                    table.open_failures += 1
                    await asyncio.sleep(table.rng.uniform(3.0, 6.0))
                    continue
                if lobby > 0:
                    await self._fill_and_start(table, opener, lobby)
                try:
                    await self.fake.wait_for(
                        lambda t=table, s=since: self._ended(t, s), 900, what="the game's end"
                    )
                    table.ends_seen += 1
                except TimeoutError:
                    continue
                await asyncio.sleep(table.rng.uniform(2.0, 6.0))  # the table chats a little
        except asyncio.CancelledError:
            raise
        except Exception as error:  # a bug of this benchmark: report it, do not stop the run
            self.stats.bench_errors.append(f"table {table.chat_id}: {error!r}")

    async def _opener(self, table: TableState) -> Human | None:
        def free() -> Human | bool | None:
            if self.chaos_over.is_set():
                return True
            return next((h for h in table.humans if not h.blocked), None)

        while True:
            try:
                found = await self.fake.wait_for(free, 10, what="a human who has not blocked")
            except TimeoutError:
                continue
            return found if isinstance(found, Human) else None

    async def _open_lobby(self, table: TableState, opener: Human) -> int | None:
        """/newgame; the lobby message's id, 0 when a game is already being played there,
        None when no answer came."""
        fake = self.fake
        chat = fake.chat(table.chat_id)
        before = len(chat.messages)
        await fake.send_text(opener.user_id, table.chat_id, f"/newgame {table.variant}")

        def answer() -> FakeMessage | None:
            for message in chat.messages[before:]:
                if not message.from_bot or message.deleted:
                    continue
                shown = message.text or ""
                if ("等待玩家" in shown and "开始" in message.labels) or "已有一局" in shown:
                    return message
            return None

        try:
            found: FakeMessage = await fake.wait_for(answer, 30, what="the lobby")
        except TimeoutError:
            return None
        table.lobbies += 1
        if "已有一局" not in (found.text or ""):
            return found.message_id
        shown = chat.message(found.reply_to) if found.reply_to is not None else None
        if shown is not None and "开始" in shown.labels:
            return shown.message_id
        return 0

    async def _fill_and_start(self, table: TableState, opener: Human, lobby_id: int) -> None:
        chat = self.fake.chat(table.chat_id)

        def lobby() -> FakeMessage | None:
            message = chat.message(lobby_id)
            if message is None or message.deleted or "开始" not in message.labels:
                return None
            return message

        for human in table.humans:
            current = lobby()
            if current is None:
                return
            if human is opener or human.blocked or human.name in (current.text or ""):
                continue
            await asyncio.sleep(human.rng.uniform(*THINK))
            await self.press(human, table.chat_id, lobby_id, label="加入")
        current = lobby()
        if current is None:
            return
        shown = SEATED.search(current.text or "")
        missing = int(shown.group(2)) - int(shown.group(1)) if shown else 1
        for _ in range(missing):
            answer = await self.press(opener, table.chat_id, lobby_id, label="加电脑")
            if answer is not None and "已满" in (answer.text or ""):
                break
        for _ in range(12):
            if lobby() is None:
                return
            answer = await self.press(opener, table.chat_id, lobby_id, label="开始")
            if answer is None:
                continue
            if "人还没齐" in (answer.text or ""):
                await self.press(opener, table.chat_id, lobby_id, label="加电脑")
                continue
            return  # started (no text), or the lobby is gone (过期)

    def _ended(self, table: TableState, since: float) -> bool:
        history = self.fake.chat(table.chat_id).history
        while table.history_seen < len(history):
            version = history[table.history_seen]
            table.history_seen += 1
            if version.time >= since and any(mark in version.text for mark in END_MARKS):
                return True
        return False

    # ---- a human -------------------------------------------------------------------------

    def _live(self, human: Human) -> FakeMessage | None:
        """The newest bot message with buttons in the private chat, if it asks for a decision
        the human has not made yet (or made more than 10 s ago and it still asks)."""
        if human.blocked:
            return None
        messages = self.fake.chat(human.user_id).messages
        for message in reversed(messages[-8:]):
            if not message.from_bot or message.deleted or not message.reply_markup:
                continue
            labels = message.labels
            if not any(label in CONTROLS or label.startswith("出牌") for label in labels):
                return None
            key = (message.message_id, tuple(b.get("callback_data", "") for b in message.buttons))
            acted = human.acted.get(key)
            if acted is not None and time.monotonic() - acted < 10.0:
                return None
            return message
        return None

    async def run_human(self, human: Human) -> None:
        try:
            while not self.humans_stop:
                try:
                    found = await self.fake.wait_for(
                        lambda h=human: self._live(h) or self.humans_stop, 5, what="a decision"
                    )
                except TimeoutError:
                    continue
                if not isinstance(found, FakeMessage):
                    return
                human.acted[self._key(found)] = time.monotonic()
                await asyncio.sleep(human.rng.uniform(*THINK))
                await self._decide(human, found)
                current = self.fake.chat(human.user_id).message(found.message_id)
                if current is not None:
                    human.acted[self._key(current)] = time.monotonic()
        except asyncio.CancelledError:
            raise
        except Exception as error:
            self.stats.bench_errors.append(f"human {human.user_id}: {error!r}")

    @staticmethod
    def _key(message: FakeMessage) -> tuple[int, tuple[str, ...]]:
        return (message.message_id, tuple(b.get("callback_data", "") for b in message.buttons))

    async def _decide(self, human: Human, message: FakeMessage) -> None:
        rng, chaos = human.rng, not self.chaos_over.is_set()
        labels = message.labels
        chat_id, message_id = human.user_id, message.message_id
        double = chaos and rng.random() < P_DOUBLE
        if "亮王" in labels:
            label = rng.choice(("亮王", "不亮"))
            await self.press(human, chat_id, message_id, label=label, double=double)
            return
        for label in ("知道了，继续", "我回来了"):
            if label in labels:
                await self.press(human, chat_id, message_id, label=label)
                return
        self.stats.turns += 1
        if chaos:
            roll = rng.random()
            if roll < P_LEAVE:
                await self._leave(human)
                return
            if roll < P_LEAVE + P_BLOCK:
                self._block(human)
                return
        if "提示" not in labels:  # only 出牌… / 不出 shown: press the first of them
            play = next((b for b in message.buttons if b["text"].startswith("出牌")), None)
            data = play["callback_data"] if play else None
            if data is None and "不出" in labels:
                await self.press(human, chat_id, message_id, label="不出", double=double)
            elif data is not None:
                await self.press(human, chat_id, message_id, data=data, double=double)
            return
        if "不出" in labels and rng.random() < P_PASS:
            await self.press(human, chat_id, message_id, label="不出", double=double)
            return
        hint = await self.press(human, chat_id, message_id, label="提示")
        if hint is None or "过期" in (hint.text or ""):
            return
        if "只能不出" in (hint.text or ""):
            await self.press(human, chat_id, message_id, label="不出", double=double)
            return
        await asyncio.sleep(rng.uniform(*TAP))
        current = self.fake.chat(chat_id).message(message_id)
        if current is None:
            return
        play = current.find_button(lambda text: text.startswith("出牌"))
        if play is None:
            return
        await self.press(human, chat_id, message_id, data=play["callback_data"], double=double)

    async def _leave(self, human: Human) -> None:
        fake = self.fake
        chat_id = human.table.chat_id
        sent = await fake.send_text(human.user_id, chat_id, "/leave")
        self.stats.leaves += 1
        with contextlib.suppress(TimeoutError):
            await fake.wait_for(
                lambda: any(m.reply_to == sent.message_id for m in fake.chat(chat_id).bot_messages),
                PRESS_WAIT,
                what="the answer to /leave",
            )
            self.stats.leaves_confirmed += 1

    def _block(self, human: Human) -> None:
        self.fake.block(human.user_id)
        human.blocked = True
        self.stats.blocks += 1
        self.side_tasks.append(asyncio.ensure_future(self._unblock_later(human)))

    async def _unblock_later(self, human: Human) -> None:
        await asyncio.sleep(human.rng.uniform(*UNBLOCK_AFTER))
        try:
            await self.fake.send_text(human.user_id, human.user_id, "/start")
        except ValueError as error:
            self.stats.bench_errors.append(f"unblock {human.user_id}: {error}")
            return
        human.blocked = False
        self.stats.unblocks += 1
