"""Running the Discord adapter as the composition root does (issue 12, items 8 and 10;
issue 17's start-up): ``run(settings, services, stop)`` serves until ``stop`` is set, then
serves no new interaction, draws what is left and closes; tables that changed while no
process drew them are redrawn at start; Discord mode never imports aiogram."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from redis.asyncio import Redis

from adapters.common.render import Text
from adapters.discord import app as app_module
from adapters.discord import texts
from adapters.discord.app import KozelClient, run
from bot.clock import ManualClock
from bot.config import Settings
from bot.room import User
from bot.service import GameService
from bot.store import Store
from tests.fakes.discord import HANG, FakeDiscord
from tests.pieces import pieces

from .harness import (
    DELAY,
    ClockSleeper,
    Harness,
    make_settings,
    people_and_bots,
    person,
    refusal_text,
    rid,
    snapshot,
    uid,
)

ROOT = Path(__file__).resolve().parents[2]


async def test_run_serves_until_stop_then_draws_what_is_left_and_closes(
    fake: FakeDiscord, store: Store, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[KozelClient] = []
    born = asyncio.Event()
    sleeper = ClockSleeper(clock)

    class QuickClient(KozelClient):
        def __init__(self, *args: Any, **kw: Any) -> None:
            super().__init__(*args, guild_ready_timeout=0.01, sleep=sleeper.sleep, **kw)
            made.append(self)
            born.set()

    monkeypatch.setattr(app_module, "KozelClient", QuickClient)
    settings = make_settings(discord_token=fake.token)
    service = GameService(store, settings, clock)
    stop = asyncio.Event()
    task = asyncio.create_task(run(settings, pieces(service), stop))
    try:
        await asyncio.wait_for(born.wait(), HANG)
        client = made[0]
        await asyncio.wait_for(client.wait_until_ready(), HANG)
        for name, options in (("newgame", {"players": 2}), ("addbot", None), ("startgame", None)):
            clock.advance(1.5)
            inter = await fake.interaction_command(fake.alice, fake.games, name, options)
            await fake.wait_for_response(inter)
        # the root's timer loop makes the computer's moves: here by hand, on the clock
        for _ in range(6):
            room = await service.room(rid(fake.games))
            assert room is not None
            seat = room.seats[room.load_match().to_act()[0]]
            assert seat is not None
            clock.advance(DELAY)
            if seat.computer:
                assert await pieces(service).timers.run_timers() == 1
            else:
                hand = service.hand_of(room, uid(fake.alice))
                assert hand is not None
                assert (await service.act(hand.choices[0].token, User(uid(fake.alice), "Alice"))).ok
        stop.set()  # SIGTERM: no new interaction served, the last change still drawn
        async with asyncio.timeout(HANG):
            while not task.done():
                due = sleeper.next_due()
                if due is not None:  # a paced drawing waits: time passes for it
                    clock.advance(max(0.0, due - clock.now()))
                    sleeper.wake()
                sleeper.asleep.clear()
                asleep = asyncio.create_task(sleeper.asleep.wait())
                await asyncio.wait({task, asleep}, return_when=asyncio.FIRST_COMPLETED)
                asleep.cancel()
        await task
    finally:
        stop.set()
        if not task.done():
            task.cancel()
    assert client.is_closed()
    room = await service.room(rid(fake.games))
    assert (
        room is not None
        and await pieces(service).platform.leases.drawn_version(room.id, "table") == room.version
    )


async def test_a_press_while_stopping_gets_a_word_and_changes_nothing(
    h: Harness, fake: FakeDiscord, redis: Redis
) -> None:
    ch = fake.games
    await h.command(fake.alice, ch, "newgame")
    table = await h.table(ch)
    before = await snapshot(redis)
    h.client.doing.stopping = True  # SIGTERM came: the gateway is still open a moment
    inter = await h.press(fake.bob, table, "kz:t:join")
    assert "restarting" in refusal_text(h, inter)
    assert await snapshot(redis) == before
    await asyncio.wait_for(h.client.stop_serving(5.0), HANG)  # nothing in flight: at once
    h.client.doing.stopping = False


async def test_tables_changed_while_nobody_drew_them_are_redrawn_at_start(
    h: Harness, fake: FakeDiscord, redis: Redis, redis_url: str, settings: Settings, clock: ManualClock
) -> None:
    """A worker that died between its commit and its drawing (or moves made while no
    Discord process ran): the next start redraws the table and the live hands."""
    ch = fake.games
    await people_and_bots(h, fake, ch)
    table = await h.table(ch)
    hands = {u.id: await h.open_hand(u, ch) for u in (fake.alice, fake.bob)}
    await h.stop()
    store = Store(Redis.from_url(redis_url))
    try:
        headless = GameService(store, settings, clock)  # commits, draws nothing
        headless.on_change(h.guard.listener)  # (what it makes public, the guard learns)
        room = await headless.room(rid(ch))
        assert room is not None
        user = person(room, fake)
        hand = headless.hand_of(room, uid(user))
        assert hand is not None
        choice = next(c for c in hand.choices if c.kind != "declare")
        assert (await headless.act(choice.token, User(uid(user), user.username))).ok
        shown = table.text()
        h2 = await Harness.start(fake, redis, settings, clock, GameService(store, settings, clock), after=h)
        try:
            await h2.flush()
            room = await h2.room(ch)
            assert table.text() != shown
            assert texts.table_text(Text("en"), h2.service.table_of(room)) == table.text()
            for u in (fake.alice, fake.bob):
                view = h2.service.hand_of(room, uid(u))
                assert view is not None
                assert texts.hand_text(Text("en"), view) in hands[u.id].text()
        finally:
            await h2.stop()
    finally:
        await store.close()


# ``python -m bot discord`` with discord.py pointed at the fake (as ``patch_discord_py`` does
# in this process): the argv are the fake's REST base and gateway
LAUNCH = "; ".join(
    [
        "import sys, yarl",
        "from discord.http import Route",
        "from discord.gateway import DiscordWebSocket",
        "Route.BASE = sys.argv[1]",
        "DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(sys.argv[2])",
        "from bot.__main__ import main",
        "sys.exit(main(['discord']))",
    ]
)


async def test_sigterm_stops_the_discord_bot_cleanly(redis_url: str, redis: Redis, tmp_path: Path) -> None:
    """Issue 14, item 2: the bot as docker runs it, against the fake Discord (on the real
    clock: another process). Up, it answers /newgame and posts the table; SIGTERM stops
    it with exit 0: the gateway closed by the bot, no traceback, no voice warning."""
    async with FakeDiscord() as fake:
        env = {
            **os.environ,
            "REDIS_URL": redis_url,
            "DISCORD_TOKEN": fake.token,
            "DEFAULT_LANGUAGE": "en",
            "HEARTBEAT_FILE": str(tmp_path / "heartbeat"),
        }
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            LAUNCH,
            fake.api_base,
            fake.gateway_url,
            cwd=ROOT,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            # up: its commands synced, its gateway session ready
            await fake.wait_for(lambda: fake.command("newgame", fake.guild), what="commands")
            conn = await fake.gateway.wait_until_connected()
            inter = await fake.interaction_command(fake.alice, fake.games, "newgame")
            await fake.wait_for_response(inter)
            table = await fake.wait_for_message(lambda m: "kz:t:join" in m.custom_ids(), channel=fake.games)
            proc.send_signal(signal.SIGTERM)
            out, err = await asyncio.wait_for(proc.communicate(), HANG)
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
        await fake.wait_for(lambda: conn.closed or conn.ws.closed, what="gateway closed")
    log = err.decode()
    assert proc.returncode == 0, log[-2000:]
    assert "Traceback" not in log and "voice will NOT be supported" not in log
    assert "Alice" in table.text()


def test_discord_mode_does_not_import_aiogram() -> None:
    """Issue 17: aiogram costs seconds of CPU to import; Discord mode never loads it."""
    code = (
        "import sys, bot.__main__, adapters.discord.app; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'aiogram'))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip() == "[]", out.stdout
