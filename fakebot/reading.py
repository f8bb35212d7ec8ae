"""What a test reads of the fake's state, and how it waits for a state without sleeping."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from fakebot.models import CallbackResult, FakeMessage, RequestRecord
from fakebot.state import FakeState, scope_key


class ReadingMixin(FakeState):
    """The record of the bot's requests and the chats, and waiting on conditions over them."""

    def sent_to(self, chat_id: int) -> list[str]:
        """Every text the bot has shown in the chat, sends and edits, oldest first."""
        return self.chat(chat_id).texts

    def calls(self, method: str, *, ok: bool | None = True) -> list[RequestRecord]:
        """The requests of one method (by default only the successful ones)."""
        wanted = method.lower()
        return [
            r for r in self.requests if r.method.lower() == wanted and (ok is None or r.ok == ok)
        ]

    def commands(self, scope: dict[str, Any] | None = None, language_code: str = "") -> list[Any]:
        """The commands the bot set for a scope (default scope) and language."""
        return list(self._commands.get((scope_key(scope), language_code), []))

    def unanswered_callbacks(self) -> list[CallbackResult]:
        """Presses the bot has not answered (the design says: always answer)."""
        return [c for c in self.callbacks.values() if not c.is_answered]

    def assert_clean(self) -> None:
        """Fail with a readable list if the bot made any request Telegram would refuse or
        exceeded a flood limit."""
        problems = [str(r) for r in self.rejections] + [str(v) for v in self.limit_violations]
        if problems:
            raise AssertionError("the fake Telegram refused requests:\n  " + "\n  ".join(problems))

    async def wait_for(
        self,
        predicate: Callable[[], Any],
        timeout: float = 10.0,
        *,
        what: str | None = None,
    ) -> Any:
        """Wait until ``predicate()`` is truthy and return its value. It is re-evaluated
        after every handled request and every change a test makes; no polling."""
        try:
            async with asyncio.timeout(timeout):
                while True:
                    changed = self._changed
                    value = predicate()
                    if value:
                        return value
                    await changed.wait()
        except TimeoutError:
            name = what or getattr(predicate, "__qualname__", None) or repr(predicate)
            recent = "\n  ".join(
                f"{r.method} {r.status} {_brief(r.params)}" for r in self.requests[-8:]
            )
            refused = "\n  ".join(str(r) for r in self.rejections[-3:])
            raise TimeoutError(
                f"timed out after {timeout}s waiting for {name}; last requests:\n  {recent}"
                + (f"\nlast rejections:\n  {refused}" if refused else "")
            ) from None

    async def wait_for_message(
        self,
        chat_id: int,
        *,
        contains: str | None = None,
        predicate: Callable[[FakeMessage], bool] | None = None,
        timeout: float = 10.0,
    ) -> FakeMessage:
        """The newest visible bot message in the chat whose current text contains
        ``contains`` and/or satisfies ``predicate``, once there is one."""

        def find() -> FakeMessage | None:
            for message in reversed(self.chat(chat_id).bot_messages):
                shown = message.text if message.text is not None else (message.caption or "")
                if contains is not None and contains not in shown:
                    continue
                if predicate is not None and not predicate(message):
                    continue
                return message
            return None

        what = f"a bot message in chat {chat_id}" + (
            f" containing {contains!r}" if contains else ""
        )
        return await self.wait_for(find, timeout, what=what)

    async def wait_for_request(
        self,
        method: str,
        *,
        where: Callable[[RequestRecord], bool] | None = None,
        since: int = 0,
        ok: bool | None = True,
        timeout: float = 10.0,
    ) -> RequestRecord:
        """The first finished request of ``method`` at index ``since`` or later of
        :attr:`requests` (take ``since = len(fake.requests)`` before acting)."""
        wanted = method.lower()

        def find() -> RequestRecord | None:
            for record in self.requests[since:]:
                if record.method.lower() != wanted or record.status is None:
                    continue
                if ok is not None and record.ok != ok:
                    continue
                if where is None or where(record):
                    return record
            return None

        return await self.wait_for(find, timeout, what=f"a {method} request")


def _brief(params: dict[str, Any]) -> str:
    text = json.dumps(params, ensure_ascii=False, default=str)
    return text if len(text) <= 120 else text[:117] + "..."
