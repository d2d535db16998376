"""Issue 13 items 3 and 4: where a table is drawn, and how a match ends on screen."""

from __future__ import annotations

import random

from redis.asyncio import Redis

from tests.pieces import pieces
from tests.telegram.harness import Env, play_steps, play_to_end, telegram


async def open_table(env: Env, people: int = 1, bots: int = 3, game: str = "kozel") -> None:
    anna = env.users[0]
    await env.say(anna, f"/newgame {game}")
    for user in env.users[1:people]:
        await env.press(user, env.table_message(), "L:join")
    for _ in range(bots):
        await env.press(anna, env.table_message(), "L:bot")
    answer = await env.press(anna, env.table_message(), "L:start")
    assert not answer.get("show_alert"), answer


def newest_id(env: Env) -> int:
    return max(m.message_id for m in env.fake.messages(env.group) if not m.is_ephemeral)


async def chatter(env: Env, n: int) -> None:
    """People talk in the group: the chat moves on."""
    for i in range(n):
        env.fake.user_message(env.group, env.users[i % 2], f"ха-ха {i}")
    await env.say(env.users[0], "/help")  # a command after them: every update handled


async def test_new_lobby_and_another_match_are_new_messages_at_the_bottom(redis: Redis) -> None:
    async with telegram(redis) as env:
        await open_table(env)
        first = env.table_message()
        await play_to_end(env, [env.users[0]], seed=5)
        await env.drain()
        assert "🏁" in (first.text or "") and "T:again" in first.callback_data
        await chatter(env, 40)  # the table is far up the chat now (#1 vs #40-something)
        await env.press(env.users[0], first, "T:again")
        await env.drain()
        second = env.table_message()
        assert second is not first and second.message_id == newest_id(env)
        # the old one: one line, the result, no buttons
        assert not first.buttons and "\n" not in (first.text or "") and "🏁" in (first.text or "")
        await env.say(env.users[0], "/cancel")
        await env.drain()
        assert not second.buttons and (second.text or "").startswith("❌")
        await chatter(env, 30)
        await env.say(env.users[0], "/newgame kozel-60")
        await env.drain()
        lobby = env.table_message()
        assert lobby.message_id == newest_id(env) and "L:join" in lobby.callback_data
        assert second.text and second.text.startswith("❌")  # untouched: still "cancelled"
        assert not env.leaks, env.leaks[:3]


async def test_a_table_scrolled_far_away_is_posted_again_below(redis: Redis) -> None:
    async with telegram(redis) as env:
        await open_table(env)
        table = env.table_message()
        await chatter(env, 30)
        await play_steps(env, [env.users[0]], random.Random(2), 6)  # a few moves
        await env.drain()
        moved = env.table_message()
        assert moved is not table and moved.message_id == newest_id(env)
        assert table.deleted  # the same table twice would be two sets of live buttons
        # and it is edited in place from then on
        before = len(moved.versions)
        await play_steps(env, [env.users[0]], random.Random(3), 6)
        await env.drain()
        assert env.table_message() is moved and len(moved.versions) > before


async def test_cancel_rewrites_strips_hands_and_confirms_once(redis: Redis) -> None:
    async with telegram(redis) as env:
        env.fake.limits.limit_group_writes(20, 60.0)
        await open_table(env, people=2, bots=2)
        anna, boris = env.users[:2]
        for u in (anna, boris):
            await env.open_hand(u)
        hands = [env.hand_message(u) for u in (anna, boris)]
        table = env.table_message()
        mark = env.fake.mark()
        # the group's budget is spent: Boris's /score waits, and then the match is cancelled
        env.fake.limits.fail_retry_after(
            "sendMessage",
            20,
            when=lambda p: int(p["chat_id"]) < 0 and "ephemeral_message_parameters" not in p,
        )
        await env.say(boris, "/score", ephemeral=False)  # typed: he never opened the bot
        await env.say(anna, "/cancel")
        await env.drain()
        for _ in range(5):  # time passes: nothing of that match comes any more
            await env.tick(10)
        sent = [
            c
            for c in env.fake.find_calls("sendMessage", after=mark, ok=True)
            if int(c.params["chat_id"]) == env.group.id and not c.params.get("ephemeral_message_parameters")
        ]
        assert len(sent) == 1 and "❌" in sent[0].params["text"]  # confirmed once
        assert not [c for c in sent if "Счёт" in c.params["text"]]  # the queued score: dropped
        assert (table.text or "").startswith("❌") and not table.buttons
        for hand in hands:
            assert hand is not None and not hand.buttons
            assert "отменена" in (hand.text or "")
        assert "▸" not in (table.text or "")  # nobody "to move" any more
        answer = await env.press(anna, table, "T:hand", check_button=False)
        assert answer.get("show_alert")


async def test_finish_shows_the_result_and_strips_every_hand(redis: Redis) -> None:
    async with telegram(redis) as env:
        await open_table(env, people=2, bots=2, game="kozel-60")
        anna, boris = env.users[:2]
        await play_to_end(env, [anna, boris], seed=4)
        await env.drain()
        table = env.table_message()
        assert "🏁" in (table.text or "") and table.callback_data == ["T:again"]
        assert (table.text or "").count("🏁") == 1, table.text  # the result once, not twice
        for u in (anna, boris):
            msgs = [
                m
                for m in env.fake.messages(env.group, from_bot=True, ephemeral=True)
                if m.receiver is not None and m.receiver.id == u.id
            ]
            assert msgs and all(not m.buttons for m in msgs), [m.describe() for m in msgs]
        posts = [
            m
            for m in env.fake.messages(env.group, from_bot=True, ephemeral=False)
            if (m.text or "").startswith(("📋", "🏁"))
        ]
        assert posts == [], "deal and match results are folded into the table"


async def test_an_expired_lobby_loses_its_buttons(redis: Redis) -> None:
    async with telegram(redis, idle_seconds=600) as env:
        await env.say(env.users[0], "/newgame kozel")
        lobby = env.table_message()
        # Redis expires the lobby after IDLE_SECONDS untouched (done here by hand: the
        # store's expiry runs on Redis's own clock)
        for key in await env.redis.keys(f"*{env.room_id}*"):
            await env.redis.delete(key)
        env.clock.advance(601)
        await env.flush()
        await env.drain()
        assert not lobby.buttons and (lobby.text or "").startswith("⌛")


async def test_another_match_on_an_expired_table_says_so_and_strips_it(redis: Redis) -> None:
    async with telegram(redis) as env:
        await open_table(env, game="kozel-60")
        await play_to_end(env, [env.users[0]], seed=1)
        await env.drain()
        table = env.table_message()
        assert "T:again" in table.callback_data
        for key in await env.redis.keys(f"*{env.room_id}*"):  # expired after idle_seconds
            await env.redis.delete(key)
        answer = await env.press(env.users[0], table, "T:again")
        assert answer.get("show_alert") and "/newgame" in answer.get("text", "")
        await env.drain()
        assert not table.buttons and "🏁" in (table.text or "")


async def test_a_press_on_a_gone_lobby_says_so_and_strips_it(redis: Redis) -> None:
    async with telegram(redis) as env:
        await env.say(env.users[0], "/newgame kozel")
        lobby = env.table_message()
        for key in await env.redis.keys(f"*{env.room_id}*"):
            await env.redis.delete(key)
        answer = await env.press(env.users[1], lobby, "L:join")
        assert answer.get("show_alert") and "/newgame" in answer.get("text", "")
        await env.drain()
        assert not lobby.buttons


async def test_a_lobby_closed_at_its_deadline_says_so_without_buttons(redis: Redis) -> None:
    """The service closes a lobby nobody touched at its deadline (its timer): the lobby
    message becomes one line, "closed: nobody played", and loses its buttons; a press on it
    after that is refused and changes nothing."""
    async with telegram(redis, idle_seconds=600) as env:
        await env.say(env.users[0], "/newgame kozel")
        await env.press(env.users[1], env.table_message(), "L:join")
        lobby = env.table_message()
        env.clock.advance(601)
        assert await pieces(env.service).timers.run_timers() >= 1
        await env.drain()
        assert not lobby.buttons and "\n" not in (lobby.text or "")
        assert (lobby.text or "").startswith("⌛"), lobby.text
        answer = await env.press(env.users[2], lobby, "L:join", check_button=False)
        assert answer.get("show_alert")
        assert (await env.room()).seat_of(f"tg:{env.users[2].id}") is None
