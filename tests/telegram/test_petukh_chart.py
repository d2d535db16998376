"""Issue 18 through the real Telegram adapter: a long Petukh match played with
``elimination`` (RULES.md 5) ends with its chart too, although the next match starts in the
same step (the rooster gives his seat to the first in the queue): the photo is the ended
match's score deal by deal, captioned with its rooster."""

from __future__ import annotations

import random

import pytest
from redis.asyncio import Redis

from bot.room import User
from tests.telegram.harness import telegram
from tests.telegram.test_results import last_move, photos

# the records after each of five deals (start 12 for four players): worth a chart
LONG = [[10, 11, 12, 12], [8, 10, 11, 12], [6, 9, 11, 12], [4, 8, 10, 12], [2, 7, 9, 12]]


@pytest.fixture(autouse=True)
def seeded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(random, "SystemRandom", lambda: random.Random(20240611))


async def test_an_eliminated_petukh_match_ends_with_its_own_chart(redis: Redis) -> None:
    async with telegram(redis) as env:
        anna = env.users[0]
        await env.say(anna, "/newgame petukh")
        creator = User(f"tg:{anna.id}", anna.first_name)
        assert (await env.service.set_size(env.room_id, creator, 4)).ok
        assert (await env.service.set_option(env.room_id, creator, "elimination", "true")).ok
        for user in env.users[1:]:
            await env.press(user, env.table_message(), "L:join")
        dasha = env.fake.add_user(2002, "Dasha", language_code="ru", username="dasha")
        assert (await env.service.wait(env.room_id, User(f"tg:{dasha.id}", "Dasha"))).ok
        answer = await env.press(anna, env.table_message(), "L:start")
        assert not answer.get("show_alert"), answer
        await last_move(env, progress=LONG)
        room = await env.room()
        assert room.gen == 2 and room.state == "playing"  # the next match is on
        assert room.result_progress()[:5] == LONG and room.progress == []
        assert len(env.fake.find_calls("sendPhoto")) == 1 and len(photos(env)) == 1
        caption = photos(env)[0].caption or ""
        assert caption.startswith("🏁 Партия!") and "Петух" in caption, caption
        assert not env.leaks, env.leaks[:3]
