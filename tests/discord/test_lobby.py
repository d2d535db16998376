"""The lobby, languages and permissions in Discord (issue 14: 5, 6; issue 15's levels),
through the real discord.py against the fake Discord."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

from bot.clock import ManualClock
from bot.service import GameService
from bot.store import Store
from engine.presets import PRESETS, make_rules
from tests.fakes.discord import FakeDiscord, FakeDiscordError

from .harness import Harness, make_settings, refusal_text


async def test_lang_needs_manage_server(h: Harness, fake: FakeDiscord) -> None:
    ch = fake.games
    with pytest.raises(FakeDiscordError):  # Discord does not even show it to Bob
        await h.fake.interaction_command(fake.bob, ch, "lang", {"language": "ru"})
    # a server that lets members see it: the bot still refuses, and nothing changes
    inter = await h.fake.interaction_command(fake.bob, ch, "lang", {"language": "ru"}, check_registered=False)
    await h.fake.wait_for_response(inter)
    await h.settle()
    assert "Manage Server" in refusal_text(h, inter)
    assert await h.service.chats.chat_language("dc", str(fake.guild.id)) == "en"
    inter = await h.command(fake.alice, ch, "lang", {"language": "ru"})  # Manage Server
    assert h.reply(inter).content == "Язык: русский"
    # in a DM there is no server to manage: anyone chooses his own chat's language
    dm = fake.dm_channel(fake.bob)
    inter = await h.command(fake.bob, dm, "lang", {"language": "ru"})
    assert h.reply(inter).content == "Язык: русский"


@pytest.fixture
async def ru_default(
    fake: FakeDiscord, redis: Redis, store: Store, clock: ManualClock
) -> AsyncIterator[Harness]:
    """A bot whose default language is Russian (as it ships)."""
    settings = make_settings(default_language="ru")
    harness = await Harness.start(fake, redis, settings, clock, GameService(store, settings, clock))
    try:
        yield harness
    finally:
        await harness.stop()


async def test_a_new_server_speaks_its_own_language(ru_default: Harness, fake: FakeDiscord) -> None:
    """Item 6: a server that never chose a language follows its own locale (an English
    server gets English though the bot's default is Russian); /lang overrides it."""
    h = ru_default
    english = await h.new_server("Card Club", "en-US")
    await h.command(fake.alice, english, "newgame")
    table = await h.table(english)
    assert "Seats:" in table.text() and table.buttons()[0]["label"] == "🪑 Join"
    russian = await h.new_server("Клуб", "ru")
    await h.command(fake.alice, russian, "newgame")
    assert "Места:" in (await h.table(russian)).text()
    # timers' drawings too (no interaction to read the locale from)
    await h.command(fake.alice, english, "lang", {"language": "ru"})
    assert "Места:" in table.text()


async def test_computer_players_have_unique_names_and_levels_in_words(h: Harness, fake: FakeDiscord) -> None:
    """Item 5 and issue 15: +Bot, /addbot, /kick the first, +Bot: no two computer players
    share a name; names and levels in the server's language; the table's default level
    (in settings) is what "+ Bot" seats."""
    ch = await h.new_server("Клуб", "ru")
    await h.command(fake.alice, ch, "newgame", {"players": 4})
    table = await h.table(ch)
    await h.press(fake.alice, table, "kz:t:bot")
    inter = await h.command(fake.alice, ch, "addbot", {"level": "hard"})
    # its name is the server's, the sentence is in her own language
    assert "Макс sat down (master)" in h.reply(inter).text()
    await h.command(fake.alice, ch, "kick", {"seat": 2})
    await h.press(fake.alice, table, "kz:t:bot")
    room = await h.room(ch)
    bots = [s for s in room.seats if s is not None and s.computer]
    assert len({s.name for s in bots}) == len(bots) == 2
    assert {s.name for s in bots} == {"Сёма", "Макс"}
    assert "Макс (мастер)" in table.text() and "Сёма (любитель)" in table.text()
    # the table's default level, from settings
    inter = await h.command(fake.alice, ch, "settings")
    await h.press(fake.alice, h.reply(inter), "kz:o:bot_level", ["easy"])
    assert "Боты: новичок" in table.text()
    await h.press(fake.alice, table, "kz:t:bot")
    room = await h.room(ch)
    assert [s.level for s in room.seats if s is not None and s.computer].count("easy") == 1
    assert "(новичок)" in table.text()


# every preset played in partnerships (kozel, kozel-4, hvalenyi, nn, kocherga today)
PARTNERSHIPS = [p for p, spec in PRESETS.items() if 4 in spec.players and make_rules(p, 4).partnership]


@pytest.mark.parametrize("preset", PARTNERSHIPS)
async def test_teams_are_labelled_and_seats_swap_before_the_start(
    h: Harness, fake: FakeDiscord, preset: str
) -> None:
    """Item 5: every partnership preset labels its teams in the lobby (the service's sides,
    not a list of presets); friends who want to play together swap seats before the deal:
    a seated person moves to a free seat, the creator swaps any two."""
    ch = fake.games
    await h.command(fake.alice, ch, "newgame", {"preset": preset, "players": 4})
    table = await h.table(ch)
    await h.press(fake.bob, table, "kz:t:join")  # seat 2: the other team
    text = table.text()
    assert " 1. Alice · team A" in text and " 2. Bob · team B" in text
    assert " 3. — · team A" in text
    panel = h.reply(await h.press(fake.bob, table, "kz:t:seats"))
    assert panel.ephemeral and "kz:o:seat" in panel.custom_ids()
    assert "kz:o:swap" not in panel.custom_ids()  # Bob does not run this table
    await h.press(fake.bob, panel, "kz:o:seat", ["1-2"])  # to seat 3: Alice's team
    assert " 3. Bob · team A" in table.text()
    await h.press(fake.carol, table, "kz:t:join")
    panel = h.reply(await h.press(fake.alice, table, "kz:t:seats"))
    await h.press(fake.alice, panel, "kz:o:swap", ["1-2"])  # the creator swaps seats 2, 3
    text = table.text()
    assert " 2. Bob · team B" in text and " 3. Carol · team A" in text
    hers = h.reply(await h.press(fake.carol, table, "kz:t:seats"))
    assert "kz:o:swap" not in hers.custom_ids()  # not hers to swap...
    inter = await h.press(fake.carol, hers, "kz:o:swap", ["0-1"], check=False)
    assert "not valid" in refusal_text(h, inter)  # ...nor to forge
    assert " 1. Alice · team A" in table.text()
    await h.press(fake.dave, table, "kz:t:join")
    await h.press(fake.alice, table, "kz:t:start")
    room = await h.room(ch)
    assert room.state == "playing"
    teams = h.service.table_of(room).sides
    names = [[s.name for i in side if (s := room.seats[i]) is not None] for side in teams]
    assert sorted(map(sorted, names)) == [["Alice", "Carol"], ["Bob", "Dave"]]


async def test_kick_takes_any_of_six_seats(h: Harness, fake: FakeDiscord) -> None:
    """Item 5: /kick seat: goes up to 6 (Petukh seats six)."""
    ch = fake.games
    await h.command(fake.alice, ch, "newgame", {"preset": "petukh", "players": 6})
    table = await h.table(ch)
    for _ in range(5):
        await h.press(fake.alice, table, "kz:t:bot")
    for seat in (0, 7):  # Discord's client sends no number outside the option's range
        with pytest.raises(FakeDiscordError, match="out of range"):
            await h.fake.interaction_command(fake.alice, ch, "kick", {"seat": seat})
    await h.command(fake.alice, ch, "kick", {"seat": 6})
    room = await h.room(ch)
    assert room.seats[5] is None and all(room.seats[i] for i in range(5))
