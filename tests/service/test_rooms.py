"""Lobby flows through the service on a real Redis: create, seats, options, start, cancel,
rematch; rooms per chat and per forum topic; adapters' platform data; the server is real."""

from __future__ import annotations

from typing import Any

import pytest
from redis.asyncio import Redis

from bot import keys
from bot.room import FINISHED, LOBBY, PLAYING, Room, User
from bot.service import GameService
from bot.store import Store, unpack_doc
from bot.views import Line
from engine.presets import PresetError, validate_options
from tests.pieces import pieces

from .conftest import PEOPLE, actor, people_room, pick, room_bytes

ANNA, BORIS, VERA, GLEB, DASHA = PEOPLE
STRANGER = User("tg:99", "Stranger")


def engine_message(preset: str, options: dict[str, Any] | None) -> str:
    with pytest.raises(PresetError) as e:
        validate_options(preset, options)
    return str(e.value)


async def lobby(svc: GameService, chat: str = "-100", **kw: Any) -> str:
    out = await svc.create("tg", chat, None, ANNA, kw.pop("preset", "kozel"), **kw)
    assert out.ok, out
    assert out.room is not None
    return out.room.id


# --- the server ------------------------------------------------------------------------------


async def test_the_store_is_a_real_redis_server(store: Store, redis: Redis) -> None:
    info = await store.server_info()
    assert "redis_version" in info
    assert int(str(info["redis_version"]).split(".")[0]) >= 6
    assert info.get("process_id") and info.get("tcp_port") is not None
    raw = await redis.execute_command("INFO", "server")
    assert b"redis_version" in raw if isinstance(raw, bytes) else "redis_version" in raw
    # Lua and the commands the store relies on answer as a server does
    assert await redis.eval("return redis.call('PING')", 0) in (b"PONG", "PONG")
    await redis.set("probe", 1, ex=100)
    assert 0 < await redis.ttl("probe") <= 100
    assert await redis.memory_usage("probe") > 0


# --- create ----------------------------------------------------------------------------------


async def test_create_seats_the_creator_with_defaults(svc: GameService) -> None:
    out = await svc.create("tg", "-100", None, ANNA, "kozel")
    assert out.ok and out.room is not None
    room = out.room
    assert room.id == "tg:-100" and room.state == LOBBY and room.gen == 1
    assert room.size == 4 and room.options == {"shokha": True, "tie": "both_two"}
    assert room.seats[0] is not None and room.seats[0].user == ANNA.id
    assert room.creator == ANNA.id and room.lang == "en"
    assert [ln.key for ln in out.lines] == ["room_created"]
    assert (await svc.room("tg:-100")) is not None
    assert [r.id for r in await svc.rooms_of(ANNA.id)] == ["tg:-100"]


async def test_create_validates_preset_and_options(svc: GameService, redis: Redis) -> None:
    bad = await svc.create("tg", "-100", None, ANNA, "durak")
    assert not bad.ok and bad.reason == "bad_preset"
    assert bad.data["message"] == engine_message("durak", None)
    for opts in ({"shokha": "maybe"}, {"colour": 1}, {"tie": "eggs_triple"}):
        out = await svc.create("tg", "-100", None, ANNA, "kozel", opts)
        assert not out.ok and out.reason == "bad_preset"
        assert out.data["message"] == engine_message("kozel", opts)
    out = await svc.create("tg", "-100", None, ANNA, "kozel-4", {"tie": "eggs"})
    assert out.reason == "bad_preset" and "unknown option" in out.data["message"]
    out = await svc.create("tg", "-100", None, ANNA, "kozel", size=5)
    assert out.reason == "bad_size" and out.data["allowed"] == [2, 3, 4]
    assert await redis.keys("room:*") == []
    ok = await svc.create("tg", "-100", None, ANNA, "kozel", {"tie": "eggs"}, size=3)
    assert ok.ok and ok.room is not None
    assert ok.room.options == {"shokha": True, "tie": "eggs"} and ok.room.size == 3
    again = await svc.create("tg", "-100", None, BORIS, "kozel")
    assert again.reason == "room_exists"


# --- seats -----------------------------------------------------------------------------------


async def test_join_leave_and_creator_handover(svc: GameService) -> None:
    rid = await lobby(svc)
    assert (await svc.join(rid, BORIS)).ok
    assert (await svc.join(rid, BORIS)).reason == "already_seated"
    j = await svc.join(rid, VERA, seat=3)
    assert j.ok and j.room is not None and j.room.seat_of(VERA.id) == 3
    assert (await svc.join(rid, GLEB)).ok
    assert (await svc.join(rid, DASHA)).reason == "table_full"
    assert (await svc.join("tg:-555", DASHA)).reason == "no_room"
    assert (await svc.leave(rid, DASHA)).reason == "not_seated"
    out = await svc.leave(rid, ANNA)
    assert out.ok and out.room is not None
    assert out.room.creator == BORIS.id and out.room.seat_of(ANNA.id) is None
    assert rid not in [r.id for r in await svc.rooms_of(ANNA.id)]
    for u in (BORIS, VERA):
        assert (await svc.leave(rid, u)).ok
    last = await svc.leave(rid, GLEB)
    assert last.ok and last.room is not None and last.room.state == FINISHED
    assert [ln.key for ln in last.lines] == ["lobby_closed"]
    assert (await svc.join(rid, DASHA)).reason == "no_room"


async def test_computer_players_added_and_removed(svc: GameService) -> None:
    rid = await lobby(svc)
    assert (await svc.add_bot(rid, ANNA, "genius")).reason == "bad_level"
    assert (await svc.add_bot(rid, STRANGER)).reason == "not_allowed"
    assert (await svc.remove_bot(rid, ANNA)).reason == "no_bot"
    a = await svc.add_bot(rid, ANNA)
    b = await svc.add_bot(rid, ANNA, "random")
    assert a.ok and b.ok and b.room is not None
    seats = b.room.seats
    assert seats[1] is not None and seats[1].bot == "normal" and seats[1].user is None
    assert seats[2] is not None and seats[2].bot == "random"
    assert (await svc.join(rid, BORIS)).ok
    assert (await svc.add_bot(rid, BORIS)).reason == "not_allowed"  # issue 33.8: the creator's
    assert (await svc.add_bot(rid, BORIS, is_admin=True)).reason == "table_full"  # or an admin's
    assert (await svc.remove_bot(rid, STRANGER)).reason == "not_allowed"
    assert (await svc.remove_bot(rid, BORIS, seat=1)).reason == "not_allowed"
    assert (await svc.remove_bot(rid, ANNA, seat=3)).reason == "no_bot"  # a person there
    r = await svc.remove_bot(rid, BORIS, seat=1, is_admin=True)
    assert r.ok and r.room is not None and r.room.seats[1] is None
    r = await svc.remove_bot(rid, ANNA)  # the last computer player
    assert r.ok and r.room is not None and r.room.seats[2] is None
    assert (await svc.remove_bot(rid, ANNA)).reason == "no_bot"


async def test_kick_by_creator_or_admin_only(svc: GameService) -> None:
    rid = await lobby(svc)
    for u in (BORIS, VERA):
        assert (await svc.join(rid, u)).ok
    assert (await svc.add_bot(rid, ANNA)).ok
    assert (await svc.kick(rid, BORIS, VERA.id, is_admin=False)).reason == "not_allowed"
    assert (await svc.kick(rid, ANNA, ANNA.id, is_admin=False)).reason == "kick_self"
    assert (await svc.kick(rid, ANNA, DASHA.id, is_admin=False)).reason == "not_seated"
    assert (await svc.kick(rid, ANNA, 7, is_admin=False)).reason == "not_seated"
    k = await svc.kick(rid, ANNA, BORIS.id, is_admin=False)
    assert k.ok and k.room is not None and k.room.seat_of(BORIS.id) is None
    assert [ln.key for ln in k.lines] == ["kicked"]
    k = await svc.kick(rid, STRANGER, 3, is_admin=True)  # an admin kicks the computer player
    assert k.ok and k.room is not None and k.room.seats[3] is None
    k = await svc.kick(rid, STRANGER, VERA.id, is_admin=True)
    assert k.ok and k.room is not None and k.room.occupied == 1


async def test_options_and_size_by_creator_or_admin(svc: GameService) -> None:
    rid = await lobby(svc)
    assert (await svc.join(rid, BORIS)).ok
    assert (await svc.set_option(rid, BORIS, "tie", "eggs")).reason == "not_allowed"
    o = await svc.set_option(rid, ANNA, "tie", "eggs")
    assert o.ok and o.room is not None and o.room.options["tie"] == "eggs"
    o = await svc.set_option(rid, BORIS, "shokha", False, is_admin=True)
    assert o.ok and o.room is not None and o.room.options == {"shokha": False, "tie": "eggs"}
    bad = await svc.set_option(rid, ANNA, "tie", "never")
    assert bad.reason == "bad_option"
    assert bad.data["message"] == engine_message("kozel", {"shokha": False, "tie": "never"})
    assert (await svc.set_option(rid, ANNA, "nope", 1)).reason == "bad_option"
    assert (await svc.set_size(rid, BORIS, 2)).reason == "not_allowed"
    s = await svc.set_size(rid, ANNA, 3)
    assert s.ok and s.room is not None and s.room.size == 3 and len(s.room.seats) == 3
    assert (await svc.set_size(rid, ANNA, 5)).reason == "bad_size"
    assert (await svc.join(rid, VERA)).ok
    assert (await svc.set_size(rid, ANNA, 2)).reason == "too_many_seated"
    s = await svc.set_size(rid, ANNA, 4, is_admin=False)
    assert s.ok and s.room is not None and s.room.size == 4 and s.room.occupied == 3


async def test_start_rules(svc: GameService) -> None:
    rid = await lobby(svc)
    # one player: no valid count, for anyone
    assert (await svc.start(rid, ANNA)).reason == "bad_count"
    assert (await svc.join(rid, BORIS)).ok
    assert (await svc.join(rid, VERA)).ok
    # three of four seated: valid for kozel, but only the creator may start
    out = await svc.start(rid, BORIS)
    assert out.reason == "not_allowed"
    assert (await svc.start(rid, STRANGER)).reason == "not_allowed"
    room = await svc.room(rid)
    assert room is not None and room.state == LOBBY
    # full table: anyone may start
    assert (await svc.join(rid, GLEB)).ok
    st = await svc.start(rid, VERA, seed=5)
    assert st.ok and st.room is not None and st.room.state == PLAYING and st.room.players == 4
    assert (await svc.start(rid, ANNA)).reason == "already_started"
    assert (await svc.join(rid, DASHA)).reason == "already_started"


async def test_creator_starts_with_a_valid_count_and_seats_compact(svc: GameService) -> None:
    rid = await lobby(svc)
    assert (await svc.join(rid, BORIS, seat=3)).ok
    st = await svc.start(rid, ANNA, seed=1)
    assert st.ok and st.room is not None
    assert st.room.size == 2 and len(st.room.seats) == 2
    assert st.room.seat_of(BORIS.id) == 1 and st.room.rules.players == 2


async def test_kozel4_needs_four_and_halves_needs_four(svc: GameService) -> None:
    out = await svc.create("tg", "-1", None, ANNA, "kozel-4")
    assert out.ok
    assert (await svc.join("tg:-1", BORIS)).ok
    assert (await svc.start("tg:-1", ANNA)).reason == "bad_count"
    out = await svc.create("tg", "-2", None, ANNA, "kozel-60", {"deal": "halves"})
    assert out.ok
    for u in (BORIS, VERA):
        assert (await svc.join("tg:-2", u)).ok
    r = await svc.start("tg:-2", ANNA)
    assert r.reason == "bad_count" and r.data["allowed"] == [4]


async def test_cancel(svc: GameService) -> None:
    rid = await lobby(svc)
    assert (await svc.join(rid, BORIS)).ok
    assert (await svc.cancel(rid, BORIS)).reason == "not_allowed"
    c = await svc.cancel(rid, BORIS, is_admin=True)
    assert c.ok and c.room is not None and c.room.state == FINISHED
    assert c.room.result == {"cancelled": True}
    assert (await svc.cancel(rid, ANNA)).reason == "no_room"
    assert (await svc.rematch(rid, ANNA)).reason == "not_finished"  # never played
    # a playing room is cancelled too, and a new lobby may follow
    rid = await people_room(svc, [ANNA, BORIS], chat="-200")
    c = await svc.cancel(rid, ANNA)
    assert c.ok and c.room is not None and c.room.deadline is None
    n = await svc.create("tg", "-200", None, BORIS, "kozel-60")
    assert n.ok and n.room is not None and n.room.gen == 2 and n.room.creator == BORIS.id
    assert (await svc.cancel("tg:-404", ANNA)).reason == "no_room"


async def _finish(svc: GameService, rid: str, people: list[User]) -> Room:
    for _ in range(3000):
        room = await svc.room(rid)
        assert room is not None
        if room.state != PLAYING:
            return room
        u, hv = actor(svc, room, people)
        out = await svc.act(pick(hv).token, u)
        assert out.ok, out.reason
    raise AssertionError("the match did not end")


async def test_rematch(svc: GameService) -> None:
    rid = await people_room(svc, [ANNA, BORIS], seed=4)
    assert (await svc.rematch(rid, ANNA)).reason == "not_finished"
    room = await _finish(svc, rid, [ANNA, BORIS])
    assert room.state == FINISHED and room.result and room.result["winners"]
    assert (await svc.rematch(rid, STRANGER)).reason == "not_seated"
    assert (await svc.rematch("tg:-404", ANNA)).reason == "no_room"
    r = await svc.rematch(rid, BORIS, seed=9)
    assert r.ok and r.room is not None
    assert r.room.state == PLAYING and r.room.gen == room.gen + 1 and r.room.result is None
    assert r.room.log == [""] and r.room.match is not None and r.room.match["seed"] == 9
    assert [s.user for s in r.room.seats if s] == [ANNA.id, BORIS.id]
    assert (await svc.rematch(rid, ANNA)).reason == "not_finished"


# --- rooms per chat and per topic --------------------------------------------------------------


async def test_one_person_in_rooms_of_two_chats(svc: GameService) -> None:
    a = await people_room(svc, [ANNA, BORIS], chat="-1", seed=1)
    b = await people_room(svc, [VERA, ANNA], chat="-2", seed=2)
    assert a != b
    assert sorted(r.id for r in await svc.rooms_of(ANNA.id)) == sorted([a, b])
    ra, rb = await svc.room(a), await svc.room(b)
    assert ra is not None and rb is not None
    assert ra.seat_of(ANNA.id) == 0 and rb.seat_of(ANNA.id) == 1
    ha, hb = svc.hand_of(ra, ANNA.id), svc.hand_of(rb, ANNA.id)
    assert ha is not None and hb is not None and ha.room == a and hb.room == b
    # a move in one room leaves the other alone, and a button works in its own room only
    for rid, people in ((a, [ANNA, BORIS]), (b, [VERA, ANNA])):
        room = await svc.room(rid)
        assert room is not None
        u, hv = actor(svc, room, people)
        other = b if rid == a else a
        before = await svc.room(other)
        tok = pick(hv).token
        assert (await svc.act(tok, u, room_id=other)).reason == "foreign_token"
        out = await svc.act(tok, u, room_id=rid)
        assert out.ok, out.reason
        after = await svc.room(other)
        assert before is not None and after is not None and after.version == before.version


async def test_forum_topics_are_rooms_of_their_own(svc: GameService) -> None:
    main = await svc.create("tg", "-100", None, ANNA, "kozel")
    t1 = await svc.create("tg", "-100", "7", BORIS, "kozel-60", size=2)
    t2 = await svc.create("tg", "-100", "8", VERA, "kozel")
    assert main.ok and t1.ok and t2.ok
    assert main.room and t1.room and t2.room
    ids = {main.room.id, t1.room.id, t2.room.id}
    assert ids == {"tg:-100", "tg:-100/7", "tg:-100/8"}
    assert t1.room.thread == "7" and t1.room.chat == "-100" and main.room.thread is None
    assert (await svc.join("tg:-100/7", ANNA)).ok
    st = await svc.start("tg:-100/7", BORIS, seed=1)
    assert st.ok
    m = await svc.room("tg:-100")
    assert m is not None and m.state == LOBBY and m.seat_of(ANNA.id) == 0
    assert (await svc.create("tg", "-100", "7", GLEB, "kozel")).reason == "room_exists"
    # a topic's button is foreign in the chat's main room
    room = await svc.room("tg:-100/7")
    assert room is not None
    u, hv = actor(svc, room, [BORIS, ANNA])
    assert (await svc.act(pick(hv).token, u, room_id="tg:-100")).reason == "foreign_token"
    assert (await svc.act(pick(hv).token, u, room_id="tg:-100/7")).ok


# --- platform data ---------------------------------------------------------------------------


async def test_platform_data_round_trip_without_notifying(svc: GameService, redis: Redis) -> None:
    heard: list[tuple[Room, list[Line]]] = []

    async def listener(room: Room, lines: list[Line]) -> None:
        heard.append((room, lines))

    svc.on_change(listener)
    rid = await lobby(svc)
    assert len(heard) == 1  # the creation itself
    out = await pieces(svc).platform.data.set_room_data(rid, table_msg=123, pinned=True, topic={"a": [1, 2]})
    assert out.ok
    out = await pieces(svc).platform.data.set_seat_data(rid, ANNA.id, dm=55, delivery="private")
    assert out.ok
    room = await svc.room(rid)
    assert room is not None
    assert room.pdata == {"table_msg": 123, "pinned": True, "topic": {"a": [1, 2]}}
    assert room.sdata == {ANNA.id: {"dm": 55, "delivery": "private"}}
    assert len(heard) == 1
    # the same values again write nothing
    before = await room_bytes(redis, rid)
    assert (await pieces(svc).platform.data.set_room_data(rid, table_msg=123)).ok
    assert (await pieces(svc).platform.data.set_seat_data(rid, ANNA.id, dm=55)).ok
    assert await room_bytes(redis, rid) == before
    # platform data survives the start of a match and a new lobby after it
    assert (await svc.join(rid, BORIS)).ok
    assert (await svc.start(rid, ANNA, seed=1)).ok
    assert (await svc.cancel(rid, ANNA)).ok
    assert (await svc.create("tg", "-100", None, BORIS, "kozel")).ok
    room = await svc.room(rid)
    assert room is not None and room.pdata["table_msg"] == 123
    assert room.sdata[ANNA.id]["dm"] == 55
    assert (await pieces(svc).platform.data.set_room_data("tg:-404", x=1)).reason == "no_room"
    assert (await pieces(svc).platform.data.set_seat_data("tg:-404", ANNA.id, x=1)).reason == "no_room"
    assert all(lines is not None for _r, lines in heard)
    assert len(heard) == 5  # join, start, cancel, create: never the data writes


async def test_listener_errors_never_undo_a_commit(svc: GameService) -> None:
    async def broken(room: Room, lines: list[Line]) -> None:
        raise RuntimeError("adapter down")

    svc.on_change(broken)
    rid = await lobby(svc)
    assert (await svc.join(rid, BORIS)).ok
    room = await svc.room(rid)
    assert room is not None and room.seat_of(BORIS.id) == 1


async def test_chat_language_is_kept_per_chat(svc: GameService) -> None:
    assert await svc.chats.chat_language("tg", "-100") == "en"
    await svc.chats.set_chat_language("tg", "-100", "ru")
    assert await svc.chats.chat_language("tg", "-100") == "ru"
    assert await svc.chats.chat_language("tg", "-200") == "en"
    out = await svc.create("tg", "-100", "3", ANNA, "kozel")
    assert out.room is not None and out.room.lang == "ru"


async def test_a_room_document_is_the_dataclass_as_json(svc: GameService, redis: Redis) -> None:
    """``Room.to_json`` writes exactly ``json.dumps(asdict(room))`` (without the version),
    and reads back to an equal room, in every state."""
    import json
    from dataclasses import asdict

    def check(room: Room) -> None:
        d = asdict(room)
        # the store's, platform data's own, and the objects built from the document
        for kept_apart in ("version", "pdata", "sdata", "built"):
            d.pop(kept_apart)
        assert room.to_json() == json.dumps(d, ensure_ascii=False, separators=(",", ":"))
        again = Room.from_json(room.to_json(), room.version)
        again.pdata, again.sdata = room.pdata, room.sdata
        assert again == room

    out = await svc.create("tg", "-100", "5", ANNA, "kozel", {"tie": "eggs"})
    assert out.room is not None
    check(out.room)  # empty seats
    assert (await pieces(svc).platform.data.set_seat_data(out.room.id, ANNA.id, dm={"id": 1, "ё": "ж"})).ok
    assert (await svc.add_bot(out.room.id, ANNA)).ok
    assert (await svc.join(out.room.id, BORIS)).ok
    st = await svc.start(out.room.id, ANNA, seed=3)
    assert st.room is not None
    check(st.room)
    room = await svc.room(out.room.id)
    assert room is not None
    check(room)
    v, doc = await room_bytes(redis, room.id)
    assert unpack_doc(doc).decode() == room.to_json() and int(v) == room.version


async def test_a_room_document_is_stored_deflated_and_an_old_plain_one_still_reads(
    svc: GameService, redis: Redis
) -> None:
    """Issue 12.7: the document is deflated (a long room stays within 8 KB with its hands'
    records); a document written as plain JSON before that is read as it was."""
    out = await svc.create("tg", "-100", "5", ANNA, "kozel", {"tie": "eggs"})
    assert out.room is not None
    _v, doc = await room_bytes(redis, out.room.id)
    assert doc[:1] == b"z" and len(doc) < len(out.room.to_json())
    await redis.hset(keys.room(out.room.id), "doc", out.room.to_json())
    again = await svc.room(out.room.id)
    assert again is not None and again.to_json() == out.room.to_json()
