"""Issue 36: a game a chat comes back to, in the service: ratings that mean something
(item 5), the chat's house rules (item 1) and notices when a table opens (item 2)."""

from __future__ import annotations

from redis.asyncio import Redis

from bot import keys
from bot.clock import ManualClock
from bot.records import NOTICE_GAP
from bot.room import User
from bot.service import GameService
from bot.stats import season_of
from tests.pieces import pieces

from .conftest import PEOPLE, people_room
from .test_stats import fast_forward

ANNA, BORIS, VERA, GLEB, DASHA = PEOPLE
FOUR = [ANNA, BORIS, VERA, GLEB]
DELAY = 2.0


async def play_out(svc: GameService, clock: ManualClock, rid: str, people: list[User] = PEOPLE) -> None:
    """The engine plays the match up to its last action (a shortcut), then the service
    finishes it: people on move press their first choice, computer players move on timers."""
    await fast_forward(svc, rid)  # the engine to the last action, stored
    for _ in range(200):
        room = await svc.room(rid)
        assert room is not None
        if room.state == "finished":
            return
        on_move = [
            (u, hv)
            for u in PEOPLE
            if (hv := svc.hand_of(room, u.id)) is not None and hv.on_move and hv.choices
        ]
        if on_move:
            u, hv = on_move[0]
            assert (await svc.act(next(c for c in hv.choices if c.kind != "declare").token, u)).ok
        else:
            clock.advance(DELAY)
            await pieces(svc).timers.run_timers()
    raise AssertionError("the match did not end")


async def alone_with_computers(svc: GameService, chat: str, levels: list[str], seed: int = 3) -> str:
    out = await svc.create("tg", chat, None, ANNA, "kozel", size=1 + len(levels))
    assert out.ok and out.room is not None
    for level in levels:
        assert (await svc.add_bot(out.room.id, ANNA, level=level)).ok
    assert (await svc.start(out.room.id, ANNA, seed=seed)).ok
    return out.room.id


# --- item 5: ratings ---------------------------------------------------------------------


async def test_i36_5_a_match_against_computers_alone_goes_to_the_table_by_level(
    svc: GameService, clock: ManualClock, redis: Redis
) -> None:
    rid = await alone_with_computers(svc, "-100", ["hard", "hard", "easy"])
    await play_out(svc, clock, rid)
    room = await svc.room(rid)
    assert room is not None and room.result is not None
    anna_won = room.rules.side_of(room.seat_of(ANNA.id) or 0) in {
        room.rules.side_of(s) for s in room.result["winners"]
    }
    # /top ranks people by matches with people: nothing here
    assert await pieces(svc).stats.leaderboard("tg", "-100") == []
    assert (await pieces(svc).stats.season_leaderboard("tg", "-100"))[1] == []
    # the table by level: the line-up's hardest computer player
    [row] = await pieces(svc).stats.vs_computers("tg", "-100")
    assert row["user"] == ANNA.id and row["name"] == "Anna" and list(row["levels"]) == ["hard"]
    assert row["levels"]["hard"] == {"played": 1, "won": int(anna_won), "rate": float(anna_won)}
    # no rating moved: neither the chat's nor the person's own; her numbers count it
    assert ANNA.id not in await svc.store.chat_ratings("tg:-100")
    assert "mu" not in await pieces(svc).stats.player_stats(ANNA.id)
    assert (await pieces(svc).stats.player_stats(ANNA.id))["played"] == 1
    assert not [k async for k in redis.scan_iter("season:*")]


async def test_i36_5_people_rank_by_matches_with_people_and_by_season(
    svc: GameService, clock: ManualClock, redis: Redis
) -> None:
    rid = await people_room(svc, FOUR, seed=1)
    await play_out(svc, clock, rid)
    # Anna also plays computers alone in the same chat: /top does not count it
    solo = await alone_with_computers(svc, "-100", ["normal"], seed=4)
    await play_out(svc, clock, solo)
    board = {r["user"]: r for r in await pieces(svc).stats.leaderboard("tg", "-100")}
    assert set(board) == {u.id for u in FOUR}
    assert all(r["played"] == 1 and r["rating"] is not None for r in board.values())
    month, season = await pieces(svc).stats.season_leaderboard("tg", "-100")
    assert month == season_of(clock.now())
    assert {r["user"]: (r["played"], r["won"]) for r in season} == {
        u: (r["played"], r["won"]) for u, r in board.items()
    }
    [vs] = await pieces(svc).stats.vs_computers("tg", "-100")
    assert vs["user"] == ANNA.id and vs["levels"]["normal"]["played"] == 1
    [key] = [k async for k in redis.scan_iter("season:*")]
    assert key.decode() == keys.chat_season("tg:-100", month)
    assert 0 < await redis.ttl(key) <= 62 * 24 * 3600
    # the next month: a new season, empty; the all-time table keeps it all
    clock.advance(40 * 24 * 3600)
    later, empty = await pieces(svc).stats.season_leaderboard("tg", "-100")
    assert later != month and empty == []
    assert len(await pieces(svc).stats.leaderboard("tg", "-100")) == 4


async def test_i36_5_a_season_starts_from_fresh_ratings(svc: GameService, clock: ManualClock) -> None:
    """A month's ratings start where a new player starts, whatever the all-time ones are."""
    two = [ANNA, BORIS]
    rid = await people_room(svc, two, seed=1, preset="kozel-60")
    await play_out(svc, clock, rid)
    clock.advance(40 * 24 * 3600)
    assert (await svc.rematch(rid, ANNA, seed=7)).ok
    await play_out(svc, clock, rid)
    alltime = {r["user"]: r for r in await pieces(svc).stats.leaderboard("tg", "-100")}
    _month, season = await pieces(svc).stats.season_leaderboard("tg", "-100")
    assert {r["played"] for r in alltime.values()} == {2} and {r["played"] for r in season} == {1}
    assert {r["rating"] for r in season} != {r["rating"] for r in alltime.values()}


# --- item 1: house rules -------------------------------------------------------------------


async def test_i36_1_the_rules_of_the_last_deal_open_the_next_table(svc: GameService) -> None:
    out = await svc.create("tg", "-100", None, ANNA, "kozel-60", {"deal": "halves"}, size=4)
    assert out.ok and out.room is not None
    rid = out.room.id
    assert (await svc.set_option(rid, ANNA, "bot_level", "hard")).ok
    # toggles alone are not remembered: only a deal is
    assert await svc.chats.house_rules("tg", "-100", "kozel-60") is None
    for u in (BORIS, VERA, GLEB):
        assert (await svc.join(rid, u)).ok
    assert (await svc.start(rid, ANNA, seed=1)).ok
    assert (await svc.cancel(rid, ANNA)).ok
    rules = await svc.chats.house_rules("tg", "-100", "kozel-60")
    assert rules is not None and not rules["pinned"]
    assert rules["options"]["deal"] == "halves" and rules["size"] == 4 and rules["level"] == "hard"
    again = await svc.create("tg", "-100", None, BORIS, "kozel-60")
    assert again.ok and again.room is not None
    assert again.room.options["deal"] == "halves" and again.room.bot_level == "hard"
    assert svc.table_of(again.room).changed == ["deal"]
    # another chat, another game: their own rules
    other = await svc.create("tg", "-200", None, BORIS, "kozel-60")
    assert other.ok and other.room is not None and other.room.options["deal"] != "halves"
    assert svc.table_of(other.room).changed == []
    # a caller that wants the game's own (a tournament, say)
    assert (await svc.cancel(again.room.id, BORIS)).ok
    own = await svc.create("tg", "-100", None, BORIS, "kozel-60", house=False)
    assert own.ok and own.room is not None and own.room.options["deal"] != "halves"


async def test_i36_1_kept_rules_win_and_reset_forgets_both(svc: GameService) -> None:
    rid = await people_room(svc, [ANNA, BORIS], seed=1, options={"shokha": False})
    room = await svc.room(rid)
    assert room is not None
    await svc.chats.pin_rules(room)
    assert (await svc.cancel(rid, ANNA)).ok
    rid = await people_room(svc, [ANNA, BORIS, VERA], seed=2, options={"shokha": True, "tie": "eggs"})
    rules = await svc.chats.house_rules("tg", "-100", "kozel")
    assert (
        rules is not None and rules["pinned"] and rules["options"]["shokha"] is False and rules["size"] == 2
    )
    await svc.chats.reset_rules("tg", "-100", ["kozel"])
    assert await svc.chats.house_rules("tg", "-100", "kozel") is None


async def test_i36_1_stored_rules_are_read_through_the_game_as_it_is(svc: GameService, redis: Redis) -> None:
    """A removed option, a bad value, a size or level no longer offered, text that is not
    JSON: dropped, never a crash."""
    for text in ("{not json", "[1, 2]", '{"options": "x", "size": "4"}'):
        await redis.hset(keys.chat_prefs("tg:-100"), "rules:kozel", text)
        out = await svc.create("tg", "-100", None, ANNA, "kozel")
        assert out.ok and out.room is not None and out.room.size == 4
        assert (await svc.cancel(out.room.id, ANNA)).ok
    await redis.hset(
        keys.chat_prefs("tg:-100"),
        "rules:kozel",
        '{"options": {"gone": 1, "shokha": "maybe", "tie": "eggs"}, "size": 9, "level": "god"}',
    )
    out = await svc.create("tg", "-100", None, ANNA, "kozel")
    assert out.ok and out.room is not None
    assert out.room.options["tie"] == "eggs" and out.room.size == 4 and out.room.bot_level == "normal"


# --- item 2: notices --------------------------------------------------------------------------


async def test_i36_2_a_table_has_one_notice_never_for_its_opener(
    svc: GameService, redis: Redis, clock: ManualClock
) -> None:
    for u in (ANNA, BORIS, VERA):
        await svc.chats.set_notify("tg", "-100", u.id, True)
    await svc.chats.set_notify("tg", "-100", VERA.id, False)
    assert await svc.chats.notify_on("tg", "-100", BORIS.id) and not await svc.chats.notify_on(
        "tg", "-100", VERA.id
    )
    assert await redis.ttl(keys.notify("tg:-100")) > 0
    out = await svc.create("tg", "-100", None, ANNA, "kozel")
    assert out.ok and out.room is not None
    assert await svc.chats.notice_for(out.room) == [BORIS.id]
    assert await svc.chats.notice_for(out.room) == []  # the same table: told once
    mark = [k async for k in redis.scan_iter("notice:*")]
    assert len(mark) == 1 and 0 < await redis.ttl(mark[0]) <= 24 * 3600
    # a person no longer in the chat is dropped for good
    await svc.chats.drop_notify("tg", "-100", [BORIS.id])
    assert not await svc.chats.notify_on("tg", "-100", BORIS.id)
    # a table cancelled and opened again at once: no second ping (one notice a chat in
    # NOTICE_GAP, or a member could ping the others with /newgame and /cancel)
    assert (await svc.cancel(out.room.id, ANNA)).ok
    again = await svc.create("tg", "-100", None, VERA, "kozel")
    assert again.ok and again.room is not None
    assert await svc.chats.notice_for(again.room) == []
    # a table of the chat later: a notice of its own
    assert (await svc.cancel(again.room.id, VERA)).ok
    clock.advance(NOTICE_GAP)
    nxt = await svc.create("tg", "-100", None, VERA, "kozel")
    assert nxt.ok and nxt.room is not None
    assert await svc.chats.notice_for(nxt.room) == [ANNA.id]
