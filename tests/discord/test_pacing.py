"""Table edits paced per channel, hands independent of the table (issue 14, item 3),
through the real discord.py against the fake Discord, which keeps Discord's rate limits on
the tests' clock."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

from adapters.common.render import Text
from adapters.discord import texts
from bot.clock import ManualClock
from bot.service import GameService
from bot.store import Store
from tests.fakes.discord import FakeDiscord, RecordedCall
from tests.pieces import pieces

from .harness import TURN, Harness, make_settings, people_and_bots, person, uid, until_person_moves

TABLE_EDIT = "/channels/{channel_id}/messages/{message_id}"


def table_edits(fake: FakeDiscord, message_id: int, since: int = 0) -> list[RecordedCall]:
    return [
        c
        for c in fake.calls[since:]
        if c.method == "PATCH" and c.path.endswith(f"/messages/{message_id}") and c.status == 200
    ]


@pytest.fixture
async def quick(fake: FakeDiscord, redis: Redis, store: Store, clock: ManualClock) -> AsyncIterator[Harness]:
    """Computer players that move every 0.2 s: a burst of changes."""
    settings = make_settings(bot_delay_seconds=0.2)
    harness = await Harness.start(fake, redis, settings, clock, GameService(store, settings, clock))
    try:
        yield harness
    finally:
        await harness.stop()


async def test_table_edits_are_paced_and_coalesced(quick: Harness, fake: FakeDiscord) -> None:
    h, ch = quick, fake.games
    await h.command(fake.alice, ch, "newgame", {"preset": "kozel", "players": 4})
    table = await h.table(ch)
    for _ in range(3):
        await h.press(fake.alice, table, "kz:t:bot")
    await h.press(fake.alice, table, "kz:t:start")
    hand = await h.open_hand(fake.alice, ch)  # her open hand follows the burst too
    mark = len(fake.calls)
    changes = 0
    for _ in range(40):  # computer moves 0.2 s apart: five changes a second
        room = await h.room(ch)
        seat = room.seats[room.load_match().to_act()[0]]
        if room.state != "playing" or seat is None:
            break
        # Alice lets her time run out (twice: then a computer player plays for her)
        await h.advance(TURN if not seat.computer else 0.2)
        changes += await pieces(h.service).timers.run_timers()
        await h.settle()
    await h.flush()
    edits = table_edits(fake, table.id, mark)
    assert changes >= 10 and 2 <= len(edits) < changes  # coalesced
    times = [c.at for c in edits]
    assert all(b - a >= 1.2 - 1e-6 for a, b in zip(times, times[1:], strict=False))
    assert all(sum(1 for t in times if a <= t < a + 5.0) <= 5 for a in times)
    assert not fake.limits.limited  # never past Discord's limits, the hand's included
    room = await h.room(ch)  # the newest state is on screen: the table, the hand
    assert texts.table_text(Text("en"), h.service.table_of(room)) == table.text()
    own = h.service.hand_of(room, uid(fake.alice))
    assert own is not None and texts.hand_text(Text("en"), own) in hand.text()
    assert 2 <= len(hand.edits) < changes


async def test_a_429_on_the_table_holds_back_no_hand(h: Harness, fake: FakeDiscord) -> None:
    """A long 429 on the table edit (longer than discord.py will sleep: it raises at once):
    that channel's table waits it out on the clock, the hands go on, and the table then
    shows the newest state in one edit."""
    ch = fake.games
    await people_and_bots(h, fake, ch)
    table = await h.table(ch)
    hands = {u.id: await h.open_hand(u, ch) for u in (fake.alice, fake.bob)}
    fake.limits.fail_next("PATCH", TABLE_EDIT, status=429, retry_after=40.0)
    mark = len(fake.calls)
    start = h.clock.now()
    before = {u: len(m.edits) for u, m in hands.items()}
    for _ in range(3):  # people and computer players move on for a few seconds
        room = await until_person_moves(h, ch)
        user = person(room, fake)
        hand = h.service.hand_of(room, uid(user))
        assert hand is not None
        choice = next(c for c in hand.choices if c.kind != "declare")
        inter = await h.play(user, ch, choice, hands[user.id], look=False)
        assert inter.response_type == 7
    assert h.clock.now() - start < 40.0
    limited = [c for c in fake.calls[mark:] if c.status == 429]
    assert len(limited) == 1  # discord.py did not sleep and retry: it raised
    assert not table_edits(fake, table.id, mark)  # the table waits...
    others = {u: len(m.edits) - before[u] for u, m in hands.items()}
    assert all(n >= 2 for n in others.values()), others  # ...the hands do not
    await h.flush()  # the block runs out
    edits = table_edits(fake, table.id, mark)
    assert len(edits) == 1 and edits[0].at >= limited[0].at + 40.0  # the newest, in one edit
    final = h.service.table_of(await h.room(ch))
    assert texts.table_text(Text("en"), final) == table.text()
    assert not fake.limits.limited
