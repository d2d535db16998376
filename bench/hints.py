"""Hints beside computer players' moves (issue 33.5): presses of Hint must not starve a
``hard`` computer player's move at another table.

The real path: a ``GameService`` on Redis, its ``Thinker`` (``--workers`` processes,
``SEARCH_MS`` ``--ms``), practice tables whose person is on move, and a table of ``hard``
computer players. Three runs, each printing the time until every press was answered (or
refused) and how long the computer player's move took from being asked:

1. the move alone (its reference time);
2. one person pressing Hint ``--presses`` times at once, the move asked 20 ms later;
3. ``--people`` people at their own tables pressing ``--presses`` times in all at once.

    python bench/hints.py [--presses 40] [--people 10] [--ms 300] [--workers 2]

It uses ``REDIS_URL`` (default ``redis://127.0.0.1:6379/12``) and empties that database.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parents[1])

from bot.clock import ManualClock  # noqa: E402
from bot.config import Settings  # noqa: E402
from bot.room import User  # noqa: E402
from bot.service import GameService, Refused, Services  # noqa: E402
from bot.store import Store  # noqa: E402
from bot.thinking import MOVE, Thinker  # noqa: E402


async def hard_table(svc: GameService, chat: str, owner: User) -> str:
    out = await svc.create("tg", chat, None, owner, "kozel", size=4)
    assert out.ok and out.room is not None
    for _ in range(3):
        assert (await svc.add_bot(out.room.id, owner, "hard")).ok
    assert (await svc.start(out.room.id, owner, seed=3)).ok
    return out.room.id


async def on_move(svc: GameService, clock: ManualClock, rid: str, user: User) -> None:
    """Until ``user`` is on move (the computer players before her move on the timers)."""
    timers = Services.on(svc).timers
    for _ in range(40):
        room = await svc.room(rid)
        assert room is not None
        hand = svc.hand_of(room, user.id)
        if hand is not None and hand.on_move:
            return
        clock.advance(svc.settings.bot_delay_seconds)
        await timers.run_timers()
    raise AssertionError("never on move")


async def move_time(svc: GameService, rid: str, delay: float) -> float:
    """A computer player's move asked after ``delay`` s: its seconds from being asked."""
    await asyncio.sleep(delay)
    room = await svc.room(rid)
    assert room is not None and room.match is not None
    seat = room.load_match().to_act()[0]
    t = time.perf_counter()
    await svc.idea(room, seat, MOVE)
    return time.perf_counter() - t


async def presses(svc: GameService, tables: list[tuple[str, User]], count: int) -> tuple[float, int, int]:
    """``count`` presses spread over ``tables`` at once: seconds until every one was
    answered, answers with a hint, refusals."""
    t = time.perf_counter()
    jobs = [svc.hint(tables[i % len(tables)][0], tables[i % len(tables)][1].id) for i in range(count)]
    got = await asyncio.gather(*jobs, return_exceptions=True)
    refused = sum(isinstance(g, Refused) for g in got)
    reasons: dict[str, int] = {}
    for g in got:
        if isinstance(g, Refused):
            reasons[g.reason] = reasons.get(g.reason, 0) + 1
    print("   refusals:", reasons or "none")
    errors = [g for g in got if isinstance(g, BaseException) and not isinstance(g, Refused)]
    if errors:
        raise errors[0]
    return time.perf_counter() - t, count - refused, refused


async def run(svc: GameService, clock: ManualClock, args: argparse.Namespace) -> None:
    people = [User(f"tg:{100 + i}", f"P{i}") for i in range(args.people)]
    tables = []
    for i, p in enumerate(people):
        rid = await hard_table(svc, f"-{9100 + i}", p)
        await on_move(svc, clock, rid, p)
        tables.append((rid, p))
    robots = await hard_table(svc, "-9000", User("tg:99", "Owner"))
    await svc.leave(robots, User("tg:99", "Owner"))  # a table of computer players alone
    await asyncio.gather(*(move_time(svc, robots, 0) for _ in range(args.workers)))  # every process started
    alone = await move_time(svc, robots, 0)
    print(f"1. the hard move alone: {alone * 1000:.0f} ms")
    one = asyncio.gather(presses(svc, tables[:1], args.presses), move_time(svc, robots, 0.02))
    (took, answered, refused), moved = await one
    print(
        f"2. one person, {args.presses} presses at once: all answered in {took * 1000:.0f} ms "
        f"({answered} hints, {refused} refused); the hard move at another table: {moved * 1000:.0f} ms"
    )
    many = asyncio.gather(presses(svc, tables, args.presses), move_time(svc, robots, 0.02))
    (took, answered, refused), moved = await many
    print(
        f"3. {len(tables)} people, {args.presses} presses at once: all answered in {took * 1000:.0f} ms "
        f"({answered} hints, {refused} refused); the hard move: {moved * 1000:.0f} ms"
    )


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--presses", type=int, default=40)
    ap.add_argument("--people", type=int, default=10)
    ap.add_argument("--ms", type=float, default=300.0)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    url = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/12"
    store = await Store.connect(url)
    await store.redis.flushdb()
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
    clock = ManualClock(1_000_000.0)
    settings = Settings(redis_url=None, search_ms=args.ms, search_workers=args.workers)
    svc = GameService(store, settings, clock, thinker=Thinker(args.workers, args.ms, None))
    try:
        await run(svc, clock, args)
    finally:
        await svc.close()


if __name__ == "__main__":
    asyncio.run(main())
