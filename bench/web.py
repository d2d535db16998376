"""The web table's speed (issue 34).

1. **A press to the other screen**: two Chromium browsers (Debian's, driven by Playwright),
   two people at one kozel-60 table through the real server, service and Redis. Each press
   of a move's button in one browser is timed to the moment the other browser paints the
   new state (both read ``performance.timeOrigin + now()``, one clock): p50 and p95 (goal:
   p95 <= 150 ms). Presses come 0.3 s apart, a quick person's pace.
2. **One worker, many sockets**: one web worker (this process: the service, the server,
   a ticker measuring the event loop's lag) holds ``--tables`` x 4 sockets, four people a
   kozel table, opened by a client process of plain aiohttp WebSockets whose people move
   at a person's pace (1-3 s after their turn comes). Frames out a second, moves a second,
   the worker's CPU (its own process time) and the loop lag p50 / p99 / max (goal p99 <
   20 ms).

    python bench/web.py [--presses 60] [--tables 250] [--seconds 60]

Uses ``REDIS_URL`` (rooms of its own chats, left to expire) or the embedded Redis.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parents[1])

from adapters.web.server import WebTable  # noqa: E402
from bot import invites  # noqa: E402
from bot.config import Settings  # noqa: E402
from bot.room import User  # noqa: E402
from bot.service import GameService  # noqa: E402
from bot.store import Store  # noqa: E402

TOKEN = "123456:bench-web-token"
PACE = 0.3  # seconds between presses (the server refuses more than 20 frames in 5 s)
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def sign(user_id: int, name: str, link: str) -> str:
    """Telegram's initData for ``user_id``, signed with the bench's bot token."""
    import hashlib
    import hmac
    from urllib.parse import urlencode

    fields = {
        "user": json.dumps({"id": user_id, "first_name": name, "language_code": "en"}),
        "auth_date": str(int(time.time())),
        "start_param": link,
    }
    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    secret = hmac.new(b"WebAppData", TOKEN.encode(), hashlib.sha256).digest()
    fields["hash"] = hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()
    return urlencode(fields)


def header() -> str:
    from importlib.metadata import version

    pw = version("playwright")
    return (
        f"# {time.strftime('%Y-%m-%d %H:%M')} · Python {platform.python_version()} · load "
        + " ".join(f"{x:.1f}" for x in os.getloadavg())
        + f" · {os.cpu_count()} CPUs · aiohttp {version('aiohttp')}, redis-py {version('redis')},"
        f" playwright {pw}, Chromium {chromium_version()}"
    )


def chromium_version() -> str:
    try:
        out = subprocess.run([CHROMIUM, "--version"], capture_output=True, text=True, timeout=30).stdout
    except OSError:
        return "not installed"
    words = out.split()  # "Chromium 156.0.8078.114 built on Debian ..."
    return words[1] if len(words) > 1 else "?"


def settings() -> Settings:
    # nobody is hurried and no computer player sits: every move is a person's
    return Settings(bot_token=TOKEN, turn_seconds=10**6, bot_delay_seconds=10**6, default_language="en")


async def open_store(data: str) -> Store:
    return await Store.connect(os.environ.get("REDIS_URL"), data)


async def seat_table(service: GameService, chat: int, preset: str, people: list[User]) -> str:
    out = await service.create("tg", str(chat), None, people[0], preset, size=len(people))
    assert out.ok and out.room is not None, out.reason
    for person in people[1:]:
        assert (await service.join(out.room.id, person)).ok
    started = await service.start(out.room.id, people[0], seed=chat % 1000)
    assert started.ok and started.room is not None, started.reason
    return invites.payload_of(started.room)


# --- 1. a press in one browser to the other's screen ------------------------------------------


async def press_latency(presses: int, data: str) -> str:
    from playwright.async_api import async_playwright

    store = await open_store(data)
    service = GameService(store, settings())
    web = WebTable(service, service.chats)
    port = await web.start("127.0.0.1", 0)
    base = -1_009_100_000_000 - random.randrange(10**6)
    people = [User("tg:77001", "Ann"), User("tg:77002", "Bob")]
    link = await seat_table(service, base, "kozel-60", people)
    delays: list[float] = []
    try:
        async with async_playwright() as p:
            browsers = [await p.chromium.launch(executable_path=CHROMIUM, args=ARGS) for _ in people]
            pages = []
            for browser, person in zip(browsers, people, strict=True):
                page = await browser.new_page(viewport={"width": 390, "height": 844})
                init = sign(int(person.id[3:]), person.name, link)
                await page.add_init_script(
                    f"window.Telegram = {{WebApp: {{initData: {json.dumps(init)}, initDataUnsafe: {{}}}}}};"
                )
                await page.goto(f"http://127.0.0.1:{port}/")
                pages.append(page)
            rid = f"tg:{base}"
            while len(delays) < presses:
                room = await service.room(rid)
                assert room is not None
                if room.state != "playing":
                    await service.rematch(rid, people[0])
                    continue
                for page in pages:
                    await page.wait_for_function(
                        "v => Number(document.body.dataset.drawnVersion ?? -1) >= v", arg=room.version
                    )
                on_move = [(h := service.hand_of(room, u.id)) is not None and h.on_move for u in people]
                mover = on_move.index(True)
                hand = service.hand_of(room, people[mover].id)
                assert hand is not None
                choice = random.Random(len(delays)).choice(hand.choices)
                page, other = pages[mover], pages[1 - mover]
                await asyncio.sleep(PACE)  # a person's pace: within the socket's flood limit
                for card in choice.cards if choice.mask else []:
                    await page.click(f'#hand .card[data-card="{card}"]', position={"x": 9, "y": 30})
                pressed = await page.evaluate(
                    """t => { const b = document.querySelector(`#actions button[data-token="${t}"]`);
                       const at = performance.timeOrigin + performance.now(); b.click(); return at; }""",
                    choice.token,
                )
                await other.wait_for_function(
                    "v => Number(document.body.dataset.drawnVersion ?? -1) >= v", arg=room.version + 1
                )
                drawn = float(await other.evaluate("() => document.body.dataset.drawnAt"))
                delays.append(drawn - pressed)
            for browser in browsers:
                await browser.close()
    finally:
        await web.close()
        await service.close()
    q = statistics.quantiles(delays, n=20, method="inclusive") if len(delays) >= 2 else [delays[0]] * 19
    return (
        f"press to the other browser's screen: {len(delays)} presses, p50 {statistics.median(delays):.1f} ms,"
        f" p95 {q[18]:.1f} ms, max {max(delays):.1f} ms (goal p95 <= 150 ms)"
    )


# --- 2. one worker, many sockets ---------------------------------------------------------------


async def people_process(plan_file: str, port: int, seconds: float, pace: tuple[float, float]) -> None:
    """The client side (a process of its own): every person's socket, moving at a
    person's pace when his turn comes."""
    import aiohttp

    plan = json.loads(Path(plan_file).read_text())
    rng = random.Random(5)
    stop = time.monotonic() + seconds
    ready = asyncio.Event()
    opened = 0

    async def person(session: aiohttp.ClientSession, link: str, uid: int) -> None:
        nonlocal opened
        async with session.ws_connect(f"http://127.0.0.1:{port}/ws", max_msg_size=0) as ws:
            await ws.send_str(json.dumps({"type": "hello", "init": sign(uid, f"P{uid}", link)}))
            opened += 1
            if opened == len(plan) * 4:
                ready.set()
            turn: asyncio.Task[None] | None = None
            n = 0

            async def move_later(token: str) -> None:
                nonlocal n
                await asyncio.sleep(rng.uniform(*pace))
                n += 1
                await ws.send_str(json.dumps({"type": "act", "token": token, "id": f"m{n}"}))

            while time.monotonic() < stop:
                try:
                    msg = await ws.receive(timeout=max(0.1, stop - time.monotonic()))
                except TimeoutError:
                    break
                if msg.type != aiohttp.WSMsgType.TEXT:
                    break
                frame = json.loads(msg.data)
                if frame.get("type") != "state":
                    continue
                hand = frame.get("hand")
                if turn is not None and not turn.done():
                    turn.cancel()
                if frame["table"]["finished"] and frame["me"] == 0:
                    n += 1
                    await ws.send_str(json.dumps({"type": "again", "id": f"a{n}"}))
                elif hand and hand["onMove"] and hand["choices"]:
                    choice = rng.choice(hand["choices"])
                    turn = asyncio.create_task(move_later(choice["token"]))

    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as session:
        await asyncio.gather(
            *(person(session, t["link"], uid) for t in plan for uid in t["people"]), return_exceptions=True
        )


async def many_sockets(tables: int, seconds: float, data: str) -> str:
    store = await open_store(data)
    service = GameService(store, settings())
    web = WebTable(service, service.chats)
    port = await web.start("127.0.0.1", 0)
    base = -1_009_200_000_000 - random.randrange(10**6) * 1000
    plan = []
    for t in range(tables):
        people = [User(f"tg:{880000 + t * 4 + k}", f"P{t}.{k}") for k in range(4)]
        link = await seat_table(service, base - t, "kozel", people)
        plan.append({"link": link, "people": [int(u.id[3:]) for u in people]})
    plan_file = Path(data) / "plan.json"
    plan_file.write_text(json.dumps(plan))
    lags: list[float] = []
    running = True

    async def ticker() -> None:
        while running:
            t = time.perf_counter()
            await asyncio.sleep(0.01)
            lags.append(max(0.0, time.perf_counter() - t - 0.01) * 1000)

    warm = 3.0  # after the last socket opened: the first frames go out
    client = await asyncio.create_subprocess_exec(
        sys.executable,
        __file__,
        "--people",
        str(plan_file),
        "--port",
        str(port),
        "--seconds",
        str(seconds + warm + 120),
        stdout=asyncio.subprocess.PIPE,
    )
    tick = asyncio.create_task(ticker())
    opening = time.perf_counter()
    while web.open_sockets < tables * 4 and time.perf_counter() - opening < 120:
        await asyncio.sleep(0.1)
    opened = time.perf_counter() - opening
    await asyncio.sleep(warm)
    lags.clear()
    moves0 = web.counters.frames_in
    frames0, cpu0, wall0 = web.counters.frames_out, time.process_time(), time.perf_counter()
    sockets0 = web.open_sockets
    await asyncio.sleep(seconds)
    moves1 = web.counters.frames_in
    frames1, cpu1, wall1 = web.counters.frames_out, time.process_time(), time.perf_counter()
    sockets1 = web.open_sockets
    running = False
    await tick
    client.terminate()
    await client.wait()
    await web.close()
    await service.close()
    span = wall1 - wall0
    q = statistics.quantiles(lags, n=100, method="inclusive")
    frames_out, moves_in, cpu = (frames1 - frames0) / span, (moves1 - moves0) / span, (cpu1 - cpu0) / span
    return (
        f"one worker: {min(sockets0, sockets1)}-{max(sockets0, sockets1)} sockets on {tables} tables for"
        f" {span:.0f} s (all open {opened:.1f} s after the start): {frames_out:.0f} frames out/s,"
        f" {moves_in:.0f} moves in/s, worker CPU {100 * cpu:.0f}% of a core, loop lag p50"
        f" {statistics.median(lags):.2f} ms, p99 {q[98]:.2f} ms, max {max(lags):.1f} ms (goal p99 < 20 ms)"
    )


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--presses", type=int, default=60)
    ap.add_argument("--tables", type=int, default=250)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--pace", default="1,3", help="a person's seconds to move: low,high")
    ap.add_argument("--people", help=argparse.SUPPRESS)  # the client process
    ap.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    low, high = (float(x) for x in args.pace.split(","))
    if args.people:
        await people_process(args.people, args.port, args.seconds, (low, high))
        return
    print(header(), flush=True)
    with tempfile.TemporaryDirectory() as data:
        if args.presses:
            print(await press_latency(args.presses, data), flush=True)
        if args.tables:
            print(await many_sockets(args.tables, args.seconds, data), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
