"""Issue 33: one member of a public group can no longer freeze, hijack or crash a table.

Each test plays a mischievous member (or a careless operator) against the real aiogram
adapter, the fake Bot API and real Redis, and checks that the table and everyone else's
game are as they were.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

import pytest
from aiogram.methods import SendMessage
from redis.asyncio import Redis

from adapters.telegram.limits import ASKING, INFO_QUEUED
from adapters.telegram.posts import Post
from tests.pieces import pieces
from tests.telegram.harness import GROUP_ID, play_to_end, telegram
from tests.telegram.test_hands import open_table


async def test_two_flushes_at_once_write_every_post_exactly_once(redis: Redis) -> None:
    """Item 2: ``post()`` flushes its lane while the paint loop flushes it too; the first
    write is still out when the second flush starts. Each post is written once, in order,
    and neither flush fails."""
    async with telegram(redis) as env:
        gate = asyncio.Event()
        started = asyncio.Event()
        original = env.fake.responder("sendMessage")
        assert original is not None

        async def slow(params: dict[str, Any]) -> Any:
            started.set()
            await gate.wait()
            result = original(params)
            return await result if inspect.isawaitable(result) else result

        env.fake.on("sendMessage", slow)
        texts = [f"post {i}" for i in range(4)]
        first = asyncio.create_task(
            env.painter.outbox.post(Post(GROUP_ID, SendMessage(chat_id=GROUP_ID, text=texts[0])))
        )
        await started.wait()  # the first write is out, not answered yet
        others = [
            asyncio.create_task(
                env.painter.outbox.post(Post(GROUP_ID, SendMessage(chat_id=GROUP_ID, text=text)))
            )
            for text in texts[1:]
        ]
        flushes = [asyncio.create_task(env.painter.flush()) for _ in range(2)]
        gate.set()
        await asyncio.gather(first, *others, *flushes)
        await env.drain()
        sent = [m.text for m in env.fake.messages(env.group, from_bot=True) if m.text in texts]
        assert sent == texts


async def test_a_forged_pick_or_move_on_the_groups_table_changes_nothing(redis: Redis) -> None:
    """Item 3: Gleb, not seated, copies the data of a card button from his own practice game
    and presses it on the group's table; a seated player presses his own pick there too.
    Each press is refused; the table message is neither rewritten nor deleted, no hand is
    recorded, and nothing is deleted later either."""
    async with telegram(redis) as env:
        await open_table(env)
        anna, gleb = env.users[0], env.users[3]
        await env.say(gleb, "/newgame kozel", chat=gleb.id)  # his practice game
        own = env.hand_message(gleb)
        assert own is not None and own.chat.id == gleb.id
        forged = [d for d in own.callback_data if d.startswith(("S~", "A~", "D~", "HN~"))]
        assert forged
        table = env.table_message()
        before = (table.text, table.callback_data, len(table.versions))
        room = await env.room()
        for data in forged:
            answer = await env.press(gleb, table, data, check_button=False)
            assert answer.get("show_alert"), data
        anna_hand = await env.open_hand(anna)
        for data in [d for d in anna_hand.callback_data if d.startswith(("S~", "A~"))][:3]:
            answer = await env.press(anna, table, data, check_button=False)
            assert answer.get("show_alert"), data
        await env.flush()
        assert (table.text, table.callback_data, len(table.versions)) == before
        after = await env.room()
        assert after.version == room.version  # no move was made
        assert f"tg:{gleb.id}" not in after.sdata  # no hand of his recorded here
        assert after.sdata[f"tg:{anna.id}"]["tg_hand"]["mode"] == "ephemeral"
        await env.tick(30)  # play goes on: the table is edited as a table, never deleted
        assert not table.deleted and table.callback_data == ["T:hand"]
        assert (table.text or "").startswith("🐐")


async def test_an_invitation_seats_members_of_the_group_only_and_dies_with_the_table(redis: Redis) -> None:
    """Item 4: the link carries the table's secret, not just the group's id. A link made
    from the id alone, a forged secret, a stranger to the group and the link of a table
    that was closed: each refused with why, nobody seated."""
    async with telegram(redis) as env:
        anna, boris, vera, gleb = env.users
        await env.say(anna, "/newgame kozel")
        await env.say(anna, "/invite")
        invite = env.fake.last_bot_message(env.group)
        assert invite is not None
        url = next(b["url"] for row in invite.buttons for b in row if "start=j" in b.get("url", ""))
        payload = url.split("start=")[1]
        room = await env.room()
        assert room.secret in payload and str(GROUP_ID) in payload
        for forged in (f"j{GROUP_ID}", payload[:-3] + "000", f"j{GROUP_ID}__" + "0" * 20):
            await env.say(gleb, f"/start {forged}", chat=gleb.id)
            assert "/invite" in (env.fake.last_bot_message(gleb.id).text or "")
        await env.say(gleb, f"/start {payload}", chat=gleb.id)  # never joined the group
        assert "Пятничный покер" in (env.fake.last_bot_message(gleb.id).text or "")
        env.fake.set_member(env.group, vera, "left")  # she was in it, and left
        env.clock.advance(10)
        await env.say(vera, f"/start {payload}", chat=vera.id)
        room = await env.room()
        assert room.seat_of(f"tg:{gleb.id}") is None and room.seat_of(f"tg:{vera.id}") is None
        env.fake.set_member(env.group, boris, "member")
        await env.say(boris, f"/start {payload}", chat=boris.id)
        assert (await env.room()).seat_of(f"tg:{boris.id}") is not None
        # the table closes and another opens: the old link means nothing
        await env.say(anna, "/cancel")
        await env.say(anna, "/newgame kozel")
        env.fake.set_member(env.group, gleb, "member")
        env.clock.advance(10)
        await env.say(gleb, f"/start {payload}", chat=gleb.id)
        assert (await env.room()).seat_of(f"tg:{gleb.id}") is None
        assert "/invite" in (env.fake.last_bot_message(gleb.id).text or "")


async def test_a_burst_of_admin_checks_asks_telegram_once(redis: Redis) -> None:
    """Item 8: getChatMember answers are remembered a few seconds: twenty presses of a
    setting by a non-creator cost one call, not twenty."""
    async with telegram(redis) as env:
        anna, boris = env.users[:2]
        await env.say(anna, "/newgame kozel")
        await env.say(boris, "/join")
        for _ in range(20):
            await env.press(boris, env.table_message(), "L:bot", flush=False)
        await env.flush()
        assert env.fake.member_lookups.get((GROUP_ID, boris.id), 0) == 1
        assert (await env.room()).occupied == 2
        env.clock.advance(10)
        await env.press(boris, env.table_message(), "L:bot")
        assert env.fake.member_lookups.get((GROUP_ID, boris.id), 0) == 2


async def test_kick_and_stats_name_people_by_id_reply_or_username_never_by_display_name(
    redis: Redis,
) -> None:
    """Item 8: Gleb renames himself "Boris" and asks /kick Boris: nobody is kicked by a
    display name; @username and a seat number still work."""
    async with telegram(redis) as env:
        anna, boris, vera, gleb = env.users
        await env.say(anna, "/newgame kozel")
        await env.press(boris, env.table_message(), "L:join")
        await env.press(vera, env.table_message(), "L:join")
        await env.say(anna, "/kick Boris")
        assert (await env.room()).seat_of(f"tg:{boris.id}") is not None
        await env.say(anna, "/kick @boris")
        assert (await env.room()).seat_of(f"tg:{boris.id}") is None
        await env.say(anna, "/kick 3")  # a seat number
        assert (await env.room()).seat_of(f"tg:{vera.id}") is None
        await env.say(gleb, "/stats Anna")
        assert "Anna" in (env.fake.last_bot_message(env.group).text or "")  # "I don't know Anna here"
        assert "/stats" in (env.fake.last_bot_message(env.group).text or "")


async def test_the_outbox_keeps_a_few_answers_and_never_drops_a_result(
    redis: Redis, caplog: pytest.LogCaptureFixture
) -> None:
    """Item 1: while the group waits out a 429, answers for one person that had to go to
    the group pile up: only the newest few wait (the oldest dropped, with a log line); the
    match's result posted meanwhile is never dropped."""
    async with telegram(redis) as env:
        env.fake.limits.limit_group_writes(20, 60.0)
        env.fake.limits.fail_retry_after("sendMessage", 30, when=lambda p: int(p["chat_id"]) < 0)
        await env.painter.outbox.say(GROUP_ID, "first", info=True)  # refused: the chat waits 30 s
        for i in range(10):
            await env.painter.outbox.say(GROUP_ID, f"answer {i}", info=True)
        await env.painter.outbox.say(GROUP_ID, "🏁 result")
        queued = [p for q in env.painter.outbox.queues.values() for p in q]
        assert sum(p.info for p in queued) <= INFO_QUEUED
        assert any(not p.info for p in queued)
        await env.drain()
        texts = [m.text for m in env.fake.messages(env.group, from_bot=True)]
        assert "🏁 result" in texts
        assert [t for t in texts if t and t.startswith("answer")] == [
            f"answer {i}" for i in range(10 - INFO_QUEUED, 10)
        ]
        assert any("too many queued" in r.getMessage() for r in caplog.records)


async def test_commands_past_a_persons_limit_are_ignored(redis: Redis) -> None:
    """Item 1: one person's commands in a group are limited (5 in 30 s), and a chat's (20 in
    a minute); past that the bot neither answers nor works. A redelivered command is not
    counted twice."""
    async with telegram(redis, real_limits=True) as env:
        gleb = env.users[3]
        env.fake.private_chat(gleb)
        for _ in range(12):
            await env.say(gleb, "/top", ephemeral=False)
        answers = [m for m in env.fake.messages(gleb.id, from_bot=True)]
        assert len(answers) == ASKING.person_commands.limit
        env.clock.advance(31)
        await env.say(gleb, "/top", ephemeral=False)
        assert len(env.fake.messages(gleb.id, from_bot=True)) == ASKING.person_commands.limit + 1
        # the chat as a whole: four people, six commands each, in one minute
        env.clock.advance(61)
        for user in env.users:
            env.fake.private_chat(user)
            for _ in range(ASKING.person_commands.limit):
                await env.say(user, "/series", ephemeral=False)
        answered = sum(len(env.fake.messages(u.id, from_bot=True)) for u in env.users)
        assert answered - (ASKING.person_commands.limit + 1) == ASKING.chat_commands.limit


async def test_a_loser_cannot_wipe_out_the_match_past_the_first_deal(redis: Redis) -> None:
    """Item 7: after deal 1 the creator's /cancel asks Boris (the table shows it, with an
    Agree and a Give up button); nothing ends until he agrees or she gives up. She gives
    up: the match is recorded as lost for her side and the table says so."""
    async with telegram(redis) as env:
        await open_table(env, seed=2)
        anna, boris = env.users[:2]
        await play_to_end(env, [anna, boris], seed=2, until_deal=2)
        await env.say(anna, "/cancel")
        reply = env.fake.last_bot_message(env.group)
        assert reply is not None and reply.is_ephemeral and "согласятся" in (reply.text or "")
        room = await env.room()
        assert room.state == "playing" and room.vote is not None
        await env.drain()  # the table's next paced edit
        table = env.table_message()
        assert {"T:agree", "T:giveup"} <= set(table.callback_data)
        assert "просьба закончить партию" in (table.text or "")
        answer = await env.press(anna, table, "T:agree")  # she asked: not hers to agree
        assert answer.get("show_alert")
        await env.press(anna, table, "T:giveup")
        await env.drain()
        room = await env.room()
        assert room.state == "finished" and room.result is not None and room.result["abandoned"] == "Anna"
        [match] = await pieces(env.service).stats.recent_matches("tg", str(GROUP_ID))
        assert match["abandoned"] == "Anna" and f"tg:{anna.id}" not in match["winners"]
        assert (table.text or "").startswith("🏳") and "Anna" in (table.text or "") and not table.buttons
