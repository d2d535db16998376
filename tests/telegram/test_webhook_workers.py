"""Scaling Telegram (issue 12.10): long polling allows one consumer a token, so a busy bot
runs webhook workers behind a load balancer. Two workers (each its own service and Redis
pool, one Redis) take updates over HTTP, a redelivered update sometimes going to the other
one: every update changes the room once, and one table message is drawn for the chat.
Health and readiness answer for the balancer."""

from __future__ import annotations

import contextlib
import itertools
import socket
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
from aiohttp import web
from redis.asyncio import Redis

from adapters.telegram.app import build, make_bot, webhook_app
from bot.clock import ManualClock
from bot.config import Settings
from bot.service import GameService
from bot.store import Store, client
from tests.fakes.telegram import FakeTelegram, close_session_fast
from tests.pieces import pieces

GROUP = -1009000000001
SECRET = "s3cret-token"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.asynccontextmanager
async def worker(
    fake: FakeTelegram,
    redis_url: str,
    clock: ManualClock,
) -> AsyncIterator[tuple[str, GameService, Any]]:
    conf = Settings(
        bot_token=fake.token,
        telegram_api_url=fake.base_url,
        webhook_secret=SECRET,
        default_language="en",
        redis_url=redis_url,
    )
    service = GameService(Store(client(redis_url)), conf, clock)
    bot = make_bot(conf)
    app = await build(bot, pieces(service), conf, clock)
    runner = web.AppRunner(webhook_app(app, conf))
    await runner.setup()
    port = _free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        yield f"http://127.0.0.1:{port}", service, app
    finally:
        await runner.cleanup()
        await close_session_fast(bot)  # type: ignore[arg-type]
        await service.close()


def command(update_id: int, text: str) -> dict[str, Any]:
    word = text.split()[0]
    return {
        "update_id": update_id,
        "message": {
            "message_id": update_id,
            "date": 1_700_000_000,
            "chat": {"id": GROUP, "type": "supergroup", "title": "Webhook chat"},
            "from": {"id": 1000, "is_bot": False, "first_name": "Anna", "language_code": "en"},
            "text": text,
            "entities": [{"type": "bot_command", "offset": 0, "length": len(word)}],
        },
    }


async def test_two_webhook_workers_apply_each_update_once(redis_url: str, redis: Redis) -> None:
    clock = ManualClock()
    async with FakeTelegram(clock=clock.now) as fake:
        fake.group(GROUP, "Webhook chat")
        fake.add_user(1000, "Anna", language_code="en")
        async with (
            worker(fake, redis_url, clock) as (a, svc, app_a),
            worker(fake, redis_url, clock) as (b, _svc_b, app_b),
            aiohttp.ClientSession() as http,
        ):
            headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET}
            ids = itertools.count(500)

            async def deliver(url: str, update: dict[str, Any]) -> None:
                async with http.post(f"{url}/webhook", json=update, headers=headers) as r:
                    assert r.status == 200

            # a wrong secret is refused before anything happens
            async with http.post(
                f"{a}/webhook",
                json=command(1, "/newgame kozel"),
                headers={"X-Telegram-Bot-Api-Secret-Token": "nope"},
            ) as r:
                assert r.status == 401
            created = command(next(ids), "/newgame kozel")
            await deliver(a, created)
            await deliver(b, created)  # the same update redelivered to the other worker
            for n in range(3):
                update = command(next(ids), "/addbot")
                await deliver(a if n % 2 else b, update)
                if n == 1:
                    await deliver(a, update)  # and one of them twice
            room = await svc.room(f"tg:{GROUP}")
            assert room is not None and room.state == "lobby"
            assert sum(1 for s in room.seats if s is not None and s.bot) == 3
            assert room.version == 4  # one create and three computer players: nothing twice
            for app in (app_a, app_b):
                await app.painter.flush()
            lobbies = [m for m in fake.messages(GROUP) if m.from_bot and m.buttons]
            assert len(lobbies) == 1  # one table message, whichever worker drew it
            assert await pieces(svc).platform.leases.drawn_version(room.id, "table") == room.version
            for url in (a, b):
                async with http.get(f"{url}/healthz") as r:
                    assert r.status == 200
                async with http.get(f"{url}/readyz") as r:
                    assert r.status == 200
