"""A person's hand in Discord: moves of several cards, live hands through refusals, double
presses, restarts and expiring tokens, coming back from a computer player (issue 14: 1, 2,
4, 7), through the real discord.py against the fake Discord."""

from __future__ import annotations

import random
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
from tests.fakes.discord_api import FakeDiscord, FakeMessage, FakeUser, RecordedCall

from .harness import DELAY, TURN, Harness, mover, people_and_bots, person, uid, until_person_moves


def seed_match(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    """The next match started from Discord is dealt from ``seed``."""

    class Fixed(random.Random):
        def randrange(self, *args: Any, **kwargs: Any) -> int:
            return seed

    monkeypatch.setattr(random, "SystemRandom", Fixed)


async def test_several_cards_offer_only_what_may_be_legal(
        h: Harness, fake: FakeDiscord, monkeypatch: pytest.MonkeyPatch) -> None:
    """Item 7: seed 26 gives Bob (on lead) 6♣ 6♠ 9♠ 10♥. The 6♠ joins a lead of any suit
    (RULES.md 1), so 6♠+6♣, 6♠+9♠ and 6♠+10♥ are leads; 6♣+10♥ or 9♠+10♥ are not and
    nothing offers them."""
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
    inter = await h.play(fake.bob, ch, mixed, msg)
    assert inter.response_type == 7
    table = await h.table(ch)
    assert "10♥ 6♠" in table.text() or "6♠ 10♥" in table.text()


def hand_messages(fake: FakeDiscord, user: FakeUser) -> list[FakeMessage]:
    """Every message that ever showed ``user`` a hand (live or retired)."""
    return [m for m in fake.ephemeral_messages(user)
            if "kz:h" in m.custom_ids() or "no longer updated" in m.text()]


def hand_calls(fake: FakeDiscord, since: int) -> list[RecordedCall]:
    """Edits of hands through interaction tokens (the painter's), since a call index."""
    return [c for c in fake.calls[since:] if c.path.startswith("/webhooks/")
            and c.method == "PATCH"]


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


async def test_a_refusal_edits_the_pressed_hand_and_it_stays_live(
        h: Harness, fake: FakeDiscord) -> None:
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
            await h.play(user, ch, next(c for c in hand.choices if c.kind != "declare"),
                         h.hands.get(user.id))
        raise AssertionError(f"{who.username} never came to move")

    await until(fake.alice)
    await h.advance(13 * 60)  # thirteen quiet minutes: Bob's token nears its end
    await until(fake.bob)  # the game goes on, Bob's hand follows it, saying so
    assert "stops updating in a few minutes" in bob.text() and "kz:h" in bob.custom_ids()
    stale = [c for c in bob.custom_ids() if c.startswith(("kz:a:", "kz:s:"))]
    assert stale
    select = bob.component(stale[0]) or {}
    picks = [o["value"] for o in select.get("options", [])][:select.get("min_values", 1)]
    await h.advance(3 * 60)  # past the token's 15 minutes: Bob's time ran out too
    shown, mark = bob.text(), len(fake.calls)
    assert await h.service.run_timers() == 1  # a computer player moves for Bob
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
        assert await h.service.run_timers() == 1
        await h.flush()
    else:
        await until(fake.bob)
    assert hand_calls(fake, mark) and "stops updating" not in bob.text()  # live again
    hand = h.service.hand_of(await h.room(ch), uid(fake.bob))
    assert hand is not None and texts.hand_text(Text("en"), hand) in bob.text()


async def test_open_hands_follow_the_game_after_a_restart(
        h: Harness, fake: FakeDiscord, redis: Redis, redis_url: str, settings: Settings,
        clock: ManualClock) -> None:
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


async def _play_until(h: Harness, fake: FakeDiscord, who: FakeUser, *,
                      absent: bool = False) -> Room:
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
            await h.play(user, ch, next(c for c in hand.choices if c.kind != "declare"),
                         h.hands.get(user.id))
            continue
        await h.advance(TURN if seat.user == uid(who) and not seat.auto else DELAY)
        await h.service.run_timers()
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
    room = await _play_until(h, fake, fake.bob)  # his turn: the computer does not take it
    await h.advance(DELAY)
    assert await h.service.run_timers() == 0
    hand = h.service.hand_of(room, uid(fake.bob))
    assert hand is not None and hand.on_move
    assert texts.hand_text(Text("en"), hand) in bob.text()
    inter = await h.play(fake.bob, ch, next(c for c in hand.choices if c.kind != "declare"), bob)
    assert inter.response_type == 7
