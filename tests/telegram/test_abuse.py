"""Issue 33: one member of a public group can no longer freeze, hijack or crash a table.

Each test plays a mischievous member (or a careless operator) against the real aiogram
adapter, the fake Bot API and real Redis, and checks that the table and everyone else's
game are as they were.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

from aiogram.methods import SendMessage
from redis.asyncio import Redis

from adapters.telegram.posts import Post
from tests.telegram.harness import GROUP_ID, telegram
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
        first = asyncio.create_task(env.painter.post(Post(GROUP_ID, SendMessage(chat_id=GROUP_ID, text=texts[0]))))
        await started.wait()  # the first write is out, not answered yet
        others = [
            asyncio.create_task(env.painter.post(Post(GROUP_ID, SendMessage(chat_id=GROUP_ID, text=text))))
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
