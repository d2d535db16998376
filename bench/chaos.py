"""The service under faults, as an operator meets them (issue 12).

    python bench/chaos.py [--workers 3] [--rooms 200] [--seconds 90] [--kill-every 4]

On this machine: its own Redis server (AOF on, a free port, a scratch folder), ``--workers``
worker processes (each a ``GameService`` with its timer loop behind a small HTTP endpoint, as
webhook workers behind a load balancer are), and drivers acting as people: tables of one to
three people and computer players, people thinking 0.3-1.5 s a move (then one look a table
through a worker: who is on move, with his buttons), every press delivered
one to three times to random workers (a retried webhook) and again until a worker answers
it, stale and foreign presses mixed in. Meanwhile a worker is killed with ``kill -9`` every
few seconds (and started again), Redis is killed with ``kill -9`` and started from its AOF,
and later restarted cleanly.

It prints: rooms consistent (each stored match equals a replay of its log), acknowledged
presses lost, presses applied twice, frozen rooms (a room due to move that did not within
its due time + 3 s, counted from when Redis answered again if it was down), calls failed
after Redis answered again, the largest room (sum of MEMORY USAGE over its keys), and how
late computer players moved after their due time (p50 / p90).
Targets: 0 / 0 / 0 / 0, max room <= 8 KB, p90 <= 1.5 s. Not a CI test: a run takes minutes.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import random
import shutil
import signal
import socket
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path[0] = str(Path(__file__).resolve().parents[1])

import aiohttp  # noqa: E402
from aiohttp import web  # noqa: E402
from redis.asyncio import Redis  # noqa: E402

from bot import keys  # noqa: E402
from bot.config import Settings  # noqa: E402
from bot.metrics import Metrics  # noqa: E402
from bot.room import PLAYING, User  # noqa: E402
from bot.service import GameService, Services  # noqa: E402
from bot.store import open_store, unpack_doc  # noqa: E402
from engine.codec import unpack_action  # noqa: E402
from engine.registry import new_match  # noqa: E402

BOT_DELAY = 1.0
GRACE = 3.0  # a due move later than this is a frozen room
TARGET_BYTES, TARGET_P90 = 8 * 1024, 1.5


# --- a worker process --------------------------------------------------------------------


class FileMetrics(Metrics):
    """Due-move lags and failures, appended to the worker's own file (it may be killed)."""

    def __init__(self, path: Path) -> None:
        self.f = path.open("a", buffering=1)

    def timer_lag(self, seconds: float) -> None:
        self.f.write(json.dumps({"t": time.time(), "lag": seconds}) + "\n")

    def failed(self, what: str) -> None:
        self.f.write(json.dumps({"t": time.time(), "err": what}) + "\n")


async def worker(port: int, redis_url: str, log: Path) -> None:
    metrics = FileMetrics(log)
    settings = Settings(
        redis_url=redis_url,
        turn_seconds=3600.0,
        bot_delay_seconds=BOT_DELAY,
        idle_seconds=3600,
        default_language="en",
    )
    store = await open_store(settings)
    service = GameService(store, settings, metrics=metrics)

    async def call(request: web.Request) -> web.Response:
        body = await request.json()
        op, args, upd = body["op"], body["args"], body.get("update_id")
        try:
            if op == "hands":  # what the table's people see: the one on move, his buttons
                room = await service.room(args["room"])
                mover = None
                for user in args["users"] if room is not None else []:
                    hand = service.hand_of(room, user)
                    if hand is not None and hand.on_move and hand.choices:
                        mover = {"user": user, "choices": [c.token for c in hand.choices]}
                        break
                return web.json_response({"state": room.state if room else None, "mover": mover})
            user = User(args.pop("user"), args.pop("name"))
            if op == "act":
                out = await service.act(args["token"], user, update_id=upd, room_id=args.get("room_id"))
            elif op == "create":
                out = await service.create(
                    "tg", args["chat"], None, user, "kozel", size=args["size"], update_id=upd
                )
            else:
                out = await getattr(service, op)(args.pop("room"), user, **args, update_id=upd)
        except Exception as e:  # what a platform would see as a 500 (it redelivers)
            metrics.failed(f"{op}: {type(e).__name__}: {e}")
            return web.json_response({"error": f"{type(e).__name__}: {e}"}, status=500)
        return web.json_response({"ok": out.ok, "reason": out.reason, "repeat": out.repeat})

    app = web.Application()
    app.router.add_post("/call", call)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await Services.on(service).timers.serve_timers(stop, interval=0.1)


# --- the run ----------------------------------------------------------------------------


def machine() -> str:
    from importlib.metadata import version

    return (
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; Python "
        f"{platform.python_version()}, redis-py {version('redis')}, hiredis "
        f"{version('hiredis')}; {os.cpu_count()} CPUs, load average "
        f"{os.getloadavg()[0]:.2f}"
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Fleet:
    """The Redis server and the worker processes, killed and started again."""

    folder: Path
    redis_port: int
    ports: list[int]
    redis: asyncio.subprocess.Process | None = None
    procs: dict[int, asyncio.subprocess.Process] = field(default_factory=dict)
    redis_back: list[float] = field(default_factory=list)  # when Redis answered again
    redis_down: float | None = None
    downtimes: list[tuple[float, float]] = field(default_factory=list)
    events: list[tuple[float, str]] = field(default_factory=list)  # kills and restarts

    def answering(self, t0: float, t1: float | None = None) -> bool:
        """Redis answered all the while from ``t0`` to ``t1`` (and for half a second before:
        a call in flight across a restart may fail with it)."""
        t1 = t0 if t1 is None else t1
        if self.redis_down is not None and t1 >= self.redis_down:
            return False
        return not any(a <= t1 and t0 <= b + 0.5 for a, b in self.downtimes)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.redis_port}/0"

    async def start_redis(self) -> None:
        binary = shutil.which("redis-server") or str(_embedded_binary())
        self.redis = await asyncio.create_subprocess_exec(
            binary,
            "--port",
            str(self.redis_port),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(self.folder),
            "--appendonly",
            "yes",
            "--appendfsync",
            "everysec",
            "--save",
            "",
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
        r = Redis(port=self.redis_port)
        for _ in range(300):
            with contextlib.suppress(Exception):
                if await r.ping():
                    break
            await asyncio.sleep(0.02)
        await r.aclose()
        self.redis_back.append(time.time())
        if self.redis_down is not None:
            self.downtimes.append((self.redis_down, self.redis_back[-1]))
        self.redis_down = None

    async def kill_redis(self, clean: bool) -> None:
        assert self.redis is not None
        self.redis_down = time.time()
        self.events.append((self.redis_down, "redis restart" if clean else "redis kill -9"))
        if clean:
            self.redis.send_signal(signal.SIGTERM)  # a clean shutdown writes the AOF out
        else:
            self.redis.kill()
        await self.redis.wait()

    async def start_worker(self, i: int) -> None:
        self.procs[i] = await asyncio.create_subprocess_exec(
            sys.executable,
            __file__,
            "worker",
            "--port",
            str(self.ports[i]),
            "--redis",
            self.url,
            "--log",
            str(self.folder / f"worker{i}.jsonl"),
            stdout=asyncio.subprocess.DEVNULL,
            stderr=open(self.folder / f"worker{i}.err", "a"),  # noqa: SIM115
        )

    async def kill_worker(self, i: int) -> None:
        self.events.append((time.time(), f"worker {i} kill -9"))
        with contextlib.suppress(ProcessLookupError):
            self.procs[i].kill()
        await self.procs[i].wait()

    async def revive(self) -> None:
        """Start again a worker that exited (as ``restart: unless-stopped`` does): one that
        started while Redis was down gives up with one line."""
        for i, p in self.procs.items():
            if p.returncode is not None:
                await self.start_worker(i)

    async def stop(self) -> None:
        for p in self.procs.values():
            if p.returncode is None:
                p.send_signal(signal.SIGTERM)
        for p in self.procs.values():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(p.wait(), 15)
            if p.returncode is None:
                p.kill()
        if self.redis is not None and self.redis.returncode is None:
            self.redis.kill()
            await self.redis.wait()


def _embedded_binary() -> Path:
    from bot.embedded_redis import default_server_binary

    return default_server_binary()


@dataclass
class Tally:
    acked: dict[str, dict[str, int]] = field(default_factory=dict)  # room -> user -> presses
    unanswered: int = 0  # presses no worker answered before the end
    failed_after: list[str] = field(default_factory=list)  # 5xx after Redis was back
    refused_extra: int = 0
    extra_accepted: list[str] = field(default_factory=list)  # a stale/foreign press taken


class Driver:
    def __init__(self, fleet: Fleet, tally: Tally, seed: int, until: float) -> None:
        self.fleet, self.tally, self.until = fleet, tally, until
        self.rng = random.Random(seed)
        self.session: aiohttp.ClientSession | None = None

    async def deliver(
        self, op: str, args: dict[str, Any], upd: str | None, copies: int = 1
    ) -> dict[str, Any] | None:
        """Deliver an update to random workers until one answers (as a platform redelivers
        an unanswered webhook), ``copies`` at once the first time."""
        assert self.session is not None
        deadline = time.time() + 60
        while time.time() < deadline:
            sends = [self._send(op, dict(args), upd) for _ in range(copies)]
            answers = [a for a in await asyncio.gather(*sends) if a is not None]
            if answers:
                return (
                    answers[0]
                    if not any(a.get("ok") for a in answers)
                    else next(a for a in answers if a.get("ok"))
                )
            copies = 1
            await asyncio.sleep(0.2 + self.rng.random() * 0.3)
        self.tally.unanswered += 1
        return None

    async def _send(self, op: str, args: dict[str, Any], upd: str | None) -> dict[str, Any] | None:
        assert self.session is not None
        port = self.rng.choice(self.fleet.ports)
        sent = time.time()
        try:
            async with self.session.post(
                f"http://127.0.0.1:{port}/call",
                json={"op": op, "args": args, "update_id": upd},
                timeout=aiohttp.ClientTimeout(total=20),
            ) as resp:
                body: dict[str, Any] = await resp.json()
                if resp.status >= 500:
                    if self.fleet.answering(sent, time.time()):
                        self.tally.failed_after.append(f"{op}: {body.get('error')}")
                    return None
                return body
        except (aiohttp.ClientError, TimeoutError, json.JSONDecodeError):
            return None  # a dead worker: the platform tries again

    def upd(self) -> str:
        return f"cb{self.rng.randrange(10**18, 10**19)}"

    async def table(self, i: int, all_rooms: list[str]) -> None:
        rng = self.rng
        chat = f"-{1000 + i}"
        rid = f"tg:{chat}"
        people = [{"user": f"tg:{i}x{j}", "name": f"P{i}.{j}"} for j in range(rng.randint(1, 3))]
        out = await self.deliver(
            "create", {**people[0], "chat": chat, "size": 4}, self.upd(), rng.randint(1, 3)
        )
        if out is None or not out.get("ok"):
            return
        for p in people[1:]:
            await self.deliver("join", {**p, "room": rid}, self.upd(), rng.randint(1, 3))
        for _ in range(4 - len(people)):
            await self.deliver("add_bot", {**people[0], "room": rid}, self.upd(), rng.randint(1, 3))
        await self.deliver("start", {**people[0], "room": rid}, self.upd(), rng.randint(1, 3))
        acked = self.tally.acked.setdefault(rid, {})
        old: list[tuple[dict[str, str], str]] = []
        while time.time() < self.until:
            await asyncio.sleep(0.3 + rng.random() * 1.2)  # a person thinks
            seen = await self.deliver("hands", {"room": rid, "users": [p["user"] for p in people]}, None)
            if seen is not None and seen["state"] == "finished":
                return
            if seen is None or seen["state"] != PLAYING or seen["mover"] is None:
                continue
            p = next(q for q in people if q["user"] == seen["mover"]["user"])
            token = rng.choice(seen["mover"]["choices"])
            res = await self.deliver("act", {**p, "token": token}, self.upd(), rng.randint(1, 3))
            if res is not None and res.get("ok"):
                acked[p["user"]] = acked.get(p["user"], 0) + 1
                old.append((p, token))
            if old and rng.random() < 0.3:
                await self.extra(rid, people, old, all_rooms)

    async def extra(
        self,
        rid: str,
        people: list[dict[str, str]],
        old: list[tuple[dict[str, str], str]],
        all_rooms: list[str],
    ) -> None:
        """A stale press (someone else's old button) or a foreign one (another table's)."""
        p, token = self.rng.choice(old)
        other = [q for q in people if q is not p] or [{"user": "tg:stranger", "name": "X"}]
        q = self.rng.choice(other)
        foreign = self.rng.choice(all_rooms)
        kind, args = self.rng.choice(
            [
                ("stale", {**q, "token": token}),
                ("foreign", {**p, "token": token, "room_id": foreign}),
            ]
        )
        if kind == "foreign" and foreign == rid:
            return
        res = await self.deliver("act", args, self.upd())
        if res is not None and res.get("ok") and not res.get("repeat"):
            self.tally.extra_accepted.append(f"{kind} {rid}")
        else:
            self.tally.refused_extra += 1


async def chaos(fleet: Fleet, tally: Tally, seconds: float, kill_every: float, rng: random.Random) -> None:
    start = time.time()
    redis_kill, redis_restart = start + seconds * 0.4, start + seconds * 0.7
    while time.time() < start + seconds:
        await asyncio.sleep(kill_every * (0.5 + rng.random()))
        await fleet.revive()
        now = time.time()
        if redis_kill and now >= redis_kill:
            redis_kill = 0
            await fleet.kill_redis(clean=False)
            await asyncio.sleep(0.5)
            await fleet.start_redis()
            continue
        if redis_restart and now >= redis_restart:
            redis_restart = 0
            await fleet.kill_redis(clean=True)
            await fleet.start_redis()
            continue
        i = rng.randrange(len(fleet.ports))
        await fleet.kill_worker(i)
        await asyncio.sleep(0.3)
        await fleet.start_worker(i)


@dataclass
class Frozen:
    """A room seen past its due time + GRACE: when it was due, how late it was when seen
    (the worst sighting), and whether it moved at all afterwards."""

    due: float
    late: float
    version: int
    moved_later: bool = False


async def watch(fleet: Fleet, rooms: list[str], until: float, frozen: dict[str, Frozen]) -> None:
    """A room is frozen when its due time (or Redis's return, if later) + GRACE passed and it
    has not moved."""
    r = Redis(port=fleet.redis_port)
    try:
        while time.time() < until:
            await asyncio.sleep(0.5)
            if fleet.redis_down is not None:
                continue
            # a room not moved in the snapshot had not moved when the snapshot was asked for:
            # that time, not the time this busy process reads the answer, says how late it is
            now = time.time()
            try:
                pipe = r.pipeline(transaction=False)
                for rid in rooms:
                    pipe.hmget(keys.room(rid), ["v", "doc"])
                docs = await pipe.execute()
            except Exception:
                continue
            back = fleet.redis_back[-1] if fleet.redis_back else 0
            for rid, (v, doc) in zip(rooms, docs, strict=True):
                if doc is None:
                    continue
                version = int(v or 0)
                seen = frozen.get(rid)
                if seen is not None and version > seen.version:
                    seen.moved_later = True
                d = json.loads(unpack_doc(doc))
                dl = d.get("deadline")
                if d["state"] != PLAYING or dl is None:
                    continue
                late = now - max(dl, back)
                if late > GRACE and (seen is None or late > seen.late):
                    frozen[rid] = Frozen(dl, late, version, False)
    finally:
        await r.aclose()


def causes(fleet: Fleet, frozen: dict[str, Frozen]) -> dict[str, int]:
    """The last fault within ``GRACE`` seconds of each frozen room's due time."""
    out: dict[str, int] = {}
    for f in frozen.values():
        near = [what for t, what in fleet.events if f.due - GRACE <= t <= f.due + GRACE]
        why = (
            near[-1].replace(near[-1].split(" ")[1] + " ", "")
            if near and near[-1].startswith("worker")
            else (near[-1] if near else "no fault near")
        )
        if not f.moved_later:
            why += ", never moved again"
        out[why] = out.get(why, 0) + 1
    return out


async def verify(fleet: Fleet, tally: Tally, rooms: list[str]) -> dict[str, Any]:
    settings = Settings(redis_url=fleet.url)
    store = await open_store(settings)
    service = GameService(store, settings)
    consistent = lost = doubles = 0
    sizes = []
    try:
        for rid in rooms:
            room = await service.room(rid)
            if room is None or room.match is None:
                continue
            match = new_match(room.rules, seed=room.match["seed"])
            by_seat: dict[int, int] = {}
            ok = True
            for dealing in room.log:
                for packed in filter(None, dealing.split(",")):
                    seat, action = unpack_action(packed)
                    try:
                        match.apply(seat, action)
                    except Exception:
                        ok = False
                    by_seat[seat] = by_seat.get(seat, 0) + 1
            consistent += int(ok and match.to_state() == room.match)
            for user, n in tally.acked.get(rid, {}).items():
                seat = room.seat_of(user)
                logged = by_seat.get(seat, 0) if seat is not None else 0
                lost += max(0, n - logged)
                doubles += max(0, logged - n)
            total = 0
            for k in await store.room_keys(rid):
                total += await store.redis.memory_usage(k, samples=0) or 0
            sizes.append(total)
    finally:
        await store.close()
    return {
        "consistent": consistent,
        "lost": lost,
        "doubles": doubles,
        "max_bytes": max(sizes or [0]),
        "rooms_checked": len(sizes),
    }


def worker_logs(folder: Path, fleet: Fleet) -> tuple[list[float], list[str]]:
    lags: list[float] = []
    failures: list[str] = []
    for f in folder.glob("worker*.jsonl"):
        for line in f.read_text().splitlines():
            with contextlib.suppress(json.JSONDecodeError):
                e = json.loads(line)
                if "lag" in e:
                    lags.append(float(e["lag"]))
                elif "err" in e and fleet.answering(e["t"]):
                    failures.append(e["err"])
    return lags, failures


async def run(args: argparse.Namespace) -> None:
    folder = Path(tempfile.mkdtemp(prefix="kozel-chaos-"))
    fleet = Fleet(folder, free_port(), [free_port() for _ in range(args.workers)])
    tally = Tally()
    rng = random.Random(args.seed)
    await fleet.start_redis()
    for i in range(args.workers):
        await fleet.start_worker(i)
    await asyncio.sleep(3)  # the workers import and connect
    rooms = [f"tg:-{1000 + i}" for i in range(args.rooms)]
    until = time.time() + args.seconds
    frozen: dict[str, Frozen] = {}
    probe = Redis(port=fleet.redis_port)
    server = (await probe.info("server")).get("redis_version")
    await probe.aclose()
    print(f"{machine()}; Redis server {server}")
    print(
        f"{args.rooms} rooms, {args.workers} workers, {args.seconds:.0f} s of chaos, then "
        f"{args.settle:.0f} s quiet; Redis {fleet.url} with AOF in {folder}"
    )
    try:
        async with aiohttp.ClientSession() as session:
            drivers = []
            for i in range(args.rooms):
                d = Driver(fleet, tally, args.seed * 10_000 + i, until + args.settle)
                d.session = session
                drivers.append(d)
            tasks = [asyncio.create_task(d.table(i, rooms)) for i, d in enumerate(drivers)]
            watcher = asyncio.create_task(watch(fleet, rooms, until + args.settle, frozen))
            await chaos(fleet, tally, args.seconds, args.kill_every, rng)
            await asyncio.sleep(1)
            await fleet.revive()
            await watcher
            await asyncio.gather(*tasks)
        result = await verify(fleet, tally, rooms)
    finally:
        await fleet.stop()
    lags, failures = worker_logs(folder, fleet)
    lags.sort()
    failed = len(tally.failed_after) + len(failures)
    print(f"rooms consistent: {result['consistent']} of {result['rooms_checked']}")
    print(f"acknowledged presses lost: {result['lost']}")
    print(f"presses applied twice: {result['doubles']}")
    print(f"frozen rooms: {len(frozen)} {sorted(frozen)[:5]}")
    if frozen:
        worst = max(f.late for f in frozen.values())
        print(f"  the latest {worst:.1f} s after due; the fault near each: {causes(fleet, frozen)}")
    print(f"calls failed after Redis answered again: {failed} {(tally.failed_after + failures)[:3]}")
    print(f"max room: {result['max_bytes'] / 1024:.1f} KB (target <= {TARGET_BYTES // 1024} KB)")
    if lags:
        p50, p90 = lags[len(lags) // 2], lags[int(len(lags) * 0.9)]
        print(
            f"computer moves after due: p50 {p50:.2f} s, p90 {p90:.2f} s, max {lags[-1]:.2f} s "
            f"over {len(lags)} moves (target p90 <= {TARGET_P90} s)"
        )
    print(
        f"(presses never answered: {tally.unanswered}; stale/foreign presses refused: "
        f"{tally.refused_extra}, taken: {len(tally.extra_accepted)}; Redis restarts: "
        f"{len(fleet.redis_back) - 1}; mean lag {statistics.mean(lags or [0]):.2f} s)"
    )
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")
    shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd")
    w = sub.add_parser("worker")
    w.add_argument("--port", type=int, required=True)
    w.add_argument("--redis", required=True)
    w.add_argument("--log", type=Path, required=True)
    ap.add_argument("--workers", type=int, default=3)
    ap.add_argument("--rooms", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=90.0)
    ap.add_argument("--settle", type=float, default=15.0)
    ap.add_argument("--kill-every", type=float, default=4.0)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    if args.cmd == "worker":
        asyncio.run(worker(args.port, args.redis, args.log))
    else:
        asyncio.run(run(args))


if __name__ == "__main__":
    main()
