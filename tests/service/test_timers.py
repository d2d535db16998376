"""Deadlines with a manual clock: computer moves, timed-out people, seats handed to the
computer and back, several workers sharing the deadline set, expiry of idle rooms."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from redis.asyncio import Redis

from bot import keys
from bot.clock import ManualClock
from bot.room import Room
from bot.service import EXPIRY_SLACK, GameService
from bot.store import claim_of
from bot.timers import LEASE
from bot.views import HandView, Line
from tests.pieces import pieces

from .conftest import DELAY, IDLE, PEOPLE, TURN, actor, people_room, pick

ANNA, BORIS, VERA, GLEB, _ = PEOPLE


def actions(room: Room) -> int:
    return sum(len(list(filter(None, d.split(",")))) for d in room.log)


async def zscore(redis: Redis, rid: str) -> float | None:
    return await redis.zscore(keys.deadlines_of(rid), rid)


async def with_bots(svc: GameService, chat: str, seed: int = 1, bots: int = 3) -> str:
    """Anna and computer players; played on until a computer player is on move."""
    out = await svc.create("tg", chat, None, ANNA, "kozel", size=bots + 1)
    assert out.ok and out.room is not None
    rid = out.room.id
    for _ in range(bots):
        assert (await svc.add_bot(rid, ANNA)).ok
    assert (await svc.start(rid, ANNA, seed=seed)).ok
    room = await svc.room(rid)
    assert room is not None and room.match is not None
    if room.load_match().to_act()[0] == 0:
        hv = svc.hand_of(room, ANNA.id)
        assert hv is not None and hv.on_move
        assert (await svc.act(pick(hv).token, ANNA)).ok
    return rid


async def test_a_computer_move_is_a_deadline_made_by_run_timers(
    svc: GameService, clock: ManualClock, redis: Redis
) -> None:
    heard: list[list[Line]] = []

    async def listener(room: Room, lines: list[Line]) -> None:
        heard.append(lines)

    rid = await with_bots(svc, "-1")
    svc.on_change(listener)
    room = await svc.room(rid)
    assert room is not None and room.deadline == clock.now() + DELAY
    assert await zscore(redis, rid) == room.deadline
    n = actions(room)
    assert await pieces(svc).timers.run_timers() == 0  # not yet due
    clock.advance(DELAY - 0.01)
    assert await pieces(svc).timers.run_timers() == 0
    clock.advance(0.01)
    assert await pieces(svc).timers.run_timers() == 1
    after = await svc.room(rid)
    assert after is not None and actions(after) == n + 1
    last = after.log[-1].rstrip(",").split(",")[-1] or after.log[-2].rstrip(",").split(",")[-1]
    assert last[0] != "0"  # a computer player's seat moved
    assert len(heard) == 1 and heard[0]
    # the whole match plays out on timers alone when the person's time runs out too
    for _ in range(5000):
        room = await svc.room(rid)
        assert room is not None
        if room.state != "playing":
            break
        clock.advance(TURN)
        await pieces(svc).timers.run_timers()
    assert room.state == "finished"
    assert await zscore(redis, rid) is None


async def test_a_person_times_out_then_the_computer_takes_over_until_he_is_back(
    svc: GameService, clock: ManualClock, redis: Redis
) -> None:
    heard: list[Line] = []

    async def listener(room: Room, lines: list[Line]) -> None:
        heard.extend(lines)

    svc.on_change(listener)
    two = [ANNA, BORIS]
    rid = await people_room(svc, two, seed=2, preset="kozel-60")
    room = await svc.room(rid)
    assert room is not None
    u, hv = actor(svc, room, two)
    seat = room.seat_of(u.id)
    assert seat is not None
    assert room.deadline == clock.now() + TURN
    clock.advance(TURN - 1)
    assert await pieces(svc).timers.run_timers() == 0
    clock.advance(1)
    assert await pieces(svc).timers.run_timers() == 1
    room = await svc.room(rid)
    assert room is not None
    st = room.seats[seat]
    assert st is not None and st.missed == 1 and not st.auto
    assert Line("timeout", {"name": u.name, "seat": seat}) in heard
    assert actions(room) == 1
    # the other one plays; then the first one misses again: the computer takes his seat
    missed = 1
    for _ in range(50):
        room = await svc.room(rid)
        assert room is not None
        mover, mhv = actor(svc, room, two)
        if mover == u:
            clock.advance(TURN)
            assert await pieces(svc).timers.run_timers() == 1
            missed += 1
            if missed == 2:
                break
        else:
            assert (await svc.act(pick(mhv).token, mover)).ok
    room = await svc.room(rid)
    assert room is not None
    st = room.seats[seat]
    assert st is not None and st.auto and st.missed == 2
    assert Line("handed_to_bot", {"name": u.name, "seat": seat}) in heard
    # while handed over, his turns are computer moves after the short delay
    for _ in range(50):
        room = await svc.room(rid)
        assert room is not None
        mover, mhv = actor(svc, room, two)
        if mover == u:
            break
        assert (await svc.act(pick(mhv).token, mover)).ok
    assert room.deadline == clock.now() + DELAY
    n = actions(room)
    clock.advance(DELAY)
    assert await pieces(svc).timers.run_timers() == 1
    room = await svc.room(rid)
    assert room is not None and actions(room) == n + 1
    # he acts again himself: "back", and the seat is his again
    for _ in range(50):
        room = await svc.room(rid)
        assert room is not None
        mover, mhv = actor(svc, room, two)
        if mover == u:
            break
        assert (await svc.act(pick(mhv).token, mover)).ok
    out = await svc.act(pick(mhv).token, u)
    assert out.ok and out.room is not None
    assert out.lines[0] == Line("back", {"name": u.name})
    st = out.room.seats[seat]
    assert st is not None and not st.auto and st.missed == 0


async def test_missed_turns_must_be_consecutive(svc: GameService, clock: ManualClock) -> None:
    two = [ANNA, BORIS]
    rid = await people_room(svc, two, seed=3, preset="kozel-60")
    room = await svc.room(rid)
    assert room is not None
    u, _hv = actor(svc, room, two)
    clock.advance(TURN)
    assert await pieces(svc).timers.run_timers() == 1
    for _ in range(50):  # he plays his next turn himself: the count starts again
        room = await svc.room(rid)
        assert room is not None
        mover, mhv = actor(svc, room, two)
        out = await svc.act(pick(mhv).token, mover)
        assert out.ok
        if mover == u:
            break
    room = await svc.room(rid)
    assert room is not None
    s = room.seats[room.seat_of(u.id)]  # type: ignore[index]
    assert s is not None and s.missed == 0 and not s.auto


async def test_two_workers_never_both_act_on_one_deadline(
    svc: GameService, clock: ManualClock, new_service: Callable[..., GameService]
) -> None:
    other = new_service()
    rids = [await with_bots(svc, f"-{i}", seed=i) for i in range(40)]
    before = {rid: actions(r) for rid in rids if (r := await svc.room(rid))}
    clock.advance(DELAY)
    for _ in range(3):
        done = await asyncio.gather(
            pieces(svc).timers.run_timers(limit=100),
            pieces(other).timers.run_timers(limit=100),
            pieces(svc).timers.run_timers(limit=100),
            pieces(other).timers.run_timers(limit=100),
        )
        if sum(done):
            break
    assert sum(done) == len(rids), done
    for rid in rids:
        room = await svc.room(rid)
        assert room is not None and actions(room) == before[rid] + 1
    # nothing more is due until the clock moves
    assert await pieces(svc).timers.run_timers() == 0 and await pieces(other).timers.run_timers() == 0


async def test_another_worker_makes_the_move_when_the_first_one_is_gone(
    clock: ManualClock, new_service: Callable[..., GameService], redis: Redis
) -> None:
    first = new_service()
    rid = await with_bots(first, "-1", seed=4)
    room = await first.room(rid)
    assert room is not None
    n = actions(room)
    await first.store.close()  # the worker goes away
    second = new_service()
    clock.advance(DELAY)
    assert await pieces(second).timers.run_timers() == 1
    room = await second.room(rid)
    assert room is not None and actions(room) == n + 1
    # a worker that dies holding a claimed deadline: another one takes it after the lease
    third = new_service()
    clock.advance(DELAY)
    assert await third.store.claim_deadline(rid, clock.now(), LEASE)
    await third.store.close()
    assert await pieces(second).timers.run_timers() == 0
    clock.advance(LEASE)
    assert await pieces(second).timers.run_timers() == 1
    room = await second.room(rid)
    assert room is not None and actions(room) == n + 2


async def test_idle_rooms_expire_and_playing_rooms_do_not(
    svc: GameService, redis: Redis, clock: ManualClock
) -> None:
    key = keys.room("tg:-100")
    idle = IDLE + EXPIRY_SLACK  # the key outlives the lobby's own closing (a backstop)
    out = await svc.create("tg", "-100", None, ANNA, "kozel")
    assert out.ok
    assert idle - 5 <= await redis.ttl(key) <= idle
    assert (await svc.join("tg:-100", BORIS)).ok
    assert idle - 5 <= await redis.ttl(key) <= idle
    assert (await svc.start("tg:-100", ANNA, seed=1)).ok
    assert await redis.ttl(key) == -1  # PERSIST
    room = await svc.room("tg:-100")
    assert room is not None
    u, hv = actor(svc, room, [ANNA, BORIS])
    out = await svc.act(pick(hv).token, u, update_id="777")
    assert out.ok
    assert await redis.ttl(key) == -1
    claims = keys.update_claims("tg:-100")
    assert await redis.zscore(claims, claim_of("777")) is not None
    assert 0 < await redis.ttl(claims) <= 24 * 3600
    assert (await pieces(svc).platform.data.set_room_data("tg:-100", msg=5)).ok
    assert await redis.ttl(key) == -1
    assert (await svc.cancel("tg:-100", ANNA)).ok
    assert idle - 5 <= await redis.ttl(key) <= idle
    # the deadline index holds no entry of a room that is not playing
    assert await redis.zscore(keys.deadlines_of("tg:-100"), "tg:-100") is None
    clock.advance(TURN + 1)
    assert await pieces(svc).timers.run_timers() == 0
    # a match played to its end expires too
    rid = await people_room(svc, [VERA, GLEB], chat="-7", seed=5, preset="kozel-60")
    for _ in range(500):
        room = await svc.room(rid)
        assert room is not None
        if room.state != "playing":
            break
        u, hv = actor(svc, room, [VERA, GLEB])
        assert (await svc.act(pick(hv).token, u)).ok
    assert room.state == "finished"
    assert idle - 5 <= await redis.ttl(keys.room("tg:-7")) <= idle
    clock.advance(TURN + 1)
    assert await pieces(svc).timers.run_timers() == 0
    assert await zscore(redis, rid) is None
    # a rematch makes it a playing room again: no expiry
    assert (await svc.rematch(rid, VERA, seed=1)).ok
    assert await redis.ttl(keys.room("tg:-7")) == -1


async def test_a_deadline_for_a_vanished_or_finished_room_is_dropped(
    svc: GameService, clock: ManualClock, redis: Redis
) -> None:
    """An entry in the deadline set whose room is gone, finished or has no deadline (a
    worker died between its write and the clean-up) is dropped, not leased again forever."""
    rid = await with_bots(svc, "-1")
    await svc.store.delete(rid)
    clock.advance(DELAY)
    assert await pieces(svc).timers.run_timers() == 0
    await svc.store.set_deadline("tg:-404", clock.now() - 1)
    assert await pieces(svc).timers.run_timers() == 0
    assert await svc.room("tg:-404") is None
    rid2 = await with_bots(svc, "-2")
    assert (await svc.cancel(rid2, ANNA)).ok
    await svc.store.set_deadline(rid2, clock.now() - 1)  # a stray entry
    assert await pieces(svc).timers.run_timers() == 0
    clock.advance(LEASE + 1)
    assert await pieces(svc).timers.run_timers() == 0
    assert await svc.store.playing() == []


async def test_a_losing_attempt_never_leaves_a_later_deadline(
    svc: GameService,
    clock: ManualClock,
    redis: Redis,
    new_service: Callable[..., GameService],
) -> None:
    """Anna leads (a computer player is next: due in a second) while Boris, on another
    worker, declares out of turn (Anna would be next: a person's minute). Anna's move
    commits between Boris's computing and his writing; his attempt then finds the
    declaration closed. The deadline set must still say "in a second"."""
    out = await svc.create("tg", "-1", None, ANNA, "kozel")
    assert out.ok
    rid = "tg:-1"
    assert (await svc.add_bot(rid, ANNA)).ok
    assert (await svc.add_bot(rid, ANNA)).ok
    assert (await svc.join(rid, BORIS)).ok
    assert (await svc.start(rid, ANNA, seed=299)).ok  # Anna leads, Boris may declare
    room = await svc.room(rid)
    assert room is not None and room.seat_of(BORIS.id) == 3
    anna = svc.hand_of(room, ANNA.id)
    boris = svc.hand_of(room, BORIS.id)
    assert anna is not None and boris is not None and anna.on_move
    lead = pick(anna).token
    declare = next(c.token for c in boris.choices if c.kind == "declare")

    other = new_service()
    st = other.store
    raced = False

    async def winner_first() -> None:
        nonlocal raced
        if not raced:
            raced = True
            assert (await svc.act(lead, ANNA)).ok

    orig_cas = st.cas

    async def cas(*args, **kw):  # type: ignore[no-untyped-def]
        await winner_first()
        return await orig_cas(*args, **kw)

    st.cas = cas  # type: ignore[method-assign]
    lost = await other.act(declare, BORIS)
    assert raced and not lost.ok and lost.reason == "declaration_closed"
    room = await svc.room(rid)
    assert room is not None and room.deadline == clock.now() + DELAY
    assert await zscore(redis, rid) == room.deadline
    clock.advance(DELAY)
    assert await pieces(svc).timers.run_timers() == 1


# --- issue 12: no room freezes, whatever the interleaving of writers and timer loops ----------


async def test_a_start_whose_write_lands_after_a_timer_ran_still_moves_on_time(
    svc: GameService,
    clock: ManualClock,
    redis: Redis,
    new_service: Callable[..., GameService],
) -> None:
    """A worker starts a table with a computer player to move, and is slow: before its
    compare-and-set lands, the due time passes and another worker's timer loop runs. The
    room's deadline entry is written by the same script as the room, so the computer still
    moves within its delay of the write (it used to lose its entry and never move)."""
    rid = "tg:-1"
    assert (await svc.create("tg", "-1", None, ANNA, "kozel", size=2)).ok
    assert (await svc.add_bot(rid, ANNA)).ok
    timers = new_service()
    orig_cas = svc.store.cas

    async def slow_cas(*args, **kw):  # type: ignore[no-untyped-def]
        clock.advance(DELAY + 0.5)  # the start computed its deadline; time passes
        assert await pieces(timers).timers.run_timers() == 0  # another worker looks: nothing is due yet
        return await orig_cas(*args, **kw)

    svc.store.cas = slow_cas  # type: ignore[method-assign]
    seed = next(s for s in range(50) if _bot_leads(s))  # the computer player moves first
    assert (await svc.start(rid, ANNA, seed=seed)).ok
    svc.store.cas = orig_cas  # type: ignore[method-assign]
    room = await svc.room(rid)
    assert room is not None and room.deadline is not None
    assert await zscore(redis, rid) == room.deadline  # written with the room
    n = actions(room)
    clock.advance(DELAY)
    assert await pieces(timers).timers.run_timers() == 1
    after = await timers.room(rid)
    assert after is not None and actions(after) == n + 1


def _bot_leads(seed: int) -> bool:
    from engine.presets import make_rules
    from engine.registry import new_match

    return new_match(make_rules("kozel", 2), seed=seed).to_act()[0] == 1


async def test_a_move_committed_while_a_timer_holds_the_entry_keeps_its_own_due_time(
    svc: GameService,
    clock: ManualClock,
    redis: Redis,
    new_service: Callable[..., GameService],
) -> None:
    """Anna's time runs out and a timer loop claims her entry; before it moves for her,
    she moves herself. The computer player after her is due a second after her move, not
    at the timer's lease nor at her old minute."""
    rid = await with_bots(svc, "-1", seed=2)
    timers = new_service()
    for _ in range(20):  # on to Anna's turn
        room = await svc.room(rid)
        assert room is not None
        hv = svc.hand_of(room, ANNA.id)
        if hv is not None and hv.on_move:
            break
        clock.advance(DELAY)
        await pieces(svc).timers.run_timers()
    assert hv is not None and hv.on_move
    clock.advance(TURN)
    lease = await timers.store.claim_deadline(rid, clock.now(), LEASE)
    assert lease is not None
    assert (await svc.act(pick(hv).token, ANNA)).ok  # she is back in time after all
    out = await pieces(timers).timers._on_deadline(rid, lease)  # the timer finds it no longer due
    assert not out.ok
    room = await svc.room(rid)
    assert room is not None and room.deadline == clock.now() + DELAY
    assert await zscore(redis, rid) == room.deadline
    clock.advance(DELAY)
    assert await pieces(timers).timers.run_timers() == 1


async def _on_annas_turn(svc: GameService, clock: ManualClock, rid: str) -> HandView:
    for _ in range(20):
        room = await svc.room(rid)
        assert room is not None
        hv = svc.hand_of(room, ANNA.id)
        if hv is not None and hv.on_move:
            return hv
        clock.advance(DELAY)
        await pieces(svc).timers.run_timers()
    raise AssertionError("Anna never got the move")


async def test_a_writer_whose_write_lands_between_a_timers_claim_and_its_write(
    svc: GameService,
    clock: ManualClock,
    redis: Redis,
    new_service: Callable[..., GameService],
) -> None:
    """Issue 12.1's interleaving step by step: Anna's time is up, a timer loop claims her
    entry, reads the room and decides to move for her; her own move's compare-and-set lands
    before the timer's. The timer's write fails on the version, it finds nothing due, and it
    leaves the entry her move wrote: the computer player after her moves a second after her
    move (not at her old minute, not never)."""
    rid = await with_bots(svc, "-1", seed=2)
    timers = new_service()
    hv = await _on_annas_turn(svc, clock, rid)
    clock.advance(TURN)
    orig_cas = timers.store.cas
    landed = False

    async def writer_first(*args, **kw):  # type: ignore[no-untyped-def]
        nonlocal landed
        if not landed:
            landed = True
            leased = await zscore(redis, rid)  # the timer holds the entry on its lease
            assert leased is not None and leased > clock.now()
            assert (await svc.act(pick(hv).token, ANNA)).ok
        return await orig_cas(*args, **kw)

    timers.store.cas = writer_first  # type: ignore[method-assign]
    room = await svc.room(rid)
    assert room is not None
    before = actions(room)
    assert await pieces(timers).timers.run_timers() == 0  # its move for Anna came too late
    timers.store.cas = orig_cas  # type: ignore[method-assign]
    assert landed
    room = await svc.room(rid)
    assert room is not None and actions(room) == before + 1  # hers, and only hers
    assert room.deadline == clock.now() + DELAY
    assert await zscore(redis, rid) == room.deadline
    clock.advance(DELAY)
    assert await pieces(timers).timers.run_timers() == 1


async def test_a_start_that_lands_while_a_timer_closes_the_lobby_still_moves_on_time(
    svc: GameService,
    clock: ManualClock,
    redis: Redis,
    new_service: Callable[..., GameService],
) -> None:
    """The lobby's side of issue 12.1: the lobby's time is up and a timer loop claims it to
    close it; the creator's start lands first. The timer's close finds a playing room, and
    the start's entry stays: the computer player to move moves a second after the start."""
    rid = "tg:-1"
    assert (await svc.create("tg", "-1", None, ANNA, "kozel", size=2)).ok
    assert (await svc.add_bot(rid, ANNA)).ok
    timers = new_service()
    clock.advance(IDLE)
    seed = next(s for s in range(50) if _bot_leads(s))
    orig_cas = timers.store.cas
    landed = False

    async def start_first(*args, **kw):  # type: ignore[no-untyped-def]
        nonlocal landed
        if not landed:
            landed = True
            assert (await svc.start(rid, ANNA, seed=seed)).ok
        return await orig_cas(*args, **kw)

    timers.store.cas = start_first  # type: ignore[method-assign]
    assert await pieces(timers).timers.run_timers() == 0
    timers.store.cas = orig_cas  # type: ignore[method-assign]
    assert landed
    room = await svc.room(rid)
    assert room is not None and room.state == "playing" and actions(room) == 0
    assert room.deadline == clock.now() + DELAY
    assert await zscore(redis, rid) == room.deadline
    clock.advance(DELAY)
    assert await pieces(timers).timers.run_timers() == 1
    room = await svc.room(rid)
    assert room is not None and actions(room) == 1


async def test_a_failed_timer_move_gives_its_claim_back_at_once(
    svc: GameService,
    clock: ManualClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rid = await with_bots(svc, "-1")
    clock.advance(DELAY)
    calls = 0
    orig = pieces(svc).timers._bot_choice

    def broken(*args, **kw):  # type: ignore[no-untyped-def]
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RuntimeError("a bug in a computer player")
        return orig(*args, **kw)

    monkeypatch.setattr(pieces(svc).timers, "_bot_choice", broken)
    assert await pieces(svc).timers.run_timers() == 0  # logged, the loop goes on
    assert await zscore(svc.store.redis, rid) == clock.now()  # due again now, no lease
    assert await pieces(svc).timers.run_timers() == 1


async def _blocked_move(
    svc: GameService, monkeypatch: pytest.MonkeyPatch
) -> tuple[asyncio.Event, asyncio.Event]:
    """The due move's thinking waits for ``go``; ``entered`` is set when it starts."""
    entered, go = asyncio.Event(), asyncio.Event()
    orig = pieces(svc).timers._choices

    async def thinking(*args, **kw):  # type: ignore[no-untyped-def]
        entered.set()
        await go.wait()
        return await orig(*args, **kw)

    monkeypatch.setattr(pieces(svc).timers, "_choices", thinking)
    return entered, go


async def test_a_stopping_timer_loop_finishes_its_move_and_holds_no_lease(
    svc: GameService,
    clock: ManualClock,
    redis: Redis,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """SIGTERM (issue 12.8): the stop comes while a due move is being made; the loop takes
    nothing new, the move is committed, and the room's entry is its own due time again."""
    rid = await with_bots(svc, "-1")
    room = await svc.room(rid)
    assert room is not None
    n = actions(room)
    clock.advance(DELAY)
    entered, go = await _blocked_move(svc, monkeypatch)
    stop = asyncio.Event()
    loop = asyncio.create_task(pieces(svc).timers.serve_timers(stop, interval=0.01))
    await entered.wait()
    leased = await zscore(redis, rid)
    assert leased is not None and leased > clock.now()
    stop.set()
    go.set()
    await asyncio.wait_for(loop, 30)
    room = await svc.room(rid)
    assert room is not None and actions(room) == n + 1
    assert await zscore(redis, rid) == room.deadline


async def test_a_due_move_cut_short_by_a_stop_gives_its_lease_back(
    svc: GameService,
    clock: ManualClock,
    redis: Redis,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A stopping process that runs out of time cancels its timer loop mid-move: the entry
    is due again at once, not only after the lease (another worker moves without waiting)."""
    rid = await with_bots(svc, "-1")
    clock.advance(DELAY)
    entered, _go = await _blocked_move(svc, monkeypatch)
    loop = asyncio.create_task(pieces(svc).timers.serve_timers(asyncio.Event(), interval=0.01))
    await entered.wait()
    loop.cancel()
    with pytest.raises(asyncio.CancelledError):
        await loop
    assert await zscore(redis, rid) == clock.now()


def test_a_dead_worker_delays_a_room_by_at_most_three_seconds() -> None:
    """The lease a worker holds on a due entry is what a kill -9 costs a room (issue 12.3;
    ``test_another_worker_makes_the_move_when_the_first_one_is_gone`` shows the move made
    once it runs out), with the timer loop's poll after it."""
    assert LEASE + 0.25 <= 1.5


async def test_a_move_that_takes_longer_than_the_lease_keeps_its_entry(
    svc: GameService,
    clock: ManualClock,
    redis: Redis,
    monkeypatch: pytest.MonkeyPatch,
    new_service: Callable[..., GameService],
) -> None:
    """The short lease is renewed while the move is made: a slow move (a strong computer
    player thinking) is not taken over by another worker, and is made once."""
    monkeypatch.setattr("bot.timers.RENEW", 0.0)  # renew at every turn of the loop
    rid = await with_bots(svc, "-1")
    room = await svc.room(rid)
    assert room is not None
    n = actions(room)
    clock.advance(DELAY)
    entered, go = await _blocked_move(svc, monkeypatch)
    slow = asyncio.create_task(pieces(svc).timers.run_timers())
    await entered.wait()
    clock.advance(3 * LEASE)  # well past the first lease
    for _ in range(10_000):  # until the keeper renewed it (a signal, the cap stops a hang)
        leased = await zscore(redis, rid)
        if leased is not None and leased > clock.now():
            break
    else:
        raise AssertionError("the lease was never renewed")
    other = new_service()
    assert await pieces(other).timers.run_timers() == 0  # the entry is held: nothing for another worker
    go.set()
    assert await asyncio.wait_for(slow, 30) == 1
    room = await svc.room(rid)
    assert room is not None and actions(room) == n + 1
    assert await zscore(redis, rid) == room.deadline


async def test_i_am_back_takes_the_seat_from_the_computer_at_once(
    svc: GameService, clock: ManualClock
) -> None:
    """Issue 14.4: a person whose seat the computer took over takes it back at once (no race
    against the computer's next move), and his own time starts when he comes back."""
    rid = await with_bots(svc, "-1", seed=2)
    assert (await svc.come_back(rid, ANNA)).reason == "not_away"
    for _ in range(200):  # Anna misses her turns until the computer plays for her
        room = await svc.room(rid)
        assert room is not None
        seat = room.seats[room.seat_of(ANNA.id) or 0]
        if seat is not None and seat.auto:
            break
        clock.advance(TURN)
        await pieces(svc).timers.run_timers()
    assert seat is not None and seat.auto
    back = await svc.come_back(rid, ANNA, update_id="cb9")
    assert back.ok and back.room is not None and [ln.key for ln in back.lines] == ["back"]
    assert (await svc.come_back(rid, ANNA, update_id="cb9")).repeat
    room = back.room
    s = room.seats[room.seat_of(ANNA.id) or 0]
    assert s is not None and not s.auto and s.missed == 0
    for _ in range(50):  # on to her turn: then she has her whole time again
        room = await svc.room(rid)
        assert room is not None
        hv = svc.hand_of(room, ANNA.id)
        if hv is not None and hv.on_move:
            break
        clock.advance(DELAY)
        await pieces(svc).timers.run_timers()
    assert hv is not None and hv.on_move
    clock.advance(TURN - 1)
    assert await pieces(svc).timers.run_timers() == 0  # nobody moves for her within her minute


async def test_a_lobby_nobody_touches_closes_at_its_deadline_and_says_so(
    svc: GameService, clock: ManualClock, redis: Redis
) -> None:
    heard: list[list[Line]] = []

    async def listener(room: Room, lines: list[Line]) -> None:
        heard.append(lines)

    svc.on_change(listener)
    assert (await svc.create("tg", "-9", None, ANNA, "kozel")).ok
    clock.advance(IDLE / 2)
    assert (await svc.join("tg:-9", BORIS)).ok  # a touch: the lobby lives on
    assert await zscore(redis, "tg:-9") == clock.now() + IDLE
    clock.advance(IDLE - 1)
    assert await pieces(svc).timers.run_timers() == 0
    clock.advance(1)
    assert await pieces(svc).timers.run_timers() == 1
    room = await svc.room("tg:-9")
    assert room is not None and room.state == "finished" and room.result == {"expired": True}
    assert [ln.key for ln in heard[-1]] == ["lobby_expired"]
    assert await zscore(redis, "tg:-9") is None
    assert (await svc.join("tg:-9", VERA)).reason == "no_room"
