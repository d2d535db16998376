"""Issue 18 through the real Telegram adapter: Petukh's deals are one scoreboard, the table
message edited deal after deal; and a long Petukh match played with
``elimination`` (RULES.md 5) ends with its chart too, although the next match starts in the
same step (the rooster gives his seat to the first in the queue): the photo is the ended
match's score deal by deal, captioned with its rooster."""

from __future__ import annotations

import random

import pytest
from redis.asyncio import Redis

from adapters.common.render import Text
from bot.room import User
from tests.fast_forward import fast_forward
from tests.telegram.harness import Env, telegram
from tests.telegram.test_results import last_move, photos

RU = Text("ru")

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


async def _last_move_of_the_deal(env: Env) -> None:
    """tests/telegram/test_results.py's last move of a deal, with the hands drawn again after
    the engine's jump (a hand opened in the deal before shows the deal it jumped to)."""
    await fast_forward(env.service, env.room_id, match_end=False)
    room = await env.room()
    await env.app.painter.changed(room, [])
    await env.drain()
    for user in env.users:
        hand = env.service.hand_of(room, f"tg:{user.id}")
        if hand is not None and hand.on_move:
            await env.play(user, hand.choices[0])
            await env.drain()
            return
    raise AssertionError("nobody on move")


async def test_petukh_deals_are_one_scoreboard_edited_deal_after_deal(redis: Redis) -> None:
    """No message a deal: the table message is the scoreboard, edited with each deal's
    records (and why they moved)."""
    async with telegram(redis) as env:
        await env.say(env.users[0], "/newgame petukh")
        for user in env.users[1:]:
            await env.press(user, env.table_message(), "L:join")
        await env.press(env.users[0], env.table_message(), "L:start")
        board = env.table_message()
        posts = len(env.fake.messages(env.group, from_bot=True, ephemeral=False))
        for deal in (1, 2):
            await _last_move_of_the_deal(env)
            assert env.table_message() is board  # the same message, edited
            text = board.text or ""
            assert "📋 " + RU._("Deal {n} over").format(n=deal) in text, text
            rows = [ln for ln in text.split("📋 ", 1)[1].splitlines() if ln.startswith("• ")]
            assert len(rows) == 4 and all(ln.split(" → ")[-1].isdigit() for ln in rows)
        assert len(env.fake.messages(env.group, from_bot=True, ephemeral=False)) == posts
        assert not env.leaks, env.leaks[:3]
