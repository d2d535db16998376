"""Issue 36.3 through the real Telegram adapter: /tournament opens a sign-up message,
people sign up with its buttons, the opener starts it, the tables play at the chat's table
one after another (the bot process restarted half way), the message is edited into the
standings and names the winner; hostile presses and commands are refused in words and
change nothing."""

from __future__ import annotations

import contextlib
import random

import pytest
from redis.asyncio import Redis

from adapters.common.render import Text
from bot.clock import ManualClock
from bot.tournament import OVER
from tests.fakes.telegram import FakeMessage, FakeTelegram, FakeUser
from tests.fast_forward import fast_forward
from tests.pieces import pieces
from tests.telegram.harness import Env, telegram

RU = Text("ru")
ONLY = RU._("Only whoever opened the tournament or an admin may do that.")


@pytest.fixture(autouse=True)
def seeded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(random, "SystemRandom", lambda: random.Random(36003))


def tour_message(env: Env) -> FakeMessage:
    found = [
        m
        for m in env.fake.messages(env.group, from_bot=True, ephemeral=False)
        if (m.text or "").startswith("🏆")
    ]
    assert found, "no tournament message"
    return found[-1]


async def tid_of(env: Env) -> str:
    t = await pieces(env.service).tournaments.tournament(env.room_id)
    assert t is not None
    return t.id


async def press_tour(env: Env, user: FakeUser, action: str, tid: str | None = None) -> dict[str, object]:
    current = await tid_of(env)
    tid = tid or current
    return await env.press(user, tour_message(env), f"TR:{action}:{tid}", check_button=tid == current)


async def end_table(env: Env) -> None:
    """The engine plays the table to its last move; that move is a person's press or the
    computer player's, then everything is drawn."""
    await fast_forward(env.service, env.room_id)
    room = await env.room()
    gen = room.gen
    for _ in range(40):
        room = await env.room()
        if room.gen != gen or room.state == "finished":
            await env.drain()
            return
        hands = {u.id: env.service.hand_of(room, f"tg:{u.id}") for u in env.users}
        mover = next((u for u in env.users if (h := hands[u.id]) and h.on_move and h.choices), None)
        if mover is None:
            await env.tick(1.5)
            continue
        hand = env.service.hand_of(room, f"tg:{mover.id}")
        assert hand is not None
        await env.play(mover, hand.choices[0])
    raise AssertionError("the table did not end")


async def test_i36_a_tournament_plays_through_telegram_and_survives_a_restart(redis: Redis) -> None:
    clock = ManualClock()
    async with FakeTelegram(clock=clock.now) as fake:
        async with telegram(redis, fake=fake, clock=clock) as env:
            anna, boris, vera, _gleb = env.users
            await env.say(anna, "/tournament kozel 2")
            await env.drain()
            msg = tour_message(env)
            assert "Anna" in (msg.text or "")
            assert any(d.startswith("TR:") for d in msg.callback_data)
            for user in (boris, vera):
                answer = await press_tour(env, user, "join")
                assert not answer.get("show_alert"), answer
            await env.drain()
            msg = tour_message(env)
            assert all(n in (msg.text or "") for n in ("Anna", "Boris", "Vera"))
            answer = await press_tour(env, anna, "start")
            assert not answer.get("show_alert"), answer
            await env.drain()
            room = await env.room()
            assert room.state == "playing" and room.tournament
            assert sorted(s.name for s in room.seats if s and s.user) == ["Anna", "Boris", "Vera"]
            assert env.table_message() is not None
            first_id = tour_message(env).message_id
            round_one = RU._("Round {round} of {rounds}").format(round=1, rounds=2)
            assert round_one in (tour_message(env).text or "")
        # the process is gone half way through the tournament; a new one goes on
        async with telegram(redis, fake=fake, clock=clock) as env2:
            await end_table(env2)
            t = await pieces(env2.service).tournaments.tournament(env2.room_id)
            assert t is not None and t.round == 2
            msg = tour_message(env2)
            assert msg.message_id == first_id  # the one message, edited
            assert RU._("Round {round} of {rounds}").format(round=2, rounds=2) in (msg.text or "")
            await end_table(env2)
            t = await pieces(env2.service).tournaments.tournament(env2.room_id)
            assert t is not None and t.state == OVER and t.winners
            msg = tour_message(env2)
            assert msg.message_id == first_id
            winners = ", ".join(e.name for e in t.entrants if e.user in t.winners)
            assert RU._("🥇 Won: {names}!").format(names=winners) in (msg.text or "")
            assert not msg.callback_data  # nothing left to press
            assert not env2.leaks, env2.leaks[:3]


async def test_i36_hostile_tournament_input_through_telegram(
    redis: Redis, caplog: pytest.LogCaptureFixture
) -> None:
    async with telegram(redis) as env:
        anna, boris, vera, gleb = env.users
        await env.say(anna, "/tournament kozel ²")  # a digit to str.isdigit, not to int()
        await env.drain()
        assert await pieces(env.service).tournaments.tournament(env.room_id) is None
        assert not [r for r in caplog.records if r.exc_info], "a traceback behind the answer"
        await env.say(anna, "/tournament kozel")
        await env.drain()
        tid = await tid_of(env)
        answer = await press_tour(env, boris, "join")
        assert not answer.get("show_alert")
        before = await pieces(env.service).tournaments.tournament(env.room_id)
        assert before is not None
        refusals = [
            (boris, "join", tid, RU.reason("already_signed")),
            (vera, "join", "forged00", RU.reason("stale")),
            (boris, "start", tid, ONLY),
            (
                anna,
                "start",
                tid,
                RU._("At least {n} people must sign up first ({signed} so far).").format(n=3, signed=2),
            ),
            (vera, "cancel", tid, ONLY),
            (vera, "leave", tid, RU.reason("not_signed")),
        ]
        for user, action, which, words in refusals:
            answer = await press_tour(env, user, action, which)
            assert answer.get("show_alert") and answer.get("text") == words, (action, answer)
        await env.say(vera, "/tournament petukh")
        await env.say(vera, "/tournament kozel 99")
        await env.say(vera, "/tournament")
        await env.drain()
        after = await pieces(env.service).tournaments.tournament(env.room_id)
        assert after is not None and after.version == before.version  # nothing changed
        said = [m.text or "" for m in env.fake.messages(env.group, from_bot=True) if m.receiver is not None]
        said += [m.text or "" for m in env.fake.messages(vera.id, from_bot=True)]
        assert any(RU.reason("tournament_exists") in s for s in said), said
        assert any(RU._("From 1 to {n} rounds.").format(n=7) in s for s in said), said
        # a chat admin who did not open it may cancel it
        env.fake.make_admin(env.group, gleb)
        answer = await press_tour(env, gleb, "cancel")
        assert not answer.get("show_alert"), answer
        await env.drain()
        assert RU._("The tournament was cancelled.") in (tour_message(env).text or "")
        # the sign-up's buttons are stale now
        answer = await env.press(vera, tour_message(env), f"TR:join:{tid}", check_button=False)
        assert answer.get("show_alert")


async def test_i36_a_person_who_leaves_mid_tournament_is_replaced_through_telegram(redis: Redis) -> None:
    async with telegram(redis) as env:
        anna, boris, vera, _gleb = env.users
        await env.say(anna, "/tournament kozel 2")
        await env.drain()
        for user in (boris, vera):
            await press_tour(env, user, "join")
        await press_tour(env, anna, "start")
        await env.drain()
        answer = await press_tour(env, vera, "leave")
        assert answer.get("text") == RU._("You have left the tournament."), answer
        room = await env.room()
        seat = room.seat_of(f"tg:{vera.id}")
        assert seat is not None and room.seats[seat].auto  # type: ignore[union-attr]
        await env.drain()
        assert RU._("(left)") in (tour_message(env).text or "")
        await end_table(env)
        room = await env.room()
        assert room.tournament and room.seat_of(f"tg:{vera.id}") is None  # round 2 without her
        t = await pieces(env.service).tournaments.tournament(env.room_id)
        gone = t.entrant(f"tg:{vera.id}") if t else None
        assert gone is not None and gone.out and gone.points == 0
        assert not env.leaks, env.leaks[:3]


async def test_i36_a_tournament_in_a_forum_topic_plays_in_that_topic(redis: Redis) -> None:
    async with FakeTelegram() as fake:
        forum = fake.group(-1002000000002, "Клуб", forum=True)
        async with telegram(redis, fake=fake) as env:
            anna, boris, vera, _gleb = env.users
            await env.say(anna, "/tournament kozel 1", chat=forum, thread_id=7)
            await env.drain()
            rid = "tg:-1002000000002/7"
            t = await pieces(env.service).tournaments.tournament(rid)
            assert t is not None
            msg = next(m for m in fake.messages(forum, from_bot=True) if (m.text or "").startswith("🏆"))
            assert msg.message_thread_id == 7
            for user in (boris, vera):
                await env.press(user, msg, f"TR:join:{t.id}")
            await env.press(anna, msg, f"TR:start:{t.id}")
            await env.drain()
            room = await env.service.room(rid)
            assert room is not None and room.state == "playing" and room.tournament
            tables = [
                m for m in fake.messages(forum, from_bot=True, ephemeral=False) if "T:hand" in m.callback_data
            ]
            assert tables and tables[-1].message_thread_id == 7  # the table went to the topic
            assert await env.service.room("tg:-1002000000002") is None  # not the general chat


async def test_i36_join_and_leave_pressed_over_and_over_cost_one_waiting_edit(redis: Redis) -> None:
    """Three people press Join and Leave 72 times in half a minute (within their press
    limits): the sign-up's edits wait as one, the newest, so a table opened next is not
    held behind a backlog of stale edits (issue 33's one-member freeze, again)."""
    clock = ManualClock()
    async with (
        FakeTelegram(clock=clock.now) as fake,
        telegram(redis, fake=fake, clock=clock, real_limits=True) as env,
    ):
        anna, boris, vera, gleb = env.users
        await env.say(anna, "/tournament kozel")
        await env.drain()
        message, tid = tour_message(env), await tid_of(env)
        for i in range(24):
            for user in (boris, vera, gleb):
                action = "join" if i % 2 == 0 else "leave"
                await env.press(user, message, f"TR:{action}:{tid}", flush=False)
            clock.advance(1.3)
        waiting = [p for queue in env.painter.outbox.queues.values() for p in queue]
        assert sum(1 for p in waiting if p.supersedes is not None) <= 1
        started = clock.now()
        await env.say(gleb, "/newgame kozel")
        for _ in range(40):
            with contextlib.suppress(AssertionError):
                env.table_message()
                break
            clock.advance(1.0)
            await env.flush()
        assert clock.now() - started <= 8.0, "the new table waited behind the sign-up's edits"
        await env.drain()
        # the last presses were Leave: the message shows the newest state, Anna alone
        text = tour_message(env).text or ""
        assert anna.first_name in text and not any(u.first_name in text for u in (boris, vera, gleb))
