"""Issue 33.6: a Redis short of memory never loses a match silently.

With ``maxmemory`` and an evicting policy (``allkeys-lru``), Redis dropped every playing
match under memory pressure and players got "no room". The bot now refuses to start under
an evicting policy (one clear line) unless the operator says ``ALLOW_EVICTION=1``; under
``noeviction`` a write Redis refuses for memory is a clear answer to the presser and an
error metric, and the room stays as it was.

These tests start a Redis of their own (the embedded one, a real server) so that its
memory settings can be changed without touching the shared server.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from redis.asyncio import Redis

from bot.clock import ManualClock
from bot.config import ConfigError
from bot.embedded_redis import start_embedded_redis
from bot.metrics_prometheus import PrometheusMetrics
from bot.service import GameService
from bot.store import Store, open_store

from .conftest import PEOPLE, make_settings

ANNA, BORIS, VERA = PEOPLE[:3]


@pytest.fixture
async def own_redis(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[str]:
    server = await start_embedded_redis(Path(tmp_path_factory.mktemp("oom")))
    try:
        yield server.url
    finally:
        await server.close()


async def test_r33_the_bot_refuses_to_start_under_an_evicting_policy(own_redis: str) -> None:
    r = Redis.from_url(own_redis)
    try:
        await r.config_set("maxmemory", "64mb")
        await r.config_set("maxmemory-policy", "allkeys-lru")
        with pytest.raises(ConfigError) as e:
            await open_store(make_settings(redis_url=own_redis))
        line = str(e.value)
        assert "allkeys-lru" in line and "noeviction" in line and "ALLOW_EVICTION" in line
        assert "\n" not in line
        store = await open_store(make_settings(redis_url=own_redis, allow_eviction=True))
        await store.close()
        await r.config_set("maxmemory-policy", "noeviction")
        store = await open_store(make_settings(redis_url=own_redis))
        assert await store.eviction_policy() == "noeviction"
        await store.close()
    finally:
        await r.aclose()


async def test_r33_a_write_refused_for_memory_is_answered_and_loses_nothing(own_redis: str) -> None:
    r = Redis.from_url(own_redis)
    metrics = PrometheusMetrics()
    svc = GameService(Store(Redis.from_url(own_redis)), make_settings(), ManualClock(), metrics)
    try:
        out = await svc.create("tg", "-100", None, ANNA, "kozel")
        assert out.ok and out.room is not None
        rid = out.room.id
        assert (await svc.join(rid, BORIS)).ok
        before = await svc.room(rid)
        assert before is not None
        # the server is full: its limit just under what it holds, nothing may be evicted
        used = int((await r.info("memory"))["used_memory"])
        await r.config_set("maxmemory-policy", "noeviction")
        await r.config_set("maxmemory", str(used - 1024))
        out = await svc.join(rid, VERA)
        assert not out.ok and out.reason == "store_full"
        assert metrics.registry.get_sample_value("kozel_store_errors_total", {"kind": "oom"}) == 1
        await r.config_set("maxmemory", "0")
        after = await svc.room(rid)
        assert after is not None and after.version == before.version
        assert after.seat_of(VERA.id) is None and after.seat_of(BORIS.id) is not None
        assert (await svc.join(rid, VERA)).ok  # memory again: the same press works
    finally:
        await svc.close()
        await r.aclose()


def test_r33_the_refusal_has_words() -> None:
    from adapters.common.render import Text

    assert "memory" in Text("en").reason("store_full")
