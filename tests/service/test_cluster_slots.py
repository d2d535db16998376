"""Runs unchanged on Redis Cluster: every script touches keys of one hash slot (a room, its
claims, platform data, its shard's deadline index and its chat's statistics share the
chat's shard tag)."""

from __future__ import annotations

from typing import Any

from redis.crc import key_slot

from bot.clock import ManualClock
from bot.service import GameService
from tests.pieces import pieces

from .conftest import DELAY, PEOPLE


async def test_every_script_call_stays_in_one_slot(svc: GameService, clock: ManualClock) -> None:
    store = svc.store
    seen: list[list[str]] = []
    for name in (
        "_load",
        "_cas",
        "_claim",
        "_settle",
        "_set_data",
        "_begin_paint",
        "_end_paint",
        "_flood_take",
        "_flood_block",
        "_user_stats",
    ):
        script = getattr(store, name)

        async def spy(*, keys: list[str], args: list[Any], _script: Any = script) -> Any:
            seen.append(list(keys))
            return await _script(keys=keys, args=args)

        setattr(store, name, spy)
    anna = PEOPLE[0]
    assert (await svc.create("tg", "-1", "5", anna, "kozel")).ok
    rid = "tg:-1/5"
    for _ in range(3):
        assert (await svc.add_bot(rid, anna)).ok
    assert (await svc.start(rid, anna, seed=3)).ok
    assert (await pieces(svc).platform.data.set_seat_data(rid, anna.id, hand=[1, 2])).ok
    claim = await pieces(svc).platform.leases.begin_paint(rid, "table")
    assert claim.room is not None
    await pieces(svc).platform.leases.end_paint(rid, "table", claim.room.version)
    assert await pieces(svc).platform.budgets.flood_take("tg:-1", limit=20, window=60.0) == 0.0
    await pieces(svc).platform.budgets.flood_block("tg:-1", 3.0)
    for _ in range(400):
        room = await svc.room(rid)
        assert room is not None
        if room.state != "playing":
            break
        hand = svc.hand_of(room, anna.id)
        if hand and hand.on_move:
            choice = next(c for c in hand.choices if c.kind != "declare")
            assert (await svc.act(choice.token, anna, update_id=f"u{_}")).ok
        else:
            clock.advance(DELAY)
            await pieces(svc).timers.run_timers()
    assert len(seen) > 50
    assert any(len(k) == 10 for k in seen)  # the room's write with its chat's statistics and ratings
    for keys in seen:
        assert len({key_slot(k.encode()) for k in keys}) == 1, keys
