"""Issue 12 item by item: the service under the faults an operator meets.

A Redis restart (pooled connections closed), a platform redelivering lobby commands, a
worker dying between its commit and what follows, two workers drawing one chat's table,
one flood budget across workers, what a restarted worker redraws. Each on the real Redis
(a Redis server of the test's own where it is killed), on a manual clock.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import subprocess
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from redis.asyncio import Redis

from bot.clock import ManualClock
from bot.embedded_redis import default_server_binary
from bot.service import GameService
from bot.store import Store, client
from tests.pieces import pieces

from .conftest import PEOPLE, make_settings, people_room, pick

ANNA, BORIS, VERA, GLEB, _ = PEOPLE


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class OwnRedis:
    """A Redis server of the test's own, with AOF, that the test kills and starts again."""

    def __init__(self, folder: Path) -> None:
        self.folder, self.port = folder, _free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    async def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                str(default_server_binary()),
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.folder),
                "--appendonly",
                "yes",
                "--save",
                "",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        probe = Redis(port=self.port)
        try:
            for _ in range(3000):  # until it answers (a signal; the cap only stops a hang)
                with contextlib.suppress(Exception):
                    if await probe.ping():
                        return
                await asyncio.sleep(0.01)
            raise AssertionError("the test's Redis did not start")
        finally:
            await probe.aclose()

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait()


@pytest.fixture
async def own_redis(tmp_path: Path) -> AsyncIterator[OwnRedis]:
    server = OwnRedis(tmp_path)
    await server.start()
    try:
        yield server
    finally:
        if server.proc is not None and server.proc.poll() is None:
            server.kill()


# --- 2. a Redis restart: the next call works; lobby commands are exactly-once ---------------


async def test_every_call_works_right_after_a_redis_restart(own_redis: OwnRedis, clock: ManualClock) -> None:
    """Every pooled connection is closed by the restart; the client reconnects and retries
    (the commands are safe to send twice), so no call fails once Redis answers again."""
    svc = GameService(Store(client(own_redis.url)), make_settings(), clock)
    try:
        people = [ANNA, BORIS]
        rid = await people_room(svc, people, seed=4, preset="kozel-60")
        # several connections in the pool, all of them broken by the restart
        await asyncio.gather(*(svc.room(rid) for _ in range(8)))
        own_redis.kill()
        await own_redis.start()  # from its AOF
        rooms = await asyncio.gather(*(svc.room(rid) for _ in range(8)))
        assert all(r is not None and r.state == "playing" for r in rooms)
        room = rooms[0]
        assert room is not None
        mover = next(u for u in people if (hv := svc.hand_of(room, u.id)) and hv.on_move)
        hv = svc.hand_of(room, mover.id)
        assert hv is not None
        assert (await svc.act(pick(hv).token, mover, update_id="cb1")).ok
    finally:
        await svc.store.close()


async def test_a_redelivered_lobby_command_is_applied_once(svc: GameService) -> None:
    """A platform redelivers an update it got no answer for: /newgame, /addbot, /join,
    /startgame twice each change the room once, and the second answer is a quiet success."""
    first = await svc.create("tg", "-1", None, ANNA, "kozel", update_id="u1")
    again = await svc.create("tg", "-1", None, ANNA, "kozel", update_id="u1")
    assert first.ok and again.ok and again.repeat  # not "room_exists"
    rid = "tg:-1"
    assert (await svc.add_bot(rid, ANNA, update_id="u2")).ok
    again = await svc.add_bot(rid, ANNA, update_id="u2")
    assert again.ok and again.repeat
    room = await svc.room(rid)
    assert room is not None and sum(1 for s in room.seats if s is not None and s.bot) == 1
    assert (await svc.join(rid, BORIS, update_id="u3")).ok
    assert (await svc.join(rid, BORIS, update_id="u3")).repeat
    assert (await svc.start(rid, ANNA, seed=1, update_id="u4")).ok
    again = await svc.start(rid, ANNA, seed=1, update_id="u4")
    assert again.ok and again.repeat
    room = await svc.room(rid)
    assert room is not None and room.state == "playing" and room.gen == 1


def _answers_lost_once(svc: GameService) -> list[int]:
    """Every compare-and-set goes out twice, the first answer lost: what redis-py's retry
    does when a connection closes after Redis ran the script (a Redis restart)."""
    sent: list[int] = []
    script = svc.store._cas

    async def twice(*args: object, **kw: object) -> object:
        await script(*args, **kw)
        sent.append(1)
        return await script(*args, **kw)

    svc.store._cas = twice  # type: ignore[assignment]
    return sent


async def test_a_write_whose_answer_was_lost_counts_as_written(svc: GameService, clock: ManualClock) -> None:
    """The retried script finds its own document in place: the change is reported and
    followed up as written (listeners draw it, the person's rooms know it), not as a
    conflict or someone else's repeat, and it is applied once."""
    heard: list[list[str]] = []

    async def listener(room: object, lines: list[Any]) -> None:
        heard.append([ln.key for ln in lines])

    svc.on_change(listener)
    sent = _answers_lost_once(svc)
    out = await svc.create("tg", "-1", None, ANNA, "kozel", size=2, update_id="u1")
    assert out.ok and not out.repeat and sent
    assert (await svc.join("tg:-1", BORIS, update_id="u2")).ok
    assert "tg:-1" in await svc.store.user_rooms(BORIS.id)
    assert (await svc.start("tg:-1", ANNA, seed=3, update_id="u3")).ok
    room = await svc.room("tg:-1")
    assert room is not None and room.version == 3 and len(heard) == 3
    mover = next(u for u in (ANNA, BORIS) if (hv := svc.hand_of(room, u.id)) and hv.on_move)
    hv = svc.hand_of(room, mover.id)
    assert hv is not None
    moved = await svc.act(pick(hv).token, mover)  # no update id: the document tells
    assert moved.ok and not moved.repeat and moved.lines and len(heard) == 4
    after = await svc.room("tg:-1")
    assert after is not None and after.version == 4
    assert sum(d.count(",") for d in after.log) == 1


# --- 4. a finished match is recorded in the same step as the room's end ----------------------


async def test_a_match_record_survives_a_worker_that_dies_right_after_the_end(
    svc: GameService, monkeypatch: pytest.MonkeyPatch, new_service: Callable[..., GameService]
) -> None:
    two = [ANNA, BORIS]
    rid = await people_room(svc, two, seed=11, preset="kozel-60")

    async def dies(*args: object, **kw: object) -> None:
        raise asyncio.CancelledError  # kill -9 right after the commit

    monkeypatch.setattr(svc, "_after_commit", dies)
    for _ in range(2000):
        room = await svc.room(rid)
        assert room is not None
        if room.state != "playing":
            break
        mover = next(u for u in two if (hv := svc.hand_of(room, u.id)) and hv.on_move)
        hv = svc.hand_of(room, mover.id)
        assert hv is not None
        with contextlib.suppress(asyncio.CancelledError):
            await svc.act(pick(hv).token, mover)
    assert room.state == "finished"
    other = new_service()
    # the chat's record and counters were written with the room's end
    assert len(await pieces(other).stats.recent_matches("tg", "-100")) == 1
    assert [r["played"] for r in await pieces(other).stats.leaderboard("tg", "-100")] == [1, 1]
    # each person's own counters: from the to-do the dead worker left, once
    assert await pieces(other).stats.player_stats(ANNA.id) == {}
    assert await pieces(other).timers.finish_pending_stats() == 1
    assert await pieces(other).timers.finish_pending_stats() == 0
    assert (await pieces(other).stats.player_stats(ANNA.id))["played"] == 1


# --- 5. several workers draw one chat: never an older table last; one flood budget ----------


async def test_a_table_is_never_drawn_from_an_older_version(
    svc: GameService, new_service: Callable[..., GameService]
) -> None:
    rid = await people_room(svc, [ANNA, BORIS], seed=3, preset="kozel-60")
    a, b = svc, new_service()
    claim_a = await pieces(a).platform.leases.begin_paint(rid, "table")
    assert claim_a.room is not None  # A draws the room as it is now
    assert (await pieces(b).platform.leases.begin_paint(rid, "table")).busy  # B must not draw meanwhile
    # a move commits while A draws; A records what it drew and learns the room moved on
    room = await b.room(rid)
    assert room is not None
    mover = next(u for u in (ANNA, BORIS) if (hv := b.hand_of(room, u.id)) and hv.on_move)
    hv = b.hand_of(room, mover.id)
    assert hv is not None
    moved = await b.act(pick(hv).token, mover)
    assert moved.ok and moved.room is not None
    assert await pieces(a).platform.leases.end_paint(rid, "table", claim_a.room.version) is True
    claim_b = await pieces(b).platform.leases.begin_paint(rid, "table")
    assert claim_b.room is not None and claim_b.room.version == moved.room.version
    assert await pieces(b).platform.leases.end_paint(rid, "table", claim_b.room.version) is False
    # A, late, would draw its older room: nothing newer than drawn, so nothing to draw
    assert (await pieces(a).platform.leases.begin_paint(rid, "table")).room is None
    assert await pieces(a).platform.leases.drawn_version(rid, "table") == moved.room.version
    # a late end_paint of an older version never lowers what is on screen
    await pieces(a).platform.leases.end_paint(rid, "table", claim_a.room.version)
    assert await pieces(a).platform.leases.drawn_version(rid, "table") == moved.room.version


async def test_a_dead_painter_holds_a_table_only_for_its_lease(
    svc: GameService, clock: ManualClock, new_service: Callable[..., GameService]
) -> None:
    rid = await people_room(svc, [ANNA, BORIS], seed=3, preset="kozel-60")
    dead = new_service()
    assert (await pieces(dead).platform.leases.begin_paint(rid, "table", ttl=0.05)).room is not None
    other = new_service()
    assert (await pieces(other).platform.leases.begin_paint(rid, "table")).busy
    # the lease runs out in Redis's own time: wait for that signal, not a guess
    for _ in range(500):
        if not (await pieces(other).platform.leases.begin_paint(rid, "table")).busy:
            break
        await asyncio.sleep(0.01)
    else:
        raise AssertionError("the lease never ran out")


async def test_one_flood_budget_for_a_chat_across_workers(
    svc: GameService, clock: ManualClock, new_service: Callable[..., GameService]
) -> None:
    workers = [pieces(s).platform.budgets for s in (svc, new_service(), new_service())]
    allowed = 0
    for i in range(30):
        if await workers[i % 3].flood_take("tg:-1", limit=20, window=60.0) == 0.0:
            allowed += 1
    assert allowed == 20  # not 20 a worker
    wait = await pieces(svc).platform.budgets.flood_take("tg:-1", limit=20, window=60.0)
    assert 0 < wait <= 60
    clock.advance(60.0)
    assert await workers[1].flood_take("tg:-1", limit=20, window=60.0) == 0.0
    # a reserve: table edits stop short of the limit, results still get through
    for _ in range(18):
        await pieces(svc).platform.budgets.flood_take("tg:-2", limit=20, window=60.0)
    assert await pieces(svc).platform.budgets.flood_take("tg:-2", limit=20, window=60.0, reserve=2) > 0
    assert await pieces(svc).platform.budgets.flood_take("tg:-2", limit=20, window=60.0) == 0.0
    # pacing: at least ``gap`` seconds between writes
    assert await pieces(svc).platform.budgets.flood_take("tg:-3", limit=20, window=60.0, gap=3.0) == 0.0
    assert await pieces(svc).platform.budgets.flood_take(
        "tg:-3", limit=20, window=60.0, gap=3.0
    ) == pytest.approx(3.0)
    clock.advance(3.0)
    assert await pieces(svc).platform.budgets.flood_take("tg:-3", limit=20, window=60.0, gap=3.0) == 0.0
    # a 429 on one worker stops every worker for the time the platform asked
    await workers[2].flood_block("tg:-4", 7.0)
    assert await pieces(svc).platform.budgets.flood_take("tg:-4", limit=20, window=60.0) == pytest.approx(7.0)
    clock.advance(7.0)
    assert await pieces(svc).platform.budgets.flood_take("tg:-4", limit=20, window=60.0) == 0.0


# --- 8. what a restarted worker redraws -----------------------------------------------------


async def test_a_restarted_worker_redraws_the_tables_left_behind(svc: GameService) -> None:
    rid = await people_room(svc, [ANNA, BORIS], seed=3, preset="kozel-60")
    other = await people_room(svc, [VERA, GLEB], chat="-200", seed=4, preset="kozel-60")
    claim = await pieces(svc).platform.leases.begin_paint(other, "table")
    assert claim.room is not None
    await pieces(svc).platform.leases.end_paint(other, "table", claim.room.version)  # drawn as it is
    assert [r.id for r in await pieces(svc).platform.leases.rooms_to_redraw("tg")] == [rid]
    assert await pieces(svc).platform.leases.rooms_to_redraw("dc") == []
