"""Due moves: computer players, people whose time ran out, lobbies that close.

Any worker may make a due move: it claims the room's entry in the deadline index with a
short lease (renewed while it works: a killed worker holds a room for a second), decides
what is due on the room as it is, lets computer players choose outside
the compare-and-set (search may think for a while), and commits through the one write path,
which writes the room's next due time in the same step.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from typing import Protocol

from bot import deadlines, keys, lobby
from bot.changes import Now, Outcome, Reason, Refused, Transition
from bot.clock import Clock
from bot.config import Settings
from bot.metrics import Metrics
from bot.room import LOBBY, Room
from bot.store import Store, lease_until
from bot.thinking import MOVE, Busy, Idea, Thinker
from bot.tournaments import Tournaments
from engine.actions import Action
from engine.game import Game
from engine.observation import observe
from engine.players.levels import ALIASES, make_bot

log = logging.getLogger(__name__)

# Seconds a worker holds a claimed deadline, renewed every RENEW seconds while the move is
# made (a strong computer player may think longer): a dead worker delays a room this much.
LEASE = 1.0
RENEW = LEASE / 3
TIMER_CONCURRENCY = 16  # due rooms a worker moves at once


class Rooms(Protocol):
    """What the due moves need of the rooms service (``bot/service.py``)."""

    store: Store
    settings: Settings
    clock: Clock
    metrics: Metrics
    thinker: Thinker

    def now(self) -> Now: ...

    async def change(self, room_id: str, transition: Transition, update_id: str | None = None) -> Outcome: ...


class Timers:
    """The due moves of every room, and the worker's timer loop that makes them."""

    def __init__(self, games: Rooms, tournaments: Tournaments) -> None:
        self.games = games
        self.tournaments = tournaments
        self.store = games.store
        self.settings = games.settings
        self.clock = games.clock
        self.metrics = games.metrics

    async def run_timers(self, limit: int = 50) -> int:
        """Make every due move (computer players, timed-out people). Returns moves made.
        Rooms are independent: their due moves are made side by side (after a Redis
        restart a worker has many rooms to catch up on at once)."""
        due = await self.store.due(self.clock.now(), limit)
        if not due:
            return 0
        gate = asyncio.Semaphore(TIMER_CONCURRENCY)

        async def one(rid: str) -> int:
            async with gate:  # a lease from the time it is taken, not from the list's
                lease = await self.store.claim_deadline(rid, self.clock.now(), LEASE)
                if lease is None:
                    return 0
                try:
                    out = await self._on_deadline(rid, lease)
                except Exception:  # this room's move failed; its entry is due again already
                    log.exception("due move in room %s", rid)
                    return 0
                return int(out.ok and out.room is not None)

        return sum(await asyncio.gather(*(one(rid) for rid in due)))

    async def serve_timers(self, stop: asyncio.Event, interval: float = 0.25) -> None:
        """The worker's timer loop: make due moves until ``stop`` is set. Also finishes the
        person statistics a dead worker left."""
        ticks = 0
        while not stop.is_set():
            try:
                while not stop.is_set() and await self.run_timers():
                    pass
                if ticks % 120 == 0:
                    await self.finish_pending_stats()
                if ticks % 8 == 0:  # tournaments a dead worker left half way (issue 36.3)
                    await self.tournaments.advance_tournaments()
            except Exception:  # a broken room or a Redis restart must not stop the clock
                log.exception("timer loop")
            ticks += 1
            try:
                await asyncio.wait_for(stop.wait(), interval)
            except TimeoutError:
                pass

    async def finish_pending_stats(self) -> int:
        done = 0
        for shard in range(keys.SHARDS):
            for item in await self.store.user_stats_todo(shard):
                await self.store.finish_user_stats(shard, item)
                done += 1
        return done

    async def _on_deadline(self, room_id: str, lease: float) -> Outcome:
        """Make what is due in the room, holding (and renewing) the claimed entry's lease;
        give the entry back from the lease unless a commit wrote the room's own."""
        held = [lease]
        done = asyncio.Event()
        keeper = asyncio.create_task(self._keep_lease(room_id, held, done))
        try:
            out = await self._make_due(room_id)
        except BaseException:
            # give the entry back at once (a failure, or a stopping process that ran out of
            # time to finish the move): another worker, or this one, tries again
            await _stop_keeper(done, keeper)
            await self.store.settle_deadline(room_id, held[0], self.clock.now())
            raise
        await _stop_keeper(done, keeper)
        if out.reason in (Reason.NOTHING_DUE, Reason.NOT_DUE):
            await self.store.settle_deadline(room_id, held[0], out.data.get("deadline"))
        elif not out.ok:
            await self.store.settle_deadline(room_id, held[0], self.clock.now() + 1.0)
        return out

    async def _keep_lease(self, room_id: str, held: list[float], done: asyncio.Event) -> None:
        """Push the lease on while the move is made; stop once a commit replaced it."""
        while not done.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(done.wait(), RENEW)
            if done.is_set():
                return
            until = lease_until(self.clock.now(), LEASE)
            if not await self.store.settle_deadline(room_id, held[0], until):
                return
            held[0] = until

    async def _make_due(self, room_id: str) -> Outcome:
        """Computer players' choices are made first, outside the compare-and-set; the change
        then checks the room is still where they were made."""
        out = Outcome(False, Reason.NOTHING_DUE)
        for _attempt in range(5):
            room = await self.store.room(room_id)
            now = self.games.now()
            if room is not None and room.state == LOBBY:
                return await self.games.change(room_id, _expiry(now))
            try:
                plan = deadlines.due(room, now)
            except Refused as r:
                return Outcome(False, r.reason, room, data=r.data)
            assert room is not None
            choices = await self._choices(room, plan)
            out = await self.games.change(room_id, _due_transition(now, plan, choices))
            if out.ok and out.lines and room.deadline is not None:
                self.metrics.timer_lag(self.clock.now() - room.deadline)
            if out.reason != Reason.MOVED:
                break
        return out

    async def _choices(self, room: Room, plan: deadlines.Due) -> dict[int, Action | None]:
        match = room.load_match()
        choices: dict[int, Action | None] = {}
        for seat in plan.ask:
            choices[seat] = self._bot_choice(room, match, seat, on_move=False)
            if choices[seat] is not None:
                return choices
        if plan.seat is not None:
            st = room.seats[plan.seat]
            if st is not None and engine_level(st.level) == "search":
                choices[plan.seat] = await self._hard_choice(room, match, plan.seat, st.level)
            else:
                choices[plan.seat] = self._bot_choice(room, match, plan.seat, on_move=True)
        return choices

    async def _hard_choice(self, room: Room, match: Game, seat: int, level: str) -> Action:
        started = time.perf_counter()
        legal = match.legal_actions(seat)
        if len(legal) == 1:
            return legal[0]
        try:
            act = (await idea(self.games.thinker, room, seat)).move
        except Busy:
            # the worker thinks as much as it can: this move is the rules player's
            log.warning("search pool full: room %s seat %s moves as normal", room.id, seat)
            fallback = self._bot_choice(room, match, seat, on_move=True, level="normal")
            return fallback if fallback is not None else legal[0]
        self.metrics.think_time(level, time.perf_counter() - started)
        return act if act in legal else legal[0]

    def _bot_choice(
        self, room: Room, match: Game, seat: int, on_move: bool, level: str | None = None
    ) -> Action | None:
        st = room.seats[seat]
        assert st is not None
        started = time.perf_counter()
        bot = make_bot(engine_level(level or st.level))
        legal = match.legal_actions(seat)
        rng = random.Random(deadlines.bot_seed(room, seat))
        obs = observe(match, seat) if bot.needs_observation else None
        act = bot.choose(obs, legal, rng, on_move)
        if act is None and on_move:
            act = legal[0]
        self.metrics.think_time(st.level, time.perf_counter() - started)
        return act


async def idea(thinker: Thinker, room: Room, seat: int, kind: int = MOVE) -> Idea:
    """What the search plays for ``seat`` on its move, thought off the event loop
    (``kind``: a due move or a hint, which waits behind moves; ``Busy`` when too many
    of its kind wait already)."""
    assert room.match is not None
    return await thinker.think(
        room.rules,
        room.match,
        room.log[-1] if room.log else "",
        seat,
        deadlines.bot_seed(room, seat),
        kind,
    )


async def _stop_keeper(done: asyncio.Event, keeper: asyncio.Task[None]) -> None:
    """Let a renewal in flight land (so the lease held is known), then end the keeper."""
    done.set()
    with contextlib.suppress(Exception):
        await keeper


def _expiry(now: Now) -> Transition:
    return lambda room: lobby.expire(room, now)


def _due_transition(now: Now, plan: deadlines.Due, choices: dict[int, Action | None]) -> Transition:
    return lambda room: deadlines.make_due(room, now, plan, choices)


def engine_level(level: str) -> str:
    """The engine's computer player for a seat's level (a level the engine does not know
    yet plays as ``rules``)."""
    name = ALIASES.get(level, level)
    try:
        make_bot(name)
    except (KeyError, ValueError):
        return "rules"
    return name
