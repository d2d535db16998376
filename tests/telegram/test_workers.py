"""Issue 12 items 5 and 8 on the Telegram side: several workers draw one chat's table
(never an older version after a newer one, one flood budget), and a worker stops cleanly
(no more updates, handlers finished, painter drained) and redraws stale tables at start."""

from __future__ import annotations

import asyncio

from redis.asyncio import Redis

from adapters.telegram.app import build, make_bot, run
from bot.config import Settings
from bot.service import GameService
from bot.store import Store
from tests.fakes.telegram import close_session_fast
from tests.pieces import pieces
from tests.telegram.harness import Env, telegram


async def open_table(env: Env) -> None:
    anna = env.users[0]
    await env.say(anna, "/newgame kozel")
    for _ in range(3):
        await env.press(anna, env.table_message(), "L:bot")
    await env.press(anna, env.table_message(), "L:start")


async def computers_to_move(env: Env) -> None:
    """Anna moves until it is a computer player's turn."""
    for _ in range(10):
        room = await env.room()
        hand = env.service.hand_of(room, f"tg:{env.users[0].id}")
        if hand is None or not hand.on_move:
            return
        await env.play(env.users[0], next(c for c in hand.choices if c.kind != "declare"))
    raise AssertionError("Anna is always to move")


async def second_worker(env: Env) -> tuple[GameService, object, object]:
    """Another process on the same Redis and the same Telegram (no polling of its own:
    behind a load balancer it gets its share of the updates)."""
    service = GameService(Store(env.redis), env.settings, env.clock)
    bot = make_bot(env.settings)
    app = await build(bot, pieces(service), env.settings, env.clock)
    return service, app, bot


async def test_an_older_room_is_never_drawn_after_a_newer_one(redis: Redis) -> None:
    async with telegram(redis) as env:
        await open_table(env)
        await env.drain()
        service_b, app_b, bot_b = await second_worker(env)
        try:
            painter_a, painter_b = env.app.painter, app_b.painter  # type: ignore[attr-defined]
            # worker A commits a computer's move (v5) but draws late; B commits the next
            # (v6) and draws at once
            await computers_to_move(env)
            env.clock.advance(1.5)
            assert await pieces(env.service).timers.run_timers() == 1
            await computers_to_move(env)
            env.clock.advance(1.5)
            assert await pieces(service_b).timers.run_timers() == 1
            env.clock.advance(10)
            await painter_b.flush()
            table = env.table_message()
            shown = table.text
            edits = len(table.versions)
            await painter_a.flush()  # A's older change: nothing older is drawn over it
            assert table.text == shown and len(table.versions) == edits
            room = await env.room()
            assert await pieces(env.service).platform.leases.drawn_version(room.id, "table") == room.version
        finally:
            await close_session_fast(bot_b)  # type: ignore[arg-type]


async def test_one_flood_budget_for_every_worker(redis: Redis) -> None:
    async with telegram(redis) as env:
        await open_table(env)
        await env.drain()
        service_b, app_b, bot_b = await second_worker(env)
        try:
            await computers_to_move(env)
            env.clock.advance(1.5)
            await pieces(env.service).timers.run_timers()
            await env.flush()  # A draws: the budget's gap starts now
            await computers_to_move(env)
            env.clock.advance(1.5)
            await pieces(service_b).timers.run_timers()
            before = len(env.fake.limits.group_writes[env.group.id])
            await app_b.painter.flush()  # type: ignore[attr-defined]
            assert len(env.fake.limits.group_writes[env.group.id]) == before  # B waits A's gap
            env.clock.advance(4)
            await app_b.painter.flush()  # type: ignore[attr-defined]
            assert len(env.fake.limits.group_writes[env.group.id]) == before + 1
        finally:
            await close_session_fast(bot_b)  # type: ignore[arg-type]


async def test_stop_drains_and_returns_and_start_redraws_stale_tables(redis: Redis) -> None:
    async with telegram(redis) as env:
        await open_table(env)
        await env.drain()
        # a worker died between its commit and its drawing: the table on screen is old
        await computers_to_move(env)
        await env.drain()
        env.clock.advance(1.5)
        env.service.listeners.clear()
        assert await pieces(env.service).timers.run_timers() == 1
        table = env.table_message()
        edits = len(table.versions)
        stale = table.text
        await env.app.dispatcher.stop_polling()
        # a new worker starts: ``python -m bot telegram`` with its stop event
        settings = Settings(
            bot_token=env.fake.token, telegram_api_url=env.fake.base_url, default_language="ru"
        )
        service = GameService(Store(redis), settings, env.clock)
        stop = asyncio.Event()
        env.clock.advance(10)
        worker = asyncio.create_task(run(settings, pieces(service), stop))
        await env.fake.wait_for(
            lambda: len(table.versions) > edits, timeout=10, what="the stale table redrawn at start"
        )
        assert table.text != stale
        # a command in flight when the stop comes is still answered
        env.fake.user_message(env.group, env.users[0], "/score")
        await env.fake.wait_for(
            lambda: any(
                c.method == "sendMessage" and "Счёт" in str(c.params.get("text"))
                for c in env.fake.api_calls()
            ),
            timeout=10,
            what="the /score answer",
        )
        stop.set()
        await asyncio.wait_for(worker, 15)  # returns, bounded
        room = await env.room()
        assert await pieces(service).platform.leases.drawn_version(room.id, "table") == room.version
