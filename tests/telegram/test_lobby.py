"""Issue 13 item 7 (lobby and words), issue 15's levels and issue 16's "no preset names"
as people meet them in Telegram."""

from __future__ import annotations

import pytest
from redis.asyncio import Redis

from adapters.common.render import Text
from engine.presets import PRESETS
from tests.telegram.harness import Env, telegram

RU = Text("ru")


def labels(msg: object) -> list[str]:
    return [b.get("text", "") for row in msg.buttons for b in row]  # type: ignore[attr-defined]


async def settings_message(env: Env, who: int = 0) -> object:
    """The settings as the one who pressed "Settings" sees them (for him alone)."""
    user = env.users[who]
    await env.press(user, env.table_message(), "L:set")
    msgs = [
        m
        for m in env.fake.messages(env.group, from_bot=True, ephemeral=True)
        if any(d.startswith("O:") for d in m.callback_data) and m.receiver == user
    ]
    assert msgs, "no settings message"
    return msgs[-1]


async def test_settings_one_row_per_option_with_its_value(redis: Redis) -> None:
    async with telegram(redis) as env:
        await env.say(env.users[0], "/newgame kozel")
        msg = await settings_message(env)
        rows = msg.buttons  # type: ignore[attr-defined]
        assert all(len(row) == 1 for row in rows)
        assert any("шоха" in b["text"] and "вкл" in b["text"] for row in rows for b in row)
        # shokha: a toggle; the 60:60 rule: its values open under it
        toggle = next(b["callback_data"] for row in rows for b in row if "шоха" in b["text"])
        await env.press(env.users[0], msg, toggle)
        assert (await env.room()).options["shokha"] is False
        tie = next(
            b["callback_data"]
            for row in msg.buttons
            for b in row  # type: ignore[attr-defined]
            if b["callback_data"].startswith("O:tie:")
        )
        await env.press(env.users[0], msg, tie)
        assert "O:tie:eggs" in msg.callback_data  # type: ignore[attr-defined]
        await env.press(env.users[0], msg, "O:tie:eggs")
        assert (await env.room()).options["tie"] == "eggs"
        await env.drain()
        assert "яйца" in (env.table_message().text or "")


async def test_kozel_nn_settings_show_what_can_be_set(redis: Redis) -> None:
    async with telegram(redis) as env:
        await env.say(env.users[0], "/newgame kozel-nn")
        msg = await settings_message(env)
        assert RU._("This game has no options to set.") in (msg.text or "")  # type: ignore[attr-defined]
        assert any(d.startswith("O:bot_level") for d in msg.callback_data)  # type: ignore[attr-defined]
        # a person who is not the creator may look, and is told who may change
        await env.say(env.users[1], "/join")
        theirs = await settings_message(env, who=1)
        answer = await env.press(env.users[1], theirs, "O:bot_level:")
        assert not answer.get("show_alert")  # opening the list is harmless
        other = await env.press(env.users[1], theirs, "O:bot_level:hard")
        assert other.get("show_alert") and "Anna" in other.get("text", "")


@pytest.mark.parametrize("game", list(PRESETS))
async def test_teams_shown_for_every_partnership_game(redis: Redis, game: str) -> None:
    """Every game the registry plays in partnerships shows its teams in the lobby (and
    the others none), whichever table size it opens with."""
    async with telegram(redis) as env:
        await env.say(env.users[0], f"/newgame {game}")
        text = env.table_message().text or ""
        table = await env.service.table(env.room_id)
        assert table is not None
        if table.partnership:
            assert "Команда A" in text and "Команда B" in text, text
        else:
            assert "Команда" not in text, text


async def test_petukh_lobby_one_option_a_line_no_teams(redis: Redis) -> None:
    async with telegram(redis) as env:
        await env.say(env.users[0], "/newgame petukh")
        text = env.table_message().text or ""
        assert "Команда" not in text
        option_lines = [ln for ln in text.splitlines() if ln.startswith(" • ")]
        assert len(option_lines) >= 10


async def test_computer_players_unique_names_in_the_chats_language_and_levels(redis: Redis) -> None:
    async with telegram(redis) as env:
        anna = env.users[0]
        await env.say(anna, "/newgame kozel")
        await env.say(anna, "/addbot hard")
        await env.say(anna, "/addbot easy")
        await env.press(anna, env.table_message(), "L:bot")
        room = await env.room()
        names = [s.name for s in room.seats[1:]]
        assert len(set(names)) == 3 and set(names) <= {
            RU._(n) for n in ("Sam", "Max", "Alex", "Kit", "Val", "Lou")
        }
        text = env.table_message().text or ""
        assert "мастер" in text and "новичок" in text and "любитель" in text
        # in an English chat they have English names
        await env.say(anna, "/cancel")
        env.fake.make_admin(env.group, anna)
        env.clock.advance(10)  # the member status asked a moment ago is remembered a few seconds
        await env.say(anna, "/lang en")
        await env.say(anna, "/newgame kozel")
        await env.say(anna, "/addbot")
        room = await env.room()
        assert room.seats[1] is not None and room.seats[1].name in ("Sam", "Max", "Alex", "Kit", "Val", "Lou")
        await env.say(anna, "/lang ru")
        answer = await env.say(anna, "/addbot genius")
        assert answer is not None
        reply = env.fake.last_bot_message(env.group)
        assert reply is not None and "easy" in (reply.text or "")


async def test_default_level_in_settings(redis: Redis) -> None:
    async with telegram(redis) as env:
        anna = env.users[0]
        await env.say(anna, "/newgame kozel")
        msg = await settings_message(env)
        await env.press(anna, msg, "O:bot_level:")
        await env.press(anna, msg, "O:bot_level:hard")
        await env.press(anna, env.table_message(), "L:bot")
        room = await env.room()
        assert room.seats[1] is not None and room.seats[1].level == "hard"


async def test_kick_by_reply_number_and_username_not_oneself(redis: Redis) -> None:
    async with telegram(redis) as env:
        anna, boris, vera, gleb = env.users
        await env.say(anna, "/newgame kozel")
        for u in (boris, vera, gleb):
            await env.say(u, "/join")
        said = env.fake.user_message(env.group, boris, "привет")
        await env.say(anna, "/kick", reply_to=said)
        await env.say(anna, "/kick @vera")
        room = await env.room()
        assert room.seat_of(f"tg:{boris.id}") is None and room.seat_of(f"tg:{vera.id}") is None
        seat = room.seat_of(f"tg:{gleb.id}")
        assert seat is not None
        await env.say(anna, f"/kick {seat + 1}")
        assert (await env.room()).seat_of(f"tg:{gleb.id}") is None
        await env.say(anna, f"/kick {seat + 1}")  # nobody there now: said so, not "you"
        reply = env.fake.last_bot_message(env.group)
        assert reply is not None and reply.text == RU._("That player is not at this table.")
        await env.say(anna, "/kick 1")
        reply = env.fake.last_bot_message(env.group)
        assert reply is not None and "/leave" in (reply.text or "")
        assert (await env.room()).seat_of(f"tg:{anna.id}") == 0


async def test_refusals_say_what_is_needed(redis: Redis) -> None:
    async with telegram(redis) as env:
        await env.say(env.users[0], "/newgame kozel-4")
        answer = await env.press(env.users[0], env.table_message(), "L:start")
        assert answer.get("show_alert") and "4" in answer.get("text", "")
        await env.say(env.users[0], "/newgame kozel")
        reply = env.fake.last_bot_message(env.group)
        assert reply is not None and "/cancel" in (reply.text or "")
        await env.say(env.users[1], "/addbot")  # issue 33.8: the creator's (or an admin's)
        reply = env.fake.last_bot_message(env.group)
        assert reply is not None and "Anna" in (reply.text or "")
        await env.say(env.users[0], "/cancel")
        await env.say(env.users[0], "/newgame kozel")
        answer = await env.press(env.users[0], env.table_message(), "L:start")
        assert "2, 3 или 4" in answer.get("text", ""), answer


async def test_plural_forms_and_words_without_gender(redis: Redis) -> None:
    async with telegram(redis) as env:
        await env.say(env.users[0], "/newgame kozel-60")
        assert "4 игрока" in (env.table_message().text or "")
        msg = await settings_message(env)
        await env.press(env.users[0], msg, "O:size:")
        await env.press(env.users[0], msg, "O:size:2")
        await env.drain()
        assert "2 игрока" in (env.table_message().text or "")
    from bot.views import Choice, Line

    assert RU.bare_choice(Choice("cut", [], 0, "t", number=24)) == "✂️ Сдвинуть 24 карты"
    assert RU.line(Line("deck_cut", {"name": "Аня", "count": 21})) == "Аня сдвигает 21 карту"
    for line in ("{name} is back", "{name} left the table", "{name} was removed from the table"):
        word = RU._(line)
        assert not any(w in word for w in ("вернулся", "ушёл", "убран")), word


async def test_help_and_the_game_picker_use_readable_names(redis: Redis) -> None:
    async with telegram(redis) as env:
        await env.say(env.users[0], "/help")
        text = env.fake.last_bot_message(env.group).text or ""  # type: ignore[union-attr]
        assert RU._("Hvaleny Kozel") in text and "/newgame kozel-nn" in text
        await env.say(env.users[0], "/newgame")
        picker = env.fake.last_bot_message(env.group)
        assert picker is not None and RU._("Kocherga") in labels(picker)
        await env.press(env.users[0], picker, "G:kozel-kocherga")
        await env.drain()
        assert (await env.room()).preset == "kozel-kocherga"
        assert picker.deleted  # the lobby below is the only place to press now
        assert env.table_message().message_id > picker.message_id


async def test_lang_is_for_admins_and_in_private_it_is_ones_own(redis: Redis) -> None:
    async with telegram(redis) as env:
        anna, boris = env.users[:2]
        env.fake.make_admin(env.group, anna)
        await env.say(boris, "/lang en")
        assert "админ" in (env.fake.last_bot_message(env.group).text or "")  # type: ignore[union-attr]
        await env.say(anna, "/lang en")
        await env.say(anna, "/newgame kozel")
        assert "Seats" in (env.table_message().text or "")
        # Boris's own language, in his private chat: English answers for him alone
        await env.say(boris, "/lang en", chat=boris.id)
        await env.say(boris, "/help", chat=boris.id)
        assert (env.fake.last_bot_message(boris.id).text or "").startswith(  # type: ignore[union-attr]
            "🐐 " + Text("en")._("Kozel bot: card games with friends in this chat.")
        )
        await env.say(anna, "/lang ru")
        answer = await env.press(boris, env.table_message(), "L:start")
        assert "This game needs" in answer.get("text", "")  # his words, not the chat's


async def test_private_start_offers_a_group_and_a_practice_game(redis: Redis) -> None:
    async with telegram(redis) as env:
        anna = env.users[0]
        await env.say(anna, "/start", chat=anna.id)
        welcome = env.fake.last_bot_message(anna.id)
        assert welcome is not None
        urls = [b.get("url", "") for row in welcome.buttons for b in row]
        assert any("startgroup=" in u for u in urls)
        await env.press(anna, welcome, "G:kozel")
        room = await env.room(f"tg:{anna.id}")
        assert room.state == "playing" and sum(1 for s in room.seats if s and s.bot) == 3
        hand = env.hand_message(anna)
        assert hand is not None and hand.chat.id == anna.id
        table = env.table_message(anna.id)
        assert table.message_id < hand.message_id  # the table above, the hand below
        assert not env.leaks, env.leaks[:3]
