"""Issue 13 item 1 (and the flood half of item 2): a table the group can follow under
Telegram's real limit of 20 writes a minute to a group, measured on the manual clock."""

from __future__ import annotations

import pytest
from redis.asyncio import Redis

from bot.room import User
from tests.sizes import FULL
from tests.telegram.harness import Env, telegram
from tests.telegram.pacing import Spam, play_paced

GOAL = 8.0  # seconds: the table is never older than this while moves are made


async def open_paced_table(env: Env, people: int, bots: int, game: str = "kozel", seed: int = 0) -> None:
    """A table opened through the buttons, dealt from ``seed`` (the service's start with a
    seed, as the Start button does without one): the same match on every run."""
    env.fake.limits.limit_group_writes(20, 60.0)
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


@pytest.mark.parametrize("admin", [False, True], ids=["bot-not-admin", "bot-admin"])
async def test_r33_a_member_spamming_top_every_4_s_never_freezes_the_table(redis: Redis, admin: bool) -> None:
    """Issue 33 item 1: Gleb, not playing, sends /top every 4 s (typed: a plain message in
    the group) through a whole match of 2 people and 2 computer players at Telegram's
    limit. His answers are for him alone (his private chat, or a 🤷 when he never opened
    the bot; an ephemeral message when the bot is an admin), his commands past his limit
    are ignored, and the table keeps its pace: never 8 s unedited while moves are made,
    the result within 8 s of the last move, no 429, at most 20 group writes a minute."""
    async with telegram(redis, real_limits=True) as env:
        if admin:
            env.fake.set_member(env.group, env.fake.bot, "administrator")
        gleb = env.users[3]
        await open_paced_table(env, people=2, bots=2)
        spam = Spam(gleb, 4.0)
        figures = await play_paced(env, 0, spam=spam)
        assert (await env.room()).state == "finished"
        assert spam.sent > 50  # a whole match: several minutes of it
        assert figures.refused == 0, "the painter went past Telegram's limit"
        assert figures.writes_per_minute <= 20
        assert figures.worst_wait() <= GOAL, figures.worst_wait()
        assert figures.longest_gap() <= GOAL, figures.longest_gap()
        assert figures.result_delay() <= GOAL
        public = [
            c
            for c in env.fake.api_calls()
            if c.ok
            and c.method == "sendMessage"
            and int(c.params.get("chat_id") or 0) == env.group.id
            and not c.params.get("ephemeral_message_parameters")
            and "Рейтинг" in str(c.params.get("text"))
        ]
        assert not public  # not one answer to him where the group sees it
        to_him = [
            c
            for c in env.fake.api_calls()
            if c.ok
            and (
                c.method == "setMessageReaction"
                or (
                    c.method == "sendMessage"
                    and (c.params.get("ephemeral_message_parameters") or {}).get("receiver_user_id")
                    == gleb.id
                )
            )
        ]
        # five commands in any 30 s at most: the rest were ignored
        seconds = spam.sent * spam.every
        assert 0 < len(to_him) <= 5 * (seconds / 30 + 1), (len(to_him), spam.sent)
        assert not env.leaks, env.leaks[:3]
