"""A person's hand in Discord: moves of several cards, live hands through refusals, double
presses, restarts and expiring tokens, coming back from a computer player (issue 14: 1, 2,
4, 7), through the real discord.py against the fake Discord."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from typing import Any

import pytest
from redis.asyncio import Redis

from adapters.common.render import Text
from adapters.discord import texts
from bot.clock import ManualClock
from bot.config import Settings
from bot.room import Room, User
from bot.service import GameService
from bot.store import Store
from bot.tokens import select_stem
from tests.fakes.discord import FakeDiscord, FakeMessage, FakeUser, RecordedCall
from tests.pieces import pieces

from .harness import (
    DELAY,
    TURN,
    Harness,
    make_settings,
    mover,
    people_and_bots,
    person,
    uid,
    until_person_moves,
)


def seed_match(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    """The next match started from Discord is dealt from ``seed``."""

    class Fixed(random.Random):
        def randrange(self, *args: Any, **kwargs: Any) -> int:
            return seed

    monkeypatch.setattr(random, "SystemRandom", Fixed)


async def test_several_cards_offer_only_what_may_be_legal(
    h: Harness, fake: FakeDiscord, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 7: seed 26 gives Bob (on lead) 6♣ 6♠ 9♠ 10♥. The 6♠ joins a lead of any suit
    (RULES.md 1), so 6♠+6♣, 6♠+9♠ and 6♠+10♥ are leads; 6♣+10♥ or 9♠+10♥ are not and
    nothing offers them; picked anyway, the answer says the rule right."""
    seed_match(monkeypatch, 26)
    ch = fake.games
    await h.command(fake.alice, ch, "newgame", {"preset": "kozel", "players": 2})
    await h.command(fake.bob, ch, "join")
    await h.command(fake.alice, ch, "startgame")
    room = await h.room(ch)
    hand = h.service.hand_of(room, uid(fake.bob))
    assert hand is not None and hand.on_move and sorted(hand.cards) == ["10H", "6C", "6S", "9S"]
    msg = await h.open_hand(fake.bob, ch)
    labels = {b["label"] for b in msg.buttons()}
    leads = {lb for lb in labels if lb.startswith("Lead") and lb.count(" ") == 2}
    assert leads == {"Lead 6♣ 6♠", "Lead 9♠ 6♠", "Lead 10♥ 6♠"}, labels
    assert not [c for c in msg.iter_components() if c.get("type") == 3]  # no free pick
    mixed = next(c for c in hand.choices if sorted(c.cards) == ["10H", "6S"])
    # a pick no control offers (a select of a moment ago, say): the rule, in its words, on
    # top of the hand, which stays his live hand
    wrong = [str(1 << hand.cards.index(c)) for c in ("6C", "10H")]
    inter = await h.press(fake.bob, msg, f"kz:s:{select_stem(mixed.token)}", wrong, check=False)
    assert inter.response_type == 7
    assert msg.text().startswith("⚠️ A lead is cards of one suit, or the 6♠ with any suit.")
    assert (await h.room(ch)).seat_of(uid(fake.bob)) is not None
    assert len(hand_messages(fake, fake.bob)) == 1
    inter = await h.play(fake.bob, ch, mixed, msg)
    assert inter.response_type == 7
    table = await h.table(ch)
    assert "10♥ 6♠" in table.text() or "6♠ 10♥" in table.text()


def hand_messages(fake: FakeDiscord, user: FakeUser) -> list[FakeMessage]:
    """Every message that ever showed ``user`` a hand (live or retired)."""
    return [
        m
        for m in fake.ephemeral_messages(user)
        if "kz:h" in m.custom_ids() or "no longer updated" in m.text()
    ]


def hand_calls(fake: FakeDiscord, since: int) -> list[RecordedCall]:
    """Edits of hands through interaction tokens (the painter's), since a call index."""
    return [c for c in fake.calls[since:] if c.path.startswith("/webhooks/") and c.method == "PATCH"]


async def test_one_live_hand_per_person_per_table(h: Harness, fake: FakeDiscord) -> None:
    """Item 1: a second "Show my hand" retires the first copy (it says so, and has no
    buttons left); only the newest is kept up to date."""
    ch = fake.games
    await people_and_bots(h, fake, ch)
    first = await h.open_hand(fake.bob, ch)
    second = await h.open_hand(fake.bob, ch)
    assert first.custom_ids() == [] and "no longer updated" in first.text()
    edits = len(first.edits)
    for _ in range(3):  # the game goes on: only the live copy follows it
        room = await until_person_moves(h, ch)
        user = person(room, fake)
        hand = h.service.hand_of(room, uid(user))
        assert hand is not None
        await h.play(user, ch, next(c for c in hand.choices if c.kind != "declare"))
    assert len(first.edits) == edits
    hand = h.service.hand_of(await h.room(ch), uid(fake.bob))
    assert hand is not None and texts.hand_text(Text("en"), hand) in second.text()
    assert len(hand_messages(fake, fake.bob)) == 2
    # one a table: Bob's hand at another table does not retire this one
    other = fake.channel
    await people_and_bots(h, fake, other)
    there = await h.open_hand(fake.bob, other)
    assert "no longer updated" not in second.text() and "kz:h" in second.custom_ids()
    mark = len(second.edits)
    for _ in range(3):  # the first table goes on: its live hand follows it
        room = await until_person_moves(h, ch)
        user = person(room, fake)
        hand = h.service.hand_of(room, uid(user))
        assert hand is not None
        await h.play(
            user,
            ch,
            next(c for c in hand.choices if c.kind != "declare"),
            second if user is fake.bob else None,
        )
    hand = h.service.hand_of(await h.room(ch), uid(fake.bob))
    assert hand is not None and texts.hand_text(Text("en"), hand) in second.text()
    assert len(second.edits) > mark and "no longer updated" not in there.text()


async def test_a_refusal_edits_the_pressed_hand_and_it_stays_live(h: Harness, fake: FakeDiscord) -> None:
    """Items 1 and 2: a hand whose token nears its end says so; once the token is gone the
    hand is left alone (never edited with a dead token); a stale button pressed on it is
    answered on that very message, the warning on top, and from then on it is live again."""
    ch = fake.games
    await people_and_bots(h, fake, ch)
    bob = await h.open_hand(fake.bob, ch)
    msgs = len(hand_messages(fake, fake.bob))

    async def until(who: FakeUser) -> None:
        """Everyone but ``who`` plays (from their own hands) until ``who`` is on move."""
        for _ in range(40):
            room = await until_person_moves(h, ch)
            user = person(room, fake)
            if user is who:
                await h.flush()
                return
            hand = h.service.hand_of(room, uid(user))
            assert hand is not None
            await h.play(user, ch, next(c for c in hand.choices if c.kind != "declare"), h.hands.get(user.id))
        raise AssertionError(f"{who.username} never came to move")

    await until(fake.alice)
    await h.advance(13 * 60)  # thirteen quiet minutes: Bob's token nears its end
    await until(fake.bob)  # the game goes on, Bob's hand follows it, saying so
    assert "stops updating in a few minutes" in bob.text() and "kz:h" in bob.custom_ids()
    stale = [c for c in bob.custom_ids() if c.startswith(("kz:a:", "kz:s:"))]
    assert stale
    select = bob.component(stale[0]) or {}
    picks = [o["value"] for o in select.get("options", [])][: select.get("min_values", 1)]
    await h.advance(3 * 60)  # past the token's 15 minutes: Bob's time ran out too
    shown, mark = bob.text(), len(fake.calls)
    assert await pieces(h.service).timers.run_timers() == 1  # a computer player moves for Bob
    await h.flush()
    assert bob.text() == shown  # left alone...
    assert not [c for c in fake.calls[mark:] if c.status == 401]  # ...never a dead token
    # a button (or a select) of the moment before
    inter = await h.press(fake.bob, bob, stale[0], picks or None)
    assert inter.response_type == 7  # answered on the pressed hand itself
    assert bob.text().startswith("⚠️") and "no longer possible" in bob.text()
    assert len(hand_messages(fake, fake.bob)) == msgs  # no copy beside it
    mark = len(fake.calls)
    if mover(await h.room(ch), fake) is fake.bob:  # he lets the computer move for him
        await h.advance(TURN)
        assert await pieces(h.service).timers.run_timers() == 1
        await h.flush()
    else:
        await until(fake.bob)
    assert hand_calls(fake, mark) and "stops updating" not in bob.text()  # live again
    hand = h.service.hand_of(await h.room(ch), uid(fake.bob))
    assert hand is not None and texts.hand_text(Text("en"), hand) in bob.text()


async def test_a_move_of_a_moment_ago_is_answered_on_the_redrawn_hand(h: Harness, fake: FakeDiscord) -> None:
    """Item 1: the person's time runs out and a computer player moves for him; the painter
    redraws his hand just as he presses the move he still sees (its custom id is no longer
    on the message). That press is answered on that very hand, the warning on top, no copy
    beside it, and the hand stays live."""
    ch = fake.games
    await people_and_bots(h, fake, ch)
    room = await until_person_moves(h, ch)
    user = person(room, fake)
    msg = await h.open_hand(user, ch)
    hand = h.service.hand_of(room, uid(user))
    assert hand is not None
    control, values = h.control_for(msg, next(c for c in hand.choices if c.kind != "declare"))
    await h.advance(TURN)
    assert await pieces(h.service).timers.run_timers() == 1  # a computer player moved for him
    await h.flush()
    assert control not in msg.custom_ids()  # his hand was redrawn meanwhile
    msgs = len(hand_messages(fake, user))
    inter = await h.press(user, msg, control, values, pace=0, check=False)
    assert inter.response_type == 7  # answered on the pressed hand
    assert msg.text().startswith("⚠️") and "no longer possible" in msg.text()
    assert len(hand_messages(fake, user)) == msgs
    mark = len(fake.calls)
    for _ in range(40):  # the game goes on: the hand follows it
        room = await until_person_moves(h, ch)
        other = person(room, fake)
        if other is user:
            break
        hand = h.service.hand_of(room, uid(other))
        assert hand is not None
        await h.play(other, ch, next(c for c in hand.choices if c.kind != "declare"), h.hands.get(other.id))
    assert hand_calls(fake, mark) and "⚠️" not in msg.text()
    hand = h.service.hand_of(await h.room(ch), uid(user))
    assert hand is not None and texts.hand_text(Text("en"), hand) in msg.text()


@pytest.fixture
async def slow(fake: FakeDiscord, redis: Redis, store: Store, clock: ManualClock) -> AsyncIterator[Harness]:
    """Ten minutes a move: the room may stay unchanged for most of a token's life."""
    settings = make_settings(turn_seconds=600.0)
    harness = await Harness.start(fake, redis, settings, clock, GameService(store, settings, clock))
    try:
        yield harness
    finally:
        await harness.stop()


async def test_a_hand_says_its_end_is_near_in_time_and_refresh_keeps_it_live(
    slow: Harness, fake: FakeDiscord
) -> None:
    """Item 2: a hand is drawn only when its room changes; with ten minutes a move the
    next change may come after its token's 15 minutes. So it says so at the last change
    that might come before the end (at six minutes here), offers "Refresh", and once
    refreshed it is live for another 15 minutes, the word gone."""
    h, ch = slow, fake.games
    await people_and_bots(h, fake, ch)
    bob = await h.open_hand(fake.bob, ch)
    room = await until_person_moves(h, ch)
    while person(room, fake) is fake.bob:  # Bob plays until he waits for Alice
        hand = h.service.hand_of(room, uid(fake.bob))
        assert hand is not None
        await h.play(fake.bob, ch, next(c for c in hand.choices if c.kind != "declare"), bob)
        room = await until_person_moves(h, ch)
    opened = h.clock.now()  # Bob's hand's token is no newer than this
    await h.advance(6 * 60)  # Alice thinks for six minutes, then plays
    hand = h.service.hand_of(room, uid(fake.alice))
    assert hand is not None and hand.on_move
    await h.play(fake.alice, ch, next(c for c in hand.choices if c.kind != "declare"))
    await until_person_moves(h, ch)
    assert "stops updating in a few minutes" in bob.text() and "kz:h" in bob.custom_ids()
    inter = await h.press(fake.bob, bob, "kz:h")
    assert inter.response_type == 7 and "stops updating" not in bob.text()
    await h.advance(12 * 60)  # nobody plays: the computer plays for whoever is on move
    assert h.clock.now() - opened > 15 * 60  # the first token is dead by now
    mark = len(fake.calls)
    assert await pieces(h.service).timers.run_timers() >= 1
    await h.flush()
    hand = h.service.hand_of(await h.room(ch), uid(fake.bob))
    assert hand is not None and texts.hand_text(Text("en"), hand) in bob.text()
    assert hand_calls(fake, mark) and not [c for c in fake.calls[mark:] if c.status == 401]


async def test_open_hands_follow_the_game_after_a_restart(
    h: Harness, fake: FakeDiscord, redis: Redis, redis_url: str, settings: Settings, clock: ManualClock
) -> None:
    """Item 2: what edits a hand (the token, its end, the message) is in Redis: a new
    process keeps the hands up to date without anyone pressing anything."""
    ch = fake.games
    await people_and_bots(h, fake, ch)
    hands = {u.id: await h.open_hand(u, ch) for u in (fake.alice, fake.bob)}
    await h.stop()
    store = Store(Redis.from_url(redis_url))
    try:
        service = GameService(store, settings, clock)
        h2 = await Harness.start(fake, redis, settings, clock, service, after=h)
        try:
            mark = len(fake.calls)
            for _ in range(2):
                room = await until_person_moves(h2, ch)
                user = person(room, fake)
                hand = service.hand_of(room, uid(user))
                assert hand is not None
                # the move through the service (another worker's, say): no press here
                choice = next(c for c in hand.choices if c.kind != "declare")
                assert (await service.act(choice.token, User(uid(user), user.username))).ok
                await h2.flush()
            assert hand_calls(fake, mark)
            room = await h2.room(ch)
            for u in (fake.alice, fake.bob):
                hand = service.hand_of(room, uid(u))
                assert hand is not None
                assert texts.hand_text(Text("en"), hand) in hands[u.id].text()
        finally:
            await h2.stop()
    finally:
        await store.close()


async def test_a_double_press_is_quiet(h: Harness, fake: FakeDiscord, seeded: None) -> None:
    """Item 1: the same move pressed twice at once: the second press is answered quietly
    (no warning, no new message); the hand shows the game as it is."""
    ch = fake.games
    await people_and_bots(h, fake, ch)
    room = await until_person_moves(h, ch)
    user = person(room, fake)
    msg = await h.open_hand(user, ch)
    hand = h.service.hand_of(room, uid(user))
    assert hand is not None
    choice = next(c for c in hand.choices if c.kind != "declare")
    control, values = h.control_for(msg, choice)
    first = await h.press(user, msg, control, values, look=False)
    # the same finger, again, on what the screen still showed
    again = await h.press(user, msg, control, values, pace=0, check=False)
    assert first.response_type == 7 and again.response_type == 6
    assert "⚠️" not in msg.text() and len(hand_messages(fake, user)) == 1
    now = h.service.hand_of(await h.room(ch), uid(user))
    assert now is not None and texts.hand_text(Text("en"), now) in msg.text()


async def test_two_presses_at_the_same_moment_make_one_move_quietly(
    h: Harness, fake: FakeDiscord, seeded: None
) -> None:
    """Item 1: two presses of the same move delivered together (neither answered before
    the other arrives): the move is made once, one press shows it on the hand, the other
    is quiet; no warning, no copy of the hand."""
    ch = fake.games
    await people_and_bots(h, fake, ch)
    room = await until_person_moves(h, ch)
    user = person(room, fake)
    msg = await h.open_hand(user, ch)
    hand = h.service.hand_of(room, uid(user))
    assert hand is not None
    choice = next(c for c in hand.choices if c.kind != "declare")
    control, values = h.control_for(msg, choice)
    await h.advance(1.5)
    before = await h.room(ch)
    presses = [await fake.interaction_component(user, msg, control, values) for _ in range(2)]
    for inter in presses:
        await fake.wait_for_response(inter)
    await h.flush()
    assert sorted(i.response_type or 0 for i in presses) == [6, 7]
    after = await h.room(ch)
    assert after.version == before.version + 1  # one change: the move, made once
    assert "⚠️" not in msg.text() and len(hand_messages(fake, user)) == 1
    now = h.service.hand_of(after, uid(user))
    assert now is not None and texts.hand_text(Text("en"), now) in msg.text()


async def test_a_hint_in_a_practice_game(h: Harness, fake: FakeDiscord, seeded: None) -> None:
    """Issue 15: at a table of one person and computer players, the hand offers "Hint":
    what a strong player would play there, on top of the hand (its owner's eyes only);
    a table with another person offers none."""
    ch = fake.games
    await h.command(fake.alice, ch, "newgame", {"players": 4})
    table = await h.table(ch)
    for _ in range(3):
        await h.press(fake.alice, table, "kz:t:bot")
    await h.press(fake.alice, table, "kz:t:start")
    room = await until_person_moves(h, ch)
    msg = await h.open_hand(fake.alice, ch)
    assert "kz:n" in msg.custom_ids()
    inter = await h.press(fake.alice, msg, "kz:n")
    assert inter.response_type == 6 and msg.text().startswith("💡 Hint: ")
    hint = await h.service.hint(room.id, uid(fake.alice))
    assert hint is not None and Text("en").hint_text(hint) in msg.text()
    assert hint.reason != "hint_plain" and "trial deals:" in msg.text()  # the search's why
    assert msg.ephemeral and msg.ephemeral_for == fake.alice.id
    await h.play(fake.alice, ch, hint.choice, msg)  # and it is a move like any other
    other = fake.channel  # a table with two people: no hint
    await people_and_bots(h, fake, other)
    room = await until_person_moves(h, other)
    assert "kz:n" not in (await h.open_hand(person(room, fake), other)).custom_ids()


async def _play_until(h: Harness, fake: FakeDiscord, who: FakeUser, *, absent: bool = False) -> Room:
    """The others play (people from their hands, computer players on the clock) until
    ``who``'s seat is on move; ``absent``: he lets his time run out meanwhile."""
    ch = fake.games
    for _ in range(80):
        room = await h.room(ch)
        seat_no = room.load_match().to_act()[0]
        seat = room.seats[seat_no]
        assert seat is not None
        if seat.user == uid(who) and not absent:
            await h.flush()
            return room
        if seat.user is not None and seat.user != uid(who) and not seat.auto:
            user = person(room, fake)
            hand = h.service.hand_of(room, uid(user))
            assert hand is not None
            await h.play(user, ch, next(c for c in hand.choices if c.kind != "declare"), h.hands.get(user.id))
            continue
        await h.advance(TURN if seat.user == uid(who) and not seat.auto else DELAY)
        await pieces(h.service).timers.run_timers()
        await h.settle()
        if absent:
            room = await h.room(ch)
            mine = room.seats[room.seat_of(uid(who)) or 0]
            if mine is not None and mine.auto:  # handed to a computer player
                await h.flush()
                return room
    raise AssertionError("never came to that")


async def test_im_back_on_the_hand_of_an_absent_person(h: Harness, fake: FakeDiscord) -> None:
    """Item 4: while a computer player plays for Bob (missed turns), his hand says so and
    offers "I'm back", and the table says so; pressed, the seat is his again at once (no
    race with the computer's next move), the table says he is back, and his hand is his own
    and live. Pressed again: quiet."""
    ch = fake.games
    await people_and_bots(h, fake, ch)
    bob = await h.open_hand(fake.bob, ch)
    await _play_until(h, fake, fake.bob, absent=True)
    table = await h.table(ch)
    assert "a computer player plays for them" in table.text()
    assert "kz:b" in bob.custom_ids() and "plays for you while you are away" in bob.text()
    inter = await h.press(fake.bob, bob, "kz:b")
    assert inter.response_type == 7  # on his hand itself
    room = await h.room(ch)
    seat = room.seats[room.seat_of(uid(fake.bob)) or 0]
    assert seat is not None and not seat.auto and "Bob is back" in table.text()
    assert "kz:b" not in bob.custom_ids() and "while you are away" not in bob.text()
    msgs, lines = len(hand_messages(fake, fake.bob)), table.text()
    # the same finger again, on the button the screen still showed: quiet
    again = await h.press(fake.bob, bob, "kz:b", pace=0, check=False)
    assert again.response_type == 7 and "⚠️" not in bob.text()
    assert len(hand_messages(fake, fake.bob)) == msgs and table.text() == lines
    room = await _play_until(h, fake, fake.bob)  # his turn: the computer does not take it
    await h.advance(DELAY)
    assert await pieces(h.service).timers.run_timers() == 0
    hand = h.service.hand_of(room, uid(fake.bob))
    assert hand is not None and hand.on_move
    assert texts.hand_text(Text("en"), hand) in bob.text()
    inter = await h.play(fake.bob, ch, next(c for c in hand.choices if c.kind != "declare"), bob)
    assert inter.response_type == 7


async def test_im_back_too_late_is_answered_on_the_hand(h: Harness, fake: FakeDiscord) -> None:
    """Item 4: Bob is away (a computer player plays for him) and the game is cancelled
    before he comes back; his "I'm back" of a moment ago is answered on his hand: the game
    is over."""
    ch = fake.games
    await people_and_bots(h, fake, ch)
    bob = await h.open_hand(fake.bob, ch)
    await _play_until(h, fake, fake.bob, absent=True)
    assert "kz:b" in bob.custom_ids()
    await h.command(fake.alice, ch, "cancel")
    assert bob.custom_ids() == [] and "the game is over" in bob.text()  # redrawn: over
    inter = await h.press(fake.bob, bob, "kz:b", pace=0, check=False)
    assert inter.response_type == 7 and bob.text().startswith("⚠️")
    assert "over" in bob.text().split("\n")[0]


async def test_a_room_with_every_hand_open_stays_within_8_kb(
    h: Harness, fake: FakeDiscord, redis: Redis, seeded: None
) -> None:
    """Issue 12.7: memory per room is every key of the room, the open hands' records beside
    it included. Four people with their hands open through a long petukh-25 match (the
    longest rooms: a log of many deals, records at 25) keep the room within 8 KB."""
    ch = fake.games
    people = [fake.alice, fake.bob, fake.carol, fake.dave]
    await h.command(fake.alice, ch, "newgame", {"preset": "petukh-25", "players": 4})
    table = await h.table(ch)
    for u in people[1:]:
        await h.press(u, table, "kz:t:join")
    await h.press(fake.alice, table, "kz:t:start")
    room = await h.play_match(ch, people, seed=5, fresh_every=3, max_steps=20000)
    assert len(h.hands) == 4  # every person has a live hand, its record kept in Redis
    total = 0
    for key in await h.service.store.room_keys(room.id):
        total += await redis.memory_usage(key, samples=0) or 0
    assert total <= 8 * 1024, total
