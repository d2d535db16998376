"""A restart mid-match: the service and its Redis connection go away, a new one on the same
Redis goes on, and buttons drawn before the restart still work."""

from __future__ import annotations

from collections.abc import Callable

from bot.clock import ManualClock
from bot.service import GameService
from tests.pieces import pieces

from .conftest import DELAY, PEOPLE, pick

ANNA, BORIS, VERA, _, _ = PEOPLE


async def test_play_goes_on_after_a_restart(
    redis_url: str, clock: ManualClock, new_service: Callable[..., GameService]
) -> None:
    first = new_service()
    out = await first.create("tg", "-100", None, ANNA, "kozel", size=4)
    assert out.ok
    rid = "tg:-100"
    for u in (BORIS, VERA):
        assert (await first.join(rid, u)).ok
    assert (await first.add_bot(rid, ANNA)).ok
    assert (await first.start(rid, ANNA, seed=21)).ok
    people = [ANNA, BORIS, VERA]
    for i in range(10):  # some play before the restart
        room = await first.room(rid)
        assert room is not None
        hv = next((h for u in people if (h := first.hand_of(room, u.id)) and h.on_move), None)
        if hv is None:
            clock.advance(DELAY)
            await pieces(first).timers.run_timers()
            continue
        u = next(p for p in people if room.seat_of(p.id) == hv.seat)
        assert (await first.act(pick(hv).token, u, update_id=f"b{i}")).ok
    # the views the chat shows right now, drawn before the restart
    room = await first.room(rid)
    assert room is not None
    drawn = {u.id: first.hand_of(room, u.id) for u in people}
    version = room.version
    await first.store.close()
    del first

    second = new_service()
    again = await second.room(rid)
    assert again is not None and again.version == version and again.match == room.match
    # a button of the old view works, once
    on_move = [(u, h) for u in people if (h := drawn[u.id]) and h.on_move]
    if on_move:
        u, hv = on_move[0]
        tok = pick(hv).token
        assert (await second.act(tok, u, update_id="b3")).repeat  # the claim is kept
        out = await second.act(tok, u, update_id="after-restart")
        assert out.ok and not out.repeat, out.reason
        again = await second.act(tok, u, update_id="after-restart-2")  # a double tap
        assert again.ok and again.repeat
    else:
        clock.advance(DELAY)
        assert await pieces(second).timers.run_timers() == 1
    # and the match plays to its end on the new worker
    for i in range(5000):
        room = await second.room(rid)
        assert room is not None
        if room.state != "playing":
            break
        hv = next((h for u in people if (h := second.hand_of(room, u.id)) and h.on_move), None)
        if hv is None:
            clock.advance(DELAY)
            await pieces(second).timers.run_timers()
            continue
        u = next(p for p in people if room.seat_of(p.id) == hv.seat)
        assert (await second.act(pick(hv).token, u, update_id=f"a{i}")).ok
    assert room.state == "finished" and room.result and room.result["winners"]
    # the finished match was recorded by the worker that finished it
    assert (await pieces(second).stats.leaderboard("tg", "-100"))[0]["played"] == 1
