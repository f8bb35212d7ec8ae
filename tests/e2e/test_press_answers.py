"""A press is answered as soon as its answer is known, not after the edits that render it:
those wait for the private chat's pace (about one message a second), and the player's client
spins until the press is answered (bench.presses: the player on turn waited up to 3 s)."""

from __future__ import annotations

from pathlib import Path

from fakebot import FakeTelegram
from tests.e2e.driver import running_bot, setup_world
from tests.e2e.helpers_robust import decider, fast_settings, start_game

TOGGLES = 6
# an edit that went out this long after its press waited for the chat's pace (one a second)
HELD = 0.5


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
        pressed_at = []
        for _ in range(TOGGLES):  # faster than the chat's pace: the later edits must wait
            pressed_at.append(fake.clock())
            press = await fake.press_raw(player, player, hand.message_id, toggle)
            answers.append(((await press.answered(30)).text, press.query_id))
        await fake.wait_for(
            lambda: hand.edit_count == edits_before + TOGGLES, 30, what="every toggle shown"
        )
    assert [text for text, _ in answers] == ["已选 1 张", "已选 0 张"] * (TOGGLES // 2)
    answer_at = {
        r.raw.get("callback_query_id"): r.time
        for r in fake.requests
        if r.method == "answerCallbackQuery"
    }
    edit_at = [
        r.time
        for r in fake.requests
        if r.method == "editMessageText"
        and r.ok
        and str(r.raw.get("message_id")) == str(hand.message_id)
    ][-TOGGLES:]
    # an edit the chat's pace held (about a second a message after the first three) went out
    # well after its press; each of those presses was answered before its edit. Which presses
    # the pace holds depends on how fast the machine presses, so held ones are found by time.
    held = [k for k in range(TOGGLES) if edit_at[k] - pressed_at[k] >= HELD]
    assert held, (pressed_at, edit_at)
    # A press made while the previous toggle's edit still waited (under the table's lock) is
    # answered when it gets the lock, and its own edit may then go out at once, racing its
    # answer: only the presses answered without such a wait say whether the answer comes
    # first. Had the answers waited for their edits, no held press would be answered at once.
    prompt = [k for k in held if answer_at[answers[k][1]] - pressed_at[k] < HELD]
    assert prompt, (pressed_at, answer_at, edit_at)
    for press in prompt:
        _, query = answers[press]
        assert answer_at[query] < edit_at[press], (press, pressed_at, answer_at, edit_at)
    assert fake.limit_violations == []
    fake.assert_clean()
