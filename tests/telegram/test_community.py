"""Issue 36 through the real Telegram adapter: the chat's house rules and /defaults (item
1), /notify and the one notice a table (item 2), /top by matches with people, the table
against computer players and /top season (item 5)."""

from __future__ import annotations

from redis.asyncio import Redis

from adapters.common.render import Text
from bot import keys
from bot.records import NOTICE_GAP
from bot.room import User
from bot.stats import season_of
from tests.service.test_community import play_out
from tests.telegram.harness import Env, telegram
from tests.telegram.test_lobby import settings_message

RU = Text("ru")
HOUSE = RU._("House rules (not the game's own): {options}").split("{")[0]


async def answer_to(env: Env, who: int, text: str) -> str:
    """The answer the sender alone sees (an ephemeral message for him)."""
    user = env.users[who]
    await env.say(user, text)
    await env.drain()
    mine = [m for m in env.fake.messages(env.group, from_bot=True, ephemeral=True) if m.receiver == user]
    assert mine, f"no answer to {text}"
    return mine[-1].text or ""


async def toggle_shokha(env: Env) -> None:
    msg = await settings_message(env)
    toggle = next(b["callback_data"] for row in msg.buttons for b in row if "шоха" in b["text"])  # type: ignore[attr-defined]
    await env.press(env.users[0], msg, toggle)  # type: ignore[arg-type]


async def shokha_off_and_deal(env: Env) -> None:
    anna, boris = env.users[:2]
    await env.say(anna, "/newgame kozel")
    await toggle_shokha(env)
    await env.press(boris, env.table_message(), "L:join")
    answer = await env.press(anna, env.table_message(), "L:start")
    assert not answer.get("show_alert"), answer
    await env.say(anna, "/cancel")


# --- item 1 ------------------------------------------------------------------------------------


async def test_i36_1_a_new_table_starts_from_the_rules_last_dealt_and_says_so(redis: Redis) -> None:
    async with telegram(redis) as env:
        anna, boris = env.users[:2]
        await shokha_off_and_deal(env)
        await env.say(boris, "/newgame kozel")
        room = await env.room()
        assert room.options["shokha"] is False and room.size == 2 and room.creator == f"tg:{boris.id}"
        await env.drain()
        text = env.table_message().text or ""
        assert HOUSE in text and RU._("shokha (6♠ on top)") in text.split(HOUSE)[1]
        # /defaults says what a new table starts from, to the sender alone
        shown = await answer_to(env, 2, "/defaults")
        assert (
            RU._("{game}: a new table starts from the rules last dealt here.").format(
                game=RU.preset_title("kozel")
            )
            in shown
        )
        # a member is not an admin: nothing changes
        refused = await answer_to(env, 2, "/defaults reset kozel")
        assert RU._("Only a chat admin may set the chat's defaults.") in refused
        assert (await env.service.chats.house_rules("tg", str(env.group.id), "kozel")) is not None
        env.fake.make_admin(env.group, anna)
        env.clock.advance(6)  # the bot's memory of who is an admin is a few seconds long
        reset = await answer_to(env, 0, "/defaults reset kozel")
        assert (
            RU._("{game}: a new table starts from the game's own rules.").format(
                game=RU.preset_title("kozel")
            )
            in reset
        )
        await env.say(boris, "/cancel")
        await env.say(anna, "/newgame kozel")
        room = await env.room()
        assert room.options["shokha"] is True and room.size == 4
        await env.drain()
        assert HOUSE not in (env.table_message().text or "")


async def test_i36_1_an_admin_keeps_a_tables_rules_and_a_removed_option_never_crashes(redis: Redis) -> None:
    async with telegram(redis) as env:
        anna, boris = env.users[:2]
        env.fake.make_admin(env.group, anna)
        await env.say(anna, "/newgame kozel")
        await toggle_shokha(env)
        saved = await answer_to(env, 0, "/defaults save")
        assert "(" in saved and RU._("shokha (6♠ on top)") in saved
        # a later deal with other rules does not move what the admin kept
        await toggle_shokha(env)
        await env.press(boris, env.table_message(), "L:join")
        await env.press(anna, env.table_message(), "L:start")
        await env.say(anna, "/cancel")
        await env.say(anna, "/newgame kozel")
        assert (await env.room()).options["shokha"] is False
        await env.say(anna, "/cancel")
        # an option the game no longer has, a bad value, a size not allowed: dropped
        await redis.hset(
            keys.chat_prefs(f"tg:{env.group.id}"),
            "rules!:kozel",
            '{"options": {"gone": 1, "shokha": "maybe", "tie": "eggs"}, "size": 9, "level": "god"}',
        )
        await env.say(boris, "/newgame kozel")
        room = await env.room()
        assert room.options["tie"] == "eggs" and room.options["shokha"] is True
        assert room.size == 4 and room.bot_level == "normal"


# --- item 2 ------------------------------------------------------------------------------------


def notices(env: Env) -> list[str]:
    return [
        m.raw_text or ""
        for m in env.fake.messages(env.group, from_bot=True, ephemeral=False)
        if "tg://user?id=" in (m.raw_text or "")
    ]


async def test_i36_2_members_who_asked_are_mentioned_once_a_table(redis: Redis) -> None:
    async with telegram(redis) as env:
        anna, boris, vera, gleb = env.users
        for user in (anna, boris, vera, gleb):
            said = await answer_to(env, env.users.index(user), "/notify on")
            assert RU._("You will be told when a table opens here.") in said
        assert RU._("You will be told when a table opens here.") in await answer_to(env, 1, "/notify")
        env.fake.set_member(env.group, gleb, "left")
        await env.say(anna, "/newgame kozel")
        await env.drain()
        [notice] = notices(env)
        assert f"tg://user?id={boris.id}" in notice and f"tg://user?id={vera.id}" in notice
        assert f"tg://user?id={anna.id}" not in notice  # she opened it
        assert f"tg://user?id={gleb.id}" not in notice  # he left the chat
        assert not await env.service.chats.notify_on("tg", str(env.group.id), f"tg:{gleb.id}")
        # the same table again, a second /newgame: no second notice
        await env.say(anna, "/newgame kozel")
        await env.drain()
        assert len(notices(env)) == 1
        # off: not told; the next table tells the others once
        await answer_to(env, 2, "/notify off")
        await env.say(anna, "/cancel")
        env.clock.advance(NOTICE_GAP)  # (a chat's notices: one in NOTICE_GAP at most)
        await env.say(boris, "/newgame petukh")
        await env.drain()
        assert len(notices(env)) == 2
        last = notices(env)[-1]
        assert f"tg://user?id={anna.id}" in last and str(vera.id) not in last and str(boris.id) not in last


# --- item 5 ------------------------------------------------------------------------------------


async def test_i36_5_top_counts_matches_with_people_and_tables_computers_apart(redis: Redis) -> None:
    async with telegram(redis) as env:
        anna = env.users[0]
        person = User(f"tg:{anna.id}", "Anna")
        chat = str(env.group.id)
        out = await env.service.create("tg", chat, None, person, "kozel", size=4)
        assert out.ok and out.room is not None
        for _ in range(3):
            assert (await env.service.add_bot(out.room.id, person, level="hard")).ok
        assert (await env.service.start(out.room.id, person, seed=3)).ok
        await play_out(env.service, env.clock, out.room.id, [person])
        top = await answer_to(env, 1, "/top")
        assert RU._("Nobody has finished a match with two people or more here yet.") in top
        assert RU._("Against computer players alone:") in top
        assert "Anna — " + RU._("master") in top
        season = await answer_to(env, 1, "/top season")
        assert RU._("Season {month} (UTC):").format(month=season_of(env.clock.now())) in season
        assert RU._("No matches with two people or more this month yet.") in season
        # a match of two people: both on the table, and in the season's
        out = await env.service.create("tg", chat, None, person, "kozel-60", size=2)
        boris = User(f"tg:{env.users[1].id}", "Boris")
        assert out.ok and out.room is not None and (await env.service.join(out.room.id, boris)).ok
        assert (await env.service.start(out.room.id, person, seed=5)).ok
        await play_out(env.service, env.clock, out.room.id, [person, boris])
        top = await answer_to(env, 1, "/top")
        assert RU._("Leaderboard by rating:") in top and "Boris (1)" in top and "Anna (1)" in top
        season = await answer_to(env, 1, "/top season")
        assert "Boris (1)" in season
