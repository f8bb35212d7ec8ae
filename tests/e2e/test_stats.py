"""/stats through the real bot: the figures checked against games played here, the picture
(a PNG that decodes, of a sensible size), its cache until the player's next game, the answer
in a private chat, about someone replied to, and for someone with no game; and the fake's
sendPhoto (uploads validated as Telegram does)."""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

import aiohttp
import pytest
from PIL import Image

from bot.game.common import Result
from bot.game.levels import level_for
from bot.service import GameService
from bot.service import stats as stats_module
from bot.service.skill import shown as shown_skill
from bot.service.tables import Table
from fakebot import FakeMessage, FakeTelegram
from tests.e2e.driver import GROUP, running_bot, setup_world
from tests.e2e.helpers_robust import FAST, fast_settings, finish, start_game

VARIANT_NAMES = {"shuangkou": "绍兴双扣", "paowang": "通化刨王"}


@pytest.fixture
def fake_telegram_options() -> dict[str, Any]:
    return FAST


@dataclass(frozen=True)
class Played:
    """What the test saw of a finished game."""

    variant: str
    users: tuple[int | None, ...]
    result: Result
    revealed: frozenset[int]


def played(table: Table) -> Played:
    result = table.engine.result
    assert result is not None
    return Played(
        table.variant.name,
        tuple(seat.user_id for seat in table.seats),
        result,
        frozenset(seat for kind, seat, _ in table.log if kind == "reveal"),
    )


def rate(part: int, whole: int) -> str:
    return f"{round(100 * part / whole)}%" if whole else "—"


def expected_blocks(user_id: int, games: list[Played], scores: dict[str, int]) -> dict[str, str]:
    """Per game played, the substrings its block of /stats must show (computed here from the
    engine's results, not by the bot's code)."""
    blocks: dict[str, str] = {}
    for variant, name in VARIANT_NAMES.items():
        mine = [g for g in games if g.variant == variant]
        if not mine:
            continue
        seats = [g.users.index(user_id) for g in mine]
        won = [seat in g.result.winners for g, seat in zip(mine, seats, strict=True)]
        firsts = sum(
            bool(g.result.finish_order) and g.result.finish_order[0] == seat
            for g, seat in zip(mine, seats, strict=True)
        )
        known = sum(bool(g.result.finish_order) for g in mine)
        lines = [f"{name}：{len(mine)}局 {sum(won)}胜（胜率 {rate(sum(won), len(mine))}）· 逃跑 0"]
        if variant == "shuangkou":
            count = {
                (o, w): sum(
                    g.result.outcome == o and x == w for g, x in zip(mine, won, strict=True)
                )
                for o in ("双扣", "单扣")
                for w in (True, False)
            }
            draws = sum(g.result.outcome == "平扣" for g in mine)
            lines.append(
                f"双扣 胜{count['双扣', True]} 负{count['双扣', False]} · "
                f"单扣 胜{count['单扣', True]} 负{count['单扣', False]} · 平扣 {draws}"
            )
        else:
            hows = {
                how: sum(g.result.how == how and x for g, x in zip(mine, won, strict=True))
                for how in ("points", "flag", "sweep")
            }
            reveals = sum(seat in g.revealed for g, seat in zip(mine, seats, strict=True))
            lines.append(
                f"满140胜 {hows['points']} · 扛旗胜 {hows['flag']} · 双飞胜 {hows['sweep']}"
                f" · 亮王 {reveals}"
            )
        current = best = 0
        for one in won:
            current = current + 1 if one else 0
            best = max(best, current)
        lines.append(f"上游 {firsts}（{rate(firsts, known)}）· 连胜 当前 {current} 最长 {best}")
        lines.append(f"最高等级：{level_for(variant, scores[variant]).title}")
        blocks[variant] = "\n".join(lines)
    return blocks


def sections(caption: str) -> dict[str, dict[str, str]]:
    """A /stats caption cut into its sections (本群, 全部, or "" in a private chat) and each
    section into its games' blocks (by variant)."""
    found: dict[str, dict[str, str]] = {}
    section, variant = "", ""
    for line in caption.splitlines()[1:]:
        if line in ("本群", "全部"):
            section, variant = line, ""
            continue
        starts = [v for v, name in VARIANT_NAMES.items() if line.startswith(f"{name}：")]
        if starts:
            variant = starts[0]
            found.setdefault(section, {})[variant] = line
        elif variant:
            found[section][variant] += "\n" + line.strip()
    return found


def check_blocks(shown: dict[str, str], expected: dict[str, str]) -> None:
    assert set(shown) == set(expected), (shown, expected)
    for variant, lines in expected.items():
        for line in lines.splitlines():
            assert line in shown[variant], (line, shown[variant])


async def ask(
    fake: FakeTelegram, user_id: int, chat_id: int, *, reply_to: int | None = None
) -> tuple[FakeMessage, FakeMessage]:
    """``user_id`` sends /stats in ``chat_id``; (the command, the bot's answer to it)."""
    chat = fake.chat(chat_id)
    sent = await fake.send_text(user_id, chat_id, "/stats", reply_to=reply_to)
    index = chat.messages.index(sent)

    def answer() -> FakeMessage | None:
        for message in chat.messages[index + 1 :]:
            if not message.from_bot:
                continue
            if chat_id == user_id or message.reply_to == sent.message_id:
                return message
        return None

    found: FakeMessage = await fake.wait_for(answer, what="the answer to /stats")
    return sent, found


def picture(message: FakeMessage) -> Image.Image:
    assert message.kind == "sendPhoto", message
    assert message.photo is not None
    image = Image.open(io.BytesIO(message.photo))
    image.load()
    assert image.format == "PNG"
    assert image.width >= 400 and image.height >= 250, image.size
    assert len(message.photo) < 1024 * 1024
    assert message.photo_size == image.size  # what the fake told the bot
    return image


async def play_one(
    fake: FakeTelegram, service: GameService, people: list[int], variant: str, computers: int
) -> Played:
    group = fake.chat(GROUP)
    results_before = sum("结果" in (m.text or "") for m in group.bot_messages)
    table = await start_game(fake, service, people, variant, computers)
    await finish(fake, service, people, table)
    # the new result message (posted once the results are stored)
    await fake.wait_for(
        lambda: sum("结果" in (m.text or "") for m in group.bot_messages) > results_before,
        what="the game's result message",
    )
    return played(table)


async def test_stats_against_games_played(
    fake_telegram: FakeTelegram, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On SQLite and on PostgreSQL (``database_url``)."""
    fake = fake_telegram
    people = setup_world(fake, 3)
    players, newcomer = people[:2], people[2]
    async with running_bot(fast_settings(fake, database_url)) as service:
        games = [await play_one(fake, service, players, "双扣", 2)]

        # in the group: this group's games, then all of them; with the picture
        command, first = await ask(fake, players[0], GROUP)
        assert first.caption is not None and first.caption.startswith("📊 玩家1 的战绩")
        picture(first)
        scores = {
            v: (await service.db.ratings.get(user_id=players[0], game=v)).score
            for v in VARIANT_NAMES
        }
        shown = sections(first.caption)
        assert set(shown) == {"本群", "全部"}
        expected = expected_blocks(players[0], games, scores)
        check_blocks(shown["本群"], expected)
        check_blocks(shown["全部"], expected)
        # the skill rating is the player's over all games: beside the titles of all of them
        skill = await service.db.skills.of_player(players[0])
        assert f"技术分 {shown_skill(skill.get('shuangkou'))}（评定1局）" in first.caption
        assert "技术分" not in first.caption.split("全部")[0]  # not in the group's part
        drawn = service.player_stats.drawn

        # asked again before another game: the same picture, not drawn again
        _, again = await ask(fake, players[0], GROUP)
        assert again.photo == first.photo
        assert again.caption == first.caption
        assert service.player_stats.drawn == drawn

        # someone without a game: a plain answer, no picture
        photos = len(fake.calls("sendPhoto"))
        _, nothing = await ask(fake, newcomer, GROUP)
        assert nothing.kind == "text" and "玩家3 还没有打完过一局" in (nothing.text or "")
        assert len(fake.calls("sendPhoto")) == photos

        # someone replied to: their record, in the asker's chat
        _, theirs = await ask(fake, newcomer, GROUP, reply_to=command.message_id)
        assert theirs.caption is not None and theirs.caption.startswith("📊 玩家1 的战绩")

        games.append(await play_one(fake, service, players, "刨王", 3))

        # the next game changed the record: a new picture, with both games
        _, after = await ask(fake, players[0], GROUP)
        assert after.caption is not None
        assert after.photo != first.photo
        assert service.player_stats.drawn == drawn + 1
        picture(after)
        scores = {
            v: (await service.db.ratings.get(user_id=players[0], game=v)).score
            for v in VARIANT_NAMES
        }
        shown = sections(after.caption)
        expected = expected_blocks(players[0], games, scores)
        check_blocks(shown["本群"], expected)
        check_blocks(shown["全部"], expected)
        assert "通化刨王" in after.caption and "小雪 胜" in after.caption

        # the partner each won with most: 双扣's seat across, 刨王's fellow winners
        together = sum(
            players[1] in g.users
            and g.users.index(players[0]) in g.result.winners
            and (
                g.users.index(players[1]) == (g.users.index(players[0]) + 2) % 4
                if g.variant == "shuangkou"
                else g.users.index(players[1]) in g.result.winners
            )
            for g in games
        )
        if together:
            assert f"最佳搭档：玩家2（同胜 {together}）" in after.caption
        else:
            assert "最佳搭档：玩家2" not in after.caption

        # in a private chat: all of the player's games, no group section
        _, private = await ask(fake, players[1], players[1])
        assert private.caption is not None and private.caption.startswith("📊 玩家2 的战绩")
        picture(private)
        assert "本群" not in private.caption
        scores = {
            v: (await service.db.ratings.get(user_id=players[1], game=v)).score
            for v in VARIANT_NAMES
        }
        check_blocks(sections(private.caption)[""], expected_blocks(players[1], games, scores))

        # a text too long for a caption: the picture, then the text as a reply to it
        monkeypatch.setattr(stats_module, "CAPTION_LIMIT", 100)
        _, bare = await ask(fake, players[0], GROUP)
        assert bare.kind == "sendPhoto" and bare.caption is None
        assert bare.photo == after.photo  # still the cached one
        text = await fake.wait_for_message(GROUP, predicate=lambda m: m.reply_to == bare.message_id)
        assert text.text == after.caption
    fake.assert_clean()


# ---- the fake's sendPhoto ---------------------------------------------------------------------


def png(width: int, height: int) -> bytes:
    image = Image.new("RGB", (width, height), "white")
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


async def send_photo(fake: FakeTelegram, data: bytes, caption: str | None = None) -> Any:
    form = aiohttp.FormData()
    form.add_field("chat_id", str(GROUP))
    if caption is not None:
        form.add_field("caption", caption)
        form.add_field("parse_mode", "HTML")
    form.add_field("photo", data, filename="p.png", content_type="image/png")
    async with (
        aiohttp.ClientSession() as session,
        session.post(f"{fake.base_url}{fake.token}/sendPhoto", data=form) as response,
    ):
        return response.status, await response.json()


async def test_fake_send_photo_keeps_the_picture_and_refuses_bad_ones(
    fake_telegram: FakeTelegram,
) -> None:
    fake = fake_telegram
    setup_world(fake, 1)
    data = png(640, 480)
    status, body = await send_photo(fake, data, "<b>战绩</b>")
    assert status == 200, body
    assert body["result"]["caption"] == "战绩"
    assert body["result"]["photo"][0]["width"] == 640
    message = fake.chat(GROUP).messages[-1]
    assert (message.kind, message.photo, message.photo_size) == ("sendPhoto", data, (640, 480))

    status, body = await send_photo(fake, b"not a picture")
    assert (status, body["description"]) == (400, "Bad Request: IMAGE_PROCESS_FAILED")
    status, body = await send_photo(fake, png(1000, 40))  # a ratio over 20
    assert (status, body["description"]) == (400, "Bad Request: PHOTO_INVALID_DIMENSIONS")
    status, body = await send_photo(fake, data, "字" * 1025)
    assert (status, body["description"]) == (400, "Bad Request: message caption is too long")
    assert [r.kind for r in fake.rejections] == ["wrong_type", "prose_limit", "prose_limit"]
