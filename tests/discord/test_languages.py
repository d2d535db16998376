"""Issue 18: Ukrainian and Croatian through the real Discord adapter: the commands'
localizations, a person's own locale for what only he sees, a server's locale and /lang."""

from __future__ import annotations

from adapters.common.render import Text
from tests.fakes.discord import FakeDiscord

from .harness import Harness


async def test_commands_are_described_in_ukrainian_and_croatian(h: Harness, fake: FakeDiscord) -> None:
    for lang in ("uk", "hr"):
        t = Text(lang)
        for cmd in fake.world.global_commands:
            loc = cmd.get("description_localizations") or {}
            assert loc.get(lang) == t._(cmd["description"]) != cmd["description"], (lang, cmd)
    lang_command = fake.command("lang")
    assert lang_command is not None
    choices = lang_command["options"][0]["choices"]
    assert [c["value"] for c in choices] == ["ru", "en", "uk", "hr"]


async def test_a_ukrainian_locale_gets_ukrainian_words_and_lang_hr_turns_the_table(
    h: Harness, fake: FakeDiscord
) -> None:
    fake.bob.locale = "uk"  # Bob's Discord is in Ukrainian: what only he sees is his
    inter = await h.command(fake.bob, fake.games, "rules")
    assert "Класичний козел" in h.reply(inter).content and h.reply(inter).ephemeral
    inter = await h.command(fake.bob, fake.games, "help")
    assert "Бот «Козел»: карткові ігри" in h.reply(inter).content

    ch = await h.new_server("Клуб", "uk")  # a Ukrainian server's table speaks Ukrainian
    await h.command(fake.alice, ch, "newgame")
    table = await h.table(ch)
    assert "Місця:" in table.text() and table.buttons()[0]["label"] == "🪑 Сісти"
    inter = await h.command(fake.alice, ch, "lang", {"language": "hr"})
    assert h.reply(inter).content == "Jezik: hrvatski"
    assert "Mjesta:" in table.text() and table.buttons()[0]["label"] == "🪑 Sjedni"
