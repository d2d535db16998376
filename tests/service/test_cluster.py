"""The store unchanged on a real Redis Cluster: three nodes of the bundled server, slots
assigned, a whole match with computer players played through the service."""

from __future__ import annotations

import asyncio
import socket
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from bot.clock import ManualClock
from bot.embedded_redis import default_server_binary
from bot.service import GameService
from bot.store import Store
from tests.pieces import pieces

from .conftest import DELAY, PEOPLE, make_settings


def _free_port() -> int:
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port + 10000 < 65536:
            with socket.socket() as bus:
                try:
                    bus.bind(("127.0.0.1", port + 10000))  # the cluster bus port
                except OSError:
                    continue
            return int(port)


def _info(raw: bytes | str) -> dict[str, str]:
    text = raw.decode() if isinstance(raw, bytes) else raw
    return dict(line.split(":", 1) for line in text.splitlines() if ":" in line)


@pytest.fixture
async def cluster_url(tmp_path: Path) -> AsyncIterator[str]:
    binary = default_server_binary()
    ports = [_free_port() for _ in range(3)]
    procs = []
    for port in ports:
        d = tmp_path / str(port)
        d.mkdir()
        procs.append(
            subprocess.Popen(
                [
                    str(binary),
                    "--port",
                    str(port),
                    "--bind",
                    "127.0.0.1",
                    "--cluster-enabled",
                    "yes",
                    "--cluster-config-file",
                    "nodes.conf",
                    "--dir",
                    str(d),
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
    nodes = [Redis(host="127.0.0.1", port=p) for p in ports]
    try:
        for node in nodes:
            for _ in range(200):
                try:
                    await node.ping()
                    break
                except Exception:
                    await asyncio.sleep(0.02)
        ranges = [(0, 5460), (5461, 10922), (10923, 16383)]
        for node, (a, b) in zip(nodes, ranges, strict=True):
            await node.execute_command("CLUSTER", "ADDSLOTSRANGE", a, b)
        for node in nodes[1:]:
            await node.execute_command("CLUSTER", "MEET", "127.0.0.1", ports[0])
        for _ in range(500):
            infos = [_info(await n.execute_command("CLUSTER", "INFO")) for n in nodes]
            if all(i.get("cluster_state") == "ok" and i.get("cluster_known_nodes") == "3" for i in infos):
                break
            await asyncio.sleep(0.02)
        else:
            raise AssertionError("the test cluster did not come up")
        yield f"redis://127.0.0.1:{ports[0]}"
    finally:
        for node in nodes:
            await node.aclose()
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(timeout=10)


async def test_a_whole_match_on_a_redis_cluster(cluster_url: str) -> None:
    store = await Store.connect(cluster_url, cluster=True)  # as REDIS_CLUSTER=true does
    assert isinstance(store.redis, RedisCluster)
    clock = ManualClock()
    svc = GameService(store, make_settings(), clock)
    anna = PEOPLE[0]
    rooms = []
    for chat in ("-1", "-2", "-3"):  # rooms in different slots
        assert (await svc.create("tg", chat, None, anna, "kozel")).ok
        rid = f"tg:{chat}"
        for _ in range(3):
            assert (await svc.add_bot(rid, anna)).ok
        assert (await svc.start(rid, anna, seed=int(chat[1:]))).ok
        rooms.append(rid)
    try:
        for step in range(3000):
            states = []
            for rid in rooms:
                room = await svc.room(rid)
                assert room is not None
                states.append(room.state)
                hand = svc.hand_of(room, anna.id)
                if room.state == "playing" and hand and hand.on_move:
                    choice = next(c for c in hand.choices if c.kind != "declare")
                    out = await svc.act(choice.token, anna, update_id=f"{rid}:{step}")
                    assert out.ok, out.reason
                    again = await svc.act(choice.token, anna, update_id=f"{rid}:{step}")
                    assert again.ok and again.repeat
            if all(s == "finished" for s in states):
                break
            clock.advance(DELAY)
            await pieces(svc).timers.run_timers()
        assert all(s == "finished" for s in states)
        # one person against computer players: the table by level (issue 36.5)
        board = await pieces(svc).stats.vs_computers("tg", "-1")
        assert board and board[0]["played"] == 1
    finally:
        await store.close()
