"""Issue 33 through the service on a real Redis: who may fill and deal a table, a creator
removed by an admin, names nobody can fake, a table's secret, what expires."""

from __future__ import annotations

from redis.asyncio import Redis

from bot import invites, keys
from bot.names import MAX_NAME, clean_name
from bot.room import FINISHED, User
from bot.service import MAX_LOBBIES, GameService
from bot.store import PEOPLE_TTL

from .conftest import PEOPLE

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
    await svc.remember_username("tg", "-100", "Anna_P", ANNA.id)
    assert await svc.user_by_username("tg", "-100", "@anna_p") == ANNA.id
    assert 0 < await redis.ttl(keys.usernames("tg:-100")) <= PEOPLE_TTL
