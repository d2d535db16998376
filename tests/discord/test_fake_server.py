"""Proves the FakeDiscord harness end to end with the real discord.py client code."""

from __future__ import annotations

import asyncio
import functools
import io
import logging
import re
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from typing import Any, Concatenate, ParamSpec

import aiohttp
import discord
import pytest
from discord import app_commands

from tests.fakes.discord import (
    DEFAULT_MEMBER_PERMISSIONS,
    FLAG_EPHEMERAL,
    FLAG_IS_COMPONENTS_V2,
    HANG,
    PERM_MANAGE_GUILD,
    FakeDiscord,
    FakeDiscordError,
    start_client,
    stop_client,
)

# --------------------------------------------------------------------------------------------
# A small bot exercising the discord.py features the real adapter will use
# --------------------------------------------------------------------------------------------

Interaction = discord.Interaction[discord.Client]
P = ParamSpec("P")

CARD_TEMPLATE = r"kozel:card:(?P<card>(?:10|[6-9JQKA])[SHDC])"


class CardButton(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
    template=CARD_TEMPLATE,
):
    """Stateless card button: the card lives in the custom_id."""

    def __init__(self, card: str) -> None:
        super().__init__(
            discord.ui.Button(label=card, style=discord.ButtonStyle.secondary, custom_id=f"kozel:card:{card}")
        )
        self.card = card

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[discord.Client],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> CardButton:
        return cls(match["card"])

    async def callback(self, interaction: discord.Interaction[discord.Client]) -> None:
        text = f"{interaction.user.name} played {self.card}"
        assert interaction.message is not None
        if interaction.message.flags.components_v2:
            await interaction.response.edit_message(view=TableLayout(text))
        else:
            await interaction.response.edit_message(content=text)


class GameView(discord.ui.View):
    """Persistent (timeout=None, every item has a custom_id)."""

    def __init__(self) -> None:
        super().__init__(timeout=None)
        self.add_item(CardButton("AS"))

    @discord.ui.button(label="Join", style=discord.ButtonStyle.primary, custom_id="kozel:join")
    async def join(
        self, interaction: discord.Interaction[discord.Client], button: discord.ui.Button[GameView]
    ) -> None:
        await interaction.response.send_message(f"{interaction.user.name} joined", ephemeral=True)


class TableLayout(discord.ui.LayoutView):
    """Components V2 message."""

    def __init__(self, status: str) -> None:
        super().__init__(timeout=None)
        self.add_item(
            discord.ui.Container(
                discord.ui.TextDisplay(f"Trump: ♠\n{status}"),
                discord.ui.ActionRow(CardButton("10H"), CardButton("QS")),
            )
        )


class TrumpSelect(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.select(
        custom_id="kozel:trump",
        options=[discord.SelectOption(label=s, value=s) for s in "SHDC"],
    )
    async def pick(
        self,
        interaction: discord.Interaction[discord.Client],
        select: discord.ui.Select[TrumpSelect],
    ) -> None:
        await interaction.response.edit_message(content=f"trump {select.values[0]}", view=None)


class NameModal(discord.ui.Modal, title="Your name"):
    nick: discord.ui.TextInput[NameModal] = discord.ui.TextInput(label="Nick", custom_id="nick")

    async def on_submit(self, interaction: discord.Interaction[discord.Client]) -> None:
        await interaction.response.send_message(f"hello {self.nick.value}", ephemeral=True)


class KozelTestBot(discord.Client):
    def __init__(self) -> None:
        # guild_ready_timeout: on_ready fires that long after the last GUILD_CREATE (default 2 s)
        super().__init__(intents=discord.Intents.default(), guild_ready_timeout=0.01)
        self.tree = app_commands.CommandTree(self)
        self.seen_messages: list[discord.Message] = []
        # interaction ids whose command has returned: the bot's own "done" signal (after
        # it, discord.py has stored any view the answer carried)
        self.done: set[int] = set()
        self._done_changed = asyncio.Event()
        self._register()

    async def handled(self, interaction_id: int, timeout: float = HANG) -> None:
        async with asyncio.timeout(timeout):
            while interaction_id not in self.done:
                self._done_changed.clear()
                await self._done_changed.wait()

    def served(
        self, func: Callable[Concatenate[Interaction, P], Coroutine[Any, Any, None]]
    ) -> Callable[Concatenate[Interaction, P], Coroutine[Any, Any, None]]:
        """The command, then "done" for its interaction (the bot's own signal)."""

        @functools.wraps(func)
        async def run(interaction: Interaction, *args: P.args, **kwargs: P.kwargs) -> None:
            try:
                await func(interaction, *args, **kwargs)
            finally:
                self.done.add(interaction.id)
                self._done_changed.set()

        return run

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """discord.py sleeps 5 s before every non-initial IDENTIFY (after INVALID_SESSION)."""

    async def setup_hook(self) -> None:
        self.add_view(GameView())
        self.add_dynamic_items(CardButton)

    async def on_message(self, message: discord.Message) -> None:
        self.seen_messages.append(message)

    def _register(self) -> None:
        tree = self.tree

        @tree.command(name="ping", description="Check the bot")
        @self.served
        async def ping(interaction: discord.Interaction[discord.Client]) -> None:
            await interaction.response.send_message("pong", ephemeral=True)

        @tree.command(name="game", description="Open a table")
        @self.served
        async def game(interaction: discord.Interaction[discord.Client]) -> None:
            await interaction.response.send_message("Kozel table", view=GameView())

        @tree.command(name="table", description="Components V2 table")
        @self.served
        async def table(interaction: discord.Interaction[discord.Client]) -> None:
            await interaction.response.send_message(view=TableLayout("waiting"))

        @tree.command(name="slow", description="Deferred answer")
        @self.served
        async def slow(interaction: discord.Interaction[discord.Client]) -> None:
            await interaction.response.defer(ephemeral=True, thinking=True)
            await interaction.followup.send("computed")
            await interaction.edit_original_response(content="computed!")

        @tree.command(name="bid", description="Place a bid")
        @app_commands.describe(amount="Points")
        @self.served
        async def bid(interaction: discord.Interaction[discord.Client], amount: int) -> None:
            await interaction.response.send_message(f"{interaction.user.name} bids {amount}")

        @tree.command(name="admin", description="Admins only")
        @app_commands.default_permissions(manage_guild=True)
        @self.served
        async def admin(interaction: discord.Interaction[discord.Client]) -> None:
            perms = interaction.permissions
            await interaction.response.send_message(f"manage_guild={perms.manage_guild}", ephemeral=True)

        @tree.command(name="announce", description="Post to the channel")
        @self.served
        async def announce(interaction: discord.Interaction[discord.Client]) -> None:
            assert isinstance(interaction.channel, discord.TextChannel | discord.Thread)
            await interaction.channel.send("Announcement", view=GameView())
            await interaction.response.send_message("done", ephemeral=True)

        @tree.command(name="trump", description="Pick trump")
        @self.served
        async def trump(interaction: discord.Interaction[discord.Client]) -> None:
            await interaction.response.send_message("choose", view=TrumpSelect())

        @tree.command(name="name", description="Modal")
        @self.served
        async def name(interaction: discord.Interaction[discord.Client]) -> None:
            await interaction.response.send_modal(NameModal())


# --------------------------------------------------------------------------------------------
# fixtures
# --------------------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _no_swallowed_discord_errors(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """discord.py logs (and swallows) exceptions raised in callbacks: fail the test instead."""
    yield
    errors = [
        r
        for when in ("setup", "call")
        for r in caplog.get_records(when)
        if r.levelno >= logging.ERROR and r.name.startswith("discord")
    ]
    assert not errors, [r.getMessage() for r in errors]


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord() as server:
        with server.patch_discord_py():
            yield server


@pytest.fixture
async def bot(fake: FakeDiscord) -> AsyncIterator[KozelTestBot]:
    client = KozelTestBot()
    task = await start_client(client, fake)
    await client.tree.sync()
    try:
        yield client
    finally:
        await stop_client(client, task)


# --------------------------------------------------------------------------------------------
# tests
# --------------------------------------------------------------------------------------------


async def test_login_gateway_ready_and_guild_cache(fake: FakeDiscord, bot: KozelTestBot) -> None:
    first = [(c.method, c.path) for c in fake.calls[:2]]
    assert first == [("GET", "/users/@me"), ("GET", "/oauth2/applications/@me")]
    assert bot.user is not None and bot.user.id == fake.bot.id
    assert bot.application_id == fake.world.application_id

    conn = fake.gateway.connections[0]
    assert conn.query == {"v": "10", "encoding": "json", "compress": "zlib-stream"}
    assert conn.heartbeats >= 1  # discord.py beats right after HELLO
    assert conn.session is not None
    assert conn.session.intents == discord.Intents.default().value
    assert fake.gateway.identify_payloads[0]["token"] == fake.token

    guild = bot.get_guild(fake.guild.id)
    assert guild is not None and not guild.unavailable
    channel = guild.get_channel(fake.channel.id)
    assert isinstance(channel, discord.TextChannel) and channel.name == "general"
    thread = guild.get_thread(fake.thread.id)
    assert isinstance(thread, discord.Thread) and thread.parent_id == fake.games.id
    assert guild.me is not None and guild.me.id == fake.bot.id


async def test_command_sync_returns_ids(fake: FakeDiscord, bot: KozelTestBot) -> None:
    put = fake.calls_to("PUT", "/applications/{app_id}/commands")
    assert len(put) == 1 and put[0].status == 200
    names = {c["name"] for c in fake.world.global_commands}
    assert {"ping", "game", "table", "slow", "bid", "admin"} <= names
    admin = fake.command("admin")
    assert admin is not None and int(admin["default_member_permissions"]) == PERM_MANAGE_GUILD

    # re-sync keeps ids (Discord keeps ids for unchanged names); guild sync also works
    synced = await bot.tree.sync()
    assert {c.name: c.id for c in synced} == {c["name"]: int(c["id"]) for c in fake.world.global_commands}
    bot.tree.copy_global_to(guild=discord.Object(fake.guild.id))
    guild_synced = await bot.tree.sync(guild=discord.Object(fake.guild.id))
    assert {c.guild_id for c in guild_synced} == {fake.guild.id}
    assert len(fake.world.guild_commands[fake.guild.id]) == len(synced)


async def test_slash_command_ephemeral_pong(fake: FakeDiscord, bot: KozelTestBot) -> None:
    inter = await fake.interaction_command(fake.alice, fake.channel, "ping")
    msg = await fake.wait_for_original(inter)

    assert inter.response_type == 4
    assert msg.content == "pong"
    assert msg.ephemeral and msg.flags & FLAG_EPHEMERAL
    assert msg.ephemeral_for == fake.alice.id
    assert msg.visible_to(fake.alice) and not msg.visible_to(fake.bob)
    assert msg not in fake.visible_messages(fake.channel, fake.bob)
    callback = fake.calls_to("POST", "/interactions/{id}/{token}/callback")[-1]
    assert callback.json["type"] == 4
    assert callback.json["data"]["flags"] == FLAG_EPHEMERAL
    assert callback.query == {"with_response": "1"}
    # Discord never echoes ephemerals over the gateway
    assert not [d for t, d in fake.gateway.dispatched if t == "MESSAGE_CREATE" and d["id"] == str(msg.id)]


async def test_persistent_view_button_and_dynamic_item(fake: FakeDiscord, bot: KozelTestBot) -> None:
    inter = await fake.interaction_command(fake.alice, fake.games, "game")
    table = await fake.wait_for_original(inter)
    assert not table.ephemeral and table.content == "Kozel table"
    assert table.custom_ids() == ["kozel:join", "kozel:card:AS"]
    assert all(isinstance(c.get("id"), int) for c in table.iter_components())

    # persistent button -> ephemeral reply only bob sees
    click = await fake.interaction_component(fake.bob, table, "kozel:join")
    reply = await fake.wait_for_original(click)
    assert reply.content == "bob joined" and reply.ephemeral_for == fake.bob.id
    assert reply.interaction_metadata is not None
    assert reply.interaction_metadata["interacted_message_id"] == str(table.id)

    # DynamicItem parsed from its custom_id -> UPDATE_MESSAGE (type 7) edits the table
    play = await fake.interaction_component(fake.carol, table, "kozel:card:AS")
    edited = await fake.wait_for_original(play, lambda m: "played" in m.content)
    assert play.response_type == 7
    assert edited is table and table.content == "carol played AS"
    assert table.custom_ids() == ["kozel:join", "kozel:card:AS"]  # components untouched

    with pytest.raises(FakeDiscordError):
        await fake.interaction_component(fake.bob, table, "kozel:nope")
    with pytest.raises(FakeDiscordError):  # only bob can see/click his ephemeral
        await fake.interaction_component(fake.carol, reply, "kozel:join")


async def test_persistent_view_survives_restart(fake: FakeDiscord) -> None:
    first = KozelTestBot()
    task = await start_client(first, fake)
    await first.tree.sync()
    inter = await fake.interaction_command(fake.alice, fake.channel, "game")
    table = await fake.wait_for_original(inter)
    await stop_client(first, task)

    second = KozelTestBot()  # a "new process": knows the view only via add_view in setup_hook
    task = await start_client(second, fake)
    try:
        click = await fake.interaction_component(fake.dave, table, "kozel:join")
        reply = await fake.wait_for_original(click)
        assert reply.content == "dave joined"
        play = await fake.interaction_component(fake.dave, table, "kozel:card:AS")
        await fake.wait_for_original(play, lambda m: m.content == "dave played AS")
    finally:
        await stop_client(second, task)
    assert len(fake.gateway.connections) == 2


async def test_components_v2_layout(fake: FakeDiscord, bot: KozelTestBot) -> None:
    inter = await fake.interaction_command(fake.alice, fake.thread, "table")
    msg = await fake.wait_for_original(inter)
    assert msg.flags & FLAG_IS_COMPONENTS_V2 and msg.is_components_v2
    assert msg.content == "" and msg.components[0]["type"] == 17  # Container
    assert "Trump: ♠" in msg.text() and "waiting" in msg.text()
    assert msg.channel_id == fake.thread.id

    play = await fake.interaction_component(fake.bob, msg, "kozel:card:10H")
    await fake.wait_for_original(play, lambda m: "bob played 10H" in m.text())
    assert msg.is_components_v2 and play.response_type == 7


async def test_select_menu(fake: FakeDiscord, bot: KozelTestBot) -> None:
    inter = await fake.interaction_command(fake.alice, fake.channel, "trump")
    msg = await fake.wait_for_original(inter)
    await bot.handled(inter.id)  # the select's view is stored once the command returned
    with pytest.raises(FakeDiscordError):
        await fake.interaction_component(fake.alice, msg, "kozel:trump", ["X"])
    pick = await fake.interaction_component(fake.alice, msg, "kozel:trump", ["H"])
    await fake.wait_for_original(pick, lambda m: m.content == "trump H")
    assert msg.components == []


async def test_defer_followup_and_edit_original(fake: FakeDiscord, bot: KozelTestBot) -> None:
    mark = len(fake.calls)
    inter = await fake.interaction_command(fake.bob, fake.channel, "slow")
    msg = await fake.wait_for_original(inter, lambda m: m.content == "computed!")

    assert inter.response_type == 5 and inter.deferred
    assert msg.ephemeral and msg.ephemeral_for == fake.bob.id and not msg.loading
    # the first follow-up after a thinking defer fills in the deferred message
    assert inter.followup_ids == [msg.id]
    assert [e.get("content") for e in msg.edits] == ["computed", "computed!"]
    routes = [(c.method, c.path.split("/")[1], c.status) for c in fake.calls[mark:]]
    assert routes == [
        ("POST", "interactions", 200),
        ("POST", "webhooks", 200),
        ("PATCH", "webhooks", 200),
    ]
    assert fake.calls[-1].path.endswith("/messages/@original")


async def test_options_and_default_permissions(fake: FakeDiscord, bot: KozelTestBot) -> None:
    inter = await fake.interaction_command(fake.carol, fake.channel, "bid", {"amount": 7})
    assert inter.data["options"] == [{"name": "amount", "type": 4, "value": 7}]
    msg = await fake.wait_for_original(inter)
    assert msg.content == "carol bids 7" and not msg.ephemeral

    with pytest.raises(FakeDiscordError):
        await fake.interaction_command(fake.carol, fake.channel, "bid")  # required option
    with pytest.raises(FakeDiscordError):  # Discord hides the command from bob
        await fake.interaction_command(fake.bob, fake.channel, "admin")

    inter = await fake.interaction_command(fake.alice, fake.channel, "admin")
    assert (await fake.wait_for_original(inter)).content == "manage_guild=True"

    fake.set_permissions(fake.bob, DEFAULT_MEMBER_PERMISSIONS | PERM_MANAGE_GUILD, fake.guild)
    inter = await fake.interaction_command(fake.bob, fake.channel, "admin")
    assert (await fake.wait_for_original(inter)).content == "manage_guild=True"


async def test_channel_send_survives_429(fake: FakeDiscord, bot: KozelTestBot) -> None:
    fake.limits.fail_next("POST", "/channels/{channel_id}/messages", status=429, times=2)
    inter = await fake.interaction_command(fake.alice, fake.games, "announce")
    done = await fake.wait_for_original(inter)
    assert done.content == "done"

    posts = fake.calls_to("POST", f"/channels/{fake.games.id}/messages")
    assert [c.status for c in posts] == [429, 429, 200]
    assert posts[0].response["retry_after"] == 0.001
    announcements = [m for m in fake.messages_in(fake.games) if m.content == "Announcement"]
    assert len(announcements) == 1 and announcements[0].author.id == fake.bot.id
    assert announcements[0].custom_ids() == ["kozel:join", "kozel:card:AS"]

    # the bot's own message came back over the gateway (MESSAGE_CREATE)
    msg_id = announcements[0].id
    await fake.wait_for(lambda: any(m.id == msg_id for m in bot.seen_messages))


async def test_http_errors_surface_as_discord_exceptions(fake: FakeDiscord, bot: KozelTestBot) -> None:
    channel = bot.get_channel(fake.channel.id)
    assert isinstance(channel, discord.TextChannel)
    fake.limits.fail_next("POST", "/channels/{channel_id}/messages", status=403)
    with pytest.raises(discord.Forbidden) as forbidden:
        await channel.send("nope")
    assert forbidden.value.code == 50013

    with pytest.raises(discord.HTTPException) as empty:
        await channel.send(embeds=[])  # Discord: "Cannot send an empty message"
    assert empty.value.code == 50006

    sent = await channel.send("fine")
    assert fake.messages[sent.id].content == "fine"
    with pytest.raises(discord.NotFound):
        await channel.fetch_message(12345)


async def test_dms_threads_and_files(fake: FakeDiscord, bot: KozelTestBot) -> None:
    dm = fake.dm_channel(fake.alice)
    inter = await fake.interaction_command(fake.alice, dm, "ping")
    assert "member" not in inter.payload and inter.payload["user"]["id"] == str(fake.alice.id)
    assert (await fake.wait_for_original(inter)).channel_id == dm.id

    user = await bot.fetch_user(fake.bob.id)
    await user.send("your cards")
    assert [m.content for m in fake.messages_in(fake.dm_channel(fake.bob))] == ["your cards"]

    games = bot.get_channel(fake.games.id)
    assert isinstance(games, discord.TextChannel)
    thread = await games.create_thread(name="table-2", type=discord.ChannelType.public_thread)
    assert fake.world.channels[thread.id].parent_id == fake.games.id
    await thread.send("deal", file=discord.File(io.BytesIO(b"PNG..."), "hand.png"))
    msg = fake.messages_in(thread.id)[-1]
    assert msg.content == "deal" and msg.files == {"hand.png": b"PNG..."}
    assert msg.attachments[0]["filename"] == "hand.png"
    assert fake.calls[-1].json["attachments"] == [{"id": 0, "filename": "hand.png"}]


async def test_modal_roundtrip(fake: FakeDiscord, bot: KozelTestBot) -> None:
    opener = await fake.interaction_command(fake.alice, fake.channel, "name")
    await bot.handled(opener.id)  # the modal is stored once the command returned
    assert opener.response_type == 9 and opener.modal is not None
    assert opener.modal["title"] == "Your name"

    submit = await fake.interaction_modal_submit(fake.alice, opener, {"nick": "Alya"})
    msg = await fake.wait_for_original(submit)
    assert msg.content == "hello Alya" and msg.ephemeral


async def test_gateway_reconnect_resumes(fake: FakeDiscord, bot: KozelTestBot) -> None:
    resumed = bot.wait_for("resumed", timeout=HANG)  # registers the listener right away
    await fake.gateway.request_reconnect()
    await resumed

    assert len(fake.gateway.connections) == 2
    assert fake.gateway.connections[1].received[1]["op"] == 6  # heartbeat, then RESUME
    inter = await fake.interaction_command(fake.alice, fake.channel, "ping")
    assert (await fake.wait_for_original(inter)).content == "pong"


async def test_message_content_intent_respected(fake: FakeDiscord, bot: KozelTestBot) -> None:
    await fake.user_message(fake.bob, fake.channel, "hello there")
    await fake.user_message(fake.bob, fake.channel, f"{fake.bot.mention} hi")
    await fake.wait_for(lambda: len(bot.seen_messages) >= 2)
    # default intents lack MESSAGE_CONTENT: only the mention's content reaches the bot
    assert [m.content for m in bot.seen_messages] == ["", f"<@{fake.bot.id}> hi"]


async def test_second_ack_is_rejected(fake: FakeDiscord, bot: KozelTestBot) -> None:
    inter = await fake.interaction_command(fake.alice, fake.channel, "ping")
    await fake.wait_for_response(inter)
    url = f"{fake.api_base}/interactions/{inter.id}/{inter.token}/callback"
    async with (
        aiohttp.ClientSession() as session,
        session.post(url, json={"type": 4, "data": {"content": "again"}}) as resp,
    ):
        assert resp.status == 400
        assert (await resp.json())["code"] == 40060


async def test_wrong_token_gives_login_failure(fake: FakeDiscord) -> None:
    client = KozelTestBot()
    with pytest.raises(discord.LoginFailure):
        await client.login("not-the-token")
    await client.close()
    call = fake.calls[-1]
    assert (call.method, call.path, call.status, call.authorized) == (
        "GET",
        "/users/@me",
        401,
        False,
    )


async def test_privileged_intents_refused(fake: FakeDiscord) -> None:
    fake.gateway.privileged_intents_enabled = False
    client = discord.Client(intents=discord.Intents.all(), guild_ready_timeout=0.01)
    with pytest.raises(discord.PrivilegedIntentsRequired):
        await start_client(client, fake)
    await client.close()


async def test_autosharded_client_uses_gateway_bot(fake: FakeDiscord) -> None:
    client = discord.AutoShardedClient(intents=discord.Intents.default(), guild_ready_timeout=0.01)
    task = await start_client(client, fake)
    try:
        assert fake.calls_to("GET", "/gateway/bot")[0].status == 200
        assert fake.gateway.identify_payloads[0]["shard"] == [0, 1]
        assert client.get_guild(fake.guild.id) is not None
    finally:
        await stop_client(client, task)


class PlayerPicker(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.select(cls=discord.ui.UserSelect, custom_id="kozel:partner")
    async def partner(
        self,
        interaction: discord.Interaction[discord.Client],
        select: discord.ui.UserSelect[PlayerPicker],
    ) -> None:
        member = select.values[0]
        assert isinstance(member, discord.Member)
        await interaction.response.send_message(f"partner {member.name}", ephemeral=True)


async def test_user_select_with_members_intent(fake: FakeDiscord) -> None:
    client = discord.Client(intents=discord.Intents.all(), guild_ready_timeout=0.01)
    task = await start_client(client, fake)
    try:
        guild = client.get_guild(fake.guild.id)
        assert guild is not None and guild.chunked
        bob = guild.get_member(fake.bob.id)
        alice = guild.get_member(fake.alice.id)
        assert bob is not None and not bob.guild_permissions.manage_guild
        assert alice is not None and alice.guild_permissions.manage_guild

        channel = client.get_channel(fake.channel.id)
        assert isinstance(channel, discord.TextChannel)
        sent = await channel.send("pick a partner", view=PlayerPicker())
        msg = fake.messages[sent.id]
        pick = await fake.interaction_component(fake.alice, msg, "kozel:partner", [fake.bob])
        assert pick.data["values"] == [str(fake.bob.id)]
        assert str(fake.bob.id) in pick.data["resolved"]["members"]
        reply = await fake.wait_for_original(pick)
        assert reply.content == "partner bob" and reply.ephemeral_for == fake.alice.id

        await fake.user_message(fake.bob, fake.channel, "hello there")  # MESSAGE_CONTENT on
        last = await client.wait_for("message", timeout=HANG)
        assert last.content == "hello there"
    finally:
        await stop_client(client, task)


async def test_invalid_session_reidentifies(fake: FakeDiscord, bot: KozelTestBot) -> None:
    await fake.gateway.invalidate_session(resumable=False)
    await fake.wait_for(lambda: len(fake.gateway.sessions) == 2 and fake.gateway.connection)
    assert [c.received[1]["op"] for c in fake.gateway.connections] == [2, 2]  # IDENTIFY twice
    inter = await fake.interaction_command(fake.alice, fake.channel, "ping")
    assert (await fake.wait_for_original(inter)).content == "pong"


# --------------------------------------------------------------------------------------------
# payloads Discord refuses, sent raw (discord.py refuses some of them itself before sending)
# --------------------------------------------------------------------------------------------


@pytest.fixture
async def unlimited() -> AsyncIterator[FakeDiscord]:
    """A fake without rate limits: these tests post many refused payloads in no time (Discord
    counts refused requests against the bucket too)."""
    async with FakeDiscord(rate_limits=False) as server:
        yield server


async def post_message(fake: FakeDiscord, body: dict[str, Any]) -> tuple[int, Any]:
    url = f"{fake.api_base}/channels/{fake.channel.id}/messages"
    headers = {"Authorization": f"Bot {fake.token}"}
    async with aiohttp.ClientSession(headers=headers) as session, session.post(url, json=body) as resp:
        return resp.status, await resp.json()


def error_paths(errors: dict[str, Any], prefix: str = "") -> dict[str, str]:
    """Discord's nested ``errors`` of a 50035 as {"components.0.components.1.url": code}."""
    found: dict[str, str] = {}
    for key, value in errors.items():
        if key == "_errors":
            found[prefix] = value[0]["code"]
        else:
            found.update(error_paths(value, f"{prefix}.{key}" if prefix else key))
    return found


async def refused(fake: FakeDiscord, body: dict[str, Any]) -> dict[str, str]:
    """The 400 Invalid Form Body a payload gets, as its error paths; nothing was posted."""
    before = len(fake.messages_in(fake.channel))
    status, answer = await post_message(fake, body)
    assert (status, answer["code"], answer["message"]) == (400, 50035, "Invalid Form Body"), answer
    assert len(fake.messages_in(fake.channel)) == before
    return error_paths(answer["errors"])


async def accepted(fake: FakeDiscord, body: dict[str, Any]) -> None:
    status, answer = await post_message(fake, body)
    assert status == 200, answer


def row(*children: dict[str, Any]) -> dict[str, Any]:
    return {"type": 1, "components": list(children)}


def button(**fields: Any) -> dict[str, Any]:
    return {"type": 2, **fields}


async def test_a_link_button_has_a_url_and_no_custom_id(unlimited: FakeDiscord) -> None:
    """Component Reference, Button: "Link buttons **must** have a url, and cannot have a
    custom_id"; url max 512 characters."""
    link = {"style": 5, "label": "Rules"}
    url = "https://example.org/rules"
    for fields, path in (
        ({}, "url"),
        ({"url": url, "custom_id": "kz:rules"}, "custom_id"),
        ({"url": url, "sku_id": "1"}, "sku_id"),
        ({"url": "https://example.org/" + "x" * 493}, "url"),
    ):
        errors = await refused(unlimited, {"components": [row(button(**link, **fields))]})
        assert list(errors) == [f"components.0.components.0.{path}"], errors
    await accepted(unlimited, {"components": [row(button(**link, url="https://example.org/" + "x" * 492))]})


async def test_other_buttons_have_a_custom_id_and_no_url(unlimited: FakeDiscord) -> None:
    """Component Reference, Button: "Non-link and non-premium buttons **must** have a
    custom_id, and cannot have a url or a sku_id"; custom_id 1-100 characters, label max 80;
    a style is one of 1-6."""
    for fields, path in (
        ({"style": 1, "label": "Join"}, "custom_id"),
        ({"style": 2, "label": "Join", "custom_id": "kz:join", "url": "https://example.org"}, "url"),
        ({"style": 3, "label": "Join", "custom_id": "kz:join", "sku_id": "1"}, "sku_id"),
        ({"style": 4, "label": "Join", "custom_id": "k" * 101}, "custom_id"),
        ({"style": 1, "label": "J" * 81, "custom_id": "kz:join"}, "label"),
        ({"style": 7, "label": "Join", "custom_id": "kz:join"}, "style"),
    ):
        errors = await refused(unlimited, {"components": [row(button(**fields))]})
        assert list(errors) == [f"components.0.components.0.{path}"], errors
    await accepted(unlimited, {"components": [row(button(style=4, label="J" * 80, custom_id="k" * 100))]})


async def test_a_premium_button_has_a_sku_id_only(unlimited: FakeDiscord) -> None:
    """Component Reference, Button: "Premium buttons **must** contain a sku_id, and cannot
    have a custom_id, label, url, or emoji"."""
    for fields, path in (
        ({}, "sku_id"),
        ({"sku_id": "1", "custom_id": "kz:buy"}, "custom_id"),
        ({"sku_id": "1", "label": "Buy"}, "label"),
        ({"sku_id": "1", "url": "https://example.org"}, "url"),
        ({"sku_id": "1", "emoji": {"name": "💎"}}, "emoji"),
    ):
        errors = await refused(unlimited, {"components": [row(button(style=6, **fields))]})
        assert list(errors) == [f"components.0.components.0.{path}"], errors
    await accepted(unlimited, {"components": [row(button(style=6, sku_id="1"))]})


def string_select(options: int | list[dict[str, Any]] = 3, **fields: Any) -> dict[str, Any]:
    opts = (
        [{"label": f"Seat {i}", "value": str(i)} for i in range(options)]
        if isinstance(options, int)
        else options
    )
    return {"type": 3, "custom_id": "kz:seat", "options": opts, **fields}


async def test_a_string_select_has_1_to_25_options_of_unique_values(unlimited: FakeDiscord) -> None:
    """Component Reference, String Select: options max 25; Select Option: label and value max
    100 characters, description max 100; values unique and neither empty."""
    for select, path in (
        (string_select(0), "options"),
        (string_select(26), "options"),
        (string_select([{"label": "x" * 101, "value": "1"}]), "options.0.label"),
        (string_select([{"label": "One", "value": "v" * 101}]), "options.0.value"),
        (string_select([{"label": "One", "value": "1", "description": "d" * 101}]), "options.0.description"),
        (string_select([{"label": "", "value": "1"}]), "options.0.label"),
        (string_select([{"label": "One"}]), "options.0.value"),
        (string_select([{"label": "One", "value": "1"}, {"label": "Uno", "value": "1"}]), "options"),
    ):
        errors = await refused(unlimited, {"components": [row(select)]})
        assert list(errors) == [f"components.0.components.0.{path}"], errors
    longest = {"label": "x" * 100, "value": "v" * 100, "description": "d" * 100}
    await accepted(unlimited, {"components": [row(string_select(25))]})
    await accepted(unlimited, {"components": [row(string_select([longest]))]})


async def test_a_select_asks_for_0_to_25_values_no_more_than_its_options(unlimited: FakeDiscord) -> None:
    """Component Reference, String Select: min_values min 0, max 25; max_values max 25;
    placeholder max 150 characters (user/role/channel selects alike); and a menu can't ask
    for more values than it has options, or for more at least than at most."""
    for select, path in (
        (string_select(3, min_values=-1), "min_values"),
        (string_select(3, min_values=26, max_values=25), "min_values"),
        (string_select(3, max_values=0), "max_values"),
        (string_select(25, max_values=26), "max_values"),
        (string_select(3, max_values=4), "max_values"),
        (string_select(3, min_values=3, max_values=2), "min_values"),
        (string_select(3, placeholder="p" * 151), "placeholder"),
        ({"type": 5, "custom_id": "kz:who", "max_values": 26}, "max_values"),
        ({"type": 8, "custom_id": "kz:where", "placeholder": "p" * 151}, "placeholder"),
    ):
        errors = await refused(unlimited, {"components": [row(select)]})
        assert list(errors) == [f"components.0.components.0.{path}"], errors
    await accepted(unlimited, {"components": [row(string_select(3, min_values=0, max_values=3))]})
    await accepted(unlimited, {"components": [row(string_select(25, max_values=25, placeholder="p" * 150))]})
    await accepted(unlimited, {"components": [row({"type": 5, "custom_id": "kz:who", "max_values": 25})]})


def text(content: str = "Trump: ♠") -> dict[str, Any]:
    return {"type": 10, "content": content}


def section(*texts: dict[str, Any], accessory: dict[str, Any] | None = None) -> dict[str, Any]:
    comp: dict[str, Any] = {"type": 9, "components": list(texts)}
    if accessory is not None:
        comp["accessory"] = accessory
    return comp


def v2(*components: dict[str, Any]) -> dict[str, Any]:
    return {"flags": FLAG_IS_COMPONENTS_V2, "components": list(components)}


THUMBNAIL = {"type": 11, "media": {"url": "https://example.org/card.png"}}
JOIN = button(style=3, label="Join", custom_id="kz:join")


async def test_a_section_holds_1_to_3_texts_and_one_accessory(unlimited: FakeDiscord) -> None:
    """Component Reference, Section: "One to three child components" (text displays) and an
    accessory, a button or a thumbnail."""
    for comp, path in (
        (section(accessory=JOIN), "components.0.components"),
        (section(text(), text(), text(), text(), accessory=JOIN), "components.0.components"),
        (section(text()), "components.0.accessory"),
        (section(text(), accessory=text()), "components.0.accessory.type"),
        (section(row(JOIN), accessory=JOIN), "components.0.components.0.type"),
        (section(text(), accessory={"type": 11, "media": {}}), "components.0.accessory.media"),
    ):
        errors = await refused(unlimited, v2(comp))
        assert list(errors) == [path], errors
    await accepted(unlimited, v2(section(text(), accessory=JOIN)))
    await accepted(unlimited, v2(section(text(), text(), text(), accessory=THUMBNAIL)))


async def test_text_displays_hold_4000_characters_in_all(unlimited: FakeDiscord) -> None:
    """A text display's content is required; the message's text displays hold 4,000
    characters together (Discord enforces it; discord.py and JDA document it)."""
    errors = await refused(unlimited, v2(text("x" * 4001)))
    assert list(errors) == ["components.0.content"], errors
    errors = await refused(unlimited, v2({"type": 10}))
    assert list(errors) == ["components.0.content"], errors
    errors = await refused(unlimited, v2(text("x" * 2000), {"type": 17, "components": [text("y" * 2001)]}))
    assert list(errors) == ["components"], errors
    await accepted(unlimited, v2(text("x" * 2000), {"type": 17, "components": [text("y" * 2000)]}))


async def test_a_message_holds_40_components_nested_ones_counted(unlimited: FakeDiscord) -> None:
    """Component Reference: "Messages allow up to 40 total components"; a container has no
    limit of its own (change log 2025-04-29), its children count towards the 40."""
    errors = await refused(unlimited, v2({"type": 17, "components": [text(str(i)) for i in range(40)]}))
    assert list(errors) == ["components"], errors  # 41 with the container
    errors = await refused(unlimited, v2(*[section(text(), accessory=THUMBNAIL) for _ in range(14)]))
    assert list(errors) == ["components"], errors  # 14 sections of 3 components: 42
    await accepted(unlimited, v2({"type": 17, "components": [text(str(i)) for i in range(39)]}))


async def test_containers_and_rows_hold_only_their_child_types(unlimited: FakeDiscord) -> None:
    """Container Child Components: action row, text display, section, media gallery,
    separator, file (no container, no bare button); an action row holds "Up to 5 ...
    buttons" or "A single select", nothing else - with or without IS_COMPONENTS_V2."""
    for body, path in (
        (
            v2({"type": 17, "components": [{"type": 17, "components": [text()]}]}),
            "components.0.components.0.type",
        ),
        (v2({"type": 17, "components": [JOIN]}), "components.0.components.0.type"),
        (v2(row(text())), "components.0.components.0.type"),
        ({"components": [row(JOIN, text())]}, "components.0.components.1.type"),
        (
            {"components": [row(*[button(style=1, label=str(i), custom_id=str(i)) for i in range(6)])]},
            "components.0.components",
        ),
        ({"components": [row(JOIN, string_select())]}, "components.0.components"),
    ):
        errors = await refused(unlimited, body)
        assert list(errors) == [path], errors
    separator = {"type": 14}
    await accepted(
        unlimited,
        v2({"type": 17, "components": [text(), separator, row(JOIN), section(text(), accessory=THUMBNAIL)]}),
    )
