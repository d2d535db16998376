"""Issue 36: a game a chat comes back to, in the service: ratings that mean something
(item 5), the chat's house rules (item 1) and notices when a table opens (item 2)."""

from __future__ import annotations

from redis.asyncio import Redis

from bot import keys
from bot.clock import ManualClock
from bot.room import User
from bot.service import GameService
from bot.stats import season_of
from engine.match import Match

from .conftest import PEOPLE, people_room

ANNA, BORIS, VERA, GLEB, DASHA = PEOPLE
FOUR = [ANNA, BORIS, VERA, GLEB]
DELAY = 2.0


async def play_out(svc: GameService, clock: ManualClock, rid: str, people: list[User] = PEOPLE) -> None:
    """The engine plays the match up to its last action (a shortcut), then the service
    finishes it: people on move press their first choice, computer players move on timers."""
    room = await svc.room(rid)
    assert room is not None
    match = room.load_match()
    while True:
        seat = match.to_act()[0]
        action = match.legal_actions(seat)[0]
        trial = Match.from_state(match.rules, match.to_state())
        trial.apply(seat, action)
        if trial.finished:
            break
        match.apply(seat, action)
    room.match = match.to_state()
    assert (await svc.store.cas(room, None, 60, 0, 0.0)).version == room.version + 1
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
            await svc.run_timers()
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
    assert await svc.leaderboard("tg", "-100") == []
    assert (await svc.season_leaderboard("tg", "-100"))[1] == []
    # the table by level: the line-up's hardest computer player
    [row] = await svc.vs_computers("tg", "-100")
    assert row["user"] == ANNA.id and row["name"] == "Anna" and list(row["levels"]) == ["hard"]
    assert row["levels"]["hard"] == {"played": 1, "won": int(anna_won), "rate": float(anna_won)}
    # no rating moved: neither the chat's nor the person's own; her numbers count it
    assert ANNA.id not in await svc.store.chat_ratings("tg:-100")
    assert "mu" not in await svc.player_stats(ANNA.id)
    assert (await svc.player_stats(ANNA.id))["played"] == 1
    assert not [k async for k in redis.scan_iter("season:*")]


async def test_i36_5_people_rank_by_matches_with_people_and_by_season(
    svc: GameService, clock: ManualClock, redis: Redis
) -> None:
    rid = await people_room(svc, FOUR, seed=1)
    await play_out(svc, clock, rid)
    # Anna also plays computers alone in the same chat: /top does not count it
    solo = await alone_with_computers(svc, "-100", ["normal"], seed=4)
    await play_out(svc, clock, solo)
    board = {r["user"]: r for r in await svc.leaderboard("tg", "-100")}
    assert set(board) == {u.id for u in FOUR}
    assert all(r["played"] == 1 and r["rating"] is not None for r in board.values())
    month, season = await svc.season_leaderboard("tg", "-100")
    assert month == season_of(clock.now())
    assert {r["user"]: (r["played"], r["won"]) for r in season} == {
        u: (r["played"], r["won"]) for u, r in board.items()
    }
    [vs] = await svc.vs_computers("tg", "-100")
    assert vs["user"] == ANNA.id and vs["levels"]["normal"]["played"] == 1
    [key] = [k async for k in redis.scan_iter("season:*")]
    assert key.decode() == keys.chat_season("tg:-100", month)
    assert 0 < await redis.ttl(key) <= 62 * 24 * 3600
    # the next month: a new season, empty; the all-time table keeps it all
    clock.advance(40 * 24 * 3600)
    later, empty = await svc.season_leaderboard("tg", "-100")
    assert later != month and empty == []
    assert len(await svc.leaderboard("tg", "-100")) == 4


async def test_i36_5_a_season_starts_from_fresh_ratings(svc: GameService, clock: ManualClock) -> None:
    """A month's ratings start where a new player starts, whatever the all-time ones are."""
    two = [ANNA, BORIS]
    rid = await people_room(svc, two, seed=1, preset="kozel-60")
    await play_out(svc, clock, rid)
    clock.advance(40 * 24 * 3600)
    assert (await svc.rematch(rid, ANNA, seed=7)).ok
    await play_out(svc, clock, rid)
    alltime = {r["user"]: r for r in await svc.leaderboard("tg", "-100")}
    _month, season = await svc.season_leaderboard("tg", "-100")
    assert {r["played"] for r in alltime.values()} == {2} and {r["played"] for r in season} == {1}
    assert {r["rating"] for r in season} != {r["rating"] for r in alltime.values()}
