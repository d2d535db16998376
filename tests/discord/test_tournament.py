"""Issue 36.3 through the real Discord adapter: /tournament opens a sign-up message with
persistent buttons, people sign up, the opener starts it, the tables play in the channel
one after another (the bot process restarted half way: the old buttons and the message
go on), the message is edited into the standings and names the winner; hostile presses
are refused in words and change nothing."""

from __future__ import annotations

from redis.asyncio import Redis

from adapters.common.render import Text
from bot.clock import ManualClock
from bot.config import Settings
from bot.service import GameService
from bot.store import Store
from bot.tournament import OVER
from bot.views import Line
from tests.fakes.discord import FakeChannel, FakeDiscord, FakeMessage
from tests.fast_forward import fast_forward
from tests.pieces import pieces

from .harness import Harness, mover, refusal_text, rid, uid

EN = Text("en")
ONLY = EN._("Only whoever opened the tournament or an admin may do that.")


async def tour_message(h: Harness, ch: FakeChannel) -> FakeMessage:
    known = await pieces(h.service).tournaments.tournament_data(rid(ch), "dc_msg")
    assert known is not None, "no tournament message"
    return h.fake.messages[int(known)]


async def tid_of(h: Harness, ch: FakeChannel) -> str:
    t = await pieces(h.service).tournaments.tournament(rid(ch))
    assert t is not None
    return t.id


async def end_table(h: Harness, fake: FakeDiscord, ch: FakeChannel) -> None:
    """The engine plays the table to its last move; that move is a person's (from his hand)
    or the computer player's; then everything is drawn."""
    await fast_forward(h.service, rid(ch))
    room = await h.room(ch)
    gen = room.gen
    # the leak guard learns what the engine's moves showed: the hands, the cards face up
    table = h.service.table_of(room)
    plays = table.trick + (table.last_trick[1] if table.last_trick else [])
    await h.guard.listener(room, [Line("played", {"cards": [c for p in plays for c in p.cards or []]})])
    for _ in range(40):
        room = await h.room(ch)
        if room.gen != gen or room.state == "finished":
            await h.flush()
            return
        user = mover(room, fake)
        if user is None:
            await h.advance(1.5)
            await pieces(h.service).timers.run_timers()
            continue
        hand = h.service.hand_of(room, uid(user))
        assert hand is not None and hand.choices
        await h.open_hand(user, ch)
        await h.play(user, ch, hand.choices[0])
    raise AssertionError("the table did not end")


async def test_i36_a_tournament_plays_through_discord_and_survives_a_restart(
    h: Harness, fake: FakeDiscord, redis: Redis, redis_url: str, settings: Settings, clock: ManualClock
) -> None:
    ch = fake.games
    inter = await h.command(fake.bob, ch, "tournament", {"preset": "kozel", "rounds": 2})
    assert inter.response_type == 4
    msg = await tour_message(h, ch)
    tid = await tid_of(h, ch)
    assert f"kz:r:join:{tid}" in msg.custom_ids() and "Bob" in msg.text()
    for user in (fake.carol, fake.dave):
        inter = await h.press(user, msg, f"kz:r:join:{tid}")
        assert "✅" in refusal_text(h, inter)
    assert all(n in msg.text() for n in ("Bob", "Carol", "Dave"))
    await h.press(fake.bob, msg, f"kz:r:start:{tid}")
    room = await h.room(ch)
    assert room.state == "playing" and room.tournament
    assert EN._("Round {round} of {rounds}").format(round=1, rounds=2) in msg.text()
    await h.stop()
    # a new process: the same message, its buttons and the tournament go on
    store = Store(Redis.from_url(redis_url))
    h2 = await Harness.start(fake, redis, settings, clock, GameService(store, settings, clock), after=h)
    try:
        await end_table(h2, fake, ch)
        t = await pieces(h2.service).tournaments.tournament(rid(ch))
        assert t is not None and t.round == 2
        assert (await tour_message(h2, ch)).id == msg.id
        assert EN._("Round {round} of {rounds}").format(round=2, rounds=2) in msg.text()
        await end_table(h2, fake, ch)
        t = await pieces(h2.service).tournaments.tournament(rid(ch))
        assert t is not None and t.state == OVER and t.winners
        winners = ", ".join(e.name for e in t.entrants if e.user in t.winners)
        assert EN._("🥇 Won: {names}!").format(names=winners) in msg.text()
        assert not [c for c in msg.custom_ids() if c.startswith("kz:r:")]
    finally:
        await h2.stop()
        await store.close()


async def test_i36_hostile_tournament_input_through_discord(h: Harness, fake: FakeDiscord) -> None:
    ch = fake.games
    await h.command(fake.bob, ch, "tournament", {"preset": "kozel"})
    msg = await tour_message(h, ch)
    tid = await tid_of(h, ch)
    await h.press(fake.carol, msg, f"kz:r:join:{tid}")
    before = await pieces(h.service).tournaments.tournament(rid(ch))
    assert before is not None
    refusals = [
        (fake.carol, f"kz:r:join:{tid}", EN.reason("already_signed")),
        (fake.dave, "kz:r:join:forged00", EN.reason("stale")),
        (fake.carol, f"kz:r:start:{tid}", ONLY),
        (fake.bob, f"kz:r:start:{tid}", "At least 3 people must sign up first (2 so far)."),
        (fake.dave, f"kz:r:cancel:{tid}", ONLY),
        (fake.dave, f"kz:r:leave:{tid}", EN.reason("not_signed")),
    ]
    for user, custom_id, words in refusals:
        inter = await h.press(user, msg, custom_id, check=False)
        assert words in refusal_text(h, inter), (custom_id, refusal_text(h, inter))
    inter = await h.command(fake.dave, ch, "tournament", {"preset": "petukh"})
    assert EN.reason("tournament_exists") in refusal_text(h, inter)
    after = await pieces(h.service).tournaments.tournament(rid(ch))
    assert after is not None and after.version == before.version  # nothing changed
    # a member with Manage Server who did not open it may cancel it
    inter = await h.press(fake.alice, msg, f"kz:r:cancel:{tid}")
    assert "✅" in refusal_text(h, inter)
    assert EN._("The tournament was cancelled.") in msg.text()
    assert not [c for c in msg.custom_ids() if c.startswith("kz:r:")]
