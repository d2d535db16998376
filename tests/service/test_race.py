"""The race test: many rooms of four people played at once through several workers sharing
one Redis, every intended click fired one to three times at once, stale and foreign clicks
mixed in. Every match ends, every intended action is applied exactly once, and each stored
match equals a serial replay of its log.

``RACE_ROOMS`` sets the number of rooms: 30 by default (CI), ``RACE_ROOMS=200`` the full size
(about four minutes on the two-core machine).
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from collections import Counter
from typing import Any

from redis.asyncio import Redis

from bot.clock import ManualClock
from bot.room import PLAYING, Room, User
from bot.service import GameService, Outcome
from bot.store import Store
from engine.codec import unpack_action
from engine.families.drawing.match import Match
from tests.pieces import pieces

from .conftest import make_settings

ROOMS = int(os.environ.get("RACE_ROOMS", "30"))
WORKERS = 4
MAX_STEPS = 2000  # far more than a kozel match takes


def replay(room: Room) -> Match:
    assert room.match is not None
    match = Match(room.rules, seed=room.match["seed"])
    for deal in room.log:
        for packed in filter(None, deal.split(",")):
            seat, action = unpack_action(packed)
            match.apply(seat, action)
    return match


def options_of(svc: GameService, room: Room) -> list[tuple[User, str, str]]:
    """Every legal button now: (person, token, kind) for the mover and open declarations."""
    match = room.load_match()
    out = []
    for seat in match.to_act():
        s = room.seats[seat]
        assert s is not None and s.user is not None
        hv = svc.hand_of(room, s.user)
        assert hv is not None
        out.extend((User(s.user, s.name), c.token, c.kind) for c in hv.choices)
    return out


async def test_race_many_rooms_several_workers(redis_url: str, redis: Redis) -> None:
    clock = ManualClock()
    settings = make_settings(turn_seconds=10**7)  # people only, never timed out here
    stores = [await Store.connect(redis_url) for _ in range(WORKERS)]
    workers = [GameService(s, settings, clock) for s in stores]
    started = time.perf_counter()
    try:
        rids: list[str] = []
        people: dict[str, list[User]] = {}

        async def setup(i: int) -> None:
            ps = [User(f"tg:{i}{j}", f"P{i}.{j}") for j in range(4)]
            w = workers[i % WORKERS]
            out = await w.create("tg", f"-{i}", None, ps[0], "kozel")
            assert out.ok and out.room is not None
            for p in ps[1:]:
                assert (await workers[(i + 1) % WORKERS].join(out.room.id, p)).ok
            assert (await w.start(out.room.id, ps[1], seed=10_000 + i)).ok
            people[out.room.id] = ps
            rids.append(out.room.id)

        await asyncio.gather(*(setup(i) for i in range(ROOMS)))
        rids.sort()
        used: dict[str, list[tuple[User, str]]] = {rid: [] for rid in rids}
        intended: Counter[str] = Counter()
        accepted: Counter[str] = Counter()
        refused: Counter[str] = Counter()

        async def drive(rid: str, n: int) -> None:
            rng = random.Random(n)
            for step in range(MAX_STEPS):
                room = await rng.choice(workers).room(rid)
                assert room is not None
                if room.state != PLAYING:
                    return
                opts = options_of(rng.choice(workers), room)
                user, token, _kind = rng.choice(opts)
                clicks: list[Any] = []
                for j in range(rng.randint(1, 3)):
                    clicks.append(rng.choice(workers).act(token, user, f"{step}.{j}"))
                extra: list[tuple[str, Any]] = []
                if rng.random() < 0.3 and used[rid]:
                    u, t = rng.choice(used[rid])  # a button pressed before
                    extra.append(("stale", rng.choice(workers).act(t, u, f"{step}.s")))
                if rng.random() < 0.2:
                    other = rids[(n + 1 + rng.randrange(len(rids) - 1)) % len(rids)]
                    extra.append(
                        ("foreign", rng.choice(workers).act(token, user, f"{step}.f", room_id=other))
                    )
                    if used[other]:
                        u, t = rng.choice(used[other])
                        extra.append(("foreign", rng.choice(workers).act(t, user, f"{step}.g", room_id=rid)))
                if rng.random() < 0.2:
                    # a platform redelivering a click: the same update id again (either
                    # delivery may be the one that counts)
                    clicks.append(rng.choice(workers).act(token, user, f"{step}.0"))
                rng.shuffle(extra)
                results: list[Outcome] = await asyncio.gather(*clicks, *(c for _k, c in extra))
                mine = results[: len(clicks)]
                oks = [r for r in mine if r.ok and not r.repeat]
                assert len(oks) == 1, (rid, step, [r.reason for r in mine])
                for r in mine:
                    if not r.ok:  # the others: quiet repeats, or too late for a declaration
                        assert r.reason in ("stale", "declaration_closed", "game_over"), r.reason
                for (what, _c), r in zip(extra, results[len(clicks) :], strict=True):
                    # refused, or a person's own last move again: a quiet repeat
                    assert not r.ok or (r.repeat and what == "stale"), (rid, step, what)
                    if r.ok:
                        continue
                    if what == "foreign":
                        assert r.reason == "foreign_token"
                    refused[r.reason or "?"] += 1
                intended[rid] += 1
                accepted[rid] += len(oks)
                used[rid].append((user, token))
            raise AssertionError(f"{rid} did not finish in {MAX_STEPS} steps")

        await asyncio.wait_for(asyncio.gather(*(drive(rid, n) for n, rid in enumerate(rids))), timeout=3600)
        elapsed = time.perf_counter() - started

        assert accepted == intended
        total = 0
        for rid in rids:
            room = await workers[0].room(rid)
            assert room is not None and room.state == "finished" and room.result
            logged = sum(len(list(filter(None, d.split(",")))) for d in room.log)
            assert logged == intended[rid]
            total += logged
            m = replay(room)
            assert m.finished
            assert m.to_state() == room.match
            assert room.result == {"winners": list(m.winners), "score": list(m.scores)}
        assert refused["foreign_token"] > 0 and refused["stale"] > 0
        # every match over: the index's last hints are dropped once they come due
        clock.advance(settings.turn_seconds + 1)
        for _ in range(ROOMS // 50 + 2):
            await pieces(workers[0]).timers.run_timers()
        assert await redis.zcard("deadlines") == 0
        print(
            f"\nrace: {ROOMS} rooms, {WORKERS} workers, {total} actions, "
            f"{sum(refused.values())} extra clicks refused {dict(refused)}, "
            f"{elapsed:.1f} s ({total / elapsed:.0f} actions/s)"
        )
    finally:
        for s in stores:
            await s.close()
