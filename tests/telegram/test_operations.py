"""Issue 17 from the Telegram adapter, on the real aiogram against the fake: the 429s
Telegram answers (and the waits they ask for) and the painter's queue depth reach the
metrics; a line logged while an update is handled names its room and update; a webhook
worker is healthy but not ready while Redis does not answer."""

from __future__ import annotations

import logging

import aiohttp
import pytest
from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from bot import logs
from bot.clock import ManualClock
from bot.metrics_prometheus import PrometheusMetrics
from bot.store import Store
from tests.fakes.telegram import FakeTelegram
from tests.telegram.harness import telegram
from tests.telegram.test_hands import open_table
from tests.telegram.test_webhook_workers import worker


async def test_429s_their_waits_and_the_painter_queue_are_counted(redis: Redis) -> None:
    async with telegram(redis) as env:
        metrics = PrometheusMetrics()
        env.service.metrics = metrics
        await open_table(env)
        anna = env.users[0]
        # a hand refused with a 429 (the delivery path), then a group write (the painter's)
        env.fake.limits.fail_retry_after(
            "sendMessage", 5, when=lambda p: bool(p.get("ephemeral_message_parameters"))
        )
        await env.press(anna, env.table_message(), "T:hand")
        env.fake.limits.fail_retry_after(
            "sendMessage", 7, when=lambda p: int(p["chat_id"]) < 0 and "ephemeral_message_parameters" not in p
        )
        await env.say(anna, "/cancel")  # its confirmation: a group write
        depth = metrics.registry.get_sample_value("kozel_painter_queue", {"platform": "tg"})
        assert depth is not None and depth >= 1  # the refused writes wait their turn
        await env.drain()
        value = metrics.registry.get_sample_value
        assert value("kozel_platform_429_total", {"platform": "tg"}) == 2
        assert value("kozel_platform_retry_wait_seconds_sum", {"platform": "tg"}) == 12
        assert value("kozel_painter_queue", {"platform": "tg"}) == 0  # all written


async def test_a_line_logged_while_handling_a_press_names_the_room_and_the_update(
    redis: Redis, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.handler.addFilter(logs.Context())
    async with telegram(redis) as env:
        await open_table(env)
        anna = env.users[0]
        env.fake.limits.fail_retry_after(
            "sendMessage", 5, when=lambda p: bool(p.get("ephemeral_message_parameters"))
        )
        with caplog.at_level(logging.INFO, logger="adapters.telegram"):
            await env.press(anna, env.table_message(), "T:hand")
        press = list(env.fake.world.callbacks.values())[-1]
    line = next(r for r in caplog.records if "429, retry after" in r.getMessage())
    assert line.room == f"tg:{env.group.id}"  # type: ignore[attr-defined]
    assert line.update == f"cb{press.id}"  # type: ignore[attr-defined]
    # outside any update, no room and no update
    assert logs.ROOM.get() is None and logs.UPDATE.get() is None


async def test_readyz_says_503_once_redis_stops_answering_and_healthz_still_200(redis_url: str) -> None:
    """The balancer sends a webhook worker updates only while it is ready."""
    clock = ManualClock()
    async with (
        FakeTelegram(clock=clock.now) as fake,
        worker(fake, redis_url, clock) as (url, svc, _app),
        aiohttp.ClientSession() as http,
    ):
        async with http.get(f"{url}/readyz") as r:
            assert r.status == 200
        live = svc.store
        # Redis goes away (a refused connection, not retried: the answer comes at once)
        svc.store = Store(Redis.from_url("redis://127.0.0.1:1/0", retry=Retry(NoBackoff(), 0)))
        try:
            async with http.get(f"{url}/healthz") as r:
                assert r.status == 200
            async with http.get(f"{url}/readyz") as r:
                assert r.status == 503 and "Redis does not answer" in await r.text()
        finally:
            await svc.store.close()
            svc.store = live
