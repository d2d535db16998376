"""The ``hard`` computer players' thinking, off the event loop (issue 15).

A search takes ``SEARCH_MS`` of CPU a move (300 ms by default): run on the event loop it
would stall every table of the worker. ``Thinker`` hands each search to a process pool
(``SEARCH_WORKERS`` processes, started at the first search) with what the seat may know:
the match's state (``engine.players.sampler`` reads no hidden card of it), the dealing's log,
the seat and a seed that is a function of the moment (any worker thinks the same moves
with an iteration budget). ``SEARCH_WORKERS=0`` thinks in a thread of this process instead
(tests: no processes to start, still off the loop).
``SEARCH_ITERATIONS`` (unset: time only) makes a move exact for its seed (tests, benches).
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import multiprocessing
import random
from collections import deque
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from engine.actions import Action, parse_action
from engine.codec import unpack_action
from engine.players.search import think
from engine.presets import Rules, make_rules
from engine.registry import match_from_state


@dataclass(frozen=True, slots=True)
class Idea:
    """A search's answer as it crosses the process boundary (plain values)."""

    action: str
    value: float
    runner_up: float
    playouts: int
    reason: str

    @property
    def move(self) -> Action:
        return parse_action(self.action)


@lru_cache(maxsize=64)
def _rules(preset: str, players: int, options_json: str) -> Rules:
    import json

    return make_rules(preset, players, json.loads(options_json))


def trail_from_log(entry: str) -> list[tuple[int, Action]]:
    """The dealing's actions from the room's deal log (``bot/play.py`` ``log_action``)."""
    return [unpack_action(p) for p in entry.split(",") if p]


def think_in_worker(
    preset: str,
    players: int,
    options_json: str,
    state: dict[str, Any],
    log_entry: str,
    seat: int,
    seed: str,
    ms: float | None,
    iterations: int | None,
) -> Idea:
    """One search, in a worker process: plain values in, plain values out."""
    rules = _rules(preset, players, options_json)
    match = match_from_state(rules, state)
    trail = trail_from_log(log_entry) or None
    thought = think(match, seat, random.Random(seed), iterations=iterations, ms=ms, trail=trail)
    return Idea(str(thought.action), thought.value, thought.runner_up, thought.playouts, thought.reason)


# who waits for the pool: a computer player's due move before anyone's hint
MOVE, HINT = 0, 1
MAX_WAITING = {MOVE: 64, HINT: 4}  # searches waiting for the pool at most, per kind


class Busy(Exception):
    """Too many searches wait already: a hint is refused, a move is made without search."""


class Thinker:
    """The pool the searches of one service run in.

    The pool thinks ``workers`` searches at once (one in a thread); the rest wait in line,
    a computer player's due move always before a hint, and hints never hold every slot: with
    two workers or more, one is kept for moves (40 hint presses once made a `hard` player at
    another table wait 5.9 s instead of 0.3 s). Only so many may wait: past ``MAX_WAITING``
    a hint is refused and a move falls back to the rules player."""

    def __init__(self, workers: int, ms: float, iterations: int | None) -> None:
        self.workers = workers
        self.ms = ms
        self.iterations = iterations
        self._pool: Executor | None = None
        self._running = {MOVE: 0, HINT: 0}
        self._line: list[tuple[int, int, asyncio.Future[None]]] = []  # (kind, order, turn)
        self._order = itertools.count()
        self.started: deque[int] = deque(maxlen=256)  # the kinds, as they got the pool

    @property
    def slots(self) -> int:
        return max(1, self.workers)

    def waiting(self, kind: int) -> int:
        return sum(1 for k, _, _ in self._line if k == kind)

    def _free(self, kind: int) -> bool:
        """May a search of ``kind`` take a slot now (hints: all but one of two or more)."""
        if sum(self._running.values()) >= self.slots:
            return False
        return kind == MOVE or self._running[HINT] < max(1, self.slots - 1)

    async def _turn(self, kind: int) -> None:
        """Wait for a free slot of the pool, in line by kind, then by arrival."""
        if self._free(kind) and all(k > kind for k, _, _ in self._line):
            self._running[kind] += 1
            return
        if self.waiting(kind) >= MAX_WAITING[kind]:
            raise Busy()
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._line, (kind, next(self._order), turn))
        try:
            await turn  # the slot is handed over by _done
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self._done(kind)  # handed a slot it will not use: pass it on
            else:
                self._line = [w for w in self._line if w[2] is not turn]
                heapq.heapify(self._line)
            raise

    def _done(self, kind: int) -> None:
        """A search ended: its slot goes to the first in line that may take it."""
        self._running[kind] -= 1
        for entry in sorted(self._line):
            waiter, _order, turn = entry
            if turn.done():
                self._line.remove(entry)
            elif self._free(waiter):
                self._line.remove(entry)
                heapq.heapify(self._line)
                self._running[waiter] += 1
                turn.set_result(None)
                return
        heapq.heapify(self._line)

    def _executor(self) -> Executor:
        if self._pool is None:
            if self.workers > 0:
                # spawn: a clean interpreter, never a fork of a process holding an event
                # loop and Redis connections
                ctx = multiprocessing.get_context("spawn")
                self._pool = ProcessPoolExecutor(self.workers, mp_context=ctx)
            else:
                self._pool = ThreadPoolExecutor(1, thread_name_prefix="search")
        return self._pool

    async def think(
        self, rules: Rules, state: dict[str, Any], log_entry: str, seat: int, seed: str, kind: int = MOVE
    ) -> Idea:
        """One search, off the event loop, when the pool's turn comes (``Busy``: too many
        wait already)."""
        await self._turn(kind)
        self.started.append(kind)
        try:
            return await self._search(rules, state, log_entry, seat, seed)
        finally:
            self._done(kind)

    async def _search(
        self, rules: Rules, state: dict[str, Any], log_entry: str, seat: int, seed: str
    ) -> Idea:
        import json

        loop = asyncio.get_running_loop()
        args = (
            rules.preset,
            rules.players,
            json.dumps(dict(rules.options), sort_keys=True),
            state,
            log_entry,
            seat,
            seed,
            None if self.iterations else self.ms,
            self.iterations,
        )
        try:
            return await loop.run_in_executor(self._executor(), think_in_worker, *args)
        except BrokenProcessPool:
            # a worker died (killed, out of memory): a new pool for this move and the next
            self.close()
            return await loop.run_in_executor(self._executor(), think_in_worker, *args)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
