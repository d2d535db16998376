"""Issue 36 through the real discord.py client against the fake Discord: the channel's
house rules and /defaults (item 1), /notify and the one notice a table (item 2), /top by
matches with people, the table against computer players and /top season (item 5)."""

from __future__ import annotations

from adapters.common.render import Text
from bot.room import User
from bot.stats import season_of
from tests.discord.harness import Harness, rid, uid
from tests.fakes.discord import FakeDiscord
from tests.service.test_community import play_out

EN = Text("en")


def ephemeral_to(fake: FakeDiscord, user: object) -> str:
    return fake.ephemeral_messages(user)[-1].content  # type: ignore[arg-type]


async def test_i36_1_a_channel_remembers_its_rules_and_admins_keep_or_reset_them(
    h: Harness, fake: FakeDiscord
) -> None:
    ch = fake.games
    await h.command(fake.alice, ch, "newgame", {"preset": "kozel", "players": 2})
    await h.service.set_option(rid(ch), User(uid(fake.alice), "alice"), "shokha", False)
    await h.command(fake.bob, ch, "join")
    await h.press(fake.alice, await h.table(ch), "kz:t:start")
    await h.command(fake.alice, ch, "cancel")
    await h.command(fake.bob, ch, "newgame", {"preset": "kozel"})
    room = await h.room(ch)
    assert room.options["shokha"] is False and room.size == 2
    table = await h.table(ch)
    assert "House rules (not the game's own): shokha" in str(table.content) + str(table.components)
    inter = await h.command(fake.carol, ch, "defaults", {"action": "reset", "preset": "kozel"})
    assert "Manage Server" in h.reply(inter).content
    inter = await h.command(fake.carol, ch, "defaults")
    assert "the rules last dealt here" in h.reply(inter).content
    await h.command(fake.alice, ch, "defaults", {"action": "save"})
    inter = await h.command(fake.alice, ch, "defaults", {"action": "show", "preset": "kozel"})
    assert "the chat's defaults (set by an admin)" in h.reply(inter).content
    await h.command(fake.alice, ch, "defaults", {"action": "reset"})
    assert await h.service.chats.house_rules("dc", str(ch.id), "kozel") is None


async def test_i36_2_one_notice_a_table_mentions_members_who_asked(h: Harness, fake: FakeDiscord) -> None:
    ch = fake.games
    for user in (fake.alice, fake.bob, fake.carol, fake.dave):
        inter = await h.command(user, ch, "notify", {"state": "on"})
        assert "You will be told" in h.reply(inter).content
    fake.guild.member_ids.remove(fake.dave.id)  # Dave left the server
    before = len(fake.messages_in(ch))
    await h.command(fake.alice, ch, "newgame", {"preset": "kozel"})
    await h.command(fake.alice, ch, "newgame", {"preset": "kozel"})  # the same table: no second
    notices = [m for m in fake.messages_in(ch)[before:] if "🔔" in m.content]
    assert len(notices) == 1
    text = notices[0].content
    assert f"<@{fake.bob.id}>" in text and f"<@{fake.carol.id}>" in text
    assert f"<@{fake.alice.id}>" not in text and f"<@{fake.dave.id}>" not in text
    [call] = [c for c in fake.calls_to("POST", "/channels/{channel_id}/messages") if "🔔" in str(c.json)]
    allowed = call.json["allowed_mentions"]
    assert sorted(int(u) for u in allowed["users"]) == sorted([fake.bob.id, fake.carol.id])
    assert allowed["parse"] == []
    assert not await h.service.chats.notify_on("dc", str(ch.id), uid(fake.dave))
    inter = await h.command(fake.bob, ch, "notify", {"state": "off"})
    assert "You will not be told" in h.reply(inter).content


async def test_i36_5_top_and_season_through_discord(h: Harness, fake: FakeDiscord) -> None:
    ch = fake.games
    alice = User(uid(fake.alice), "alice")
    out = await h.service.create("dc", str(ch.id), None, alice, "kozel", size=2)
    assert out.ok and out.room is not None
    assert (await h.service.add_bot(out.room.id, alice, level="easy")).ok
    assert (await h.service.start(out.room.id, alice, seed=3)).ok
    await play_out(h.service, h.clock, out.room.id, [alice])
    await h.flush()
    inter = await h.command(fake.bob, ch, "top")
    assert "Against computer players alone:" in h.reply(inter).content
    assert "alice — beginner: won" in h.reply(inter).content
    inter = await h.command(fake.bob, ch, "top", {"table": "season"})
    assert f"Season {season_of(h.clock.now())} (UTC):" in h.reply(inter).content
    assert "No matches with two people or more this month yet." in h.reply(inter).content
