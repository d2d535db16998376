"""The Discord adapter end to end: real discord.py against FakeDiscord over HTTP and a
websocket, the real service on the real Redis, a manual clock for computer players."""

from __future__ import annotations

import asyncio
import functools
import itertools
import operator
import random

import discord
import pytest
from redis.asyncio import Redis

from adapters.common.render import Text
from adapters.discord import panels, views
from adapters.discord.app import run
from bot.clock import ManualClock
from bot.config import ConfigError, Settings
from bot.room import Room, User
from bot.service import GameService
from bot.store import Store
from bot.tokens import select_stem
from bot.views import HandView
from engine.presets import PRESETS
from tests.fakes.discord import (
    DEFAULT_MEMBER_PERMISSIONS,
    FLAG_IS_COMPONENTS_V2,
    PERM_SEND_MESSAGES,
    FakeDiscord,
    FakeMessage,
    FakeUser,
    walk_components,
)
from tests.pieces import pieces

from .harness import (
    TURN,
    Harness,
    check_limits,
    make_settings,
    mover,
    payload_strings,
    people_and_bots,
    person,
    refusal_text,
    rid,
    snapshot,
    uid,
    until_person_moves,
)


async def test_four_people_play_a_whole_match(h: Harness, fake: FakeDiscord, seeded: None) -> None:
    ch = fake.games
    people = [fake.alice, fake.bob, fake.carol, fake.dave]
    inter = await h.command(fake.alice, ch, "newgame", {"preset": "kozel"})
    ack = h.reply(inter)
    assert ack.ephemeral and "Alice" in ack.content
    table = await h.table(ch)
    assert not table.ephemeral and table.is_components_v2
    assert table.custom_ids()[:3] == ["kz:t:join", "kz:t:bot", "kz:t:start"]
    for u in people[1:]:
        click = await h.press(u, table, "kz:t:join")
        assert click.response_type == 6  # silent: the table shows it
    assert all(str(u.global_name) in table.text() for u in people)  # edited in place
    await h.press(fake.bob, table, "kz:t:start")  # anyone may start a full table
    assert (await h.room(ch)).state == "playing"
    assert table.custom_ids() == ["kz:t:hand"]
    # Start pressed again on what the screen still showed: why not, not "not valid"
    again = await h.press(fake.carol, table, "kz:t:start", pace=0, check=False)
    assert "already started" in refusal_text(h, again)

    room = await h.play_match(ch, people, seed=1)

    assert room.state == "finished" and room.result and room.result["winners"]
    assert "🏁" in table.text() and table.custom_ids() == ["kz:t:again"]
    for hand in h.hands.values():  # item 8: a finished hand has no empty "Your cards:"
        assert "Your cards:" not in hand.text() and "the game is over" in hand.text()
    posts = [m for m in fake.messages_in(ch) if m.content.startswith(("📋", "🏁"))]
    assert posts[-1].content.startswith("🏁") and len(posts) >= 2
    assert h.used.get("lead:select", 0) + h.used.get("beat:select", 0) + h.used.get("throw:select", 0) > 0
    inter = await h.command(fake.carol, ch, "series")
    assert "1" in h.reply(inter).content and not h.reply(inter).ephemeral
    inter = await h.command(fake.carol, ch, "top")
    assert all(str(u.global_name) in h.reply(inter).content for u in people)
    assert h.guard.public_bodies > 20 and h.guard.ephemeral_bodies > 20
    for m in fake.messages.values():
        check_limits(m)
    assert not [c for c in fake.calls if c.status >= 400]
    assert rid(ch) == room.id and room.seats[0] and room.seats[0].user == uid(fake.alice)


# --- a match with computer players -----------------------------------------------------------


async def test_people_and_computer_players_play_a_whole_match(
    h: Harness, fake: FakeDiscord, seeded: None
) -> None:
    ch = fake.games
    await h.command(fake.alice, ch, "newgame", {"players": 4})
    await h.command(fake.bob, ch, "join")
    await h.command(fake.alice, ch, "addbot", {"level": "easy"})
    table = await h.table(ch)
    await h.press(fake.alice, table, "kz:t:bot")
    assert table.text().count("🤖") == 2
    await h.press(fake.alice, table, "kz:t:start")
    timed_out: list[str] = []

    async def let_time_run_out_once(step: int) -> None:
        room = await h.room(ch)
        if timed_out or room.state != "playing" or mover(room, fake) is not fake.bob:
            return
        h.clock.advance(TURN)  # Bob thinks too long: a computer player moves for him
        assert await pieces(h.service).timers.run_timers() == 1
        await h.settle()
        timed_out.append("\n".join(s for e in table.edits for s in payload_strings(e)))

    room = await h.play_match(ch, [fake.alice, fake.bob], seed=2, on_step=let_time_run_out_once)
    assert room.state == "finished"
    assert timed_out and "Time ran out: a computer player moved for Bob" in timed_out[0]
    assert table.custom_ids() == ["kz:t:again"] and "🏁" in table.text()
    inter = await h.command(fake.bob, ch, "score")
    assert "Score:" in h.reply(inter).content
    for m in fake.messages.values():
        check_limits(m)
    assert not [c for c in fake.calls if c.status >= 400]

    # another match with the same seats, from the finished table's button
    await h.press(fake.bob, table, "kz:t:again")
    room = await h.room(ch)
    assert room.state == "playing" and room.gen == 2
    assert (await h.table(ch)).id != table.id  # a new match, a new table message below
    # item 8: the old table keeps its words, loses its buttons and points below
    assert table.custom_ids() == [] and "🏁" in table.text()
    assert "The next match is below." in table.text()


# --- leaks -----------------------------------------------------------------------------------


async def test_no_hidden_card_in_any_public_payload(h: Harness, fake: FakeDiscord, seeded: None) -> None:
    """The guard checks every body the bot sent (the two whole matches above run it after
    every move); here a few deals more, and proof that the guard is not blind."""
    ch = fake.games
    await people_and_bots(h, fake, ch)
    for step in range(40):
        room = await until_person_moves(h, ch)
        if room.state != "playing":
            break
        user = person(room, fake)
        hand = h.service.hand_of(room, uid(user))
        assert hand is not None
        await h.play(user, ch, random.Random(step).choice([c for c in hand.choices if c.kind != "declare"]))
        h.guard.check()
    assert h.guard.public_bodies > 10 and h.guard.ephemeral_bodies > 10
    # hands went only to their owners, and were never seen by anybody else
    for m in fake.messages.values():
        if m.ephemeral and "kz:h" in m.custom_ids():
            assert m.ephemeral_for in (fake.alice.id, fake.bob.id)
    # the guard catches a card of a hand in a public message
    room = await h.room(ch)
    hand = h.service.hand_of(room, uid(fake.alice))
    assert hand is not None
    hidden = next(c for c in hand.cards if c not in h.guard._known_public())
    channel = h.client.get_partial_messageable(ch.id)
    await channel.send(f"Alice holds {hidden[:-1]}{'♣♠♥♦'['CSHD'.index(hidden[-1])]}")
    with pytest.raises(AssertionError):
        h.guard.check()
    h.guard.leaks.clear()


# --- refusals --------------------------------------------------------------------------------


async def test_stale_forged_and_foreign_interactions_are_refused_and_change_nothing(
    h: Harness, fake: FakeDiscord, redis: Redis, seeded: None
) -> None:
    ch = fake.games
    await h.command(fake.carol, fake.channel, "newgame")  # another channel's table
    await people_and_bots(h, fake, ch)
    room = await h.room(ch)
    user = person(room, fake)
    hand = h.service.hand_of(room, uid(user))
    assert hand is not None
    first = next(c for c in hand.choices if c.kind != "declare" and len(c.cards) == 1)
    msg = await h.open_hand(user, ch)
    await h.play(user, ch, first, msg)
    room = await until_person_moves(h, ch)
    user = person(room, fake)
    other = fake.bob if user is fake.alice else fake.alice
    hand = h.service.hand_of(room, uid(user))
    assert hand is not None
    current = [c for c in hand.choices if c.kind != "declare"][0]
    table = await h.table(ch)
    other_hand = await h.open_hand(other, ch)
    eve = fake.add_user("eve")
    # messages carrying this table's real move where it does not belong: in another
    # channel, and in this one for whoever presses it
    planted = views.notice_layout("planted")
    planted.add_item(
        discord.ui.ActionRow(views.MoveButton(current.token, "x"), views.TableButton("start", "x"))
    )
    planted.add_item(
        discord.ui.ActionRow(
            views.CardsSelect(select_stem(current.token), [discord.SelectOption(label="x", value="4096")])
        )
    )
    sent_there = await h.client.get_partial_messageable(fake.channel.id).send(view=planted)
    sent_here = await h.client.get_partial_messageable(ch.id).send(view=planted)
    there, here = fake.messages[sent_there.id], fake.messages[sent_here.id]
    await h.settle()

    before = await snapshot(redis)
    calls = len(fake.calls)
    gen, deal, trick = room.gen, hand.table.deal_no, hand.trick
    move, select = f"kz:a:{current.token}", f"kz:s:{select_stem(current.token)}"
    # (a stale button on one's own hand: tests/discord/test_hands.py)
    cases: list[tuple[FakeUser, FakeMessage, str, list[str] | None, str]] = [
        # forged custom ids (not on the message they claim): nonsense, a made-up hand
        # fingerprint, an unknown scheme, a tool of a hand on the table
        (user, table, "kz:a:nonsense", None, "not valid"),
        (user, table, f"kz:a:{rid(ch)}|{gen}.{deal}.{trick}.zzz.l1", None, "not valid"),
        (user, table, "kz:zz:1", None, "not valid"),
        (other, other_hand, "kz:zz:1", None, "not valid"),
        (eve, table, move, None, "not valid"),
        (user, table, "kz:b", None, "not valid"),
        # real custom ids in the wrong hands: the service refuses them
        (user, there, move, None, "another table"),
        (other, here, move, None, "no longer possible"),
        (eve, here, move, None, "not playing at this table"),
        (user, here, select, ["4096"], "not valid"),
        (eve, table, "kz:t:hand", None, "not playing at this table"),
        (eve, here, "kz:t:start", None, "already started"),
    ]
    for who, message, custom_id, values, why in cases:
        inter = await h.press(who, message, custom_id, values, check=False)
        assert why in refusal_text(h, inter), (custom_id, refusal_text(h, inter))
    assert await snapshot(redis) == before
    touched = [c for c in fake.calls[calls:] if c.path.startswith("/channels")]
    assert not touched  # no table edited, nothing posted in the channel
    # somebody else's move on one's own hand (as a button of a moment ago would be): no
    # longer possible for him, said on his hand, which stays his live hand
    version = (await h.room(ch)).version
    inter = await h.press(other, other_hand, move, check=False)
    assert inter.response_type == 7 and other_hand.text().startswith("⚠️")
    assert "no longer possible" in other_hand.text()
    assert (await h.room(ch)).version == version
    # the real move still works afterwards
    inter = await h.play(user, ch, current, await h.open_hand(user, ch))
    assert inter.response_type == 7


# --- restarts --------------------------------------------------------------------------------


async def test_restart_mid_match_old_buttons_keep_working(
    h: Harness,
    fake: FakeDiscord,
    redis: Redis,
    redis_url: str,
    settings: Settings,
    clock: ManualClock,
    seeded: None,
) -> None:
    ch = fake.games
    await people_and_bots(h, fake, ch)
    table = await h.table(ch)
    old_hands = {u.id: await h.open_hand(u, ch) for u in (fake.alice, fake.bob)}
    for step in range(6):
        room = await until_person_moves(h, ch)
        user = person(room, fake)
        hand = h.service.hand_of(room, uid(user))
        assert hand is not None
        await h.play(
            user,
            ch,
            [c for c in hand.choices if c.kind != "declare"][step % 2 - 1]
            if len(hand.choices) > 1
            else hand.choices[0],
            old_hands[user.id],
        )
    room = await until_person_moves(h, ch)
    await h.stop()

    # a new process: a new client, a new service on its own connection, no memory at all
    store = Store(Redis.from_url(redis_url))
    try:
        service = GameService(store, settings, clock)
        h2 = await Harness.start(fake, redis, settings, clock, service, after=h)
        try:
            user = person(room, fake)
            edits = len(table.edits)
            old = old_hands[user.id]
            refreshed = await h2.press(user, old, "kz:h")  # the old hand's refresh button
            assert refreshed.response_type == 7
            hand = service.hand_of(await h2.room(ch), uid(user))
            assert hand is not None
            choice = [c for c in hand.choices if c.kind != "declare"][0]
            inter = await h2.play(user, ch, choice, old)  # an old message's move button
            assert inter.response_type == 7
            assert len(table.edits) > edits  # the same table message, edited by the new process
            assert (await h2.table(ch)).id == table.id
            shown = await h2.press(fake.bob, table, "kz:t:hand")  # the old table's button
            assert shown.response_type == 4 and h2.reply(shown).ephemeral
            room = await h2.play_match(ch, [fake.alice, fake.bob], seed=3)
            assert room.state == "finished" and "🏁" in table.text()
        finally:
            await h2.stop()
    finally:
        await store.close()


# --- limits ----------------------------------------------------------------------------------


def _check_layout(view: discord.ui.LayoutView) -> None:
    comps = view.to_components()
    msg = FakeMessage(0, 0, None, FakeUser(0, "x"), components=comps, flags=FLAG_IS_COMPONENTS_V2)
    check_limits(msg)


def _check_moves_legal(view: discord.ui.LayoutView, hand: HandView) -> None:
    """Item 7: every move a hand's controls can make is one of its legal choices: each
    button's token, and every pick a select allows (from ``min_values`` to ``max_values``
    of its options, each option a mask of hand positions)."""
    tokens = {c.token for c in hand.choices}
    legal = {(select_stem(c.token), c.mask) for c in hand.choices if c.mask}
    for comp in walk_components(view.to_components()):
        custom_id = str(comp.get("custom_id", ""))
        if custom_id.startswith("kz:a:"):
            assert custom_id.removeprefix("kz:a:") in tokens, custom_id
        elif custom_id.startswith("kz:s:"):
            stem, values = custom_id.removeprefix("kz:s:"), [int(o["value"]) for o in comp["options"]]
            for n in range(comp.get("min_values", 1), comp.get("max_values", 1) + 1):
                for pick in itertools.combinations(values, n):
                    mask = functools.reduce(operator.or_, pick)
                    assert (stem, mask) in legal, (hand.cards, [o["label"] for o in comp["options"]], pick)


@pytest.mark.parametrize(
    ("preset", "players"), [("kozel", 4), ("kozel", 2), ("kozel", 3), ("kozel-4", 4), ("kozel-60", 3)]
)
async def test_every_layout_within_discord_limits_over_whole_matches(
    store: Store, settings: Settings, clock: ManualClock, preset: str, players: int
) -> None:
    """Hands, tables and settings of every moment of whole matches, both languages, with
    the longest room ids Discord makes (a 20-digit channel id); a hand's controls make only
    legal moves."""
    svc = GameService(store, settings, clock)
    people = [User(f"dc:{10**19 + i}", f"Player number {i} with a long name") for i in range(players)]
    chat = str(10**19 + 99)
    out = await svc.create("dc", chat, None, people[0], preset, size=players)
    assert out.ok and out.room is not None
    texts = [Text("en"), Text("ru")]
    for t in texts:
        _check_layout(panels.settings_layout(t, svc.table_of(out.room)))
    for u in people[1:]:
        assert (await svc.join(out.room.id, u)).ok
    assert (await svc.start(out.room.id, people[0], seed=players * 7 + len(preset))).ok
    rng = random.Random(players)
    longest = 0
    room: Room | None = None
    for _ in range(600):
        room = await svc.room(out.room.id)
        assert room is not None
        for t in texts:
            _check_layout(views.table_layout(t, svc.table_of(room)))
            for u in people:
                hand = svc.hand_of(room, u.id)
                assert hand is not None
                layout = views.hand_layout(t, hand, t.reason("stale"))
                _check_layout(layout)
                _check_moves_legal(layout, hand)
                longest = max([longest, *(len(c.token) + 5 for c in hand.choices)])
        if room.state != "playing":
            break
        match = room.load_match()
        seat = match.to_act()[0]
        hand = svc.hand_of(room, people[seat].id)
        assert hand is not None
        assert (await svc.act(rng.choice(hand.choices).token, people[seat])).ok
    assert room is not None and room.state == "finished"
    assert longest <= 100


# --- commands, permissions, rooms, languages -------------------------------------------------


async def test_slash_commands_synced_with_russian_descriptions(h: Harness, fake: FakeDiscord) -> None:
    names = {c["name"] for c in fake.world.global_commands}
    assert names >= {
        "newgame",
        "join",
        "leave",
        "addbot",
        "startgame",
        "cancel",
        "kick",
        "settings",
        "invite",
        "score",
        "series",
        "top",
        "rules",
        "lang",
        "help",
        "hand",
    }
    ru = Text("ru")
    for cmd in fake.world.global_commands:
        assert cmd["name"].isascii() and not cmd.get("name_localizations")
        loc = cmd.get("description_localizations") or {}
        assert loc.get("ru") == ru._(cmd["description"]) != cmd["description"], cmd["name"]
        assert 1 <= len(loc["ru"]) <= 100
        for opt in cmd.get("options") or []:
            assert opt["name"].isascii() and not opt.get("name_localizations")
            assert (opt.get("description_localizations") or {}).get("ru"), (cmd["name"], opt)
    newgame = fake.command("newgame")
    assert newgame is not None
    preset = next(o for o in newgame["options"] if o["name"] == "preset")
    assert [c["value"] for c in preset["choices"]] == list(PRESETS)
    assert all(c["name_localizations"]["ru"] for c in preset["choices"])
    assert newgame.get("contexts") == [0] or newgame.get("dm_permission") is False
    # /help works in a DM too, in the presser's language
    fake.dave.locale = "ru"
    inter = await h.command(fake.dave, fake.dm_channel(fake.dave), "help")
    assert ru._("Kozel bot: card games with friends in this chat.") in h.reply(inter).content


async def test_cancel_kick_and_settings_need_the_creator_or_manage_server(
    h: Harness, fake: FakeDiscord
) -> None:
    ch = fake.games
    await h.command(fake.carol, ch, "newgame")  # Carol: no Manage Server
    for u in (fake.bob, fake.dave):
        await h.command(u, ch, "join")
    table = await h.table(ch)
    not_allowed = "Only the table's creator or a member with Manage Server may do that."
    for name, options in (("cancel", None), ("settings", None), ("kick", {"player": fake.dave})):
        inter = await h.command(fake.bob, ch, name, options)
        assert not_allowed in refusal_text(h, inter), name
    assert not_allowed in refusal_text(h, await h.press(fake.bob, table, "kz:t:set"))
    assert (await h.room(ch)).state == "lobby" and "Dave" in table.text()

    await h.command(fake.carol, ch, "kick", {"player": fake.dave})
    assert (await h.room(ch)).seat_of(uid(fake.dave)) is None
    inter = await h.command(fake.carol, ch, "settings")
    settings_msg = h.reply(inter)
    assert settings_msg.ephemeral and {"kz:o:shokha", "kz:o:tie", "kz:o:size"} <= set(
        settings_msg.custom_ids()
    )
    pick = await h.press(fake.carol, settings_msg, "kz:o:tie", ["eggs"])
    assert pick.response_type == 7 and (await h.room(ch)).options["tie"] == "eggs"

    # Alice is not at the table but has Manage Server
    inter = await h.command(fake.alice, ch, "settings")
    await h.press(fake.alice, h.reply(inter), "kz:o:shokha", ["false"])
    await h.press(fake.alice, h.reply(inter), "kz:o:size", ["3"])
    room = await h.room(ch)
    assert room.options["shokha"] is False and room.size == 3
    await h.command(fake.alice, ch, "kick", {"seat": 2})
    assert (await h.room(ch)).seat_of(uid(fake.bob)) is None
    await h.command(fake.alice, ch, "cancel")
    assert (await h.room(ch)).state == "finished"
    assert "cancelled" in table.text() and table.custom_ids() == []

    # item 6: Start by a member with Manage Server works as the refusal promises
    await h.command(fake.carol, ch, "newgame", {"players": 4})
    await h.command(fake.bob, ch, "join")
    inter = await h.command(fake.bob, ch, "startgame")  # neither creator nor a full table
    assert not_allowed in refusal_text(h, inter)
    await h.press(fake.alice, await h.table(ch), "kz:t:start")  # Manage Server: creator's rights
    assert (await h.room(ch)).state == "playing"
    for m in fake.messages.values():
        check_limits(m)


async def test_a_thread_is_a_room_of_its_own(h: Harness, fake: FakeDiscord) -> None:
    await h.command(fake.alice, fake.thread, "newgame", {"preset": "kozel-60", "players": 2})
    table = await h.table(fake.thread)
    assert table.channel_id == fake.thread.id and (await h.room(fake.thread)).id == rid(fake.thread)
    inter = await h.command(fake.bob, fake.games, "join")  # the parent channel has no table
    assert "There is no table here" in refusal_text(h, inter)
    await h.press(fake.bob, table, "kz:t:join")
    await h.command(fake.bob, fake.thread, "startgame")  # full: anyone may deal
    room = await h.room(fake.thread)
    assert room.state == "playing" and room.preset == "kozel-60"
    hand = await h.open_hand(person(room, fake), fake.thread)
    assert hand.channel_id == fake.thread.id and any(c.startswith("kz:a:") for c in hand.custom_ids())
    inter = await h.command(fake.carol, fake.thread, "invite")
    assert "already started" in refusal_text(h, inter)


async def test_server_language_for_the_table_and_own_language_for_ephemerals(
    h: Harness, fake: FakeDiscord
) -> None:
    ch = fake.games
    inter = await h.command(fake.alice, ch, "lang", {"language": "ru"})
    assert h.reply(inter).content == "Язык: русский" and not h.reply(inter).ephemeral
    await h.command(fake.alice, ch, "newgame")
    table = await h.table(ch)
    assert "Места:" in table.text() and table.buttons()[0]["label"] == "🪑 Сесть"
    fake.bob.locale = "ru"  # Bob's Discord is in Russian, Carol's in English
    inter = await h.command(fake.bob, ch, "rules")
    assert "Классический козёл" in h.reply(inter).content and h.reply(inter).ephemeral
    inter = await h.command(fake.carol, ch, "rules")
    assert "Classic Kozel" in h.reply(inter).content
    inter = await h.command(fake.carol, ch, "invite")  # public: the server's language
    invite = h.reply(inter)
    assert not invite.ephemeral and "зовёт за стол" in invite.text()
    await h.press(fake.carol, invite, "kz:t:join")  # the invitation's button seats her here
    await h.press(fake.bob, table, "kz:t:join")
    assert "Carol" in table.text() and "Bob" in table.text()
    await h.press(fake.alice, table, "kz:t:start")
    bob_hand = await h.open_hand(fake.bob, ch)
    carol_hand = await h.open_hand(fake.carol, ch)
    assert "Ваши карты" in bob_hand.text() and "Your cards" in carol_hand.text()
    await h.command(fake.alice, ch, "lang", {"language": "en"})
    assert "Score:" in table.text()  # redrawn in English at once


async def test_newgame_where_the_bot_may_not_post_says_so(h: Harness, fake: FakeDiscord) -> None:
    fake.set_permissions(fake.bot, DEFAULT_MEMBER_PERMISSIONS & ~PERM_SEND_MESSAGES, fake.guild)
    inter = await h.command(fake.alice, fake.games, "newgame")
    assert "cannot post in this channel" in refusal_text(h, inter)
    assert await h.service.room(rid(fake.games)) is None
    fake.guild.permission_overrides.pop(fake.bot.id)
    inter = await h.command(fake.alice, fake.games, "newgame")
    assert (await h.table(fake.games)).channel_id == fake.games.id


# --- running ---------------------------------------------------------------------------------


async def test_run_refuses_a_missing_or_rejected_token_in_one_line(
    fake: FakeDiscord, store: Store, clock: ManualClock
) -> None:
    service = GameService(store, make_settings(), clock)
    with pytest.raises(ConfigError) as missing:
        await run(make_settings(discord_token=None), pieces(service), asyncio.Event())
    with pytest.raises(ConfigError) as rejected:
        await run(make_settings(discord_token="not-the-token"), pieces(service), asyncio.Event())
    for e in (missing, rejected):
        assert "\n" not in str(e.value) and "DISCORD_TOKEN" in str(e.value)
    assert "rejected" in str(rejected.value)


def test_python_m_bot_discord_without_token_says_so_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.__main__ import main

    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    monkeypatch.setenv("DEFAULT_LANGUAGE", "en")
    assert main(["discord"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "DISCORD_TOKEN" in err


@pytest.mark.parametrize("preset", ["kozel-nn", "petukh"])
async def test_new_games_through_buttons_and_selects(
    h: Harness, fake: FakeDiscord, seeded: None, preset: str
) -> None:
    """RULES.md 4b, 5: the cut, the boast, exchanges and passes are buttons and selects of
    the ephemeral hand; no public payload shows a hidden card."""
    ch = fake.games
    people = [fake.alice, fake.bob, fake.carol, fake.dave]
    await h.command(fake.alice, ch, "newgame", {"preset": preset, "players": 4})
    table = await h.table(ch)
    for u in people[1:]:
        await h.press(u, table, "kz:t:join")
    await h.press(fake.alice, table, "kz:t:start")
    room = await h.play_match(ch, people, seed=2, until_deal=3)
    assert room.state == "finished" or room.load_match().deal_no >= 3
    if preset == "kozel-nn":
        assert h.used.get("cut:button", 0) >= 2  # a cut before each deal
        assert h.used.get("lay:button", 0) + h.used.get("lay:select", 0) >= 1  # the boast
    else:
        assert (
            h.used.get("exchange:select", 0) + h.used.get("keep:button", 0) + h.used.get("pass:button", 0)
            >= 3
        )
    for m in fake.messages.values():
        check_limits(m)


async def test_petukh_queue_by_command_and_table_button(h: Harness, fake: FakeDiscord) -> None:
    """RULES.md 5 ``elimination``: /wait, the table's "Wait for a seat" button, /unwait."""
    ch = fake.games
    await h.command(fake.alice, ch, "newgame", {"preset": "petukh", "players": 2})
    room = await h.room(ch)
    assert (await h.service.set_option(room.id, User(uid(fake.alice), "Alice"), "elimination", True)).ok
    table = await h.table(ch)
    await h.press(fake.bob, table, "kz:t:join")
    await h.press(fake.alice, table, "kz:t:start")
    assert "kz:t:wait" in table.custom_ids()
    inter = await h.press(fake.carol, table, "kz:t:wait")
    assert inter.response_type == 6
    inter = await h.command(fake.dave, ch, "wait")
    room = await h.room(ch)
    assert [q["user"] for q in room.queue] == [uid(fake.carol), uid(fake.dave)]
    assert str(fake.carol.global_name) in table.text()  # the table shows the queue
    inter = await h.press(fake.carol, table, "kz:t:wait")
    assert "queue" in h.reply(inter).text().lower() or h.reply(inter).ephemeral
    await h.command(fake.dave, ch, "unwait")
    room = await h.room(ch)
    assert [q["user"] for q in room.queue] == [uid(fake.carol)]
