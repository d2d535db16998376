"""What this process is doing for Discord right now, as explicit signals.

Two kinds of work run here: answering an interaction (from the moment our handler starts
until it returns) and drawing (the painter's jobs). Shutdown waits for both to end; tests
wait until the process is *quiet*: nothing runs, though a drawing may sleep until a later
time on the clock (a paced table edit). Counting work, not event-loop turns, is what makes
"the bot is done with that press" a fact rather than a guess.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")
Sleep = Callable[[float], Awaitable[None]]


class Activity:
    def __init__(self, sleep: Sleep = asyncio.sleep) -> None:
        self._sleep = sleep
        self.running = 0  # handlers and drawings that are not asleep
        self.sleeping = 0  # drawings waiting for a later time
        self.stopping = False  # shutting down: no new interaction is served
        self._quiet = asyncio.Event()
        self._quiet.set()
        self._idle = asyncio.Event()
        self._idle.set()
        self._tasks: set[asyncio.Task[Any]] = set()

    # --- counting ------------------------------------------------------------------------

    def _update(self) -> None:
        quiet = self.running == 0
        idle = quiet and self.sleeping == 0
        (self._quiet.set if quiet else self._quiet.clear)()
        (self._idle.set if idle else self._idle.clear)()

    def _enter(self) -> None:
        self.running += 1
        self._update()

    def _leave(self) -> None:
        self.running -= 1
        self._update()

    @contextlib.asynccontextmanager
    async def work(self) -> AsyncIterator[None]:
        """A piece of work (an interaction being answered)."""
        self._enter()
        try:
            yield
        finally:
            self._leave()

    def spawn(self, coro: Coroutine[Any, Any, T], name: str) -> asyncio.Task[T]:
        """A task counted as work from its creation (so nobody sees the process quiet in
        the moment between scheduling a drawing and its first step)."""
        self._enter()
        task = asyncio.create_task(coro, name=name)
        self._tasks.add(task)

        def done(t: asyncio.Task[T]) -> None:
            self._tasks.discard(t)
            self._leave()

        task.add_done_callback(done)
        return task

    async def sleep(self, seconds: float) -> None:
        """Wait for a later time as work that is not running (paced drawing)."""
        self.running -= 1
        self.sleeping += 1
        self._update()
        try:
            await self._sleep(seconds)
        finally:
            self.sleeping -= 1
            self.running += 1
            self._update()

    # --- waiting -------------------------------------------------------------------------

    @property
    def is_quiet(self) -> bool:
        return self.running == 0

    @property
    def is_idle(self) -> bool:
        return self.running == 0 and self.sleeping == 0

    async def quiet(self) -> None:
        """Until nothing runs (sleepers may wait for a later time)."""
        await self._quiet.wait()

    async def idle(self) -> None:
        """Until nothing runs and nothing sleeps."""
        await self._idle.wait()

    def cancel_sleepers(self) -> None:
        """Shutdown after its grace period: drawings still waiting are given up."""
        for task in list(self._tasks):
            task.cancel()
