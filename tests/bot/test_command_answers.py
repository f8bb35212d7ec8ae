"""How answers that waited for a group's room are merged into as few messages as fit."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.service.command_answers import MERGED_MAX, SEPARATOR, _Waiting, merge


def _keyboard(label: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton(label, callback_data=label)]])


def test_answers_merge_into_one_message_replying_to_the_first() -> None:
    waiting = [_Waiting(f"rank {n}", 10 + n, None) for n in range(5)]
    [merged] = merge(waiting)
    assert merged.body == SEPARATOR.join(f"rank {n}" for n in range(5))
    assert merged.reply_to == 10


def test_a_repeated_answer_is_sent_once() -> None:
    waiting = [_Waiting("history", n, None) for n in range(3)] + [_Waiting("rank", 9, None)]
    [merged] = merge(waiting)
    assert merged.body == "history" + SEPARATOR + "rank"


def test_merged_messages_stay_under_telegrams_length() -> None:
    long = "x" * (MERGED_MAX // 2)
    waiting = [_Waiting(long + str(n), n, None) for n in range(3)]
    messages = merge(waiting)
    assert len(messages) == 3
    assert all(len(m.body) <= MERGED_MAX for m in messages)


def test_two_different_keyboards_do_not_share_a_message() -> None:
    first, second = _keyboard("a"), _keyboard("b")
    waiting = [_Waiting("one", 1, first), _Waiting("plain", 2, None), _Waiting("two", 3, second)]
    messages = merge(waiting)
    assert [m.body for m in messages] == ["one" + SEPARATOR + "plain", "two"]
    assert [m.markup for m in messages] == [first, second]
