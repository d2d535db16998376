"""Hard computer players in the service (issue 15): they search off the event loop, in a
process pool (or a thread: tests), with a budget; the hint of a practice game is theirs."""

from __future__ import annotations

import asyncio
import random
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import pytest

import bot.service
from bot.clock import ManualClock
from bot.room import Room
from bot.service import HINTS_PER_MINUTE, GameService, Refused
from bot.thinking import HINT, MAX_WAITING, MOVE, Busy, Idea, Thinker, think_in_worker, trail_from_log
from bot.timers import idea
from engine.codec import unpack_action
from engine.players.search import think
from tests.pieces import pieces

from .conftest import DELAY, PEOPLE, TURN, make_settings

ANNA = PEOPLE[0]


async def hard_room(svc: GameService, chat: str, preset: str = "kozel", size: int = 4, seed: int = 3) -> str:
    out = await svc.create("tg", chat, None, ANNA, preset, size=size)
    assert out.ok and out.room is not None
    rid = out.room.id
    for _ in range(size - 1):
        assert (await svc.add_bot(rid, ANNA, "hard")).ok
    assert (await svc.start(rid, ANNA, seed=seed)).ok
    return rid


async def play_on(svc: GameService, clock: ManualClock, rid: str, moves: int) -> Room:
    """Let the timers move (the person's time runs out too: a computer moves for her)."""
    for _ in range(moves):
        clock.advance(max(DELAY, TURN))
        await pieces(svc).timers.run_timers()
    room = await svc.room(rid)
    assert room is not None
    return room


@pytest.mark.parametrize(("preset", "size"), [("kozel", 4), ("kozel-nn", 4), ("petukh", 3)])
async def test_hard_players_move_through_the_timers(
    svc: GameService, clock: ManualClock, preset: str, size: int
) -> None:
    rid = await hard_room(svc, "-31", preset, size)
    room = await play_on(svc, clock, rid, 12)
    moved = [unpack_action(p)[0] for d in room.log for p in d.split(",") if p]
    assert len(moved) >= 12 and any(s != 0 for s in moved)


async def test_a_hard_move_is_a_function_of_the_moment(svc: GameService, clock: ManualClock) -> None:
    """With an iteration budget (SEARCH_ITERATIONS) the seed is the room's moment: any
    worker that thinks the move again thinks the same."""
    rid = await hard_room(svc, "-41", seed=5)
    room = await play_on(svc, clock, rid, 3)
    seat = room.load_match().to_act()[0]
    first = await idea(svc.thinker, room, seat)
    again = await idea(svc.thinker, room, seat)
    assert first == again and first.playouts <= 12


async def test_the_hint_is_the_hard_players_move_with_a_reason(svc: GameService, clock: ManualClock) -> None:
    """A practice game (every opponent a computer player): the hint names a legal choice
    of the hand and a reason the adapters have words for."""
    from adapters.common.render import HINTS

    rid = await hard_room(svc, "-51")
    for _ in range(20):
        room = await svc.room(rid)
        assert room is not None
        hand = svc.hand_of(room, ANNA.id)
        if hand is not None and hand.on_move:
            break
        clock.advance(DELAY)
        await pieces(svc).timers.run_timers()
    hint = await svc.hint(rid, ANNA.id)
    assert hint is not None and hint.choice in hand.choices  # type: ignore[union-attr]
    assert hint.reason in HINTS and 0 <= hint.params["share"] <= 100


async def test_the_process_pool_thinks_as_the_engine_does(svc: GameService) -> None:
    """SEARCH_WORKERS=1: the search runs in another process, and with a playout budget it
    chooses what the engine's own search chooses for the same seed."""
    rid = await hard_room(svc, "-61")
    room = await svc.room(rid)
    assert room is not None and room.match is not None
    match = room.load_match()
    seat = match.to_act()[0]
    thinker = Thinker(1, 300.0, 16)
    try:
        idea = await thinker.think(room.rules, room.match, room.log[-1], seat, "seed")
    finally:
        thinker.close()
    here = think(
        match, seat, random.Random("seed"), iterations=16, trail=trail_from_log(room.log[-1]) or None
    )
    assert idea.action == str(here.action) and idea.playouts == here.playouts
    same = think_in_worker(room.rules.preset, 4, "{}", room.match, room.log[-1], seat, "seed", None, 16)
    assert same == idea


def test_search_settings() -> None:
    """SEARCH_MS (300 by default), SEARCH_WORKERS, SEARCH_ITERATIONS: bad values refused."""
    from pydantic import ValidationError

    assert make_settings(search_iterations=None).search_ms == 300.0
    for bad in ({"search_ms": 0}, {"search_workers": -1}, {"search_iterations": 0}):
        with pytest.raises(ValidationError):
            make_settings(**bad)


async def test_a_dead_worker_is_replaced(svc: GameService) -> None:
    """A worker process that dies (killed, out of memory) breaks the pool: the next search
    starts a new one instead of failing every hard move from then on."""
    import os
    import signal

    rid = await hard_room(svc, "-71")
    room = await svc.room(rid)
    assert room is not None and room.match is not None
    seat = room.load_match().to_act()[0]
    thinker = Thinker(1, 300.0, 4)
    try:
        first = await thinker.think(room.rules, room.match, room.log[-1], seat, "s")
        pool = thinker._pool
        assert isinstance(pool, ProcessPoolExecutor)
        for pid in list(pool._processes):  # the pool's own worker, started by this test
            os.kill(pid, signal.SIGKILL)
        again = await thinker.think(room.rules, room.match, room.log[-1], seat, "s")
    finally:
        thinker.close()
    assert again == first


# --- issue 33.5: hints never starve the table ---------------------------------------------


class Held(Thinker):
    """A pool whose searches wait for the test to let each one finish: the order in which
    they got the pool is what is checked, never the time."""

    def __init__(self, workers: int = 1) -> None:
        super().__init__(workers, 300.0, 12)
        self.gates: list[asyncio.Event] = []
        self.calls = 0

    async def _search(self, *args: Any) -> Idea:
        self.calls += 1
        gate = asyncio.Event()
        self.gates.append(gate)
        await gate.wait()
        return Idea("pass", 0.5, 0.4, 12, "hint_plain")


async def started(thinker: Held, n: int) -> None:
    """Until ``n`` searches have the pool (each step waits for the event loop to run the
    tasks it woke: an explicit count, not a sleep)."""
    while len(thinker.gates) < n:
        await asyncio.sleep(0)


async def test_r33_a_due_move_goes_before_waiting_hints_and_the_line_is_bounded() -> None:
    thinker = Held(workers=1)
    args = (None, {}, "", 0, "s")
    first = asyncio.create_task(thinker.think(*args, kind=HINT))  # type: ignore[arg-type]
    await started(thinker, 1)
    hints = [asyncio.create_task(thinker.think(*args, kind=HINT)) for _ in range(MAX_WAITING[HINT])]  # type: ignore[arg-type]
    while thinker.waiting(HINT) < MAX_WAITING[HINT]:
        await asyncio.sleep(0)
    with pytest.raises(Busy):  # a fifth hint in line: refused at once
        await thinker.think(*args, kind=HINT)  # type: ignore[arg-type]
    move = asyncio.create_task(thinker.think(*args, kind=MOVE))  # type: ignore[arg-type]
    while thinker.waiting(MOVE) < 1:
        await asyncio.sleep(0)
    for n in range(2, 2 + len(hints) + 1):  # let each search end in turn
        thinker.gates[n - 2].set()
        await started(thinker, n)
    thinker.gates[-1].set()
    await asyncio.gather(first, move, *hints)
    assert list(thinker.started) == [HINT, MOVE, HINT, HINT, HINT, HINT]


async def test_r33_hints_never_hold_every_worker_a_move_starts_at_once() -> None:
    """With two workers, hints think in one at most: a due move finds the other free even
    while hints wait (bench/hints.py: the hard move 0.3 s, not behind a running hint)."""
    thinker = Held(workers=2)
    args = (None, {}, "", 0, "s")
    hints = [asyncio.create_task(thinker.think(*args, kind=HINT)) for _ in range(3)]  # type: ignore[arg-type]
    await started(thinker, 1)
    while thinker.waiting(HINT) < 2:
        await asyncio.sleep(0)
    move = asyncio.create_task(thinker.think(*args, kind=MOVE))  # type: ignore[arg-type]
    await started(thinker, 2)  # the move has the second worker, the hints still wait
    assert list(thinker.started) == [HINT, MOVE] and thinker.waiting(HINT) == 2
    thinker.gates[1].set()
    await move
    assert thinker.waiting(HINT) == 2  # the move's worker is not the hints'
    thinker.gates[0].set()  # the first hint ends: the second gets its worker
    await started(thinker, 3)
    thinker.gates[2].set()
    await started(thinker, 4)
    thinker.gates[3].set()
    await asyncio.gather(*hints)
    assert list(thinker.started) == [HINT, MOVE, HINT, HINT]


async def test_r33_forty_hint_presses_make_one_search_and_a_person_is_limited(
    svc: GameService, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One hint in flight a moment of a seat: forty presses share its answer; new searches
    are limited per person; a full line of hints is refused, not queued."""
    held = Held()
    svc.thinker = held
    rid = await practice_on_move(svc, clock, "-61")
    # the forty presses load the room together and go on together (the last to arrive
    # opens the gate): none may see the moment without its search
    load, arrived, gate = svc.store.room, [0], asyncio.Event()

    async def together(room_id: str) -> Room | None:
        room = await load(room_id)
        arrived[0] += 1
        if arrived[0] == 40:
            gate.set()
        await gate.wait()
        return room

    monkeypatch.setattr(svc.store, "room", together)
    presses = [asyncio.create_task(svc.hint(rid, ANNA.id)) for _ in range(40)]
    await started(held, 1)
    monkeypatch.setattr(svc.store, "room", load)
    held.gates[0].set()
    answers = await asyncio.gather(*presses)
    assert held.calls == 1 and len({id(a) for a in answers}) == 1
    again = await svc.hint(rid, ANNA.id)  # the same moment later: the answer kept
    assert again is answers[0] and held.calls == 1
    # new moments (other tables of hers): a few new searches a minute (the limit made
    # small here, so that the tables are dealt well within the minute)
    monkeypatch.setattr(bot.service, "HINTS_PER_MINUTE", 3)
    assert HINTS_PER_MINUTE >= 10  # as it ships: a hint every few seconds of a minute
    svc.thinker = Thinker(0, 300.0, 4)
    start = clock.now()
    try:
        made = 1
        with pytest.raises(Refused) as refused:
            for i in range(4):
                other = await practice_on_move(svc, clock, f"-7{i}")
                await svc.hint(other, ANNA.id)
                made += 1
        assert refused.value.reason == "too_many_hints" and made == 3
        assert clock.now() - start < 60
    finally:
        svc.thinker.close()


async def practice_on_move(svc: GameService, clock: ManualClock, chat: str) -> str:
    rid = await hard_room(svc, chat)
    for _ in range(20):
        room = await svc.room(rid)
        assert room is not None
        hand = svc.hand_of(room, ANNA.id)
        if hand is not None and hand.on_move:
            return rid
        clock.advance(DELAY)
        await pieces(svc).timers.run_timers()
    raise AssertionError("never her move")
