"""The fake's world: the bot and its application, users, servers (guilds) with their members
and permissions, channels and threads, messages, interactions and registered commands."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tests.fakes.discord import payloads
from tests.fakes.discord.model import (
    FakeChannel,
    FakeGuild,
    FakeInteraction,
    FakeMessage,
    FakeUser,
    Snowflakes,
)
from tests.fakes.discord.protocol import (
    ALL_PERMISSIONS,
    CHANNEL_DM,
    CHANNEL_PRIVATE_THREAD,
    CHANNEL_PUBLIC_THREAD,
    CHANNEL_TEXT,
    DEFAULT_BOT_PERMISSIONS,
    DEFAULT_MEMBER_PERMISSIONS,
    INTENT_GUILD_MEMBERS,
    PERM_ADMINISTRATOR,
)

#: how the world tells the gateway of a change: an event and its payload, built on demand
Announce = Callable[[str, Callable[[], dict[str, Any]]], None]


class World:
    """Everything Discord keeps, and the changes a test or a request makes to it.

    :param changed: called on every change a test may wait for.
    :param announce: sends an event to the live gateway session, if any.
    :param intents: the live gateway session's intents (0 without one).
    :param validate: check what the bot sends as Discord does (``validation``).
    """

    def __init__(
        self,
        bot_name: str,
        *,
        changed: Callable[[], None],
        announce: Announce,
        intents: Callable[[], int],
        validate: bool = True,
    ) -> None:
        self.changed = changed
        self.announce = announce
        self.intents = intents
        self.validate = validate
        self.ids = Snowflakes()
        self.application_id = self.ids.next()
        self.bot = FakeUser(self.application_id, bot_name, bot=True, permissions=DEFAULT_BOT_PERMISSIONS)
        self.app_owner = FakeUser(self.ids.next(), "app-owner")
        self.users: dict[int, FakeUser] = {self.bot.id: self.bot, self.app_owner.id: self.app_owner}
        self.guilds: dict[int, FakeGuild] = {}
        self.channels: dict[int, FakeChannel] = {}
        self.messages: dict[int, FakeMessage] = {}
        self.interactions: dict[int, FakeInteraction] = {}
        self.interactions_by_token: dict[str, FakeInteraction] = {}
        self.global_commands: list[dict[str, Any]] = []
        self.guild_commands: dict[int, list[dict[str, Any]]] = {}

    # ------------------------------------------------------------------ building
    def add_user(
        self,
        username: str,
        *,
        permissions: int = DEFAULT_MEMBER_PERMISSIONS,
        global_name: str | None = None,
        locale: str = "en-US",
        guilds: Sequence[FakeGuild] | None = None,
    ) -> FakeUser:
        """New user; joins ``guilds`` (default: every existing guild)."""
        user = FakeUser(
            self.ids.next(),
            username,
            global_name=global_name or username.capitalize(),
            permissions=permissions,
            locale=locale,
        )
        self.users[user.id] = user
        for guild in self.guilds.values() if guilds is None else guilds:
            self.add_member(guild, user)
        return user

    def add_guild(self, name: str, *, owner: FakeUser | None = None, locale: str = "en-US") -> FakeGuild:
        """New guild containing the bot and every existing non-bot user; ``locale`` is its
        preferred locale (the server's language setting)."""
        owner = owner or self.app_owner
        guild = FakeGuild(self.ids.next(), name, owner.id, locale=locale)
        guild.roles[guild.id] = {"name": "@everyone", "permissions": DEFAULT_MEMBER_PERMISSIONS}
        self.guilds[guild.id] = guild
        guild.member_ids.append(self.bot.id)
        for user in self.users.values():
            if not user.bot and user.id != guild.owner_id and user is not self.app_owner:
                guild.member_ids.append(user.id)
        if owner.id not in guild.member_ids:
            guild.member_ids.append(owner.id)
        # a server joined now: Discord's payload has no "unavailable" (discord.py tells
        # a join, "guild_join", from a server coming back, "guild_available", by it)
        self.announce(
            "GUILD_CREATE",
            lambda: {
                k: v
                for k, v in payloads.guild_create_payload(self, guild, self.intents()).items()
                if k != "unavailable"
            },
        )
        return guild

    def add_member(self, guild: FakeGuild, user: FakeUser) -> None:
        if user.id in guild.member_ids:
            return
        guild.member_ids.append(user.id)
        if self.intents() & INTENT_GUILD_MEMBERS:
            self.announce(
                "GUILD_MEMBER_ADD",
                lambda: {**payloads.member_payload(self, guild, user), "guild_id": str(guild.id)},
            )

    def add_text_channel(self, guild: FakeGuild, name: str, *, topic: str | None = None) -> FakeChannel:
        channel = FakeChannel(
            self.ids.next(),
            name,
            CHANNEL_TEXT,
            guild.id,
            position=len(guild.channel_ids),
            topic=topic,
        )
        self.channels[channel.id] = channel
        guild.channel_ids.append(channel.id)
        self.announce("CHANNEL_CREATE", lambda: payloads.channel_payload(self, channel))
        return channel

    def add_thread(
        self,
        parent: FakeChannel,
        name: str,
        *,
        private: bool = False,
        owner: FakeUser | None = None,
    ) -> FakeChannel:
        thread = FakeChannel(
            self.ids.next(),
            name,
            CHANNEL_PRIVATE_THREAD if private else CHANNEL_PUBLIC_THREAD,
            parent.guild_id,
            parent_id=parent.id,
            owner_id=(owner or self.bot).id,
        )
        thread.thread_member_ids.add(thread.owner_id or self.bot.id)
        self.channels[thread.id] = thread
        self.announce(
            "THREAD_CREATE", lambda: {**payloads.channel_payload(self, thread), "newly_created": True}
        )
        return thread

    def dm_channel(self, user: FakeUser) -> FakeChannel:
        """The bot's DM channel with ``user`` (created on first use)."""
        for channel in self.channels.values():
            if channel.is_dm and channel.recipient_id == user.id:
                return channel
        channel = FakeChannel(self.ids.next(), "", CHANNEL_DM, recipient_id=user.id)
        self.channels[channel.id] = channel
        return channel

    def set_permissions(self, user: FakeUser, permissions: int, guild: FakeGuild | None = None) -> None:
        """Guild-level permissions of ``user`` (in ``guild`` only, or everywhere)."""
        if guild is None:
            user.permissions = permissions
        else:
            guild.permission_overrides[user.id] = permissions

    def member_permissions(self, guild: FakeGuild, user: FakeUser) -> int:
        perms = guild.permission_overrides.get(user.id, user.permissions)
        if user.id == guild.owner_id or perms & PERM_ADMINISTRATOR:
            return ALL_PERMISSIONS
        return perms

    # ------------------------------------------------------------------ lookups
    def messages_in(self, channel: FakeChannel | int, *, include_deleted: bool = False) -> list[FakeMessage]:
        cid = channel if isinstance(channel, int) else channel.id
        return [
            m for m in self.messages.values() if m.channel_id == cid and (include_deleted or not m.deleted)
        ]

    def visible_messages(self, channel: FakeChannel | int, user: FakeUser) -> list[FakeMessage]:
        """What ``user`` sees in ``channel``: public messages + ephemerals addressed to them."""
        return [m for m in self.messages_in(channel) if m.visible_to(user)]

    def ephemeral_messages(self, user: FakeUser | None = None) -> list[FakeMessage]:
        return [
            m
            for m in self.messages.values()
            if m.ephemeral and not m.deleted and (user is None or m.ephemeral_for == user.id)
        ]

    def last_message(self, channel: FakeChannel | int | None = None) -> FakeMessage | None:
        msgs = (
            [m for m in self.messages.values() if not m.deleted]
            if channel is None
            else self.messages_in(channel)
        )
        return msgs[-1] if msgs else None

    def original_message(self, interaction: FakeInteraction) -> FakeMessage | None:
        if interaction.original_message_id is None:
            return None
        return self.messages.get(interaction.original_message_id)

    def command(self, name: str, guild: FakeGuild | int | None = None) -> dict[str, Any] | None:
        """A registered command (guild commands first when ``guild`` is given)."""
        pools: list[list[dict[str, Any]]] = []
        if guild is not None:
            gid = guild if isinstance(guild, int) else guild.id
            pools.append(self.guild_commands.get(gid, []))
        pools.append(self.global_commands)
        for pool in pools:
            for cmd in pool:
                if cmd["name"] == name and cmd.get("type", 1) == 1:
                    return cmd
        return None
