"""Issue 13 items 5 and 6: one live hand per person, and a hand that explains itself."""

from __future__ import annotations

import random

from redis.asyncio import Redis

from adapters.common.render import Text
from bot.room import User
from bot.views import HandView
from tests.fakes.telegram import FakeUser
from tests.telegram.harness import Env, telegram

RU = Text("ru")


async def open_table(
    env: Env, people: int = 2, bots: int = 2, game: str = "kozel", seed: int | None = None
) -> None:
    """A table opened through the buttons; dealt by the Start button, or from ``seed`` (the
    service's start, as the button does without one: the same deal on every run)."""
    anna = env.users[0]
    await env.say(anna, f"/newgame {game}")
    for user in env.users[1:people]:
        await env.press(user, env.table_message(), "L:join")
    for _ in range(bots):
        await env.press(anna, env.table_message(), "L:bot")
    if seed is not None:
        assert (await env.service.start(env.room_id, User(f"tg:{anna.id}", anna.first_name), seed=seed)).ok
        await env.flush()
        return
    answer = await env.press(anna, env.table_message(), "L:start")
    assert not answer.get("show_alert"), answer


def hands_with_buttons(env: Env, user: FakeUser) -> list[object]:
    found = [
        m
        for m in env.fake.messages(env.group, from_bot=True, ephemeral=True)
        if m.receiver is not None and m.receiver.id == user.id and m.buttons
    ]
    return found + [m for m in env.fake.messages(user.id, from_bot=True) if m.buttons]


async def mover(env: Env) -> tuple[FakeUser, HandView]:
    """Let computers move until a person is to move; that person and his hand."""
    for _ in range(50):
        room = await env.room()
        for u in env.users:
            hand = env.service.hand_of(room, f"tg:{u.id}")
            if hand is not None and hand.on_move:
                return u, hand
        await env.tick()
    raise AssertionError("nobody to move")


async def test_a_new_hand_retires_the_old_one(redis: Redis) -> None:
    async with telegram(redis) as env:
        await open_table(env)
        anna = env.users[0]
        first = await env.open_hand(anna)
        await env.press(anna, env.table_message(), "T:hand")
        second = env.hand_message(anna)
        assert second is not None and second is not first
        assert first.deleted
        assert hands_with_buttons(env, anna) == [second]


async def test_a_tap_on_an_old_hand_makes_it_the_live_one_with_todays_cards(redis: Redis) -> None:
    async with telegram(redis) as env:
        await open_table(env)
        user, _hand = await mover(env)
        old = await env.open_hand(user)
        # the retirement of the old hand fails (the message stays, buttons and all)
        env.fake.limits.fail_next("deleteEphemeralMessage")
        env.fake.limits.fail_next(
            "editEphemeralMessageText",
            when=lambda p: p.get("ephemeral_message_id") == old.ephemeral_message_id,
        )
        await env.press(user, env.table_message(), "T:hand")
        new = env.hand_message(user)
        assert new is not old and old.buttons
        data = next(d for d in old.callback_data if d.startswith("S~"))
        await env.press(user, old, data)
        assert old.text == new.text  # today's text, not old text with new buttons
        room = await env.room()
        live = room.sdata[f"tg:{user.id}"]["tg_hand"]
        assert live["msg"] == old.ephemeral_message_id


async def test_double_tap_is_quiet_and_a_refused_tap_edits_the_hand(redis: Redis) -> None:
    async with telegram(redis) as env:
        await open_table(env, seed=1)
        user, hand = await mover(env)
        msg = await env.open_hand(user)
        choice = next(c for c in hand.choices if c.kind != "declare")
        first = await env.play(user, choice)
        assert not first.get("text")
        again = await env.press(user, msg, "A~" + choice.token, check_button=False)
        assert not again.get("text") and not again.get("show_alert")  # a repeat: quiet
        # a move that is no longer possible from a hand: the hand says why, a toast too
        stale = next((c for c in hand.choices if c.kind != "declare" and c != choice), None)
        assert stale is not None, "this deal gives him a choice"
        answer = await env.press(user, msg, "A~" + stale.token, check_button=False)
        assert answer.get("text") and not answer.get("show_alert")
        assert (msg.text or "").startswith("⚠️")


async def test_an_unplayable_card_says_why_and_one_legal_move_is_one_tap(redis: Redis) -> None:
    """kozel-nn: the first lead of the match is the A♦ (RULES.md 4c)."""
    async with telegram(redis) as env:
        await open_table(env, people=4, bots=0, game="kozel-nn")
        seen_reason = seen_single = False
        for _ in range(60):
            room = await env.room()
            for u in env.users:
                hand = env.service.hand_of(room, f"tg:{u.id}")
                if hand is None or not hand.on_move:
                    continue
                msg = await env.open_hand(u)
                bad = [c for c in hand.cards if c in hand.why_not]
                if bad and not seen_reason:
                    i = hand.cards.index(bad[0])
                    data = next(
                        d for d in msg.callback_data if d.startswith("S~") and d.endswith(f"~{1 << i}")
                    )
                    answer = await env.press(u, msg, data)
                    assert answer.get("text") == RU.reason(hand.why_not[bad[0]])
                    seen_reason = True
                if hand.single is not None and hand.single.mask:
                    assert "A~" + hand.single.token in msg.callback_data  # on the card
                    seen_single = True
                moves = [c for c in hand.choices if c.kind != "declare"]
                await env.play(u, hand.single or moves[0])
                break
            else:
                await env.tick()
            if seen_reason and seen_single:
                break
        assert seen_reason and seen_single


async def test_private_hands_name_their_group(redis: Redis) -> None:
    async with telegram(redis) as env:
        await open_table(env)
        anna = env.users[0]
        env.fake.private_chat(anna)
        msg = await env.open_hand(anna)
        room = await env.room()
        answer = await env.press(anna, msg, f"D~{room.id}~private")
        assert not answer.get("url")
        private = env.hand_message(anna)
        assert private is not None and private.chat.id == anna.id
        assert "Пятничный покер" in (private.text or "")
        assert msg.deleted  # one live hand


async def test_send_privately_switches_only_after_a_private_send_worked(redis: Redis) -> None:
    async with telegram(redis) as env:
        await open_table(env)
        boris = env.users[1]  # never started the bot
        msg = await env.open_hand(boris)
        room = await env.room()
        answer = await env.press(boris, msg, f"D~{room.id}~private")
        assert "start=h" in answer.get("url", "")
        room = await env.room()
        assert room.sdata[f"tg:{boris.id}"].get("tg_mode", "ephemeral") == "ephemeral"
        assert not msg.deleted and msg.buttons  # he keeps his hand in the group
        await env.press(boris, env.table_message(), "T:hand")
        assert env.hand_message(boris) is not None
        assert env.hand_message(boris).is_ephemeral  # type: ignore[union-attr]


async def test_hand_command_always_answers(redis: Redis) -> None:
    async with telegram(redis) as env:
        anna, boris = env.users[:2]
        answers = []
        for step in ("no table", "lobby", "not seated", "over"):
            if step == "lobby":
                await env.say(anna, "/newgame kozel")
            if step == "not seated":
                for _ in range(3):
                    await env.press(anna, env.table_message(), "L:bot")
                await env.press(anna, env.table_message(), "L:start")
            if step == "over":
                await env.say(anna, "/cancel")
            who = boris if step == "not seated" else anna
            mark = env.fake.mark()
            await env.say(who, "/hand", ephemeral=True)
            replies = [c for c in env.fake.find_calls("sendMessage", after=mark)]
            assert replies, f"/hand got no answer: {step}"
            answers.append(replies[-1].params["text"])
        assert answers[0] == RU.reason("no_room")
        assert answers[1] == RU.reason("not_started")
        assert answers[2] == RU.reason("not_your_seat")
        assert answers[3] == RU.reason("game_over")


async def test_two_tables_two_hands_told_apart(redis: Redis) -> None:
    async with telegram(redis) as env:
        other = env.fake.group(-1002000000009, "Дача")
        anna, boris = env.users[:2]
        env.fake.private_chat(anna)
        await open_table(env)
        await env.say(boris, "/newgame kozel", chat=other)
        await env.say(anna, "/join", chat=other)
        await env.say(boris, "/startgame", chat=other)
        await env.say(anna, "/hand", chat=anna.id)
        texts = [m.text or "" for m in env.fake.messages(anna.id, from_bot=True)]
        assert any("Пятничный покер" in t for t in texts) and any("Дача" in t for t in texts)


async def test_hint_in_a_practice_game_only(redis: Redis) -> None:
    """Issue 15: "Hint" shows what the strong computer player would play, at a table where
    every opponent is a computer player."""
    async with telegram(redis) as env:
        anna = env.users[0]
        await env.say(anna, "/newgame kozel", chat=anna.id)
        room_id = f"tg:{anna.id}"
        for _ in range(20):
            room = await env.room(room_id)
            hand = env.service.hand_of(room, f"tg:{anna.id}")
            if hand is not None and hand.on_move:
                break
            await env.tick()
        msg = env.hand_message(anna)
        assert msg is not None and f"HN~{room_id}" in msg.callback_data
        answer = await env.press(anna, msg, f"HN~{room_id}")
        assert answer.get("show_alert") and answer.get("text", "").startswith("💡")
        assert "%)" in answer["text"]  # the hard player's why, with its trial deals' share
        # at a group table with another person there is no hint, and a forged one is refused
        await open_table(env)
        boris_hand = await env.open_hand(env.users[1])
        assert not any(d.startswith("HN~") for d in boris_hand.callback_data)
        answer = await env.press(env.users[1], boris_hand, f"HN~{env.room_id}", check_button=False)
        assert answer.get("show_alert") and "💡" not in answer.get("text", "")


async def test_a_hand_refused_with_429_comes_after_the_wait(redis: Redis) -> None:
    """Every send path honours retry_after: a 429 on the hand is no reason to fall back to
    the private chat, nor to drop it."""
    async with telegram(redis) as env:
        await open_table(env)
        anna = env.users[0]
        env.fake.limits.fail_retry_after(
            "sendMessage", 5, when=lambda p: bool(p.get("ephemeral_message_parameters"))
        )
        answer = await env.press(anna, env.table_message(), "T:hand")
        assert not answer.get("url") and not answer.get("show_alert")
        assert env.hand_message(anna) is None
        await env.tick(5)
        hand = env.hand_message(anna)
        assert hand is not None and hand.is_ephemeral
        room = await env.room()
        assert room.sdata[f"tg:{anna.id}"]["tg_hand"]["msg"] == hand.ephemeral_message_id


async def test_a_redelivered_press_is_applied_once_and_answered_quietly(redis: Redis, caplog: object) -> None:
    """Telegram delivers an update again when its first delivery was not confirmed (a
    worker died after the commit): the move is not made twice, nothing is drawn, no alert."""
    async with telegram(redis) as env:
        await open_table(env)
        user, hand = await mover(env)
        choice = next(c for c in hand.choices if c.kind != "declare")
        await env.play(user, choice)
        press = next(
            cb for cb in reversed(list(env.fake.world.callbacks.values())) if cb.data == "A~" + choice.token
        )
        room = await env.room()
        mark = env.fake.mark()
        env.fake.updates.redeliver(env.fake.updates.update_of(press))
        answered = await env.fake.wait_for_call(
            "answerCallbackQuery", lambda p: p["callback_query_id"] == press.id, after=mark, timeout=10
        )
        assert answered.error_code == 400  # Telegram keeps the first answer only
        await env.say(env.users[0], "/help", ephemeral=True)  # the dispatcher has moved on
        assert (await env.room()).version == room.version
        assert not [
            c
            for c in env.fake.api_calls()[mark:]
            if c.method in ("editMessageText", "editEphemeralMessageText") and c.ok
        ]
        assert not [
            r
            for r in caplog.records  # type: ignore[attr-defined]
            if r.levelname == "ERROR"
        ]


async def test_a_card_tapped_out_of_turn_says_whose_turn_it_is(redis: Redis) -> None:
    """Issue 13 item 6: a tap on a card that cannot be played now is a toast with the
    reason, even when no move takes cards (not his turn); nothing gets ticked."""
    async with telegram(redis) as env:
        await open_table(env)
        user, _hand = await mover(env)
        other = next(u for u in env.users[:2] if u is not user)
        msg = await env.open_hand(other)
        before = msg.text
        data = next(d for d in msg.callback_data if d.startswith("S~"))
        answer = await env.press(other, msg, data)
        assert answer.get("text") == RU.reason("not_your_turn") and not answer.get("show_alert")
        assert msg.text == before and not any("✅" in b["text"] for row in msg.buttons for b in row)


async def test_the_only_move_of_several_cards_is_one_tap(redis: Redis) -> None:
    """Issue 13 item 6: when exactly one move is legal and it takes several cards (the
    last cards of a deal, thrown), they come ticked and the move's button is there."""
    async with telegram(redis) as env:
        anna, boris = env.users[:2]
        await env.say(anna, "/newgame kozel-4")
        await env.press(boris, env.table_message(), "L:join")
        for _ in range(2):
            await env.press(anna, env.table_message(), "L:bot")
        assert (await env.service.start(env.room_id, User(f"tg:{anna.id}", "Anna"), seed=2)).ok
        rng = random.Random(2)
        for _ in range(300):  # the deal played on (by the service) up to such a moment
            room = await env.room()
            hands = [(u, env.service.hand_of(room, f"tg:{u.id}")) for u in (anna, boris)]
            ready = [(u, h) for u, h in hands if h is not None and h.on_move and h.choices]
            single = next(
                ((u, h) for u, h in ready if h.single is not None and len(h.single.cards) > 1), None
            )
            if single is not None:
                break
            if ready:
                u, h = ready[0]
                await env.service.act(rng.choice(h.choices).token, User(f"tg:{u.id}", "x"))
            else:
                await env.tick()
        assert single is not None, "no such moment in this deal"
        user, hand = single
        assert hand.single is not None
        await env.flush()
        msg = await env.open_hand(user)
        move = "A~" + hand.single.token
        assert move in msg.callback_data
        ticked = {b["text"].lstrip("✅") for row in msg.buttons for b in row if b["text"].startswith("✅")}
        assert ticked == {RU.card(c) for c in hand.single.cards}
        version = (await env.room()).version
        answer = await env.press(user, msg, move)
        assert not answer.get("text")
        assert (await env.room()).version > version


async def test_a_tap_refused_with_429_redraws_the_hand_after_the_wait(redis: Redis) -> None:
    """Every send path honours retry_after: the edit a tap asked for comes after the wait,
    drawn as the hand is then."""
    async with telegram(redis) as env:
        await open_table(env)
        user, _hand = await mover(env)
        msg = await env.open_hand(user)
        refused = env.fake.limits.fail_retry_after("editEphemeralMessageText", 5)
        data = next(d for d in msg.callback_data if d.startswith("S~"))
        mark = env.fake.mark()
        await env.press(user, msg, data)
        assert refused.remaining == 0
        room = await env.room()
        assert (room.id, f"tg:{user.id}") in env.painter.hands
        await env.tick(2)
        await env.tick(4)
        calls = [
            c
            for c in env.fake.find_calls("editEphemeralMessageText", after=mark)
            if c.params["ephemeral_message_id"] == msg.ephemeral_message_id
        ]
        assert calls[0].error_code == 429
        assert len(calls) == 2 and calls[1].at >= calls[0].at + 5  # after the wait only
        assert (room.id, f"tg:{user.id}") not in env.painter.hands
        assert env.hand_message(user) is msg


async def test_an_old_hand_refused_with_429_is_retired_after_the_wait(redis: Redis) -> None:
    async with telegram(redis) as env:
        await open_table(env)
        anna = env.users[0]
        first = await env.open_hand(anna)
        env.fake.limits.fail_retry_after("deleteEphemeralMessage", 4)
        await env.press(anna, env.table_message(), "T:hand")
        second = env.hand_message(anna)
        assert second is not first and not first.deleted
        await env.tick(5)
        assert first.deleted and hands_with_buttons(env, anna) == [second]


async def test_hand_in_the_private_chat_always_answers(redis: Redis) -> None:
    async with telegram(redis) as env:
        anna = env.users[0]
        env.fake.private_chat(anna)
        await env.say(anna, "/hand", chat=anna.id)
        reply = env.fake.last_bot_message(anna.id)
        assert reply is not None and reply.text == RU._("You are not in a game now.")
        await open_table(env)
        env.fake.limits.fail_next(
            "sendMessage", when=lambda p: int(p["chat_id"]) == anna.id and "🐐" in str(p.get("text"))
        )
        await env.say(anna, "/hand", chat=anna.id)
        reply = env.fake.last_bot_message(anna.id)
        assert reply is not None and reply.text == RU.reason("busy")  # refused: said so
        await env.say(anna, "/hand", chat=anna.id)
        hand = env.hand_message(anna)
        assert hand is not None and hand.chat.id == anna.id
