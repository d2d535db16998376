"""Issue 33 through the service on a real Redis: who may fill and deal a table, a creator
removed by an admin, names nobody can fake, a table's secret, what expires."""

from __future__ import annotations

from redis.asyncio import Redis

from bot import invites, keys
from bot.clock import ManualClock
from bot.lobby import VOTE_SECONDS
from bot.names import MAX_NAME, clean_name
from bot.room import FINISHED, User
from bot.service import MAX_LOBBIES, GameService
from bot.store import PEOPLE_TTL
from tests.pieces import pieces

from .conftest import DELAY, PEOPLE, people_room, pick

ANNA, BORIS, VERA, GLEB, DASHA = PEOPLE
STRANGER = User("tg:99", "Stranger")


async def lobby(svc: GameService, chat: str = "-100", user: User = ANNA) -> str:
    out = await svc.create("tg", chat, None, user, "kozel")
    assert out.ok and out.room is not None, out
    return out.room.id


async def test_only_the_creator_or_an_admin_fills_the_table_with_computers(svc: GameService) -> None:
    """Item 8: Boris, seated, may not add computer players until the table is "full" and
    then deal it for everyone; a passer-by may not deal a full table either."""
    rid = await lobby(svc)
    assert (await svc.join(rid, BORIS)).ok
    assert (await svc.add_bot(rid, BORIS)).reason == "not_allowed"
    assert (await svc.add_bot(rid, STRANGER)).reason == "not_allowed"
    assert (await svc.add_bot(rid, BORIS, is_admin=True)).ok  # a chat admin has the rights
    assert (await svc.add_bot(rid, ANNA)).ok
    assert (await svc.remove_bot(rid, BORIS)).reason == "not_allowed"
    assert (await svc.start(rid, STRANGER)).reason == "not_allowed"  # full, but not his
    out = await svc.start(rid, BORIS)  # full, and he sits at it
    assert out.ok and out.room is not None and out.room.state == "playing"


async def test_the_creator_may_deal_a_table_that_is_not_full(svc: GameService) -> None:
    rid = await lobby(svc)
    assert (await svc.join(rid, BORIS)).ok
    assert (await svc.start(rid, BORIS)).reason == "not_allowed"
    assert (await svc.start(rid, ANNA)).ok  # two of four: a valid count for kozel


async def test_a_creator_kicked_by_an_admin_hands_on_his_rights(svc: GameService) -> None:
    """Item 8: the creator removed by an admin keeps nothing; the first person seated
    becomes the creator, as when the creator leaves."""
    rid = await lobby(svc)
    for u in (BORIS, VERA):
        assert (await svc.join(rid, u)).ok
    out = await svc.kick(rid, GLEB, ANNA.id, is_admin=True)
    assert out.ok and out.room is not None and out.room.creator == BORIS.id
    assert (await svc.add_bot(rid, ANNA)).reason == "not_allowed"
    assert (await svc.add_bot(rid, BORIS)).ok
    # the last person removed: the lobby closes
    rid2 = await lobby(svc, "-200", VERA)
    out = await svc.kick(rid2, GLEB, VERA.id, is_admin=True)
    assert out.ok and out.room is not None and out.room.state == FINISHED


def test_names_are_cleaned_and_never_a_computer_players() -> None:
    """Item 8: bidi overrides, zero-width and control characters go; the 🤖 mark is
    reserved; a name is one short line; an empty one falls back."""
    assert clean_name("\u202eannA\u202c") == "annA"
    assert clean_name("A\u200bn\u200dn\u2060a\ufeff") == "Anna"
    assert clean_name("\U0001f916 Sam") == "Sam"
    assert clean_name("Bad\nline\ttab\u2028x\u00a0y") == "Bad line tab x y"
    assert clean_name("  Anna   Petrova ") == "Anna Petrova"
    assert len(clean_name("x" * 100)) == MAX_NAME
    assert clean_name("\u200b\u202e", "1234") == "1234"
    assert User("tg:7", "\U0001f916 Сёма\u202e").name == "Сёма"
    assert User("tg:7", "").name == "7"


async def test_a_person_named_like_a_computer_player_is_drawn_as_a_person(svc: GameService) -> None:
    rid = await lobby(svc, user=User("tg:1", "\U0001f916 Sam"))
    room = await svc.room(rid)
    assert room is not None and room.seats[0] is not None
    assert room.seats[0].name == "Sam" and not room.seats[0].computer
    table = svc.table_of(room)
    assert table.seats[0] is not None and not table.seats[0].computer


async def test_a_tables_link_opens_only_with_its_own_secret(svc: GameService) -> None:
    """Item 4: the payload names the chat and the table's secret; a forged or an old
    secret (the table closed and opened again) opens nothing."""
    rid = await lobby(svc)
    room = await svc.room(rid)
    assert room is not None and len(room.secret) == 2 * invites.SECRET_BYTES
    payload = invites.payload_of(room)
    assert len(payload) <= invites.MAX_PAYLOAD and payload.replace("_", "").replace("-", "").isalnum()
    found = await svc.room_by_link("tg", payload)
    assert found is not None and found.id == rid
    forged = payload[:-4] + ("0000" if not payload.endswith("0000") else "1111")
    assert await svc.room_by_link("tg", forged) is None
    assert await svc.room_by_link("tg", "-100__") is None
    assert await svc.room_by_link("tg", "-100") is None  # the old form: a chat id alone
    assert await svc.room_by_link("tg", "../x" * 30) is None
    assert (await svc.cancel(rid, ANNA)).ok
    assert (await svc.create("tg", "-100", None, ANNA, "kozel")).ok
    assert await svc.room_by_link("tg", payload) is None  # a new table, a new secret


async def test_one_person_opens_a_few_lobbies_at_most(svc: GameService) -> None:
    """Item 8: a person's open lobbies are capped (each one is a message to keep up)."""
    for i in range(MAX_LOBBIES):
        await lobby(svc, f"-{100 + i}")
    out = await svc.create("tg", "-999", None, ANNA, "kozel")
    assert not out.ok and out.reason == "too_many_lobbies"
    assert (await svc.create("tg", "-999", None, BORIS, "kozel")).ok  # others are not held
    assert (await svc.start(f"tg:-{100}", ANNA)).reason == "bad_count"  # alone
    assert (await svc.cancel("tg:-100", ANNA)).ok
    assert (await svc.create("tg", "-999", None, VERA, "kozel")).reason == "room_exists"
    assert (await svc.create("tg", "-998", None, ANNA, "kozel")).ok  # one closed: room again


async def test_a_persons_rooms_and_a_chats_usernames_expire(svc: GameService, redis: Redis) -> None:
    """Item 8: ``urooms:{…}`` and the username map no longer live forever."""
    await lobby(svc)
    ttl = await redis.ttl(keys.user_rooms(ANNA.id))
    assert 0 < ttl <= PEOPLE_TTL
    await svc.chats.remember_username("tg", "-100", "Anna_P", ANNA.id)
    assert await svc.chats.user_by_username("tg", "-100", "@anna_p") == ANNA.id
    assert 0 < await redis.ttl(keys.usernames("tg:-100")) <= PEOPLE_TTL


# --- item 7: a lost match cannot be wiped out by its loser ----------------------------------


async def past_the_first_deal(svc: GameService, clock: ManualClock, rid: str, people: list[User]) -> None:
    """Play (people by their first choice, computers by the timers) until deal 2 starts."""
    for _ in range(3000):
        room = await svc.room(rid)
        assert room is not None and room.state == "playing"
        if room.load_match().deal_no > 1:
            return
        moved = False
        for u in people:
            hv = svc.hand_of(room, u.id)
            if hv is not None and hv.on_move and hv.choices:
                assert (await svc.act(pick(hv).token, u)).ok
                moved = True
                break
        if not moved:
            clock.advance(DELAY)
            await pieces(svc).timers.run_timers()
    raise AssertionError("deal 2 never began")


async def test_r33_after_a_deal_a_players_cancel_needs_the_others(
    svc: GameService, clock: ManualClock
) -> None:
    """Anna, losing after deal 1, cannot end the match alone: her /cancel asks Boris and
    Vera; it ends (unrecorded) only when both agree; a computer's seat is not asked."""
    rid = await people_room(svc, [ANNA, BORIS, VERA], seed=2)
    await past_the_first_deal(svc, clock, rid, [ANNA, BORIS, VERA])
    out = await svc.cancel(rid, ANNA)
    assert out.ok and out.room is not None and out.room.state == "playing"
    assert [ln.key for ln in out.lines] == ["cancel_asked"] and out.lines[0].params["needed"] == 2
    table = svc.table_of(out.room)
    assert table.vote is not None and table.vote.by == "Anna" and table.vote.needed == 2
    assert set(table.vote.waiting) == {BORIS.id, VERA.id}
    assert (await svc.cancel(rid, ANNA)).reason == "already_asked"
    assert (await svc.agree_to_end(rid, ANNA)).reason == "already_asked"  # hers is the asking
    assert (await svc.agree_to_end(rid, STRANGER)).reason == "not_your_seat"
    first = await svc.agree_to_end(rid, BORIS)
    assert first.ok and first.room is not None and first.room.state == "playing"
    assert (await svc.agree_to_end(rid, BORIS)).reason == "already_asked"
    last = await svc.agree_to_end(rid, VERA)
    assert last.ok and last.room is not None and last.room.state == FINISHED
    assert last.room.result == {"cancelled": True}
    assert await pieces(svc).stats.recent_matches("tg", "-100") == []  # agreed: nobody's loss


async def test_r33_a_request_nobody_answers_lapses(svc: GameService, clock: ManualClock) -> None:
    rid = await people_room(svc, [ANNA, BORIS], seed=2)
    await past_the_first_deal(svc, clock, rid, [ANNA, BORIS])
    assert (await svc.cancel(rid, ANNA)).ok
    clock.advance(VOTE_SECONDS + 1)
    room = await svc.room(rid)
    assert room is not None and svc.table_of(room).vote is None
    assert (await svc.agree_to_end(rid, BORIS)).reason == "no_vote"
    again = await svc.cancel(rid, ANNA)  # she may ask again
    assert again.ok and [ln.key for ln in again.lines] == ["cancel_asked"]
    # the other asking too is agreeing
    both = await svc.cancel(rid, BORIS)
    assert both.ok and both.room is not None and both.room.state == FINISHED


async def test_r33_giving_up_records_the_match_lost_for_the_side_that_asked(
    svc: GameService, clock: ManualClock
) -> None:
    """Four people in two teams: Anna gives up at deal 2; Anna and Vera (seats 0 and 2)
    lose, Boris and Gleb win, and the chat's records and ratings say so."""
    four = [ANNA, BORIS, VERA, GLEB]
    rid = await people_room(svc, four, seed=2)
    await past_the_first_deal(svc, clock, rid, four)
    before = await svc.room(rid)
    assert before is not None
    out = await svc.give_up(rid, ANNA)
    assert out.ok and out.room is not None and out.room.state == FINISHED
    assert [ln.key for ln in out.lines] == ["abandoned"]
    assert out.room.result is not None and sorted(out.room.result["winners"]) == [1, 3]
    assert out.room.result["score"] == list(before.load_match().scores)
    [match] = await pieces(svc).stats.recent_matches("tg", "-100")
    assert match["abandoned"] == "Anna" and sorted(match["winners"]) == sorted([BORIS.id, GLEB.id])
    rows = {r["user"]: r for r in await pieces(svc).stats.leaderboard("tg", "-100")}
    assert rows[BORIS.id]["won"] == 1 and rows[ANNA.id]["won"] == 0
    assert svc.table_of(out.room).abandoned == "Anna"
    assert (await svc.give_up(rid, BORIS)).reason == "game_over"


async def test_r33_the_creator_alone_with_computers_or_before_a_deal_ends_cancels_freely(
    svc: GameService, clock: ManualClock
) -> None:
    rid = await lobby(svc, "-300")
    for _ in range(3):
        assert (await svc.add_bot(rid, ANNA)).ok
    assert (await svc.start(rid, ANNA, seed=2)).ok
    await past_the_first_deal(svc, clock, rid, [ANNA])
    out = await svc.cancel(rid, ANNA)
    assert out.ok and out.room is not None and out.room.state == FINISHED
    # during the first deal: the creator may still cancel
    rid = await people_room(svc, [ANNA, BORIS], chat="-400", seed=2)
    out = await svc.cancel(rid, ANNA)
    assert out.ok and out.room is not None and out.room.state == FINISHED
    # an admin who does not play may end a match (moderation); a passer-by may not
    rid = await people_room(svc, [ANNA, BORIS], chat="-500", seed=2)
    await past_the_first_deal(svc, clock, rid, [ANNA, BORIS])
    assert (await svc.cancel(rid, STRANGER)).reason == "not_allowed"
    out = await svc.cancel(rid, STRANGER, is_admin=True)
    assert out.ok and out.room is not None and out.room.state == FINISHED


async def test_r33_away_players_are_not_asked(svc: GameService, clock: ManualClock) -> None:
    rid = await people_room(svc, [ANNA, BORIS], seed=2)
    await past_the_first_deal(svc, clock, rid, [ANNA, BORIS])
    room = await svc.room(rid)
    assert room is not None
    seat = room.seat_of(BORIS.id)
    assert seat is not None and room.seats[seat] is not None
    room.seats[seat].auto = True  # type: ignore[union-attr]  # his seat handed to a computer
    assert room.voters(ANNA.id) == []
