"""Play one seat against computer players in a terminal: ``python -m bot play shuangkou``.

Everything goes through injectable streams, so a test plays a whole game by feeding lines.
What is shown comes from the engine's :class:`SeatView` for the person's seat, exactly what
the bot shows in a private chat: the other hands stay hidden, and so do 刨王's secret teams.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from bot.cli.simulate import SEATS, new_game, next_actor
from bot.game.cards import Card
from bot.game.common import (
    Combo,
    Event,
    GameOver,
    IllegalPlay,
    Passed,
    Played,
    PlayerOut,
    PointsTaken,
    RevealDeclined,
    Revealed,
    SeatView,
    TrickTaken,
)
from bot.game.levels import level_for
from bot.game.players import Player, decide, legal_options, make_player, play_order_key
from bot.game.textplay import is_hint, is_pass, parse_play_text
from bot.presentation.names import beaten_in_trick, play_name

GAME_NAMES = {"shuangkou": "绍兴双扣", "paowang": "通化刨王"}
OUTCOME_NAMES = {"win": "胜"}
QUIT_WORDS = frozenset({"q", "quit", "exit", "退出"})
YES_WORDS = frozenset({"y", "yes", "是", "亮", "亮王", "1"})
NO_WORDS = frozenset({"n", "no", "否", "不", "不亮", "0", ""})

HELP = """\
出牌 / play: type the cards as in the chat, for example
  33 44 55        ♠3 ♠4 ♠5 ♠6 ♠7        334455        10JQKA        小王 大王 (LJ BJ)
  #1 2 3          the cards at those indexes of your hand
不出 / pass       pass (only when there is a play to beat)
提示 / hint       suggest a legal play; again for the next one; an empty line plays the last hint
?                 this help
退出 / quit       leave the game"""

_REASONS = {
    "not_in_hand": "你没有这些牌 (not in your hand)",
    "not_a_combination": "不是合法牌型 (not a combination)",
    "does_not_beat": "压不过桌上的牌 (does not beat the table)",
    "cannot_pass": "你必须出牌 (you lead: you must play)",
    "not_your_turn": "还没轮到你 (not your turn)",
}


def combo_label(variant: str, combo: Combo, beaten: Combo | None = None) -> str:
    """The Chinese name of a play, as the bot names it (顺子, 炸弹; 刨王's 骑牌, 小幺, 三路)."""
    return play_name("zh", variant, combo, beaten)


class TerminalGame:
    """One game in a terminal: the person at ``seat``, computer players everywhere else."""

    def __init__(
        self, variant: str, *, seed: int, seat: int = 0, opponents: str = "ai",
        stdin: TextIO | None = None, stdout: TextIO | None = None, score: int = 0,
    ) -> None:
        self.variant = variant
        self.seed = seed
        self.seat = seat
        self.score = score
        self.stdin = stdin or sys.stdin
        self.out = stdout or sys.stdout
        self.game: Any = new_game(variant, seed)
        seats = SEATS[variant]
        self.players: list[Player | None] = [
            None if s == seat else make_player(opponents, seed=seed * 10 + s) for s in range(seats)
        ]
        self._hints: list[Combo] = []
        self._hint_index = -1
        self._on_table: Combo | None = None  # the play to beat, as the events tell it

    # -- output ----------------------------------------------------------------------------

    def say(self, text: str = "") -> None:
        print(text, file=self.out)

    def name(self, seat: int) -> str:
        if seat == self.seat:
            return f"座位{seat}(你)"
        return f"座位{seat}"

    def render_hand(self, hand: Sequence[Card]) -> str:
        cells = [f"{i + 1}:{card}" for i, card in enumerate(hand)]
        rows = [" ".join(cells[i : i + 10]) for i in range(0, len(cells), 10)]
        return f"你的牌 ({len(hand)} 张):\n  " + "\n  ".join(rows) if rows else "你的牌: (无)"

    def render_table(self, view: SeatView) -> str:
        lines = [f"—— {GAME_NAMES[self.variant]} ——"]
        for s, size in enumerate(view.hand_sizes):
            tags = []
            if s in view.finish_order:
                tags.append(f"第{view.finish_order.index(s) + 1}个出完")
            if s in view.partners:
                tags.append("队友")
            if view.points:
                tags.append(f"{view.points[s]}分")
            if view.revealed and view.revealed[s]:
                jokers = view.revealed_jokers[s] if view.revealed_jokers else 1
                tags.append(f"亮王×{jokers}")
            marker = "→" if view.turn == s else " "
            extra = f" [{', '.join(tags)}]" if tags else ""
            lines.append(f"{marker} {self.name(s)}: {size} 张{extra}")
        if view.trick:
            shown = [f"{self.name(s)} {combo or '不出'}" for s, combo in view.trick]
            lines.append("本轮: " + " | ".join(shown))
        if view.on_table is not None and view.on_table_seat is not None:
            label = combo_label(self.variant, view.on_table, beaten_in_trick(view.trick))
            lines.append(f"桌上: {view.on_table} [{label}] ({self.name(view.on_table_seat)})")
        if view.trick_points:
            lines.append(f"本轮分数: {view.trick_points}")
        return "\n".join(lines)

    def render_event(self, event: Event) -> str | None:
        if isinstance(event, Played):
            label = combo_label(self.variant, event.combo, self._on_table)
            self._on_table = event.combo
            return f"{self.name(event.seat)} 出 {event.combo} [{label}]  (剩 {event.cards_left} 张)"
        if isinstance(event, Passed):
            return f"{self.name(event.seat)} 不出"
        if isinstance(event, TrickTaken):
            self._on_table = None
            text = f"{self.name(event.seat)} 拿下这一轮"
            if event.next_leader is not None and event.next_leader != event.seat:
                text += f", {self.name(event.next_leader)} 接风出牌"
            return text
        if isinstance(event, PlayerOut):
            return f"{self.name(event.seat)} 出完了! 第 {event.place} 名"
        if isinstance(event, PointsTaken):
            return f"{self.name(event.seat)} 得 {event.points} 分 (共 {event.total} 分)"
        if isinstance(event, Revealed):
            return f"{self.name(event.seat)} 亮王! ({event.jokers} 张大王)"
        if isinstance(event, RevealDeclined):
            return "你没有亮王" if event.seat == self.seat else None  # private to its seat
        if isinstance(event, GameOver):
            return None  # the settlement follows
        return None

    def show_events(self, events: Sequence[Event]) -> None:
        for event in events:
            text = self.render_event(event)
            if text:
                self.say(text)

    def settlement(self) -> str:
        result = self.game.result
        lines = ["—— 结算 ——", f"结果: {OUTCOME_NAMES.get(result.outcome, result.outcome)}"]
        if result.multiplier != 1 or result.revealed:
            lines.append(f"倍数 ×{result.multiplier}" + (" (亮王)" if result.revealed else ""))
        if result.side_points is not None:
            lines.append(f"分数: 胜方 {result.side_points[0]}, 负方 {result.side_points[1]}")
        if result.finish_order:
            lines.append("出完顺序: " + ", ".join(self.name(s) for s in result.finish_order))
        for s, delta in enumerate(result.deltas):
            side = "胜" if s in result.winners else ("平" if not result.winners else "负")
            lines.append(f"  {self.name(s)}: {delta:+d} ({side})")
        total = self.score + result.deltas[self.seat]
        level = level_for(self.variant, total)
        line = f"你的总分 {total}: 等级 {level.level} {level.title}"
        if level.next_title is not None:
            line += f" (离 {level.next_title} 还差 {level.to_next(total)})"
        lines.append(line)
        return "\n".join(lines)

    # -- input -----------------------------------------------------------------------------

    def ask(self, prompt: str) -> str | None:
        self.out.write(prompt)
        self.out.flush()
        line = self.stdin.readline()
        if not line:
            return None
        return line.strip()

    def _next_hint(self, view: SeatView) -> Combo | None:
        if not self._hints:
            self._hints = sorted(legal_options(view), key=play_order_key)
            self._hint_index = -1
        if not self._hints:
            return None
        self._hint_index = (self._hint_index + 1) % len(self._hints)
        return self._hints[self._hint_index]

    def _cards_from(self, text: str, hand: Sequence[Card]) -> list[Card]:
        if text.startswith("#"):
            picked = []
            for token in text[1:].replace(",", " ").split():
                # isdigit() alone takes ٣ (which int() reads as 3) and ² (which it refuses)
                if not (token.isascii() and token.isdigit()) or not 1 <= int(token) <= len(hand):
                    raise ValueError(f"no card at index {token!r}")
                picked.append(int(token) - 1)
            if len(set(picked)) != len(picked):
                raise ValueError("an index given twice")
            return [hand[i] for i in picked]
        return parse_play_text(text)

    def human_reveal(self) -> bool:
        view: SeatView = self.game.view(self.seat)
        self.say(self.render_hand(view.hand))
        self.say("你有大王。亮王会让你的大王更大, 并使本局分数翻倍; 但大家都会知道你是王方。")
        while True:
            answer = self.ask("亮王吗? reveal your 大王? [y/N] ")
            if answer is None or answer.lower() in NO_WORDS:
                return False
            if answer.lower() in YES_WORDS:
                return True
            self.say("请回答 y 或 n")

    def human_turn(self) -> bool:
        """One action of the person; False when they leave the game."""
        view: SeatView = self.game.view(self.seat)
        self.say()
        self.say(self.render_table(view))
        self.say(self.render_hand(view.hand))
        self._hints = []
        last_hint: Combo | None = None
        while True:
            prompt = "你出牌 (? 帮助): " if view.on_table is None else "你出牌, 或 不出 (? 帮助): "
            text = self.ask(prompt)
            if text is None or text.lower() in QUIT_WORDS:
                return False
            try:
                if text in ("?", "？", "help", "帮助"):
                    self.say(HELP)
                    continue
                if is_hint(text):
                    last_hint = self._next_hint(view)
                    self.say("提示: " + (str(last_hint) if last_hint else "没有能出的牌, 只能不出"))
                    continue
                if not text and last_hint is not None:
                    events = self.game.play(self.seat, last_hint.cards)
                elif not text:
                    continue
                elif is_pass(text):
                    events = self.game.pass_turn(self.seat)
                else:
                    events = self.game.play(self.seat, self._cards_from(text, view.hand))
            except IllegalPlay as error:
                self.say(_REASONS.get(error.reason.value, str(error)))
                continue
            except ValueError as error:
                self.say(f"看不懂: {error}")
                continue
            self.show_events(events)
            return True

    # -- the game --------------------------------------------------------------------------

    def run(self) -> int:
        self.say(f"{GAME_NAMES[self.variant]} · seed {self.seed} · 你坐在座位{self.seat}")
        if self.variant == "shuangkou":
            partner = self.game.view(self.seat).partners
            self.say(f"你的队友是 {', '.join(self.name(s) for s in partner)}")
        while not self.game.over:
            actor = next_actor(self.game)
            if actor is None:
                raise RuntimeError("nobody is to act in a game that is not over")
            player = self.players[actor]
            if player is not None:
                self.show_events(decide(player, self.game, actor))
                continue
            if self.game.view(self.seat).reveal_pending:
                self.show_events(self.game.reveal(self.seat, self.human_reveal()))
                continue
            if not self.human_turn():
                self.say("你离开了牌局。")
                return 1
        self.say()
        self.say(self.settlement())
        return 0


def play(
    game: str, seed: int | None = None, *, seat: int = 0, stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> int:
    """The ``play`` command: one game in the terminal; returns the exit code."""
    if game not in SEATS:
        print(f"error: unknown game {game!r}", file=sys.stderr)
        return 2
    if seed is None:
        seed = random.randrange(1_000_000)
    try:
        return TerminalGame(game, seed=seed, seat=seat, stdin=stdin, stdout=stdout).run()
    except KeyboardInterrupt:
        print("\n再见", file=stdout or sys.stdout)
        return 130
