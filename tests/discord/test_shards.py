"""Scaling Discord (issue 12, items 5 and 10): Discord sends a server's interactions to one
gateway connection, its shard's, so the bot scales with one process per shard. Any process
may draw any table: a worker whose timer loop made a computer player's move draws it, the
shard's worker answers the people; one of them draws a thing at a time, never an older
version after a newer one, and a hand stays live whichever of them last drew it."""

from __future__ import annotations

import asyncio

from redis.asyncio import Redis

from adapters.common.render import Text
from adapters.discord import texts
from bot.clock import ManualClock
from bot.config import Settings
from bot.service import GameService
from bot.store import Store
from tests.fakes.discord import HANG, FakeChannel, FakeDiscord, FakeMessage
from tests.pieces import pieces

from .harness import DELAY, ClockSleeper, Harness, person, rid, uid


def two_shard_servers(fake: FakeDiscord) -> tuple[FakeChannel, FakeChannel]:
    """A channel in a server of shard 0 and one in a server of shard 1 (of two)."""
    found: dict[int, FakeChannel] = {}
    while len(found) < 2:
        guild = fake.add_guild(f"Club {len(fake.world.guilds)}")
        found.setdefault((guild.id >> 22) % 2, fake.add_text_channel(guild, "cards"))
    return found[0], found[1]


async def settle_all(*hs: Harness) -> None:
    """Until every process is quiet at the same moment, no request is in flight and no
    paced drawing waits for a later time (one process's drawing may wake another's: each
    flushes in turn until that holds)."""
    async with asyncio.timeout(HANG):
        while True:
            for h in hs:
                await h.flush()
            if (
                all(h.client.doing.is_quiet and not h.sleeper.woken for h in hs)
                and hs[0].fake.log.is_idle
                and hs[0].sleeper.next_due() is None
            ):
                return


async def play_across_shards(
    a: Harness,
    b: Harness,
    fake: FakeDiscord,
    ch0: FakeChannel,
    clock: ManualClock,
    table: FakeMessage,
    hands: dict[int, FakeMessage],
) -> dict[str, int]:
    """30 moves of shard 0's table: the people's through process A, the computer players'
    by process B's timer loop; every fifth, the table as drawn is the newest state. The
    moves each process made."""
    moved = {"a": 0, "b": 0}
    for step in range(30):
        room = await a.room(ch0)
        seat = room.seats[room.load_match().to_act()[0]]
        assert seat is not None
        if seat.computer:  # process B's timer loop makes it (and draws it)
            clock.advance(DELAY)
            moved["b"] += await pieces(b.service).timers.run_timers()
        else:
            user = person(room, fake)
            hand = a.service.hand_of(room, uid(user))
            assert hand is not None
            choice = next(c for c in hand.choices if c.kind != "declare")
            await a.play(user, ch0, choice, hands[user.id], look=False)
            moved["a"] += 1
        await settle_all(a, b)
        if step % 5 == 4:  # what people see is the newest state, drawn once
            room = await a.room(ch0)
            assert texts.table_text(Text("en"), a.service.table_of(room)) == table.text()
    return moved


async def test_two_shard_processes_share_every_table(
    fake: FakeDiscord, redis: Redis, redis_url: str, store: Store, settings: Settings, clock: ManualClock
) -> None:
    ch0, ch1 = two_shard_servers(fake)
    other = Store(Redis.from_url(redis_url))  # the second process's own Redis pool
    sleeper = ClockSleeper(clock)  # one clock for the test, so one sleeper
    a = await Harness.start(
        fake,
        redis,
        settings,
        clock,
        GameService(store, settings, clock),
        sleeper=sleeper,
        shard_ids=[0],
        shard_count=2,
    )
    b = await Harness.start(
        fake,
        redis,
        settings,
        clock,
        GameService(other, settings, clock),
        sleeper=sleeper,
        shard_ids=[1],
        shard_count=2,
        sync_commands=False,
    )
    # each process's leak guard learns what is public from both services' changes
    b.service.on_change(a.guard.listener)
    a.service.on_change(b.guard.listener)
    try:
        assert a.client.get_channel(ch0.id) and not a.client.get_channel(ch1.id)
        assert b.client.get_channel(ch1.id) and not b.client.get_channel(ch0.id)
        assert pieces(a.service).platform.leases.worker_id != pieces(b.service).platform.leases.worker_id
        # a table in shard 0's server: its people's presses reach process A only
        await a.command(fake.alice, ch0, "newgame", {"players": 4})
        await a.command(fake.bob, ch0, "join")
        table = await a.table(ch0)
        for _ in range(2):
            await a.press(fake.alice, table, "kz:t:bot")
        await a.press(fake.alice, table, "kz:t:start")
        hands = {u.id: await a.open_hand(u, ch0) for u in (fake.alice, fake.bob)}
        moved = await play_across_shards(a, b, fake, ch0, clock, table, hands)
        assert moved["a"] >= 3 and moved["b"] >= 3
        room = await a.room(ch0)
        assert await pieces(a.service).platform.leases.drawn_version(room.id, "table") == room.version
        for h in (a, b):  # both processes drew this table and these hands
            assert h.client.painter.drawn["table"] > 0 and h.client.painter.drawn["hand"] > 0
        for u in (fake.alice, fake.bob):
            view = a.service.hand_of(room, uid(u))
            assert view is not None and texts.hand_text(Text("en"), view) in hands[u.id].text()
        assert not fake.limits.limited and not [c for c in fake.calls if c.status >= 400]
        assert rid(ch0) == room.id
    finally:
        try:
            await a.stop()
        finally:
            try:
                await b.stop()
            finally:
                await other.close()
