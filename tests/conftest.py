"""Shared fixtures: a real Redis for every test that needs one.

``REDIS_URL`` names the server (CI points it at a scratch database); without it the tests
start the embedded Redis the bot itself uses. Each test starts from an empty database.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from redis.asyncio import Redis

from bot.store import Store

# hard computer players think in a thread with a playout budget in tests: exact for their
# seed, no processes to start, no real time (tests/service/test_thinking.py runs the pool)
os.environ.setdefault("SEARCH_WORKERS", "0")
os.environ.setdefault("SEARCH_ITERATIONS", "12")


def worker_database(url: str, worker: str) -> str:
    """``url`` with a database of the pytest-xdist worker's own: ``gw0`` keeps the one named,
    ``gwN`` takes the one 2N further on (modulo 16), so a test that names the database next to
    its own (tests/web/test_socket.py) never names another worker's."""
    if not worker.startswith("gw") or not worker[2:].isdigit() or worker == "gw0":
        return url
    parts = urlsplit(url)
    base = int(parts.path.strip("/") or 0)
    return urlunsplit(parts._replace(path=f"/{(base + 2 * int(worker[2:])) % 16}"))


def pytest_configure(config: pytest.Config) -> None:
    # each worker of ``pytest -n 2`` (README's test command) empties a database of its own;
    # set in the environment, so the processes a test starts (the bot, bench scripts) use it too
    url, worker = os.environ.get("REDIS_URL"), os.environ.get("PYTEST_XDIST_WORKER")
    if url and worker:
        os.environ["REDIS_URL"] = worker_database(url, worker)


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    url = os.environ.get("REDIS_URL")
    if url:
        yield url
        return
    import asyncio

    from bot.embedded_redis import start_embedded_redis

    data: Path = tmp_path_factory.mktemp("redis")
    server = asyncio.run(start_embedded_redis(data))
    try:
        yield server.url
    finally:
        asyncio.run(server.close())


# A database the tests may empty carries this key; a database with data and without it is
# somebody's real data, and the tests refuse to touch it.
TEST_MARK = "kozel:tests-may-empty-this-database"


@pytest.fixture
async def redis(redis_url: str) -> AsyncIterator[Redis]:
    r = Redis.from_url(redis_url)
    if await r.dbsize() and not await r.exists(TEST_MARK):
        await r.aclose()
        pytest.exit(
            f"REDIS_URL={redis_url} names a database holding data that is not marked "
            f"for tests (key {TEST_MARK!r}): the tests empty their database, so point "
            "REDIS_URL at an empty one",
            returncode=2,
        )
    await r.flushdb()
    await r.set(TEST_MARK, 1)
    try:
        yield r
    finally:
        await r.aclose()


@pytest.fixture
async def store(redis: Redis) -> AsyncIterator[Store]:
    s = Store(redis)
    yield s
