"""Issue 13 item 1 (and the flood half of item 2): a table the group can follow under
Telegram's real limit of 20 writes a minute to a group, measured on the manual clock."""

from __future__ import annotations

import pytest
from redis.asyncio import Redis

from bot.room import User
from tests.sizes import FULL
from tests.telegram.harness import Env, telegram
from tests.telegram.pacing import play_paced

GOAL = 8.0  # seconds: the table is never older than this while moves are made


async def open_paced_table(env: Env, people: int, bots: int, game: str = "kozel", seed: int = 0) -> None:
    """A table opened through the buttons, dealt from ``seed`` (the service's start with a
    seed, as the Start button does without one): the same match on every run."""
    env.fake.limit_group_writes(20, 60.0)
    anna = env.users[0]
    await env.say(anna, f"/newgame {game}")
    for user in env.users[1:people]:
        await env.press(user, env.table_message(), "L:join")
    for _ in range(bots):
        await env.press(anna, env.table_message(), "L:bot")
    out = await env.service.start(env.room_id, User(f"tg:{anna.id}", anna.first_name), seed=seed)
    assert out.ok, out
    await env.flush()


# a second whole match with FULL_TESTS=1 (tests/sizes.py)
@pytest.mark.parametrize("seed", [0, 2] if FULL else [0])
async def test_two_people_two_computers_table_never_older_than_8_s(redis: Redis, seed: int) -> None:
    async with telegram(redis) as env:
        await open_paced_table(env, people=2, bots=2, seed=seed)
        figures = await play_paced(env, seed)
        room = await env.room()
        assert room.state == "finished"
        assert len(figures.moves) > 100  # a whole match, several deals
        assert figures.refused == 0, "the painter went past Telegram's limit"
        assert figures.writes_per_minute <= 20
        assert figures.worst_wait() <= GOAL, figures.worst_wait()
        assert figures.longest_gap() <= GOAL, figures.longest_gap()
        assert figures.result_delay() <= GOAL
        assert not env.leaks, env.leaks[:3]
