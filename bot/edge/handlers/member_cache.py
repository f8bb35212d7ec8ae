"""Who is in a group, remembered: Telegram's ``getChatMember`` off the hot path.

Every web request and live socket of someone who is not seated asks whether they are in the
table's group. Asked of Telegram each time, an attacker with a few pages spends the bot's ~30
calls a second that the games need (issue #24: 40 clients made 461 calls in 15 s and /help
went from 0.02 s to 1.1 s). So the answers are kept here:

- a member is believed for ``member_seconds``, a non-member for ``nonmember_seconds`` (shorter:
  someone who joins the group should not wait long), an admin's rights for ``admin_seconds``;
- asks for the same (group, user) while a lookup is under way share that one lookup, and a
  failed lookup is not tried again for ``RETRY_SECONDS``: at most one call per pair at a time;
- membership lookups spend a budget of their own (a token bucket); when it is spent the answer
  is ``None``, "not known now", at once: callers refuse with "try again" rather than queue
  behind the games;
- admin lookups do not spend that budget: they come from commands and presses in the group,
  which are throttled already, and a web flood must not lock admins out of /settings;
- what the bot sees in its updates needs no call at all: whoever writes or presses in the
  group is a member (:meth:`seen`), and ``chat_member`` updates replace the entry
  (:meth:`learned`), so leaving or being banned takes effect at once;
- a join by link asks again when the remembered answer is "not a member" (``recheck``): it is
  a person's deliberate tap, throttled per user already, and they may just have joined;
- at most ``size`` pairs are kept, the least recently used go first.

Pure asyncio: the Telegram call is the ``fetch`` given (see :mod:`bot.edge.handlers.members`).
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from bot.limits.throttle import Throttle

#: seconds before a (group, user) whose lookup failed is asked about again
RETRY_SECONDS = 10.0
_NEVER = float("-inf")


@dataclass(frozen=True)
class Standing:
    """What Telegram says a user is in a group."""

    member: bool
    admin: bool


#: the lookup: a user's standing in a group, or None when Telegram could not say
Fetch = Callable[[int, int], Awaitable[Standing | None]]


@dataclass
class _Entry:
    member: bool = False
    member_until: float = _NEVER
    admin: bool = False
    admin_until: float = _NEVER
    retry_at: float = _NEVER
    #: when an update last told us about this pair: an older lookup must not overwrite it
    learned_at: float = _NEVER


class MemberCache:
    def __init__(
        self,
        fetch: Fetch,
        *,
        member_seconds: float,
        nonmember_seconds: float,
        admin_seconds: float,
        per_second: float,
        burst: int,
        size: int,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.fetch = fetch
        self.member_seconds = member_seconds
        self.nonmember_seconds = nonmember_seconds
        self.admin_seconds = admin_seconds
        self.size = size
        self.clock = clock
        self._budget = Throttle(per_second, burst=burst)
        self._entries: OrderedDict[tuple[int, int], _Entry] = OrderedDict()
        self._flights: dict[tuple[int, int], asyncio.Task[Standing | None]] = {}
        #: counters for logs and tests: Telegram calls made, asks refused for the budget
        self.lookups = 0
        self.refused = 0

    def __len__(self) -> int:
        return len(self._entries)

    async def is_member(
        self, chat_id: int, user_id: int, *, recheck: bool = False
    ) -> bool | None:
        """Whether the user is in the group; None when that is not known now (the lookup
        budget is spent, or Telegram did not answer lately): callers say "try again".
        ``recheck``: a remembered "not a member" is asked again (someone told so who has
        joined since and taps the link once more must not wait out the expiry)."""
        key = (chat_id, user_id)
        now = self.clock()
        entry = self._touch(key)
        fresh = entry is not None and now < entry.member_until
        if fresh and entry is not None and (entry.member or not recheck):
            return entry.member
        flight = self._flights.get(key)
        if flight is None:
            if entry is not None and now < entry.retry_at:
                return None
            if not self._budget.allow(0, now):
                self.refused += 1
                return None
            flight = self._start(key)
        standing = await asyncio.shield(flight)
        return None if standing is None else standing.member

    async def is_admin(self, chat_id: int, user_id: int) -> bool:
        """Whether the user is an admin (or the owner) of the group; False when Telegram
        cannot say: rights are never assumed."""
        key = (chat_id, user_id)
        now = self.clock()
        entry = self._touch(key)
        if entry is not None and now < entry.admin_until:
            return entry.admin
        flight = self._flights.get(key)
        if flight is None:
            if entry is not None and now < entry.retry_at:
                return False
            flight = self._start(key)
        standing = await asyncio.shield(flight)
        return standing is not None and standing.admin

    def known(self, chat_id: int, user_id: int) -> bool | None:
        """The membership answer held now, without asking anyone (None: none fresh)."""
        entry = self._entries.get((chat_id, user_id))
        if entry is None or self.clock() >= entry.member_until:
            return None
        return entry.member

    def seen(self, chat_id: int, user_id: int) -> None:
        """The user wrote or pressed something in the group: a member, no call needed."""
        entry = self._entry((chat_id, user_id))
        now = self.clock()
        entry.member, entry.member_until = True, now + self.member_seconds

    def learned(self, chat_id: int, user_id: int, standing: Standing) -> None:
        """Telegram told us (a ``chat_member`` update): the entry is replaced at once."""
        entry = self._entry((chat_id, user_id))
        now = self.clock()
        self._store(entry, standing, now)
        entry.learned_at = now

    # ---- inside -----------------------------------------------------------------------------

    def _start(self, key: tuple[int, int]) -> asyncio.Task[Standing | None]:
        flight = asyncio.create_task(self._lookup(key))
        self._flights[key] = flight
        return flight

    async def _lookup(self, key: tuple[int, int]) -> Standing | None:
        started = self.clock()
        self.lookups += 1
        try:
            standing = await self.fetch(*key)
        finally:
            del self._flights[key]
        entry = self._entry(key)
        now = self.clock()
        if standing is None:
            entry.retry_at = now + RETRY_SECONDS
        elif entry.learned_at <= started:  # an update during the call knows better
            self._store(entry, standing, now)
        return standing

    def _store(self, entry: _Entry, standing: Standing, now: float) -> None:
        entry.member = standing.member
        entry.member_until = now + (
            self.member_seconds if standing.member else self.nonmember_seconds
        )
        entry.admin, entry.admin_until = standing.admin, now + self.admin_seconds
        entry.retry_at = _NEVER

    def _touch(self, key: tuple[int, int]) -> _Entry | None:
        entry = self._entries.get(key)
        if entry is not None:
            self._entries.move_to_end(key)
        return entry

    def _entry(self, key: tuple[int, int]) -> _Entry:
        entry = self._touch(key)
        if entry is None:
            entry = self._entries[key] = _Entry()
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)
        return entry
