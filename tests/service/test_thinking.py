"""Hard computer players in the service (issue 15): they search off the event loop, in a
process pool (or a thread: tests), with a budget; the hint of a practice game is theirs."""

from __future__ import annotations

import random
from concurrent.futures import ProcessPoolExecutor

import pytest

from bot.clock import ManualClock
from bot.room import Room
from bot.service import GameService
from bot.thinking import Thinker, think_in_worker, trail_from_log
from engine.codec import unpack_action
from engine.search import think

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
        await svc.run_timers()
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
    first = await svc.idea(room, seat)
    again = await svc.idea(room, seat)
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
        await svc.run_timers()
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
