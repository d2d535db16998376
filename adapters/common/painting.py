"""Pacing and coalescing of redraws: what every chat platform's painter needs.

A platform lets a bot write to one chat only so often (Telegram: about 20 messages a minute
to a group, edits included). A painter that writes each change as it comes spends that in
a burst and then shows nothing for the rest of the minute. So:

- **coalesce**: a thing to redraw (a table, a hand) is marked dirty with the room version
  that changed it; the newest mark wins, and drawing it once settles every older one;
- **pace**: table edits are spread evenly over the window (one every ``Pace.gap``
  seconds), and they leave ``Pace.reserve`` writes of every window to results and replies,
  which pass at once.

The budget itself is counted by whoever shares it between workers (the service's
``flood_take``); this module decides only what to ask and when.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Hashable, Iterator
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

log = logging.getLogger(__name__)

K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True)
class Pace:
    """At most ``limit`` writes in any ``window`` seconds to one chat. Routine redraws never
    take the last ``reserve`` of them (a match's result, a reply always finds one), and are
    spread so that ``spare`` more are left on average for other writes: a burst of those
    (a lobby filling up, a few replies) then does not fill the window and stall the table."""

    limit: int
    window: float
    reserve: int = 0
    spare: int = 0

    @property
    def gap(self) -> float:
        """Seconds between two routine redraws, so that they never come in a burst."""
        return self.window / max(1, self.limit - self.reserve - self.spare)


class Budget(Protocol):
    """A flood budget shared by every worker (``bot.platform.FloodBudgets``)."""

    async def flood_take(
        self,
        key: str,
        *,
        limit: int,
        window: float,
        gap: float = 0.0,
        reserve: int = 0,
        once: str | None = None,
    ) -> float: ...

    async def flood_block(self, key: str, seconds: float) -> None: ...


async def take(budget: Budget, key: str, pace: Pace, routine: bool, once: str | None = None) -> float:
    """Ask the budget for one write: 0.0 = counted, go; else the seconds to wait.
    ``routine`` writes (table edits) are spread by the gap and leave the reserve alone.
    ``once``: the thing asked for (an update's id), counted once however often it comes."""
    if routine:
        return await budget.flood_take(
            key, limit=pace.limit, window=pace.window, gap=pace.gap, reserve=pace.reserve, once=once
        )
    return await budget.flood_take(key, limit=pace.limit, window=pace.window, once=once)


@dataclass
class Mark:
    """Why and when a thing must be drawn again."""

    version: int  # the newest room version known to change it
    urgent: bool = False  # a result (a match's end, a cancel): not a routine redraw
    not_before: float = 0.0  # the painter's clock: wait for a budget, a lease, a retry_after


@dataclass
class Dirty(Generic[K]):
    """Things to redraw, coalesced: marking an already dirty thing only raises its version.
    A thing drawn at a version at least as new as its mark is clean."""

    marks: dict[K, Mark] = field(default_factory=dict)

    def mark(self, key: K, version: int, urgent: bool = False) -> None:
        old = self.marks.get(key)
        if old is None:
            self.marks[key] = Mark(version, urgent)
            return
        old.version = max(old.version, version)
        if urgent and not old.urgent:
            # a result does not wait out a routine redraw's gap (a 429 or another worker's
            # lease will say so again when it is tried)
            old.not_before = 0.0
        old.urgent = old.urgent or urgent

    def due(self, now: float) -> Iterator[tuple[K, Mark]]:
        """The dirty things that may be tried now (a copy: drawing may change the set)."""
        return iter([(k, m) for k, m in self.marks.items() if m.not_before <= now])

    def drawn(self, key: K, version: int) -> None:
        mark = self.marks.get(key)
        if mark is not None and mark.version <= version:
            del self.marks[key]

    def drop(self, key: K) -> None:
        self.marks.pop(key, None)

    def later(self, key: K, until: float) -> None:
        mark = self.marks.get(key)
        if mark is not None:
            mark.not_before = max(mark.not_before, until)

    def next_due(self) -> float | None:
        """The painter's time when the earliest waiting thing may be tried (None: clean)."""
        return min((m.not_before for m in self.marks.values()), default=None)

    def __len__(self) -> int:
        return len(self.marks)

    def __contains__(self, key: object) -> bool:
        return key in self.marks


async def paint_loop(
    flush: Callable[[], Awaitable[float | None]], wake: asyncio.Event, stop: asyncio.Event, idle: float = 5.0
) -> None:
    """Flush, then sleep until the next thing is due (or something new is marked), until
    ``stop``. ``flush`` returns the seconds until its next due write (None: nothing held)."""
    while not stop.is_set():
        wake.clear()
        try:
            due = await flush()
        except Exception:  # one broken room must not stop every other chat's drawing
            log.exception("painter flush")
            due = 1.0
        timeout = idle if due is None else min(idle, max(0.05, due))
        waiters = [asyncio.ensure_future(wake.wait()), asyncio.ensure_future(stop.wait())]
        try:
            await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waiters:
                w.cancel()


async def drain(flush: Callable[[], Awaitable[float | None]], limit: float = 10.0) -> bool:
    """Flush until nothing is held or ``limit`` seconds (real time: a shutdown) have passed.
    Returns True when everything was written."""
    loop = asyncio.get_running_loop()
    end = loop.time() + limit
    while True:
        due = await flush()
        if due is None:
            return True
        left = end - loop.time()
        if left <= 0:
            return False
        await asyncio.sleep(min(max(0.05, due), left))
