"""Issue 17 from the Telegram adapter, on the real aiogram against the fake: the 429s
Telegram answers (and the waits they ask for) and the painter's queue depth reach the
metrics; a line logged while an update is handled names its room and update."""

from __future__ import annotations

import logging

import pytest
from redis.asyncio import Redis

from bot import logs
from bot.metrics_prometheus import PrometheusMetrics
from tests.telegram.harness import telegram
from tests.telegram.test_hands import open_table


async def test_429s_their_waits_and_the_painter_queue_are_counted(redis: Redis) -> None:
    async with telegram(redis) as env:
        metrics = PrometheusMetrics()
        env.service.metrics = metrics
        await open_table(env)
        anna = env.users[0]
        # a hand refused with a 429 (the delivery path), then a group write (the painter's)
        env.fake.fail_retry_after("sendMessage", 5, when=lambda p: bool(
            p.get("ephemeral_message_parameters")))
        await env.press(anna, env.table_message(), "T:hand")
        env.fake.fail_retry_after("sendMessage", 7, when=lambda p: int(p["chat_id"]) < 0
                                  and "ephemeral_message_parameters" not in p)
        await env.say(anna, "/score")
        depth = metrics.registry.get_sample_value("kozel_painter_queue", {"platform": "tg"})
        assert depth is not None and depth >= 1  # the refused writes wait their turn
        await env.drain()
        value = metrics.registry.get_sample_value
        assert value("kozel_platform_429_total", {"platform": "tg"}) == 2
        assert value("kozel_platform_retry_wait_seconds_sum", {"platform": "tg"}) == 12
        assert value("kozel_painter_queue", {"platform": "tg"}) == 0  # all written


async def test_a_line_logged_while_handling_a_press_names_the_room_and_the_update(
        redis: Redis, caplog: pytest.LogCaptureFixture) -> None:
    caplog.handler.addFilter(logs.Context())
    async with telegram(redis) as env:
        await open_table(env)
        anna = env.users[0]
        env.fake.fail_retry_after("sendMessage", 5, when=lambda p: bool(
            p.get("ephemeral_message_parameters")))
        with caplog.at_level(logging.INFO, logger="adapters.telegram"):
            await env.press(anna, env.table_message(), "T:hand")
        press = list(env.fake.callbacks.values())[-1]
    line = next(r for r in caplog.records if "429, retry after" in r.getMessage())
    assert line.room == f"tg:{env.group.id}"  # type: ignore[attr-defined]
    assert line.update == f"cb{press.id}"  # type: ignore[attr-defined]
    # outside any update, no room and no update
    assert logs.ROOM.get() is None and logs.UPDATE.get() is None
