"""The game service through a real Redis: moves per second, latency of ``act``, memory per room.

    python bench/service.py [--rooms 60] [--rate 500[,150]] [--latency-rooms 2000] [--seconds 15]
                            [--preset kozel] [--players 4]

Uses ``REDIS_URL`` or ``redis://127.0.0.1:6379/12`` and EMPTIES that database first.

1. Throughput: one ``GameService`` (one worker, one connection pool), ``--rooms`` rooms of
   four people playing ``kozel`` (or ``--preset``) at once, every move a person's button through ``act`` with
   a real token and an update id, as fast as the worker commits them. Tokens are made
   beforehand from the engine (the same function the views use), so the figure is the
   worker's ``act`` alone: no view drawing, no timers.
2. Latency: ``--latency-rooms`` rooms, moves paced at ``--rate`` per second for
   ``--seconds``, spread over the rooms in turn (a room's next move is sent once its last one
   is answered, as a person would); latency counted from each move's scheduled time (a late
   start counts against the worker), p50 / p99 / max.
3. Memory per room: the sum of ``MEMORY USAGE`` over ``Store.room_keys`` (the room hash with
   its deal log, and its update-claim keys), averaged over rooms stopped mid-match and over
   rooms whose match ended, from phase 1.

Targets (issue 3): >= 1,000 moves/s per worker, p99 < 20 ms, <= 8 KB per room.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import random
import statistics
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parents[1])

from bot import keys  # noqa: E402
from bot.clock import SystemClock  # noqa: E402
from bot.config import Settings  # noqa: E402
from bot.room import User, room_id_for  # noqa: E402
from bot.service import GameService  # noqa: E402
from bot.store import Store  # noqa: E402
from bot.tokens import make_token  # noqa: E402
from bot.views import token_secret  # noqa: E402
from engine.presets import make_rules  # noqa: E402
from engine.registry import new_match  # noqa: E402

PRESET = "kozel"
PLAYERS = 4
TARGET_MOVES, TARGET_P99_MS, TARGET_BYTES = 1000, 20.0, 8 * 1024
QUIET_LOAD = 1.5  # above this load average the figures say little: no verdict


def machine() -> str:
    """What the figures were measured on."""
    import platform
    from importlib.metadata import PackageNotFoundError, version

    def v(name: str) -> str:
        try:
            return version(name)
        except PackageNotFoundError:
            return "not installed"

    return (
        f"Python {platform.python_version()}, redis-py {v('redis')}, hiredis {v('hiredis')}, "
        f"orjson {v('orjson')}; {os.cpu_count()} CPUs, load average "
        f"{os.getloadavg()[0]:.2f} (a verdict needs <= {QUIET_LOAD})"
    )


def verdict(met: bool, timed: bool = True) -> str:
    """A timed figure's verdict only on a quiet machine (memory is not timed)."""
    if timed and os.getloadavg()[0] > QUIET_LOAD:
        return "no verdict: the machine is busy"
    return "met" if met else "NOT met"


def callback_ids(seed: int) -> Iterator[str]:
    """Update ids as Telegram's callback queries have them: 19-digit numbers, 21 characters
    with our ``cb`` prefix (a room keeps dozens of claims: their size counts)."""
    rng = random.Random(seed)
    while True:
        yield f"cb{rng.randrange(10**18, 10**19)}"


@dataclass
class Plan:
    """One room's people and its match as buttons: (person, token) per move, in order."""

    rid: str
    people: list[User]
    seed: int
    clicks: list[tuple[User, str]] = field(default_factory=list)


def plan_room(i: int, moves: int | None, prefix: str) -> Plan:
    """The buttons of a whole match (or its first ``moves``), made as the views make them."""
    rid = room_id_for("tg", f"-{prefix}{i}")
    people = [User(f"tg:{prefix}{i}x{j}", f"P{j}") for j in range(PLAYERS)]
    plan = Plan(rid, people, seed=1000 + i)
    rules = make_rules(PRESET, PLAYERS)
    match = new_match(rules, seed=plan.seed)
    rng = random.Random(i)
    while not match.finished and (moves is None or len(plan.clicks) < moves):
        seat = match.to_act()[0]
        action = rng.choice(match.legal_actions(seat))
        obs = match.observe(seat)
        tok = make_token(rid, 1, obs.deal_no, obs.moment, seat, obs.hand, action, secret=token_secret(match))
        plan.clicks.append((people[seat], str(tok)))
        match.apply(seat, action)
    return plan


async def open_rooms(svc: GameService, plans: list[Plan], concurrency: int = 100) -> None:
    sem = asyncio.Semaphore(concurrency)

    async def one(p: Plan) -> None:
        async with sem:
            chat = p.rid.split(":", 1)[1]
            out = await svc.create("tg", chat, None, p.people[0], PRESET, size=PLAYERS)
            assert out.ok, out.reason
            for u in p.people[1:]:
                assert (await svc.join(p.rid, u)).ok
            out = await svc.start(p.rid, p.people[0], seed=p.seed)
            assert out.ok, out.reason

    await asyncio.gather(*(one(p) for p in plans))


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


async def redis_cpu(store: Store) -> float:
    info = await store.redis.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


async def throughput(svc: GameService, plans: list[Plan], stop_at: dict[str, int]) -> None:
    upd = callback_ids(1)

    async def drive(p: Plan) -> int:
        n = 0
        for user, tok in p.clicks[: stop_at.get(p.rid)]:
            out = await svc.act(tok, user, update_id=str(next(upd)))
            if not out.ok:
                raise RuntimeError(f"{p.rid} move {n}: {out.reason}")
            n += 1
        return n

    r0, c0, t0 = await redis_cpu(svc.store), time.process_time(), time.perf_counter()
    done = sum(await asyncio.gather(*(drive(p) for p in plans)))
    el = time.perf_counter() - t0
    cpu, rcpu = time.process_time() - c0, await redis_cpu(svc.store) - r0
    print(
        f"throughput: {done} moves committed in {el:.2f} s by one worker, "
        f"{len(plans)} rooms at once: {done / el:,.0f} moves/s "
        f"(target >= {TARGET_MOVES:,}: {verdict(done / el >= TARGET_MOVES)})"
    )
    print(
        f"  CPU a move: worker {cpu / done * 1000:.2f} ms, Redis server "
        f"{rcpu / done * 1000:.2f} ms; the worker's CPU alone would allow "
        f"{done / cpu:,.0f} moves/s"
    )


async def memory(store: Store, rids: list[str]) -> tuple[float, float, float, int]:
    sizes, docs, claims = [], [], []
    for rid in rids:
        total = doc = 0
        ks = await store.room_keys(rid)
        for k in ks:
            used = await store.redis.memory_usage(k, samples=0) or 0
            total += used
            if k.startswith("room:"):
                doc = used
        sizes.append(total)
        docs.append(doc)
        claims.append(await store.redis.zcard(keys.update_claims(rid)))
    return (statistics.mean(sizes), statistics.mean(docs), statistics.mean(claims), max(sizes))


async def latency(
    svc: GameService, plans: list[Plan], cursor: dict[str, int], rate: float, seconds: float, broken: set[str]
) -> None:
    """Moves paced at ``rate``, the rooms in turn; a room's next move waits for its last."""
    total = int(rate * seconds)
    queue: list[tuple[Plan, int]] = []
    while len(queue) < total:
        for p in plans:
            if len(queue) < total and cursor[p.rid] < len(p.clicks):
                queue.append((p, cursor[p.rid]))
                cursor[p.rid] += 1
    lat: list[float] = []
    service_time: list[float] = []
    failed: dict[str, int] = {}
    upd = callback_ids(int(rate))
    loop = asyncio.get_running_loop()
    last: dict[str, asyncio.Task[None]] = {}
    start = loop.time() + 0.05

    async def one(p: Plan, k: int, at: float, before: asyncio.Task[None] | None) -> None:
        if before is not None:
            await before  # a person clicks after seeing the last move
        if p.rid in broken:
            return  # its last move failed: the buttons made beforehand no longer fit
        user, tok = p.clicks[k]
        t = loop.time()
        try:
            out = await svc.act(tok, user, update_id=str(next(upd)))
            reason = None if out.ok else out.reason or "?"
        except Exception as e:  # e.g. no free Redis connection within the pool's timeout
            reason = type(e).__name__
        end = loop.time()
        if reason is not None:
            failed[reason] = failed.get(reason, 0) + 1
            broken.add(p.rid)
        lat.append(end - at)
        service_time.append(end - t)

    for i, (p, k) in enumerate(queue):
        at = start + i / rate
        delay = at - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        last[p.rid] = asyncio.create_task(one(p, k, at, last.get(p.rid)))
    await asyncio.gather(*last.values())
    el = loop.time() - start
    ms = [x * 1000 for x in lat]
    sv = [x * 1000 for x in service_time]
    print(
        f"latency at {rate:.0f} moves/s: {len(lat)} moves over {len(plans)} rooms in "
        f"{el:.1f} s ({len(lat) / el:.0f}/s achieved), failed {failed or 0}"
    )
    print(
        f"  act from its scheduled time: p50 {pct(ms, 0.5):.1f} ms, p99 {pct(ms, 0.99):.1f} "
        f"ms, max {max(ms):.1f} ms (target p99 < {TARGET_P99_MS:.0f} ms: "
        f"{verdict(pct(ms, 0.99) < TARGET_P99_MS)})"
    )
    print(
        f"  act from its call:           p50 {pct(sv, 0.5):.1f} ms, p99 {pct(sv, 0.99):.1f} "
        f"ms, max {max(sv):.1f} ms"
    )


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rooms", type=int, default=60, help="rooms in the throughput run")
    ap.add_argument(
        "--rate", default="500", help="moves/s of the latency run; several: 500,150 (one run each)"
    )
    ap.add_argument("--latency-rooms", type=int, default=2000)
    ap.add_argument("--seconds", type=float, default=15.0)
    ap.add_argument("--preset", default="kozel")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument(
        "--profile", action="store_true", help="cProfile the throughput run: where a move's CPU goes"
    )
    args = ap.parse_args()
    global PRESET, PLAYERS
    PRESET, PLAYERS = args.preset, args.players
    url = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/12"
    store = await Store.connect(url)  # the worker's own client (a blocking pool)
    redis = store.redis
    await redis.flushdb()
    info = await redis.info("server")
    print(f"Redis {info.get('redis_version')} at {url} (flushed)")
    print(machine())
    svc = GameService(store, Settings(redis_url=None), SystemClock())
    try:
        # 1. throughput, and the rooms it leaves for the memory figures
        plans = [plan_room(i, None, "t") for i in range(args.rooms)]
        await open_rooms(svc, plans)
        half = plans[: len(plans) // 2]
        stop_at = {p.rid: len(p.clicks) // 2 for p in half}
        if args.profile:
            import cProfile
            import pstats

            prof = cProfile.Profile()
            prof.enable()
            await throughput(svc, plans, stop_at)
            prof.disable()
            import tempfile

            out = Path(tempfile.gettempdir()) / "service.prof"
            prof.dump_stats(out)
            print(f"(profile in {out}: python -m pstats {out})")
            pstats.Stats(prof).sort_stats("tottime").print_stats(25)
        else:
            await throughput(svc, plans, stop_at)
        # 3. memory
        mid = await memory(store, [p.rid for p in half])
        end = await memory(store, [p.rid for p in plans[len(half) :]])
        for what, (avg, doc, claims, top) in (("mid-match", mid), ("match over", end)):
            print(
                f"memory per room, {what:10}: {avg / 1024:5.1f} KB on average "
                f"(room hash {doc / 1024:.1f} KB + {claims:.0f} update claims), "
                f"max {top / 1024:.1f} KB (target <= {TARGET_BYTES // 1024} KB: "
                f"{verdict(top <= TARGET_BYTES, timed=False)})"
            )
        # 2. latency
        await redis.flushdb()
        rates = [float(r) for r in str(args.rate).split(",")]
        per_room = int(sum(rates) * args.seconds / args.latency_rooms) + 2
        plans = [plan_room(i, per_room, "l") for i in range(args.latency_rooms)]
        t0 = time.perf_counter()
        await open_rooms(svc, plans)
        print(f"({args.latency_rooms} rooms opened in {time.perf_counter() - t0:.1f} s)")
        # as a worker freezes its start-up heap (bot/__main__.py), the heap made so far is
        # left out of the garbage collector's scans: here that is this bench's own people and
        # their 2000 rooms of planned clicks, which a worker does not hold
        gc.freeze()
        cursor = {p.rid: 0 for p in plans}
        broken: set[str] = set()
        for rate in rates:
            await latency(svc, plans, cursor, rate, args.seconds, broken)
    finally:
        await redis.flushdb()
        await store.close()


if __name__ == "__main__":
    asyncio.run(main())
