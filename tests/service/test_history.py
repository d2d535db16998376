"""Issue 36.4: a chat's last matches and their replays, kept when a match ends (played out
or given up), never while it is on; capped per chat, expiring; a replay is the match
played again from its log, every card in order."""

from __future__ import annotations

import random

import pytest
from redis.asyncio import Redis

from bot import history, keys, play
from bot.history import KEEP, TTL
from bot.room import Room, User
from bot.service import GameService
from engine.log import replay

from .conftest import PEOPLE, actor, people_room, pick

ANNA, BORIS, VERA, GLEB, _ = PEOPLE
FOUR = [ANNA, BORIS, VERA, GLEB]


async def play_out(svc: GameService, rid: str, people: list[User], seed: int = 0, steps: int = 20000) -> Room:
    """Every move through the service, as people press them, to the match's end."""
    rng = random.Random(seed)
    for _ in range(steps):
        room = await svc.room(rid)
        assert room is not None
        if room.state != "playing":
            return room
        user, hv = actor(svc, room, people)
        out = await svc.act(pick(hv, rng).token, user)
        assert out.ok, out
    raise AssertionError("the match did not end")


def every_card_played(deal: history.ReplayDeal) -> list[str]:
    return [c for step in deal.steps if step.kind in ("lead", "beat", "throw", "play") for c in step.cards]


async def test_i36_an_ended_match_is_listed_with_its_replay(svc: GameService) -> None:
    rid = await people_room(svc, FOUR, seed=3)
    room = await play_out(svc, rid, FOUR)
    assert room.result is not None
    [entry] = await svc.history.entries("tg", "-100")
    assert entry["preset"] == "kozel" and entry["replay"]
    assert entry["names"] == ["Anna", "Boris", "Vera", "Gleb"]
    assert entry["winners"] == room.result["winners"] and entry["score"] == room.result["score"]
    assert entry["sides"] == [[0, 2], [1, 3]] and entry["date"] == svc.clock.now()
    rep = await svc.history.replay("tg", "-100", entry["key"])
    assert await svc.history.replay("tg", "-100", entry["key"]) is rep  # played again once, then reused
    assert rep is not None and len(rep.deals) == len(room.log)
    for deal in rep.deals:
        dealt = sorted(c for hand in deal.hands for c in hand)
        assert len(dealt) == 16  # four hands of four, as dealt
        # every card of the deck is played once in the deal, face-down ones shown
        played = every_card_played(deal)
        assert len(played) == 36 and len(set(played)) == 36 and set(dealt) <= set(played)
        keys_ = [ln.key for step in deal.steps for ln in step.lines]
        assert "trick_won" in keys_ and "deal_ended" in keys_ and "thrown" not in keys_
    # the deal log it gives replays in the engine to the same result
    log = await svc.history.replay_log("tg", "-100", entry["key"])
    assert log is not None and log["names"] == entry["names"]
    _match, summary = replay(log)
    assert summary["finished"] and summary["winners"] == room.result["winners"]
    assert summary["score"] == room.result["score"]


async def test_i36_a_match_still_on_is_never_listed_nor_replayed(svc: GameService, redis: Redis) -> None:
    rid = await people_room(svc, FOUR, seed=5)
    room = await svc.room(rid)
    assert room is not None
    rng = random.Random(1)
    while (await svc.room(rid)).load_match().deal_no < 2:  # type: ignore[union-attr]
        room = await svc.room(rid)
        assert room is not None
        user, hv = actor(svc, room, FOUR)
        assert (await svc.act(pick(hv, rng).token, user)).ok
    assert await svc.history.entries("tg", "-100") == []
    key = history.match_key(room.match_id)
    assert (
        await svc.history.replay("tg", "-100", key) is None
        and await svc.history.replay_log("tg", "-100", key) is None
    )
    # its first dealing is kept beside the room, under the room's shard, never in a list
    kept = await svc.store.kept_dealings(rid, room.match_id)
    assert list(kept) == [0]
    assert not await redis.exists(keys.chat_history("tg:-100"), keys.chat_history_logs("tg:-100"))


async def test_i36_a_cancelled_match_is_not_history_a_given_up_one_is(svc: GameService) -> None:
    rid = await people_room(svc, [ANNA, BORIS], seed=2)
    assert (await svc.cancel(rid, ANNA)).ok  # before the first deal ends: just ended
    assert await svc.history.entries("tg", "-100") == []
    rid = await people_room(svc, [ANNA, BORIS], seed=2)
    room = await svc.room(rid)
    user, hv = actor(svc, room, [ANNA, BORIS])  # type: ignore[arg-type]
    assert (await svc.act(pick(hv).token, user)).ok
    assert (await svc.give_up(rid, BORIS)).ok
    [entry] = await svc.history.entries("tg", "-100")
    assert entry["abandoned"] == "Boris" and entry["winners"] == [0]
    rep = await svc.history.replay("tg", "-100", entry["key"])
    assert rep is not None and len(rep.deals) == 1 and len(rep.deals[0].steps) == 1


async def test_i36_a_long_match_replays_whole_though_the_room_kept_its_last_deals(
    svc: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(play, "LOG_CHARS", 60)  # the room keeps a deal or two
    rid = await people_room(svc, [ANNA, BORIS], seed=4, preset="petukh-25")
    room = await play_out(svc, rid, [ANNA, BORIS], seed=2)
    assert "" in room.log[:-1]  # the room dropped its first dealings
    [entry] = await svc.history.entries("tg", "-100")
    assert entry["replay"]
    log = await svc.history.replay_log("tg", "-100", entry["key"])
    assert log is not None and len(log["deals"]) == len(room.log)
    _match, summary = replay(log)
    assert summary["finished"] and summary["score"] == room.result["score"]  # type: ignore[index]
    # the copies beside the room are gone with the match
    assert await svc.store.kept_dealings(rid, room.match_id) == {}


async def test_i36_the_history_keeps_the_last_matches_and_expires(svc: GameService, redis: Redis) -> None:
    for i in range(KEEP + 2):
        rid = await people_room(svc, [ANNA, BORIS], seed=i)
        svc.clock.advance(60)  # type: ignore[attr-defined]
        assert (await svc.give_up(rid, ANNA if i % 2 else BORIS)).ok
    entries = await svc.history.entries("tg", "-100")
    assert len(entries) == KEEP
    assert entries[0]["date"] > entries[-1]["date"]  # newest first
    assert await redis.hlen(keys.chat_history_logs("tg:-100")) == KEEP  # dropped logs go too
    for k in (keys.chat_history("tg:-100"), keys.chat_history_logs("tg:-100")):
        assert 0 < await redis.ttl(k) <= TTL
    # a key of a match that fell off is refused, as any unknown one
    assert await svc.history.replay("tg", "-100", "AAAAAAAA") is None
    assert await svc.history.entries("tg", "-200") == []
