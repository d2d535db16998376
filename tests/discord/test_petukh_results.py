"""Issue 18 through the real Discord adapter: a long Petukh match played with
``elimination`` (RULES.md 5) ends with its chart too, although the next match starts in the
same step (the rooster gives his seat to the first in the queue)."""

from __future__ import annotations

from bot.room import User
from tests.fakes.discord import FakeDiscord

from .harness import Harness, rid, uid
from .test_results import last_move, posts

# the records after each of five deals (start 12 for four players): worth a chart
LONG = [[10, 11, 12, 12], [8, 10, 11, 12], [6, 9, 11, 12], [4, 8, 10, 12], [2, 7, 9, 12]]


async def test_an_eliminated_petukh_match_ends_with_its_own_chart(h: Harness, fake: FakeDiscord) -> None:
    ch = fake.games
    await h.command(fake.alice, ch, "newgame", {"preset": "petukh", "players": 4})
    alice = User(uid(fake.alice), fake.alice.global_name or "Alice")
    assert (await h.service.set_option(rid(ch), alice, "elimination", "true")).ok
    for u in (fake.bob, fake.carol, fake.dave):
        await h.command(u, ch, "join")
    erin = fake.add_user("erin")
    await h.command(erin, ch, "wait")
    await h.press(fake.alice, await h.table(ch), "kz:t:start")
    await last_move(h, fake, ch, progress=LONG)
    room = await h.room(ch)
    assert room.gen == 2 and room.state == "playing"  # the next match is on
    assert room.seat_of(uid(erin)) is not None
    (result,) = posts(fake, ch, "🏁")
    assert [a["filename"] for a in result.attachments] == ["score.png"]
    assert result.files["score.png"].startswith(b"\x89PNG")
