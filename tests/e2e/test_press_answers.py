"""A press is answered as soon as its answer is known, not after the edits that render it:
those wait for the private chat's pace (about one message a second), and the player's client
spins until the press is answered (bench.presses: the player on turn waited up to 3 s)."""

from __future__ import annotations

from pathlib import Path

from fakebot import FakeTelegram
from tests.e2e.driver import running_bot, setup_world
from tests.e2e.helpers_robust import decider, fast_settings, start_game

TOGGLES = 6


async def test_card_toggles_are_answered_before_their_paced_edits(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    fake = fake_telegram  # Telegram's limits: three messages at once to a private chat
    people = setup_world(fake, 1)
    async with running_bot(fast_settings(fake, tmp_path / "bot.sqlite3")) as service:
        table = await start_game(fake, service, people, "双扣", 3)
        player, hand = await decider(fake, table, people)
        toggle = next(b["callback_data"] for b in hand.buttons if ":t:" in b["callback_data"])
        edits_before = hand.edit_count
        answers = []
        for _ in range(TOGGLES):  # faster than the chat's pace: the later edits must wait
            press = await fake.press_raw(player, player, hand.message_id, toggle)
            answers.append(((await press.answered(30)).text, press.query_id))
        await fake.wait_for(
            lambda: hand.edit_count == edits_before + TOGGLES, 30, what="every toggle shown"
        )
    assert [text for text, _ in answers] == ["已选 1 张", "已选 0 张"] * (TOGGLES // 2)
    order = [
        r
        for r in fake.requests
        if (
            r.method == "answerCallbackQuery"
            and r.raw.get("callback_query_id") in {q for _, q in answers}
        )
        or (
            r.method == "editMessageText"
            and r.ok
            and str(r.raw.get("message_id")) == str(hand.message_id)
        )
    ]
    edits = [i for i, r in enumerate(order) if r.method == "editMessageText"][-TOGGLES:]
    answered = [
        next(i for i, r in enumerate(order) if r.raw.get("callback_query_id") == query)
        for _, query in answers
    ]
    # the chat takes three at once: at least the last three edits waited for its pace, and
    # each of those presses was answered before its edit went out
    for press in range(TOGGLES - 3, TOGGLES):
        assert answered[press] < edits[press], (press, answered, edits)
    assert fake.limit_violations == []
    fake.assert_clean()
