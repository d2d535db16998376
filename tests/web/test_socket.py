"""Issue 34: the web table's socket, frame by frame (no browser): who is let in, what each
socket receives, and bad input refused with nothing changed."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
from aiohttp import WSCloseCode
from redis.asyncio import Redis

from adapters.web.server import CLOSE_AUTH, CLOSE_NO_TABLE, Local, WebTable
from bot import invites, keys
from bot.clock import ManualClock
from bot.config import Settings
from bot.room import Room, User
from bot.service import GameService
from bot.store import Store
from tests.pieces import pieces
from tests.service.test_abuse import past_the_first_deal
from tests.web.harness import connect, hidden_from, leaked, sign_init_data

TOKEN = "123456:web-table-test-token"
GROUP = -1001000000001
NOW = 1_800_000_000.0
ANNA, BORIS, VERA = User("tg:1000", "Anna"), User("tg:1001", "Boris"), User("tg:1002", "Vera")


@dataclass
class Table:
    service: GameService
    web: WebTable
    port: int
    room_id: str
    link: str
    clock: ManualClock
    times: list[float]

    def hello(
        self, user: User, *, token: str = TOKEN, age: float = 60, link: str | None = None
    ) -> dict[str, str]:
        uid = int(user.id.split(":")[1])
        init = sign_init_data(token, uid, user.name, int(NOW - age), start_param=link or self.link)
        return {"type": "hello", "init": init}

    async def room(self) -> Room:
        room = await self.service.room(self.room_id)
        assert room is not None
        return room


def settings(**kw: object) -> Settings:
    return Settings(bot_token=TOKEN, turn_seconds=60.0, bot_delay_seconds=1.0, **kw)  # type: ignore[arg-type]


async def deal(service: GameService, preset: str = "kozel") -> Room:
    out = await service.create("tg", str(GROUP), None, ANNA, preset, size=4)
    assert out.ok and out.room is not None
    rid = out.room.id
    assert (await service.join(rid, BORIS)).ok
    for _ in range(2):
        assert (await service.add_bot(rid, ANNA)).ok
    started = await service.start(rid, ANNA, seed=7)
    assert started.ok and started.room is not None
    return started.room


async def in_group(chat: int, user: int) -> bool:
    """Telegram's getChatMember, as these tests' group answers it (the real check against
    the fake Bot API: tests/web/test_browser.py): Anna, Boris and Vera are its members."""
    return chat == GROUP and f"tg:{user}" in {ANNA.id, BORIS.id, VERA.id}


@pytest.fixture
async def table(redis: Redis) -> AsyncIterator[Table]:
    clock = ManualClock()
    service = GameService(Store(redis), settings(), clock)
    room = await deal(service)
    times = [0.0]
    web = WebTable(service, service.chats, wall=lambda: NOW, monotonic=lambda: times[0], member=in_group)
    port = await web.start("127.0.0.1", 0)
    try:
        yield Table(service, web, port, room.id, invites.payload_of(room), clock, times)
    finally:
        await web.close()


async def test_a_seated_person_gets_his_hand_and_a_spectator_the_table_only(table: Table) -> None:
    room = await table.room()
    async with connect(table.port, table.hello(ANNA)) as anna, connect(table.port, table.hello(VERA)) as vera:
        words = await anna.next("words")
        assert words["lang"] == "ru" and all(words["words"].values())
        mine = await anna.state()
        seen = await vera.state()
    assert mine["v"] == seen["v"] == room.version
    assert mine["me"] == room.seat_of(ANNA.id) and mine["hand"] is not None
    assert sorted(c["c"] for c in mine["hand"]["cards"]) == sorted(table.service.hand_of(room, ANNA.id).cards)  # type: ignore[union-attr]
    assert seen["me"] is None and seen["hand"] is None
    assert seen["table"] == mine["table"]  # the same public table, built once
    assert not any(leaked(f, hidden_from(room, ANNA.id)) for f in anna.raw)
    assert not any(leaked(f, hidden_from(room, None)) for f in vera.raw)


async def test_a_move_goes_through_the_service_and_reaches_every_socket(table: Table) -> None:
    room = await table.room()
    async with connect(table.port, table.hello(ANNA)) as anna, connect(table.port, table.hello(VERA)) as vera:
        await anna.state()
        await vera.state()
        # computer players move until a person is on move
        while not any(
            (h := table.service.hand_of(room, u.id)) is not None and h.on_move for u in (ANNA, BORIS)
        ):
            table.clock.advance(1.5)
            assert await pieces(table.service).timers.run_timers()
            room = await table.room()
        mover = ANNA if table.service.hand_of(room, ANNA.id).on_move else BORIS  # type: ignore[union-attr]
        async with connect(table.port, table.hello(mover)) as person:
            frame = await person.state(room.version)
            choice = frame["hand"]["choices"][0]
            await person.send({"type": "act", "token": choice["token"], "id": "m1"})
            answer = await person.next("answer")
            assert answer == {"type": "answer", "id": "m1", "ok": True, "text": None}
            after = await table.room()
            assert after.version > room.version
            assert (await vera.state(after.version))["v"] == after.version
            assert (await anna.state(after.version))["v"] == after.version
            # the same frame again (a retry after a lost answer) is applied once
            await person.send({"type": "act", "token": choice["token"], "id": "m1"})
            assert (await person.next("answer"))["ok"] is True
            assert (await table.room()).version == after.version
        hidden = hidden_from(after, None)
        assert not any(leaked(f, hidden) for f in vera.raw)


async def test_another_persons_move_is_refused_and_changes_nothing(table: Table) -> None:
    room = await table.room()
    async with connect(table.port, table.hello(ANNA)) as anna, connect(table.port, table.hello(VERA)) as vera:
        hand = (await anna.state())["hand"]
        await vera.state()
        tokens = [c["token"] for c in hand["choices"]] or [
            c.token
            for c in table.service.hand_of(room, BORIS.id).choices  # type: ignore[union-attr]
        ]
        await vera.send({"type": "act", "token": tokens[0], "id": "x1"})
        answer = await vera.next("answer")
        assert answer["ok"] is False and answer["text"]
        await vera.send({"type": "back", "id": "x2"})  # another seat's "I'm back"
        assert (await vera.next("answer"))["ok"] is False
    assert (await table.room()).version == room.version


@pytest.mark.parametrize(
    ("how", "code", "close"),
    [
        ("forged", "auth", CLOSE_AUTH),
        ("expired", "expired", CLOSE_AUTH),
        ("wrong link", "no_table", CLOSE_NO_TABLE),
        ("no hello", "bad_frame", CLOSE_AUTH),
        ("no init", "auth", CLOSE_AUTH),
        ("not in the group", "not_member", CLOSE_AUTH),
    ],
)
async def test_who_opens_the_table_is_checked(table: Table, how: str, code: str, close: int) -> None:
    room = await table.room()
    hello: dict[str, str] = {
        "forged": table.hello(ANNA, token="123456:another-bots-token"),
        "expired": table.hello(ANNA, age=2 * 86400),
        "wrong link": table.hello(ANNA, link=table.link[:-4] + "0000"),
        "no hello": {"type": "act", "token": "x", "id": "1"},
        "no init": {"type": "hello", "link": table.link},
        # a valid signature and link, carried out of the group: a stranger watches nothing
        "not in the group": table.hello(User("tg:666", "Stranger")),
    }[how]
    async with connect(table.port, hello) as client:
        error = await client.next()
        assert error["type"] == "error" and error["code"] == code and error["text"]
        assert await client.closed() == close
    assert not any(f.get("type") == "state" for f in client.frames)
    assert (await table.room()).version == room.version


async def test_garbage_is_refused_with_nothing_changed_then_the_socket_closes(table: Table) -> None:
    room = await table.room()
    async with connect(table.port, table.hello(ANNA)) as anna:
        await anna.state()
        garbage: list[dict[str, object] | str | bytes] = [
            "not json at all",
            b"\x00\x01binary",
            {"type": "steal", "id": "g1"},
            {"type": "act", "id": "g2"},
        ]
        for frame in garbage:
            await anna.send(frame)
            error = await anna.next("error")
            assert error["code"] == "bad_frame" and error["text"]
        await anna.send([1, 2, 3])  # type: ignore[arg-type]
        assert (await anna.next("error"))["code"] == "bad_frame"
        assert await anna.closed() == WSCloseCode.POLICY_VIOLATION
    assert (await table.room()).version == room.version


async def test_an_oversized_frame_is_refused_and_the_socket_closed(table: Table) -> None:
    async with connect(table.port, table.hello(ANNA)) as anna:
        await anna.state()
        await anna.send({"type": "act", "id": "big", "token": "x" * 5000})
        assert (await anna.next("error"))["code"] == "too_big"
        assert await anna.closed() == WSCloseCode.MESSAGE_TOO_BIG


async def test_a_flood_of_frames_is_refused_and_the_socket_closed(table: Table) -> None:
    room = await table.room()
    async with connect(table.port, table.hello(ANNA)) as anna:
        await anna.state()
        for i in range(21):  # within the same 5 s of the limit's clock
            await anna.send({"type": "back", "id": f"f{i}"})
        codes = []
        while True:
            try:
                frame = await anna.next()
            except AssertionError:
                break
            codes.append(frame.get("code") or frame["type"])
        assert codes[-1] == "flood" and codes.count("answer") == 20
        assert anna.ws.close_code == WSCloseCode.POLICY_VIOLATION
        table.times[0] += 6.0  # a new socket, later: served again
    async with connect(table.port, table.hello(ANNA)) as again:
        assert (await again.state())["v"] == room.version


async def test_a_change_made_on_another_worker_reaches_this_workers_sockets(
    table: Table, redis: Redis
) -> None:
    """Two workers on one Redis: a move committed by the first reaches a socket held by the
    second (through the service's change feed, not the first's memory)."""
    other = GameService(Store(redis), settings(), table.clock)
    web2 = WebTable(other, other.chats, wall=lambda: NOW, member=in_group)
    port2 = await web2.start("127.0.0.1", 0)
    try:
        async with connect(port2, table.hello(VERA)) as vera:
            first = await vera.state()
            table.clock.advance(1.5)
            while not await pieces(table.service).timers.run_timers():  # the first worker makes a move
                table.clock.advance(1.5)
            room = await table.room()
            assert (await vera.state(room.version))["v"] == room.version > first["v"]
    finally:
        await web2.close()


async def test_a_socket_that_reconnects_gets_the_current_state_at_once(table: Table) -> None:
    async with connect(table.port, table.hello(ANNA)) as anna:
        await anna.state()
    table.clock.advance(1.5)
    while not await pieces(table.service).timers.run_timers():
        table.clock.advance(1.5)
    room = await table.room()
    async with connect(table.port, table.hello(ANNA)) as anna:
        assert (await anna.state())["v"] == room.version


async def test_local_play_lets_in_the_session_token_only(redis: Redis) -> None:
    service = GameService(Store(redis), settings(), ManualClock())
    room = await deal(service)
    anna_seat = room.seat_of(ANNA.id)
    web = WebTable(service, service.chats, local=Local("s3cret-token", room.id, ANNA, "en"))
    port = await web.start("127.0.0.1", 0)
    try:
        async with connect(port, {"type": "hello", "local": "guess"}) as stranger:
            assert (await stranger.next())["code"] == "auth"
            assert await stranger.closed() == CLOSE_AUTH
        async with connect(port, {"type": "hello", "local": "s3cret-token"}) as me:
            assert (await me.next("words"))["lang"] == "en"
            frame = await me.state()
            assert frame["me"] == anna_seat and frame["hand"]["cards"]
    finally:
        await web.close()


async def test_a_practice_game_offers_a_hint_to_its_person(redis: Redis) -> None:
    """Every other seat a computer player: the hand says a hint may be asked for, and the
    answer names one of the person's own moves in words."""
    clock = ManualClock()
    service = GameService(Store(redis), settings(), clock)
    out = await service.create("tg", str(GROUP), None, ANNA, "kozel", size=4)
    assert out.ok and out.room is not None
    for _ in range(3):
        assert (await service.add_bot(out.room.id, ANNA)).ok
    room = (await service.start(out.room.id, ANNA, seed=3)).room
    assert room is not None
    while not service.hand_of(room, ANNA.id).on_move:  # type: ignore[union-attr]
        clock.advance(1.5)
        await pieces(service).timers.run_timers()
        room = await service.room(room.id)
        assert room is not None
    web = WebTable(service, service.chats, wall=lambda: NOW)
    port = await web.start("127.0.0.1", 0)
    try:
        table = Table(service, web, port, room.id, invites.payload_of(room), clock, [0.0])
        async with connect(port, table.hello(ANNA)) as anna:
            hand = (await anna.state())["hand"]
            assert hand["hint"] is True
            await anna.send({"type": "hint", "id": "h1"})
            hint = await anna.next("hint")
            assert hint["id"] == "h1" and hint["text"]
            assert hint["token"] in {c["token"] for c in hand["choices"]}
    finally:
        await web.close()


async def test_a_person_whose_seat_a_computer_took_comes_back(redis: Redis) -> None:
    """Missed turns hand the seat to a computer player; the hand offers "I'm back", and
    the frame takes the seat back at once."""
    clock = ManualClock()
    service = GameService(Store(redis), settings(missed_turns_to_bot=1), clock)
    room = await deal(service)
    while not any(s is not None and s.auto for s in room.seats):  # a person's time runs out
        clock.advance(61.0)
        await pieces(service).timers.run_timers()
        room = await service.room(room.id)  # type: ignore[assignment]
        assert room is not None
    away = next(s for s in room.seats if s is not None and s.auto)
    user = ANNA if away.user == ANNA.id else BORIS
    web = WebTable(service, service.chats, wall=lambda: NOW)
    port = await web.start("127.0.0.1", 0)
    try:
        table = Table(service, web, port, room.id, invites.payload_of(room), clock, [0.0])
        async with connect(port, table.hello(user)) as person:
            frame = await person.state()
            assert frame["hand"]["back"] is True
            seat = frame["me"]
            assert frame["table"]["seats"][seat]["auto"] is True
            await person.send({"type": "back", "id": "b1"})
            assert (await person.next("answer"))["ok"] is True
            back = await person.state(frame["v"] + 1)
            assert back["hand"]["back"] is False and back["table"]["seats"][seat]["auto"] is False
    finally:
        await web.close()


async def test_r33_a_request_to_end_is_agreed_or_given_up_on_the_web_table(table: Table) -> None:
    """Issue 33.7 on the web table: once a deal was played, Anna's /cancel asks Boris; his
    page shows the request with "Agree to end" (hers only "Give up"); a spectator's cannot
    agree; Boris agrees and the match ends, unrecorded."""
    service = table.service
    await past_the_first_deal(service, table.clock, table.room_id, [ANNA, BORIS])
    asked = await service.cancel(table.room_id, ANNA)
    assert asked.ok and asked.room is not None and asked.room.state == "playing"
    async with (
        connect(table.port, table.hello(ANNA)) as anna,
        connect(table.port, table.hello(BORIS)) as boris,
        connect(table.port, table.hello(VERA)) as vera,
    ):
        mine, his, seen = await anna.state(), await boris.state(), await vera.state()
        assert mine["table"]["vote"] and "Anna" in mine["table"]["vote"]
        assert his["agree"] is True and mine["agree"] is False and seen["agree"] is False
        await vera.send({"type": "agree", "id": "v1"})  # not hers to agree
        refused = await vera.next("answer")
        assert refused["ok"] is False and refused["text"]
        await anna.send({"type": "agree", "id": "a1"})  # she asked: agreeing is not hers
        assert (await anna.next("answer"))["ok"] is False
        assert (await table.room()).state == "playing"
        await boris.send({"type": "agree", "id": "b1"})
        assert (await boris.next("answer"))["ok"] is True
        room = await table.room()
        ended = await anna.state(room.version)
    assert room.state == "finished" and room.result == {"cancelled": True}
    assert ended["table"]["vote"] is None
    assert await pieces(service).stats.recent_matches("tg", str(GROUP)) == []


async def test_r33_giving_up_on_the_web_table_records_the_loss(table: Table) -> None:
    service = table.service
    await past_the_first_deal(service, table.clock, table.room_id, [ANNA, BORIS])
    assert (await service.cancel(table.room_id, ANNA)).ok
    async with connect(table.port, table.hello(ANNA)) as anna:
        await anna.state()
        await anna.send({"type": "give_up", "id": "g1"})
        assert (await anna.next("answer"))["ok"] is True
    room = await table.room()
    assert room.state == "finished" and room.result is not None and room.result["abandoned"] == "Anna"
    assert len(await pieces(service).stats.recent_matches("tg", str(GROUP))) == 1


async def test_a_change_heard_of_another_database_or_version_sends_once(table: Table, redis: Redis) -> None:
    """Pub/sub channels belong to the Redis server, not to a database: a bot on another
    database of the same server, with rooms of the same ids, publishes on a channel of its
    own; and a version this worker's store does not have (heard from elsewhere) is drawn
    once from what is stored, never asked again and again (it made a page redraw its hand
    without end, so that no card could be tapped)."""
    room = await table.room()
    db = table.service.store.db
    assert keys.changes(db) != keys.changes(db + 1)
    async with connect(table.port, table.hello(ANNA)) as anna:
        await anna.state()
        follow = table.web.follows[table.room_id]
        loads = table.web.counters.loads
        table.web.notify(table.room_id, room.version + 5)  # a version nobody stored here
        assert follow.task is not None
        await asyncio.wait_for(follow.task, 30)  # (a guard: before, this never ended)
        assert table.web.counters.loads == loads + 1
        assert follow.sent == follow.wanted == room.version
        assert (await anna.state())["v"] == room.version
