"""Waiting without sleeping: the calls the bot made, and ``wait_for`` woken by every change
(a request, an update, a state change) to re-check its condition."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import TypeVar

from tests.fakes.telegram.model import Call, Params

_T = TypeVar("_T")


class CallLog:
    """Every request the bot made (``calls``), and waiting for a condition over the fake."""

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.unknown_methods: list[str] = []  # methods the fake doesn't implement (404)
        self._changed = asyncio.Event()

    def notify(self) -> None:
        """Wake ``wait_for`` waiters so they re-check (done automatically on every change)."""
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    async def wait_for(
        self,
        predicate: Callable[[], _T],
        timeout: float = 2.0,
        *,
        what: str = "condition",
    ) -> _T:
        """Return ``predicate()`` once truthy, re-checking after every request / state change."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            changed = self._changed
            value = predicate()
            if value:
                return value
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise AssertionError(
                    f"timed out after {timeout}s waiting for {what}; recent calls:\n"
                    + "\n".join(repr(call) for call in self.api_calls()[-15:])
                )
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), remaining)

    def mark(self) -> int:
        """Position in ``calls``; pass as ``after=`` to only look at later calls."""
        return len(self.calls)

    def find_calls(
        self,
        method: str,
        where: Callable[[Params], bool] | None = None,
        *,
        after: int = 0,
        ok: bool | None = None,
    ) -> list[Call]:
        name = method.lower()
        found = []
        for call in self.calls[after:]:
            if call.method.lower() != name or not call.done:
                continue
            if ok is not None and call.ok != ok:
                continue
            if where is not None and not where(call.params):
                continue
            found.append(call)
        return found

    async def wait_for_call(
        self,
        method: str,
        where: Callable[[Params], bool] | None = None,
        *,
        after: int = 0,
        ok: bool | None = None,
        timeout: float = 2.0,
    ) -> Call:
        """First finished call of ``method`` (after index ``after``) matching ``where``."""

        def first() -> Call | None:
            found = self.find_calls(method, where, after=after, ok=ok)
            return found[0] if found else None

        result = await self.wait_for(first, timeout, what=f"call {method}")
        assert result is not None
        return result

    def api_calls(self, *, include_polling: bool = False) -> list[Call]:
        if include_polling:
            return list(self.calls)
        return [call for call in self.calls if call.method != "getUpdates"]

    def method_names(self, *, include_polling: bool = False) -> list[str]:
        return [call.method for call in self.api_calls(include_polling=include_polling)]
