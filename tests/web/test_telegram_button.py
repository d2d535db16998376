"""Issue 34: the chat table opens the web table. In a group a URL button to the Mini App with
the table's link as its ``startapp`` (``web_app`` buttons work in private chats only); in a
practice game in the private chat a ``web_app`` button. Neither carries a card."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from redis.asyncio import Redis

from bot import invites
from tests.telegram.harness import cards_named, telegram
from tests.telegram.test_tables import open_table

APP = "table"
URL = "https://kozel.example.org/web"


def web_buttons(message: object) -> list[dict[str, object]]:
    rows = getattr(message, "buttons", [])
    return [b for row in rows for b in row if "url" in b or "web_app" in b]


async def test_the_group_table_links_to_the_mini_app_with_the_tables_link(redis: Redis) -> None:
    async with telegram(redis, webapp_name=APP, webapp_url=URL) as env:
        await open_table(env, people=2, bots=2)
        room = await env.room()
        table = env.table_message()
        (button,) = web_buttons(table)
        assert "web_app" not in button  # not allowed in groups
        url = str(button["url"])
        parts = urlsplit(url)
        assert parts.netloc == "t.me" and parts.path == f"/{env.fake.bot.username}/{APP}"
        (payload,) = parse_qs(parts.query)["startapp"]
        assert payload == invites.payload_of(room) and len(payload) <= 64
        assert await env.service.room_by_link("tg", payload) is not None
        every_card = {c for cards in (await env.hidden_cards())[0].values() for c in cards}
        assert not cards_named(url + str(button["text"]), every_card)
        assert not env.leaks, env.leaks


async def test_a_practice_game_in_the_private_chat_gets_a_web_app_button(redis: Redis) -> None:
    async with telegram(redis, webapp_name=APP, webapp_url=URL) as env:
        anna = env.users[0]
        await env.say(anna, "/newgame kozel", chat=anna.id)
        tables = [m for m in env.fake.messages(anna.id, from_bot=True) if web_buttons(m)]
        assert tables, [m.describe() for m in env.fake.messages(anna.id, from_bot=True)]
        (button,) = web_buttons(tables[-1])
        web_app = button["web_app"]
        assert isinstance(web_app, dict)
        parts = urlsplit(str(web_app["url"]))
        assert f"{parts.scheme}://{parts.netloc}{parts.path}" == URL
        (payload,) = parse_qs(parts.query)["t"]
        room = await env.service.room_by_link("tg", payload)
        assert room is not None and room.seat_of(f"tg:{anna.id}") is not None
        assert not env.leaks, env.leaks


async def test_without_the_settings_the_table_has_no_web_button(redis: Redis) -> None:
    async with telegram(redis) as env:
        await open_table(env, people=2, bots=2)
        assert not web_buttons(env.table_message())
