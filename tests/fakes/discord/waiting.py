"""Waiting without sleeping: the REST calls the fake received, whether one is still being
served, and ``wait_for`` woken by every change (a call, a gateway frame, an edit ...)."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Callable
from typing import TypeVar

from tests.fakes.discord.model import FakeChannel, FakeInteraction, FakeMessage, RecordedCall, route_regex
from tests.fakes.discord.protocol import HANG
from tests.fakes.discord.world import World

T = TypeVar("T")


class CallLog:
    """The calls made (``calls``), the requests in flight, and waiting over ``world``."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.calls: list[RecordedCall] = []
        self.inflight = 0  # REST requests being served
        self._waiters: list[asyncio.Future[None]] = []

    def calls_to(self, method: str = "*", route: str | re.Pattern[str] = ".*") -> list[RecordedCall]:
        """Recorded calls matching ``method`` ("*" = any) and ``route`` (template or regex)."""
        pattern = route_regex(route)
        return [
            c
            for c in self.calls
            if (method == "*" or c.method == method.upper()) and pattern.fullmatch(c.path)
        ]

    def changed(self) -> None:
        """Wake the waiters so they re-check (called on every change)."""
        waiters, self._waiters = self._waiters, []
        for fut in waiters:
            if not fut.done():
                fut.set_result(None)

    async def wait_for(
        self,
        predicate: Callable[[], T | None],
        timeout: float = HANG,
        what: str | None = None,
        *,
        poll: float = 0.005,
    ) -> T:
        """Return ``predicate()`` once it is truthy; TimeoutError after ``timeout`` seconds.

        Re-evaluated immediately on every fake-side change (REST call, gateway frame, message
        edit ...) and otherwise every ``poll`` seconds, so predicates over discord.py's client
        state (cache, on_message lists) work too.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            result = predicate() if self.inflight == 0 else None
            if result:
                return result
            remaining = deadline - loop.time()
            if remaining <= 0:
                recent = "\n  ".join(repr(c) for c in self.calls[-10:])
                raise TimeoutError(
                    f"FakeDiscord: timed out after {timeout}s waiting for "
                    f"{what or getattr(predicate, '__name__', 'condition')};"
                    f" last calls:\n  {recent}"
                )
            fut: asyncio.Future[None] = loop.create_future()
            self._waiters.append(fut)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(fut, min(remaining, poll))
            if fut in self._waiters:
                self._waiters.remove(fut)

    @property
    def is_idle(self) -> bool:
        """No REST request is being served (every response is on its socket)."""
        return self.inflight == 0

    async def idle(self) -> None:
        """Until no REST request is in flight (woken by the requests' own ends)."""
        while self.inflight:
            fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiters.append(fut)
            await fut

    async def wait_for_call(
        self,
        method: str = "*",
        route: str | re.Pattern[str] = ".*",
        *,
        predicate: Callable[[RecordedCall], bool] | None = None,
        since: int = 0,
        timeout: float = HANG,
    ) -> RecordedCall:
        """First recorded call with index >= ``since`` matching method/route/predicate."""

        def find() -> RecordedCall | None:
            for c in self.calls_to(method, route):
                if c.index >= since and c.status and (predicate is None or predicate(c)):
                    return c
            return None

        return await self.wait_for(find, timeout, f"call {method} {route}")

    async def wait_for_message(
        self,
        predicate: Callable[[FakeMessage], bool] | None = None,
        *,
        channel: FakeChannel | int | None = None,
        after: int = 0,
        timeout: float = HANG,
    ) -> FakeMessage:
        """First live message (id > ``after``) matching ``predicate`` (re-checked after edits)."""

        def find() -> FakeMessage | None:
            pool = self.world.messages_in(channel) if channel is not None else self.world.messages.values()
            for m in pool:
                if m.id > after and not m.deleted and (predicate is None or predicate(m)):
                    return m
            return None

        return await self.wait_for(find, timeout, "message")

    async def wait_for_response(self, interaction: FakeInteraction, timeout: float = HANG) -> FakeInteraction:
        """Wait until the bot sent the initial interaction callback."""
        return await self.wait_for(
            lambda: interaction if interaction.responded else None,
            timeout,
            f"response to interaction {interaction.id}",
        )

    async def wait_for_original(
        self,
        interaction: FakeInteraction,
        predicate: Callable[[FakeMessage], bool] | None = None,
        timeout: float = HANG,
    ) -> FakeMessage:
        """The interaction's original response message once it is not "thinking" any more
        (and satisfies ``predicate``).  For type 6/7 responses this is the component's message."""

        def find() -> FakeMessage | None:
            msg = self.world.original_message(interaction)
            if msg is None or msg.loading:
                return None
            return msg if predicate is None or predicate(msg) else None

        return await self.wait_for(find, timeout, f"original response of {interaction.id}")

    async def wait_for_followup(
        self, interaction: FakeInteraction, index: int = 0, timeout: float = HANG
    ) -> FakeMessage:
        def find() -> FakeMessage | None:
            if len(interaction.followup_ids) > index:
                return self.world.messages[interaction.followup_ids[index]]
            return None

        return await self.wait_for(find, timeout, f"follow-up #{index} of {interaction.id}")
