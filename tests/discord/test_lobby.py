"""The lobby, languages and permissions in Discord (issue 14: 5, 6; issue 15's levels),
through the real discord.py against the fake Discord."""

from __future__ import annotations

import pytest

from tests.fakes.discord_api import FakeDiscord, FakeDiscordError

from .harness import Harness, refusal_text


async def test_lang_needs_manage_server(h: Harness, fake: FakeDiscord) -> None:
    ch = fake.games
    with pytest.raises(FakeDiscordError):  # Discord does not even show it to Bob
        await h.fake.interaction_command(fake.bob, ch, "lang", {"language": "ru"})
    # a server that lets members see it: the bot still refuses, and nothing changes
    inter = await h.fake.interaction_command(fake.bob, ch, "lang", {"language": "ru"},
                                             check_registered=False)
    await h.fake.wait_for_response(inter)
    await h.settle()
    assert "Manage Server" in refusal_text(h, inter)
    assert await h.service.chat_language("dc", str(fake.guild.id)) == "en"
    inter = await h.command(fake.alice, ch, "lang", {"language": "ru"})  # Manage Server
    assert h.reply(inter).content == "Язык: русский"
    # in a DM there is no server to manage: anyone chooses his own chat's language
    dm = fake.dm_channel(fake.bob)
    inter = await h.command(fake.bob, dm, "lang", {"language": "ru"})
    assert h.reply(inter).content == "Язык: русский"
