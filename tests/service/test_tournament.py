"""Issue 36.3: tournaments in a chat, at the service: Swiss pairing (its invariants as
properties), the sign-up's hostile inputs, tables dealt one after another at the chat's
room, scoring by result then card points, a person who leaves or times out, and a worker
restarted half way through."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from redis.asyncio import Redis

from bot import tournament as tmod
from bot.changes import Reason
from bot.clock import ManualClock
from bot.pairing import Standing, pair, repeats, table_sizes
from bot.room import Room, User
from bot.service import GameService
from tests.fast_forward import fast_forward
from tests.pieces import pieces
from tests.service.conftest import snapshot

PEOPLE = [User(f"tg:{i}", n) for i, n in enumerate(["Anna", "Boris", "Vera", "Gleb", "Dasha", "Egor"], 1)]
BOTS = ["Robo", "Chip", "Bolt"]
CHAT = "-100"
RID = f"tg:{CHAT}"


# --- pairing ------------------------------------------------------------------------------


@st.composite
def fields(draw: st.DrawFn) -> tuple[list[Standing], int]:
    n = draw(st.integers(1, 24))
    size = draw(st.integers(2, 6))
    users = [f"u{i}" for i in range(n)]
    pairs = draw(st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=40))
    met: dict[str, set[str]] = {u: set() for u in users}
    for a, b in pairs:
        if a != b:
            met[users[a]].add(users[b])
            met[users[b]].add(users[a])
    people = [
        Standing(u, draw(st.integers(0, 5)), draw(st.integers(0, 300)), frozenset(met[u])) for u in users
    ]
    return people, size


@given(fields())
@settings(max_examples=150, deadline=None)
def test_i36_every_person_sits_at_exactly_one_table_of_at_most_its_size(
    field: tuple[list[Standing], int],
) -> None:
    people, size = field
    tables = pair(people, size)
    seated = [u for t in tables for u in t]
    assert sorted(seated) == sorted(p.user for p in people)  # each exactly once, nobody else
    assert all(1 <= len(t) <= size for t in tables)
    assert len(tables) == -(-len(people) // size)  # as few tables as the size allows
    assert max(map(len, tables)) - min(map(len, tables)) <= 1  # computer players spread
    # the seats left are computer players' only: a table's people are signed-up people
    assert sum(size - len(t) for t in tables) == len(tables) * size - len(people)


def fewest_repeats(people: list[Standing], size: int) -> int:
    """By brute force: the fewest pairs meeting again over every seating."""
    best = 10**9

    def go(left: list[Standing], i: int, cost: int, sizes: tuple[int, ...]) -> None:
        nonlocal best
        if not left:
            best = min(best, cost)
            return
        first, rest = left[0], left[1:]
        for others in itertools.combinations(rest, sizes[i] - 1):
            table = [first, *others]
            go([p for p in rest if p not in others], i + 1, cost + repeats(table), sizes)

    for sizes in set(itertools.permutations(table_sizes(len(people), size))):
        go(people, 0, 0, sizes)
    return best


@given(fields().filter(lambda f: len(f[0]) <= 8))
@settings(max_examples=120, deadline=None)
def test_i36_pairing_avoids_repeat_meetings_where_possible(field: tuple[list[Standing], int]) -> None:
    people, size = field
    by_user = {p.user: p for p in people}
    tables = pair(people, size)
    got = sum(repeats([by_user[u] for u in t]) for t in tables)
    assert got == fewest_repeats(people, size)


def test_i36_pairing_seats_the_leaders_together_when_nobody_met() -> None:
    people = [Standing(f"u{i}", points=i % 3, cards=i) for i in range(8)]
    tables = pair(people, 4)
    assert tables[0] == ["u5", "u2", "u7", "u4"]  # 2 points each, then card points


# --- the service ----------------------------------------------------------------------------


async def signed_up(svc: GameService, n: int, preset: str = "kozel", rounds: int = 2) -> str:
    out = await pieces(svc).tournaments.open_tournament("tg", CHAT, None, PEOPLE[0], preset, rounds, BOTS)
    assert out.ok and out.tournament is not None, out
    tid = out.tournament.id
    for u in PEOPLE[1:n]:
        assert (await pieces(svc).tournaments.join_tournament(RID, tid, u)).ok
    return tid


async def end_table(svc: GameService, clock: ManualClock, points: list[int] | None = None) -> Room:
    """Play the table at the chat's room to its end: the engine plays all but the last
    move in a moment; the last is the person's press, or the computer player's."""
    await fast_forward(svc, RID)
    room = await svc.room(RID)
    assert room is not None and room.state == "playing"
    if points is not None:
        room.points = points
        await svc.store.cas(room, None, 60, 0, 0.0)
        room = await svc.room(RID)
        assert room is not None
    before = room.gen
    for _ in range(50):
        for u in PEOPLE:
            hv = svc.hand_of(room, u.id)
            seat = room.seat_of(u.id)
            away = seat is not None and room.seats[seat].auto  # type: ignore[union-attr]
            if hv is not None and hv.on_move and hv.choices and not away:  # away: the timers move
                out = await svc.act(hv.choices[0].token, u)
                assert out.ok, out
                break
        else:
            clock.advance(61)
            await pieces(svc).timers.run_timers()
        room = await svc.room(RID)
        assert room is not None
        if room.gen != before or room.state == "finished":
            return room
    raise AssertionError("the table did not end")


async def test_i36_hostile_sign_up_changes_nothing(svc: GameService, redis: Redis) -> None:
    tid = await signed_up(svc, 2)
    before = await snapshot(redis)
    cases: list[tuple[Callable[[], object], str]] = [
        (lambda: pieces(svc).tournaments.join_tournament(RID, tid, PEOPLE[1]), Reason.ALREADY_SIGNED),
        (lambda: pieces(svc).tournaments.join_tournament(RID, "forged", PEOPLE[2]), Reason.STALE),
        (lambda: pieces(svc).tournaments.join_tournament("tg:-999", tid, PEOPLE[2]), Reason.NO_TOURNAMENT),
        (lambda: pieces(svc).tournaments.start_tournament(RID, tid, PEOPLE[0]), Reason.TOO_FEW),
        (lambda: pieces(svc).tournaments.start_tournament(RID, tid, PEOPLE[1]), Reason.NOT_ALLOWED),
        (lambda: pieces(svc).tournaments.cancel_tournament(RID, tid, PEOPLE[1]), Reason.NOT_ALLOWED),
        (lambda: pieces(svc).tournaments.leave_tournament(RID, tid, PEOPLE[3]), Reason.NOT_SIGNED),
        (
            lambda: pieces(svc).tournaments.open_tournament("tg", CHAT, None, PEOPLE[2], "petukh"),
            Reason.TOURNAMENT_EXISTS,
        ),
        (
            lambda: pieces(svc).tournaments.open_tournament("tg", "-5", None, PEOPLE[2], "kozel", 99),
            Reason.BAD_ROUNDS,
        ),
        (
            lambda: pieces(svc).tournaments.open_tournament("tg", "-5", None, PEOPLE[2], "poker"),
            Reason.BAD_PRESET,
        ),
    ]
    for call, reason in cases:
        out = await call()  # type: ignore[misc]
        assert not out.ok and out.reason == reason, (reason, out)
    assert await snapshot(redis) == before


async def test_i36_a_swiss_of_two_rounds_names_its_winner(svc: GameService, clock: ManualClock) -> None:
    tid = await signed_up(svc, 6, rounds=2)
    out = await pieces(svc).tournaments.start_tournament(RID, tid, PEOPLE[0])
    assert out.ok and out.tournament is not None
    t = out.tournament
    assert t.state == tmod.PLAYING and t.round == 1
    assert [len(x.people) for x in t.tables] == [3, 3]  # six people, tables of four
    seen_markers = set()
    for _table in range(4):  # two rounds of two tables, one after another
        room = await svc.room(RID)
        assert room is not None and room.state == "playing" and room.tournament
        seen_markers.add(room.tournament)
        people = [s.user for s in room.seats if s is not None and s.user]
        bots = [s for s in room.seats if s is not None and s.bot]
        assert len(people) == 3 and len(bots) == 1 and bots[0].name in BOTS
        await end_table(svc, clock)
    assert len(seen_markers) == 4
    t = await pieces(svc).tournaments.tournament(RID)
    assert t is not None and t.state == tmod.OVER and t.winners
    top = max((e.points, e.cards) for e in t.entrants)
    assert all((t.entrant(w).points, t.entrant(w).cards) == top for w in t.winners)  # type: ignore[union-attr]
    assert sum(e.points for e in t.entrants) > 0
    room = await svc.room(RID)
    assert room is not None and room.state == "finished"  # nothing dealt after the last
    again = await svc.rematch(RID, PEOPLE[0])  # a tournament's table: no "Another match"
    assert not again.ok and again.reason == Reason.NOT_ALLOWED


async def test_i36_ties_are_broken_by_card_points(svc: GameService, clock: ManualClock) -> None:
    tid = await signed_up(svc, 3, preset="kozel", rounds=1)
    await pieces(svc).tournaments.start_tournament(RID, tid, PEOPLE[0])
    room = await end_table(svc, clock, points=[70, 50])
    t = await pieces(svc).tournaments.tournament(RID)
    assert t is not None and t.state == tmod.OVER
    winners_side = {room.rules.side_of(s) for s in (room.result or {})["winners"]}
    for e in t.entrants:
        seat = room.seat_of(e.user)
        assert seat is not None
        side = room.rules.side_of(seat)
        assert e.points == int(side in winners_side)
        assert e.cards >= [70, 50][side]  # the last deal's points come on top
    rows = tmod.rows(t)
    assert [r["place"] for r in rows] == [1, 2, 3]
    assert [(r["points"], r["cards"]) for r in rows] == sorted(
        ((r["points"], r["cards"]) for r in rows), reverse=True
    )


async def test_i36_a_person_who_leaves_is_replaced_and_scores_nothing(
    svc: GameService, clock: ManualClock
) -> None:
    tid = await signed_up(svc, 3, rounds=2)
    await pieces(svc).tournaments.start_tournament(RID, tid, PEOPLE[0])
    out = await pieces(svc).tournaments.leave_tournament(RID, tid, PEOPLE[2])
    assert out.ok
    room = await svc.room(RID)
    assert room is not None
    seat = room.seat_of(PEOPLE[2].id)
    assert seat is not None and room.seats[seat].auto  # type: ignore[union-attr]
    await end_table(svc, clock)
    t = await pieces(svc).tournaments.tournament(RID)
    assert t is not None and t.round == 2
    gone = t.entrant(PEOPLE[2].id)
    assert gone is not None and gone.out and gone.points == 0 and gone.cards == 0
    room = await svc.room(RID)
    assert room is not None and room.seat_of(PEOPLE[2].id) is None  # round 2 without him
    assert sum(1 for s in room.seats if s is not None and s.bot) == 2
    again = await pieces(svc).tournaments.leave_tournament(RID, tid, PEOPLE[2])
    assert not again.ok and again.reason == Reason.NOT_SIGNED


async def test_i36_a_person_who_timed_out_scores_nothing_further(
    svc: GameService, clock: ManualClock
) -> None:
    tid = await signed_up(svc, 3, rounds=2)
    await pieces(svc).tournaments.start_tournament(RID, tid, PEOPLE[0])
    room = await svc.room(RID)
    assert room is not None
    seat = room.seat_of(PEOPLE[1].id)
    assert seat is not None
    room.seats[seat].auto = True  # type: ignore[union-attr]  # missed turns handed it over
    await svc.store.cas(room, None, 60, 0, 0.0)
    await end_table(svc, clock)
    t = await pieces(svc).tournaments.tournament(RID)
    assert t is not None
    e = t.entrant(PEOPLE[1].id)
    assert e is not None and e.out and e.points == 0


async def test_i36_a_restarted_worker_goes_on_with_the_tournament(
    svc: GameService, clock: ManualClock, new_service: Callable[..., GameService]
) -> None:
    tid = await signed_up(svc, 3, rounds=2)
    await pieces(svc).tournaments.start_tournament(RID, tid, PEOPLE[0])
    await fast_forward(svc, RID)
    # the table ends on a worker that dies before the tournament hears of it
    room = await svc.room(RID)
    assert room is not None
    hooks = pieces(svc).tournaments.table_finished

    async def dead(_room: Room) -> None:
        return None

    pieces(svc).tournaments.table_finished = dead  # type: ignore[method-assign]
    await end_table(svc, clock)
    pieces(svc).tournaments.table_finished = hooks  # type: ignore[method-assign]
    t = await pieces(svc).tournaments.tournament(RID)
    assert t is not None and t.round == 1 and t.table == 0  # not moved on
    await svc.close()
    other = new_service()
    assert await pieces(other).tournaments.advance_tournaments() >= 1  # its timer loop's look
    t = await pieces(other).tournaments.tournament(RID)
    assert t is not None and t.round == 2
    room = await other.room(RID)
    assert room is not None and room.state == "playing" and room.tournament == t.marker()


async def test_i36_the_next_table_waits_for_a_game_of_the_chat(svc: GameService, clock: ManualClock) -> None:
    tid = await signed_up(svc, 3, rounds=1)
    out = await svc.create("tg", CHAT, None, PEOPLE[4], "kozel", size=2)
    assert out.ok
    started = await pieces(svc).tournaments.start_tournament(RID, tid, PEOPLE[0])
    assert started.ok and started.tournament is not None
    assert started.tournament.tables[0].state == tmod.WAITING  # the chat's table is busy
    assert (await svc.cancel(RID, PEOPLE[4])).ok
    assert await pieces(svc).tournaments.advance_tournaments() >= 1
    room = await svc.room(RID)
    assert room is not None and room.tournament and room.state == "playing"
    rematch = await svc.rematch(RID, PEOPLE[0])
    assert not rematch.ok


@pytest.mark.parametrize("preset", ["petukh"])
async def test_i36_petukh_tables_score_tricks(svc: GameService, clock: ManualClock, preset: str) -> None:
    tid = await signed_up(svc, 3, preset=preset, rounds=1)
    await pieces(svc).tournaments.start_tournament(RID, tid, PEOPLE[0])
    room = await svc.room(RID)
    assert room is not None and room.size == 6
    await end_table(svc, clock)
    t = await pieces(svc).tournaments.tournament(RID)
    assert t is not None and t.state == tmod.OVER and t.winners


async def test_i36_a_cancelled_table_scores_nothing_and_the_next_is_dealt(
    svc: GameService, clock: ManualClock
) -> None:
    tid = await signed_up(svc, 3, rounds=2)
    await pieces(svc).tournaments.start_tournament(
        RID, tid, PEOPLE[5], is_admin=True
    )  # an admin may start it
    room = await svc.room(RID)
    assert room is not None and room.tournament
    out = await svc.cancel(RID, PEOPLE[5], is_admin=True)  # a chat admin ends the table
    assert out.ok
    t = await pieces(svc).tournaments.tournament(RID)
    assert t is not None and t.round == 2
    assert all(e.points == 0 and e.cards == 0 and not e.out for e in t.entrants)
    room = await svc.room(RID)
    assert room is not None and room.state == "playing" and room.tournament == t.marker()


# --- found in review: the opener's rights, a leaver's next table, two tournaments' ids ------


async def test_i36_the_opener_cannot_end_a_table_of_others(svc: GameService, clock: ManualClock) -> None:
    """Anna opened the tournament; a table she does not play at is not hers to wipe out
    (its creator is hers in the room, but a tournament's table gives no creator's rights)."""
    tid = await signed_up(svc, 6, rounds=2)
    assert (await pieces(svc).tournaments.start_tournament(RID, tid, PEOPLE[0])).ok
    for _ in range(3):
        room = await svc.room(RID)
        assert room is not None
        if room.seat_of(PEOPLE[0].id) is None:
            break
        await end_table(svc, clock)
    assert room.seat_of(PEOPLE[0].id) is None
    out = await svc.cancel(RID, PEOPLE[0], is_admin=False)
    assert not out.ok and out.reason == Reason.NOT_ALLOWED
    after = await svc.room(RID)
    assert after is not None and after.state == "playing" and after.version == room.version
    assert (await svc.cancel(RID, PEOPLE[0], is_admin=True)).ok  # a chat admin may (moderation)


async def test_i36_one_who_left_gets_a_computer_player_at_his_next_table(
    svc: GameService, clock: ManualClock
) -> None:
    tid = await signed_up(svc, 6, rounds=2)
    out = await pieces(svc).tournaments.start_tournament(RID, tid, PEOPLE[0])
    assert out.tournament is not None
    leaver = next(p for p in PEOPLE if p.id == out.tournament.tables[1].people[0])
    assert (
        await pieces(svc).tournaments.leave_tournament(RID, tid, leaver)
    ).ok  # while the first table plays
    await end_table(svc, clock)
    room = await svc.room(RID)
    assert room is not None
    seat = room.seat_of(leaver.id)
    assert seat is not None and room.seats[seat] is not None and room.seats[seat].auto  # type: ignore[union-attr]


async def test_i36_two_tournaments_tables_are_two_matches(
    svc: GameService, clock: ManualClock, redis: Redis
) -> None:
    """A table's match id is its room's, generation and time of dealing: the table of a later
    tournament (the room and the tournament expired meanwhile) is a match of its own."""
    from bot import keys

    tid = await signed_up(svc, 3, rounds=1)
    await pieces(svc).tournaments.start_tournament(RID, tid, PEOPLE[0])
    first = await end_table(svc, clock)
    await pieces(svc).timers.run_timers()
    clock.advance(7 * 3600)
    await redis.delete(keys.room(RID), keys.tournament(RID))
    out = await pieces(svc).tournaments.open_tournament("tg", CHAT, None, PEOPLE[0], "kozel", 1, ["Robo"])
    assert out.tournament is not None
    for u in PEOPLE[1:3]:
        await pieces(svc).tournaments.join_tournament(RID, out.tournament.id, u)
    await pieces(svc).tournaments.start_tournament(RID, out.tournament.id, PEOPLE[0])
    second = await end_table(svc, clock)
    await pieces(svc).timers.run_timers()
    assert (first.gen, first.created) != (second.gen, second.created) and second.created > 0
    assert len(await svc.history.entries("tg", CHAT)) == 2
