"""Issue 18: Ukrainian and Croatian through the real Telegram adapter: the commands' menus,
/lang uk for a group, and a person's own Telegram language for what only she sees."""

from __future__ import annotations

from redis.asyncio import Redis

from adapters.common.render import Text
from tests.telegram.harness import telegram

UK, HR = Text("uk"), Text("hr")


async def test_lang_uk_for_the_group_and_a_croatian_app_for_herself(redis: Redis) -> None:
    async with telegram(redis) as env:
        calls = env.fake.find_calls("setMyCommands")
        assert {"uk", "hr"} <= {c.params.get("language_code") for c in calls}
        uk_group = next(
            c
            for c in calls
            if c.params.get("language_code") == "uk" and "group" in str(c.params.get("scope"))
        )
        newgame = next(c for c in uk_group.params["commands"] if c["command"] == "newgame")
        assert newgame["description"] == "Відкрити стіл: список ігор"

        anna = env.users[0]
        env.fake.make_admin(env.group, anna)
        await env.say(anna, "/lang uk")
        assert env.fake.last_bot_message(env.group).text == "Мова: українська"  # type: ignore[union-attr]
        await env.say(anna, "/lang xx")  # an answer for her alone: in her own language
        assert "/lang uk или /lang hr" in (env.fake.last_bot_message(env.group).text or "")  # type: ignore[union-attr]
        await env.say(anna, "/newgame kozel")
        table = env.table_message().text or ""
        assert "Козел · класичний · 4 гравці" in table and "Місця:" in table

        # Ivana's Telegram is in Croatian: her answers are hers, the table stays the group's
        ivana = env.fake.add_user(2001, "Ivana", language_code="hr", username="ivana")
        answer = await env.press(ivana, env.table_message(), "L:start")
        assert "Broj igrača za ovu igru" in answer.get("text", "")
        await env.press(ivana, env.table_message(), "L:join")
        assert "Ivana" in (env.table_message().text or "") and "Місця:" in (env.table_message().text or "")
        assert not env.leaks, env.leaks[:3]


async def test_the_menu_for_other_app_languages_is_in_the_bots_default_language(redis: Redis) -> None:
    """A person whose Telegram speaks none of the four is answered in DEFAULT_LANGUAGE (ru
    here): the menu without a language_code says the same, and English has a menu of its own."""
    async with telegram(redis) as env:
        calls = env.fake.find_calls("setMyCommands")

        def newgame(code: str | None) -> str:
            menu = next(
                c
                for c in calls
                if c.params.get("language_code") == code and "group" in str(c.params.get("scope"))
            )
            return str(next(c["description"] for c in menu.params["commands"] if c["command"] == "newgame"))

        assert newgame(None) == newgame("ru") == Text("ru")._("Open a table: a list of games")
        assert newgame("en") == "Open a table: a list of games"
        assert {c.params.get("language_code") for c in calls} == {None, "ru", "en", "uk", "hr"}
