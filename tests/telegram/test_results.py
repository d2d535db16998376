"""Issue 18 through the real Telegram adapter: a deal's line in the table says who took what
and why, a long match's result is one photo of its score chart captioned with the winners and
the kozly (unless the chat turned charts off), and /top, /stats and /series tell the chat's
records. Matches are played to their last move in a moment (tests/fast_forward.py); that move
is a person's press, so everything after it happens as in play."""

from __future__ import annotations

import random
from typing import Any

import pytest
from redis.asyncio import Redis

from adapters.common.chart import LEGEND
from adapters.common.render import Text
from bot.room import Room
from bot.views import Line
from tests.fakes.telegram import FakeMessage
from tests.fast_forward import fast_forward
from tests.telegram.harness import Env, telegram

RU = Text("ru")


@pytest.fixture(autouse=True)
def seeded(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same cards every run (the service draws a seed otherwise)."""
    monkeypatch.setattr(random, "SystemRandom", lambda: random.Random(20240611))


LONG = [[2, 0], [2, 4], [4, 4], [4, 6], [6, 8]]  # five deals: worth a chart


async def open_table(env: Env, game: str = "kozel") -> None:
    await env.say(env.users[0], f"/newgame {game}")
    for user in env.users[1:]:
        await env.press(user, env.table_message(), "L:join")
    answer = await env.press(env.users[0], env.table_message(), "L:start")
    assert not answer.get("show_alert"), answer


async def last_move(env: Env, *, match_end: bool = True, progress: list[list[int]] | None = None) -> None:
    """The engine plays up to the last move of the match (or deal); its person makes it
    with his buttons; the painter writes everything."""
    await fast_forward(env.service, env.room_id, match_end=match_end, progress=progress)
    room = await env.room()
    for user in env.users:
        hand = env.service.hand_of(room, f"tg:{user.id}")
        if hand is not None and hand.on_move:
            await env.play(user, hand.choices[0])
            await env.drain()
            return
    raise AssertionError("nobody on move")


def photos(env: Env) -> list[FakeMessage]:
    return [m for m in env.fake.messages(env.group, from_bot=True) if m.photo is not None]


async def answer_to(env: Env, user_index: int, text: str, **kw: Any) -> str:
    await env.say(env.users[user_index], text, **kw)
    await env.drain()
    msg = env.fake.last_bot_message(env.group)
    assert msg is not None
    return msg.text or ""


async def test_a_deal_line_on_the_table_says_who_took_what_and_why(redis: Redis) -> None:
    async with telegram(redis) as env:
        await open_table(env)
        await last_move(env, match_end=False)
        room = await env.room()
        deal = room.results["deal"]
        assert deal["key"] == "deal_ended" and deal["params"]["deal_no"] == 1
        scored = deal["params"]["scored"]
        side = next(i for i, n in enumerate(scored) if n)  # this seed's deal is not eggs
        table = env.service.table_of(room)
        text = env.table_message().text or ""
        assert "📋 " + RU.deal_result(Line("deal_ended", deal["params"]), table) in text
        summary = text.split("📋 ", 1)[1]
        reason = next(ln for ln in summary.splitlines() if ln.startswith("• "))
        assert reason.startswith(f"• {RU.side_name(table, side)} — ")
        assert reason.endswith(f": +{scored[side]}")
        why = {"tie": "60:60", "normal": "очк" if deal["params"]["tricks"][side] else "взятки"}
        assert why[deal["params"]["outcome"]] in reason
        assert not photos(env) and not env.leaks, env.leaks[:3]


def fail_once_at(env: Env, key: str) -> list[int]:
    """The painter's listener fails (once) at the change whose lines hold ``key``; the
    versions it failed at."""
    painter = env.app.painter
    failed: list[int] = []

    async def fails_once(room: Room, lines: list[Line]) -> None:
        if not failed and any(ln.key == key for ln in lines):
            failed.append(room.version)
            raise RuntimeError("the painter's listener failed")
        await painter.changed(room, lines)

    listeners = env.service.listeners
    listeners[listeners.index(painter.changed)] = fails_once
    return failed


async def test_a_deal_result_reaches_the_table_though_its_listener_failed(redis: Redis) -> None:
    """Issue 35.5: a deal's result is the room's own record, written with the move that
    produced it. The painter's listener fails at that change: the next drawing of the table
    (a later change, a restart) shows it all the same (before, it lived in platform data
    that listener wrote, and was lost with it)."""
    async with telegram(redis) as env:
        await open_table(env)
        failed = fail_once_at(env, "deal_ended")
        await last_move(env, match_end=False)
        room = await env.room()
        assert failed == [room.version]
        table = env.service.table_of(room)
        deal_line = "📋 " + RU.deal_result(Line("deal_ended", room.results["deal"]["params"]), table)
        assert deal_line not in (env.table_message().text or "")  # nothing drew it yet
        await env.app.painter.changed(room, [])  # the next drawing
        await env.drain()
        assert deal_line in (env.table_message().text or "")
        assert not env.leaks, env.leaks[:3]


async def test_a_match_result_reaches_the_table_though_its_listener_failed(redis: Redis) -> None:
    """The same for the match's end: the winners and scores from the room's record."""
    async with telegram(redis) as env:
        await open_table(env)
        failed = fail_once_at(env, "match_ended")
        await last_move(env)
        room = await env.room()
        assert failed == [room.version] and room.state == "finished"
        end = room.results["end"]
        assert end["gen"] == room.gen
        result = RU.match_result(Line("match_ended", end["params"]), env.service.table_of(room), [])
        assert result not in (env.table_message().text or "")
        await env.app.painter.changed(room, [])
        await env.drain()
        assert result in (env.table_message().text or "")
        assert not photos(env) and not env.leaks, env.leaks[:3]


async def test_a_petukh_deal_is_folded_into_its_one_scoreboard(redis: Redis) -> None:
    async with telegram(redis) as env:
        await open_table(env, "petukh")
        posts = len(env.fake.messages(env.group, from_bot=True, ephemeral=False))
        await last_move(env, match_end=False)
        text = env.table_message().text or ""
        rows = [ln for ln in text.split("📋 ", 1)[1].splitlines() if ln.startswith("• ")]
        assert len(rows) == 4 and all(ln.split(" → ")[-1].isdigit() for ln in rows)
        assert "📋 " + RU._("Deal {n} over").format(n=1) in text
        assert len(env.fake.messages(env.group, from_bot=True, ephemeral=False)) == posts


async def test_a_long_match_ends_with_one_photo_unless_the_chat_turned_charts_off(redis: Redis) -> None:
    async with telegram(redis) as env:
        await open_table(env)
        await last_move(env, progress=LONG)
        room = await env.room()
        assert room.state == "finished" and room.result is not None
        sent = env.fake.find_calls("sendPhoto")
        assert len(sent) == 1 and len(photos(env)) == 1
        caption = photos(env)[0].caption or ""
        winners = room.result["winners"]
        won_names = [s.name for i, s in enumerate(room.seats) if i in winners and s]
        lines = caption.splitlines()
        assert lines[0] == "🏁 Партия!"
        assert lines[1].startswith("Победили: " + LEGEND[winners[0] % 2])
        assert lines[2].startswith("Козлы: " + LEGEND[1 - winners[0] % 2])
        assert all(n in lines[1] for n in won_names)
        photo = photos(env)[0].photo or {}
        assert len(caption) <= 1024 and env.fake.world.uploads[photo["attach"]].startswith(b"\x89PNG")
        table = env.table_message().text or ""
        assert "🏁" in table and "Козлы" not in table  # the story is the photo's caption

        # only a chat admin turns charts off; then the result is on the table, in words
        assert "админы" in await answer_to(env, 1, "/chart off")
        env.fake.make_admin(env.group, env.users[0])
        assert await answer_to(env, 0, "/chart off") == "📈 " + RU._(
            "Score chart after a long match: {state}"
        ).format(state="выкл")
        assert "выкл" in await answer_to(env, 2, "/chart")
        await env.press(env.users[1], env.table_message(), "T:again")
        await last_move(env, progress=LONG)
        assert len(env.fake.find_calls("sendPhoto")) == 1
        assert "Козлы: " in (env.table_message().text or "")
        assert not env.leaks, env.leaks[:3]


async def test_top_stats_and_series_after_three_matches(redis: Redis) -> None:
    async with telegram(redis) as env:
        anna, boris, vera, _gleb = env.users
        await open_table(env)
        for n in range(3):
            await last_move(env)
            if n < 2:
                await env.press(env.users[n], env.table_message(), "T:again")
        top = await answer_to(env, 0, "/top")
        assert top.splitlines()[0] == "🏆 Рейтинг игроков:"
        ranked = [ln for ln in top.splitlines() if ln[:2] in ("1.", "2.", "3.", "4.")]
        assert len(ranked) == 4 and all("3 партии" in ln for ln in ranked)
        assert {ln.split(" — ")[0][3:] for ln in ranked} == {u.first_name for u in env.users}

        mine = await answer_to(env, 0, "/stats")
        assert mine.splitlines()[0] == f"📊 {anna.first_name}" and "3 партии" in mine
        assert "Рейтинг:" in mine and "в этом чате" in mine
        assert "Любимая игра: Козёл · классический" in mine
        question = env.fake.user_message(env.group, boris, "хорошо сыграли")
        theirs = await answer_to(env, 0, "/stats", reply_to=question)
        assert theirs.splitlines()[0] == f"📊 {boris.first_name}"
        by_name = await answer_to(env, 1, "/stats @vera")
        assert by_name.splitlines()[0] == f"📊 {vera.first_name}" and "3 партии" in by_name
        nobody = await answer_to(env, 1, "/stats @nobody")
        assert "@nobody" in nobody and "📊" not in nobody

        series = await answer_to(env, 2, "/series")
        assert series.splitlines()[1].startswith("• Козёл · классический: ")
        assert series.splitlines()[1].endswith("(3 партии)")
        assert not env.leaks, env.leaks[:3]


async def test_a_photo_refused_for_good_leaves_the_result_in_words(redis: Redis) -> None:
    async with telegram(redis) as env:
        await open_table(env)
        env.fake.limits.fail_next(
            "sendPhoto", times=5, description="Bad Request: not enough rights to send photos to the chat"
        )
        await last_move(env, progress=LONG)
        assert len(env.fake.find_calls("sendPhoto")) == 5 and not photos(env)
        words = [
            m
            for m in env.fake.messages(env.group, from_bot=True, ephemeral=False)
            if (m.text or "").startswith("🏁 Партия!")
        ]
        assert len(words) == 1
        assert any("Козлы: " + square in (words[0].text or "") for square in LEGEND[:2])
