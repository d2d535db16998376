"""Issue 36.4 in Telegram: /history answers its sender alone with the chat's ended matches;
its buttons open a replay and page it, for him only; a match still on is never listed."""

from __future__ import annotations

import random

from redis.asyncio import Redis

from adapters.telegram.handlers.history import LIMIT
from bot.room import User
from tests.fakes.telegram import FakeMessage, FakeUser
from tests.telegram.harness import Env, telegram


async def open_two(env: Env) -> None:
    anna, boris = env.users[0], env.users[1]
    await env.say(anna, "/newgame kozel")
    await env.press(boris, env.table_message(), "L:join")
    assert not (await env.press(anna, env.table_message(), "L:start")).get("show_alert")


async def moves(env: Env, count: int | None = None, seed: int = 0) -> None:
    """Moves of the two people through the service (the match's end, or ``count`` moves)."""
    rng = random.Random(seed)
    people = [User(f"tg:{u.id}", u.first_name) for u in env.users[:2]]
    done = 0
    while count is None or done < count:
        room = await env.room()
        if room.state != "playing":
            return
        for person in people:
            hv = env.service.hand_of(room, person.id)
            if hv is not None and hv.on_move:
                choices = [c for c in hv.choices if c.kind != "declare"] or hv.choices
                assert (await env.service.act(rng.choice(choices).token, person)).ok
                done += 1
                break
    await env.flush()


def answer_to(env: Env, user: FakeUser) -> FakeMessage:
    found = [m for m in env.fake.messages(env.group, from_bot=True, ephemeral=True) if m.receiver == user]
    assert found, f"no answer to {user.first_name}"
    return found[-1]


def data_of(msg: FakeMessage) -> list[str]:
    return [d for d in msg.callback_data if d.startswith("HY~")]


async def test_i36_history_lists_ended_matches_and_pages_a_replay_for_its_asker(redis: Redis) -> None:
    async with telegram(redis, webapp_url="https://bot.example.org/web/") as env:
        anna, boris, vera = env.users[0], env.users[1], env.users[2]
        await open_two(env)
        await moves(env, count=12)
        # while the match is on: nothing listed, no button, no card
        await env.say(vera, "/history")
        msg = answer_to(env, vera)
        assert "ещё не закончилась ни одна партия" in (msg.text or "") and not data_of(msg)
        await moves(env)
        room = await env.room()
        assert room.state == "finished" and room.result is not None
        await env.drain()
        # Vera did not play: anyone in the chat may look, and the answer is hers alone
        await env.say(vera, "/history")
        msg = answer_to(env, vera)
        text = msg.text or ""
        assert "Последние партии в этом чате" in text and "Anna" in text and "Boris" in text
        assert "🏆" in text and "Козёл" in text
        [opened] = data_of(msg)
        assert not env.leaks, env.leaks[:3]
        assert opened.startswith(f"HY~{vera.id}~") and len(opened.encode()) <= 64
        await env.press(vera, msg, opened)
        first = msg.text or ""
        assert "Раздача 1" in first and "✋ Anna:" in first and "✋ Boris:" in first
        assert "забирает взятку" in first and "🏁 Раздача 1:" in first
        # the web table's step-through of it: its link carries the match's own secret
        [web] = [b["url"] for row in msg.buttons for b in row if b.get("url")]
        assert web.startswith(f"https://bot.example.org/web/replay#tg:{env.group.id}.{opened.split('~')[2]}.")
        assert len(first) <= LIMIT
        for d in data_of(msg):
            assert len(d.encode()) <= 64
        # page through the whole replay: every page within Telegram's limit
        seen = {first}
        for _ in range(200):  # ▶ the deal's next page, else ⏭ the next deal
            ahead = [b for row in msg.buttons for b in row if b["text"] == "▶" or b["text"].endswith("⏭")]
            if not ahead:
                break
            opened = ahead[0]["callback_data"]
            assert not (await env.press(vera, msg, opened)).get("show_alert")
            assert len(msg.text or "") <= LIMIT
            seen.add(msg.text or "")
        rep = await env.service.history.replay("tg", str(env.group.id), opened.split("~")[2])
        assert rep is not None and len(seen) >= len(rep.deals) and "🏆" in (msg.text or ""), msg.text
        # Boris cannot see Vera's answer; a press he forges on the table message with her
        # data is refused, and neither message changes
        table = env.table_message()
        before = (table.text, msg.text)
        answer = await env.press(boris, table, opened, check_button=False)
        assert answer.get("show_alert") and "отправьте /history сами" in answer["text"]
        mine = opened.replace(f"HY~{vera.id}~", f"HY~{boris.id}~")
        answer = await env.press(boris, table, mine, check_button=False)
        assert answer.get("show_alert") and answer["text"] == "Эта кнопка недействительна."
        # a stale or forged key on Vera's own answer
        answer = await env.press(vera, msg, f"HY~{vera.id}~AAAAAAAA~0~0", check_button=False)
        assert answer.get("show_alert") and "больше не хранится" in answer["text"]
        answer = await env.press(vera, msg, f"HY~{vera.id}~x", check_button=False)
        assert answer.get("show_alert")
        assert (table.text, msg.text) == before
        # the harness counts the ended match's last throws as hidden: the replay shows them,
        # which is its point once the match is over
        env.leaks.clear()
        # another match starts: it is not listed while on (no card of it anywhere); the
        # first one still is
        await env.press(anna, env.table_message(), "T:again")
        await moves(env, count=6, seed=1)
        assert (await env.room()).state == "playing"
        await env.say(anna, "/history")
        listed = answer_to(env, anna)
        assert len(data_of(listed)) == 1 and (listed.text or "").count("🏆") == 1
        assert not env.leaks, env.leaks[:3]
