"""How the fake shows its world to discord.py: the JSON of users' memberships, channels,
roles, servers (GUILD_CREATE) and messages, as Discord sends them."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from tests.fakes.discord.model import FakeChannel, FakeGuild, FakeMessage, FakeUser, now_iso
from tests.fakes.discord.protocol import CHANNEL_DM, INTENT_GUILD_MEMBERS

if TYPE_CHECKING:
    from tests.fakes.discord.world import World

USER_MENTION_RE = re.compile(r"<@!?(\d+)>")


def channel_payload(world: World, channel: FakeChannel) -> dict[str, Any]:
    if channel.is_dm:
        recipient = world.users.get(channel.recipient_id or 0)
        return {
            "id": str(channel.id),
            "type": CHANNEL_DM,
            "recipients": [recipient.payload()] if recipient else [],
            "last_message_id": None,
            "flags": 0,
        }
    data: dict[str, Any] = {
        "id": str(channel.id),
        "type": channel.type,
        "guild_id": str(channel.guild_id) if channel.guild_id else None,
        "name": channel.name,
        "last_message_id": None,
        "rate_limit_per_user": 0,
        "flags": 0,
    }
    if channel.is_thread:
        msg_count = len(world.messages_in(channel))
        data.update(
            parent_id=str(channel.parent_id),
            owner_id=str(channel.owner_id),
            message_count=msg_count,
            total_message_sent=msg_count,
            member_count=len(channel.thread_member_ids),
            thread_metadata={
                "archived": channel.archived,
                "auto_archive_duration": 1440,
                "archive_timestamp": now_iso(),
                "locked": channel.locked,
                "invitable": channel.invitable,
                "create_timestamp": now_iso(),
            },
        )
    else:
        data.update(
            position=channel.position,
            permission_overwrites=[],
            topic=channel.topic,
            nsfw=False,
            parent_id=None,
            default_auto_archive_duration=1440,
        )
    return data


def role_payload(guild: FakeGuild, role_id: int, role: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": str(role_id),
        "name": role["name"],
        "permissions": str(role["permissions"]),
        "position": 0 if role_id == guild.id else 1,
        "color": 0,
        "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
        "hoist": False,
        "managed": False,
        "mentionable": False,
        "flags": 0,
    }


def member_roles(world: World, guild: FakeGuild, user: FakeUser) -> list[str]:
    """Roles giving the member exactly its configured permissions (beyond @everyone)."""
    perms = guild.permission_overrides.get(user.id, user.permissions)
    everyone = guild.roles[guild.id]["permissions"]
    if perms == everyone:
        return []
    for rid, role in guild.roles.items():
        if rid != guild.id and role["permissions"] == perms:
            return [str(rid)]
    rid = world.ids.next()
    guild.roles[rid] = {"name": f"perms-{perms:x}", "permissions": perms}
    return [str(rid)]


def member_payload(
    world: World, guild: FakeGuild, user: FakeUser, *, with_permissions: bool = False
) -> dict[str, Any]:
    data: dict[str, Any] = {
        "user": user.payload(),
        "roles": member_roles(world, guild, user),
        "joined_at": guild.joined_at,
        "nick": None,
        "avatar": None,
        "premium_since": None,
        "deaf": False,
        "mute": False,
        "pending": False,
        "flags": 0,
        "communication_disabled_until": None,
    }
    if with_permissions:
        data["permissions"] = str(world.member_permissions(guild, user))
    return data


def guild_create_payload(world: World, guild: FakeGuild, intents: int) -> dict[str, Any]:
    members = [
        member_payload(world, guild, world.users[uid])
        for uid in guild.member_ids
        if intents & INTENT_GUILD_MEMBERS or uid == world.bot.id
    ]
    channels = [channel_payload(world, world.channels[cid]) for cid in guild.channel_ids]
    threads = [
        channel_payload(world, ch)
        for ch in world.channels.values()
        if ch.is_thread and ch.guild_id == guild.id and not ch.archived
    ]
    return {
        "id": str(guild.id),
        "name": guild.name,
        "icon": None,
        "splash": None,
        "discovery_splash": None,
        "banner": None,
        "description": None,
        "owner_id": str(guild.owner_id),
        "region": None,
        "afk_channel_id": None,
        "afk_timeout": 300,
        "verification_level": 0,
        "default_message_notifications": 0,
        "explicit_content_filter": 0,
        "roles": [role_payload(guild, rid, r) for rid, r in guild.roles.items()],
        "emojis": [],
        "stickers": [],
        "features": [],
        "mfa_level": 0,
        "system_channel_id": guild.channel_ids[0] if guild.channel_ids else None,
        "system_channel_flags": 0,
        "rules_channel_id": None,
        "public_updates_channel_id": None,
        "max_members": 500000,
        "vanity_url_code": None,
        "premium_tier": 0,
        "premium_subscription_count": 0,
        "preferred_locale": guild.locale,
        "nsfw_level": 0,
        "premium_progress_bar_enabled": False,
        "joined_at": guild.joined_at,
        "large": False,
        "unavailable": False,
        "member_count": len(guild.member_ids),
        "voice_states": [],
        "members": members,
        "channels": channels,
        "threads": threads,
        "presences": [],
        "stage_instances": [],
        "guild_scheduled_events": [],
        "soundboard_sounds": [],
    }


def message_payload(world: World, msg: FakeMessage, *, gateway: bool = False) -> dict[str, Any]:
    mentions = []
    for uid in dict.fromkeys(int(x) for x in USER_MENTION_RE.findall(msg.content)):
        if uid in world.users:
            mentions.append(world.users[uid].payload())
    data: dict[str, Any] = {
        "id": str(msg.id),
        "channel_id": str(msg.channel_id),
        "author": msg.author.payload(),
        "content": msg.content,
        "timestamp": msg.timestamp,
        "edited_timestamp": msg.edited_timestamp,
        "tts": False,
        "mention_everyone": False,
        "mentions": mentions,
        "mention_roles": [],
        "attachments": msg.attachments,
        "embeds": msg.embeds,
        "components": msg.components,
        "pinned": msg.pinned,
        "type": msg.type,
        "flags": msg.flags,
    }
    if msg.reactions:
        data["reactions"] = [
            {
                "emoji": {"id": None, "name": emoji},
                "count": len(users),
                "count_details": {"burst": 0, "normal": len(users)},
                "burst_colors": [],
                "me": world.bot.id in users,
                "me_burst": False,
            }
            for emoji, users in msg.reactions.items()
            if users
        ]
    if msg.webhook_id is not None:
        data["webhook_id"] = str(msg.webhook_id)
        data["application_id"] = str(world.application_id)
    if msg.interaction_metadata is not None:
        data["interaction_metadata"] = msg.interaction_metadata
    if msg.message_reference is not None:
        data["message_reference"] = msg.message_reference
    if gateway and msg.guild_id is not None:
        data["guild_id"] = str(msg.guild_id)
        guild = world.guilds.get(msg.guild_id)
        if guild is not None and msg.author.id in guild.member_ids:
            member = member_payload(world, guild, msg.author)
            member.pop("user")
            data["member"] = member
    return data
