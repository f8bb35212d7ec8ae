"""The service's parts, built in order and wired to the events they follow.

Each part is built after the parts it calls, so the calls go one way (the acyclic contract
in ``pyproject.toml`` keeps it so); what follows from a part's work travels as an event, and
:meth:`Parts.wire` is the one place that says who follows what, in which order.
"""

from __future__ import annotations

from bot.service.achievement_notes import AchievementNotes
from bot.service.computers import ComputerSeats
from bot.service.departures import Departures
from bot.service.deps import Deps
from bot.service.door import TableDoor
from bot.service.events import (
    Acted,
    Blocked,
    Closed,
    Dealt,
    Deserted,
    Finished,
    GateClosed,
    GateOpened,
    Resumed,
    TookBack,
    TurnBegan,
)
from bot.service.gate import RevealGate
from bot.service.group_lines import GroupLines
from bot.service.group_settings import GroupSettings
from bot.service.hand_requests import HandRequests
from bot.service.hands import HandMessages
from bot.service.history import History
from bot.service.inputs import SeatInputs
from bot.service.league import League
from bot.service.ledger import Ledger
from bot.service.lobby import Lobby
from bot.service.people import People
from bot.service.recovery import Recovery
from bot.service.seasons import Seasons
from bot.service.starting import TableStart
from bot.service.stored import StoredGames
from bot.service.tables import Table
from bot.service.timers import Timers
from bot.service.turns import Turns


class Parts:
    def __init__(self, deps: Deps) -> None:
        self.deps = deps
        # each part is built after the parts it calls: the calls go one way
        self.people = People(deps)
        self.group_settings = GroupSettings(deps, self.people)
        self.stored = StoredGames(deps, self.group_settings)
        self.ledger = Ledger(deps)
        self.computers = ComputerSeats()
        self.hands = HandMessages(deps)
        self.gate = RevealGate(deps, self.ledger, self.hands, self.computers)
        self.starting = TableStart(deps, self.stored, self.group_settings)
        self.lobby = Lobby(deps, self.people, self.group_settings, self.starting, self.hands)
        self.departures = Departures(deps, self.ledger, self.hands, self.people, self.lobby)
        self.door = TableDoor(deps, self.ledger, self.gate, self.departures)
        self.inputs = SeatInputs(deps, self.people, self.door, self.hands)
        self.hand_requests = HandRequests(deps, self.people, self.hands, self.gate)
        self.turns = Turns(deps, self.ledger)
        self.timers = Timers(deps, self.door, self.computers)
        self.lines = GroupLines()
        self.recovery = Recovery(deps, self.stored, self.starting, self.gate, self.hands)
        self.history = History(deps, self.people, self.group_settings, self.stored)
        self.seasons = Seasons(deps, self.group_settings)
        self.achievement_notes = AchievementNotes(deps)
        self.league = League(deps, self.people, self.group_settings, self.seasons)
        self.wire()

    def wire(self) -> None:
        """Who follows which event, in order: for an action, the time-out's note, the
        actor's hand message, the group's lines, then the next turn (whose prompt goes before
        its timer is armed)."""
        on = self.deps.events.subscribe
        on(Dealt, self.gate.on_dealt)
        on(Dealt, self.hands.on_dealt)
        on(Dealt, self.turns.on_dealt)
        on(Acted, self.turns.on_timer_acted)
        on(Acted, self.hands.on_acted)
        on(Acted, self.lines.on_acted)
        on(Acted, self.turns.on_acted)
        on(GateOpened, self.timers.on_gate_opened)
        on(GateClosed, self.turns.on_gate_closed)
        on(TurnBegan, self.hands.on_turn)
        on(TurnBegan, self.timers.on_turn)
        on(Blocked, self.departures.on_blocked)
        on(Deserted, self.gate.on_deserted)
        on(Deserted, self.turns.on_deserted)
        on(TookBack, self.hands.on_took_back)
        on(TookBack, self.turns.on_took_back)
        on(Resumed, self.turns.on_resumed)
        on(Finished, self.lines.on_finished)
        on(Finished, self.hands.on_finished)
        on(Finished, self.achievement_notes.on_finished)
        on(Closed, self._forget)
        on(Closed, self.timers.on_closed)
        on(Closed, self.computers.on_closed)
        on(Closed, self.lines.on_closed)

    async def _forget(self, table: Table, _event: Closed) -> None:
        self.deps.registry.remove(table)

