"""The fair update processor: one chat's updates in order, a bound per chat and per person,
and a busy chat that costs the others nothing."""

from __future__ import annotations

import asyncio
import datetime
from typing import Any

from telegram import (
    CallbackQuery,
    Chat,
    ChatMemberBanned,
    ChatMemberMember,
    ChatMemberUpdated,
    Message,
    Update,
    User,
)

from bot.edge.updates import FairUpdateProcessor

GROUP_A = -1001
GROUP_B = -1002


def message_update(update_id: int, chat_id: int, user_id: int) -> Update:
    chat = Chat(chat_id, "supergroup" if chat_id < 0 else "private")
    user = User(user_id, f"u{user_id}", is_bot=False)
    when = datetime.datetime.now(datetime.UTC)
    return Update(update_id, message=Message(update_id, when, chat, from_user=user, text="/help"))


def ban_update(update_id: int, chat_id: int, user_id: int) -> Update:
    chat = Chat(chat_id, "supergroup")
    user = User(user_id, f"u{user_id}", is_bot=False)
    admin = User(1, "admin", is_bot=False)
    when = datetime.datetime.now(datetime.UTC)
    changed = ChatMemberUpdated(
        chat, admin, when, ChatMemberMember(user), ChatMemberBanned(user, until_date=when)
    )
    return Update(update_id, chat_member=changed)


class AnswerRecorder:
    def __init__(self) -> None:
        self.answered: list[str] = []

    async def answer_callback_query(self, callback_query_id: str, **_: Any) -> bool:
        self.answered.append(callback_query_id)
        return True


def press_update(update_id: int, chat_id: int, user_id: int, bot: AnswerRecorder) -> Update:
    user = User(user_id, f"u{user_id}", is_bot=False)
    chat = Chat(chat_id, "supergroup")
    when = datetime.datetime.now(datetime.UTC)
    message = Message(1, when, chat, text="lobby")
    query = CallbackQuery(str(update_id), user, "instance", message=message, data="x")
    query.set_bot(bot)  # type: ignore[arg-type]
    return Update(update_id, callback_query=query)


async def test_one_chat_in_order_one_at_a_time() -> None:
    processor = FairUpdateProcessor()
    seen: list[int] = []
    running = 0
    most = 0

    async def handle(n: int) -> None:
        nonlocal running, most
        running += 1
        most = max(most, running)
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        seen.append(n)
        running -= 1

    await asyncio.gather(
        *(processor.process_update(message_update(n, GROUP_A, 100 + n % 3), handle(n))
          for n in range(10))
    )
    assert seen == list(range(10))
    assert most == 1


async def test_a_flooded_chat_sheds_and_leaves_the_others_free() -> None:
    processor = FairUpdateProcessor(per_chat=8, per_user=1000)
    release = asyncio.Event()
    handled_a = 0

    async def slow() -> None:  # every update of the flooded group waits for its budget
        nonlocal handled_a
        await release.wait()
        handled_a += 1

    flood = [
        asyncio.ensure_future(processor.process_update(message_update(n, GROUP_A, 100 + n), slow()))
        for n in range(300)
    ]
    await asyncio.sleep(0)
    # another group is served at once, while the flood waits
    done = asyncio.Event()

    async def quick() -> None:
        done.set()

    await asyncio.wait_for(processor.process_update(message_update(999, GROUP_B, 7), quick()), 1)
    assert done.is_set()
    assert processor.shed == 300 - 8
    release.set()
    await asyncio.gather(*flood)
    assert handled_a == 8


async def test_a_person_flooding_many_chats_is_bounded_and_a_shed_press_is_answered() -> None:
    processor = FairUpdateProcessor(per_chat=100, per_user=4)
    bot = AnswerRecorder()
    release = asyncio.Event()

    async def slow() -> None:
        await release.wait()

    updates = [press_update(n, -2000 - n, 55, bot) for n in range(10)]
    tasks = [asyncio.ensure_future(processor.process_update(u, slow())) for u in updates]
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert processor.shed == 6
    assert sorted(bot.answered) == sorted(str(n) for n in range(4, 10))
    release.set()
    await asyncio.gather(*tasks)
    # the lanes are gone once empty: nothing grows with the number of chats ever seen
    assert not processor._lanes and not processor._users


async def test_a_membership_change_does_not_wait_behind_its_groups_lane() -> None:
    processor = FairUpdateProcessor()
    release = asyncio.Event()
    heard: list[str] = []

    async def slow_answer() -> None:  # a group's answer waiting for the group's pace
        await release.wait()
        heard.append("answer")

    async def ban() -> None:
        heard.append("ban")

    answering = asyncio.create_task(
        processor.process_update(message_update(1, GROUP_A, 100), slow_answer())
    )
    await asyncio.sleep(0)
    await asyncio.wait_for(processor.process_update(ban_update(2, GROUP_A, 200), ban()), 5)
    assert heard == ["ban"]  # heard while the group's lane is still busy
    release.set()
    await answering
    assert heard == ["ban", "answer"]
