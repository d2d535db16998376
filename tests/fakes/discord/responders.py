"""The REST routes of the bot's own doings: who it is, its DMs, channels, messages, reactions,
threads and servers - each handler answering as Discord does."""

from __future__ import annotations

from typing import Any

from tests.fakes.discord.gateway import Gateway
from tests.fakes.discord.model import (
    FakeChannel,
    HTTPError,
    form_error,
    int_or_zero,
    unknown,
)
from tests.fakes.discord.payloads import (
    channel_payload,
    guild_create_payload,
    member_payload,
    message_payload,
)
from tests.fakes.discord.protocol import (
    CHANNEL_PRIVATE_THREAD,
    CHANNEL_PUBLIC_THREAD,
    FLAG_EPHEMERAL,
    PERM_SEND_MESSAGES,
    PERM_SEND_MESSAGES_IN_THREADS,
    PERM_VIEW_CHANNEL,
)
from tests.fakes.discord.rest import Request, Route, channel_message, channel_of, guild_of_request
from tests.fakes.discord.store import MessageStore
from tests.fakes.discord.world import World


class Responders:
    """The handlers of the bot's REST calls on ``world`` and its messages in ``store``
    (events through ``gateway``)."""

    def __init__(self, world: World, store: MessageStore, gateway: Gateway) -> None:
        self.world = world
        self.store = store
        self.gateway = gateway

    def routes(self) -> list[Route]:
        return [
            ("GET", "/users/@me", self._get_me, True),
            ("GET", "/users/{user_id}", self._get_user, True),
            ("POST", "/users/@me/channels", self._create_dm, True),
            ("GET", "/gateway", self._get_gateway, False),
            ("GET", "/gateway/bot", self._get_gateway_bot, True),
            ("GET", "/channels/{channel_id}", self._get_channel, True),
            ("PATCH", "/channels/{channel_id}", self._patch_channel, True),
            ("GET", "/channels/{channel_id}/messages", self._list_messages, True),
            ("POST", "/channels/{channel_id}/messages", self._post_message, True),
            ("GET", "/channels/{channel_id}/messages/{message_id}", self._get_message, True),
            ("PATCH", "/channels/{channel_id}/messages/{message_id}", self._patch_message, True),
            ("DELETE", "/channels/{channel_id}/messages/{message_id}", self._delete_message, True),
            ("POST", "/channels/{channel_id}/typing", self._no_content, True),
            (
                "PUT",
                "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me",
                self._add_reaction,
                True,
            ),
            (
                "DELETE",
                "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me",
                self._remove_reaction,
                True,
            ),
            ("POST", "/channels/{channel_id}/threads", self._start_thread, True),
            ("POST", "/channels/{channel_id}/messages/{message_id}/threads", self._start_thread, True),
            ("PUT", "/channels/{channel_id}/thread-members/{user_id}", self._join_thread, True),
            ("DELETE", "/channels/{channel_id}/thread-members/{user_id}", self._leave_thread, True),
            ("GET", "/guilds/{guild_id}", self._get_guild, True),
            ("GET", "/guilds/{guild_id}/channels", self._get_guild_channels, True),
            ("GET", "/guilds/{guild_id}/members", self._list_members, True),
            ("GET", "/guilds/{guild_id}/members/{user_id}", self._get_member, True),
        ]

    # ------------------------------------------------------------------ users, gateway
    async def _get_me(self, req: Request) -> Any:
        return {
            **self.world.bot.payload(),
            "verified": True,
            "mfa_enabled": False,
            "locale": "en-US",
            "email": None,
        }

    async def _get_user(self, req: Request) -> Any:
        user = self.world.users.get(int_or_zero(req.params["user_id"]))
        if user is None:
            raise unknown("User", 10013)
        return user.payload()

    async def _create_dm(self, req: Request) -> Any:
        user = self.world.users.get(int_or_zero(str((req.json or {}).get("recipient_id"))))
        if user is None:
            raise unknown("User", 10013)
        return channel_payload(self.world, self.world.dm_channel(user))

    async def _get_gateway(self, req: Request) -> Any:
        return {"url": self.gateway.url()}

    async def _get_gateway_bot(self, req: Request) -> Any:
        return {
            "url": self.gateway.url(),
            "shards": 1,
            "session_start_limit": {
                "total": 1000,
                "remaining": 999,
                "reset_after": 14_400_000,
                "max_concurrency": 1,
            },
        }

    # ------------------------------------------------------------------ channels, messages
    async def _get_channel(self, req: Request) -> Any:
        return channel_payload(self.world, channel_of(self.world, req))

    async def _patch_channel(self, req: Request) -> Any:
        channel = channel_of(self.world, req)
        body = req.json or {}
        if "name" in body:
            channel.name = str(body["name"])
        if "archived" in body:
            channel.archived = bool(body["archived"])
        if "locked" in body:
            channel.locked = bool(body["locked"])
        if "topic" in body:
            channel.topic = body["topic"]
        payload = channel_payload(self.world, channel)
        if self.gateway.live_session() is not None:
            await self.gateway.dispatch("THREAD_UPDATE" if channel.is_thread else "CHANNEL_UPDATE", payload)
        return payload

    def _check_can_post(self, channel: FakeChannel) -> None:
        if channel.is_thread and (channel.archived or channel.locked):
            raise HTTPError(400, 50083, "Thread is archived")
        guild = self.world.guilds.get(channel.guild_id or 0)
        if guild is not None:
            perms = self.world.member_permissions(guild, self.world.bot)
            need = PERM_SEND_MESSAGES_IN_THREADS if channel.is_thread else PERM_SEND_MESSAGES
            if perms & (need | PERM_VIEW_CHANNEL) != need | PERM_VIEW_CHANNEL:
                raise HTTPError(403, 50013, "Missing Permissions")

    async def _list_messages(self, req: Request) -> Any:
        channel = channel_of(self.world, req)
        limit = min(int(req.query.get("limit", 50)), 100)
        msgs = [m for m in self.world.messages_in(channel) if not m.ephemeral]
        if "before" in req.query:
            msgs = [m for m in msgs if m.id < int(req.query["before"])]
        if "after" in req.query:
            msgs = [m for m in msgs if m.id > int(req.query["after"])][:limit]
        msgs = sorted(msgs, key=lambda m: m.id, reverse=True)[:limit]
        return [message_payload(self.world, m) for m in msgs]

    async def _post_message(self, req: Request) -> Any:
        channel = channel_of(self.world, req)
        self._check_can_post(channel)
        body = dict(req.json or {})
        flags = int(body.get("flags") or 0)
        if flags & FLAG_EPHEMERAL:
            raise form_error(
                "flags",
                "MESSAGE_FLAGS_INVALID",
                "Ephemeral messages can only be sent as interaction responses",
            )
        ref = body.get("message_reference")
        if ref and self.world.validate:
            target = self.world.messages.get(int_or_zero(str(ref.get("message_id"))))
            if (target is None or target.deleted) and ref.get("fail_if_not_exists", True):
                raise form_error("message_reference", "MESSAGE_REFERENCE_UNKNOWN_MESSAGE", "Unknown message")
        msg = self.store.build_validated(channel, self.world.bot, body, req.files, msg_type=19 if ref else 0)
        await self.gateway.echo_message("MESSAGE_CREATE", msg)
        return message_payload(self.world, msg)

    async def _get_message(self, req: Request) -> Any:
        return message_payload(self.world, channel_message(self.world, req))

    async def _patch_message(self, req: Request) -> Any:
        msg = channel_message(self.world, req)
        if msg.author.id != self.world.bot.id:
            raise HTTPError(403, 50005, "Cannot edit a message authored by another user")
        self.store.edit_message(msg, dict(req.json or {}), req.files)
        await self.gateway.echo_message("MESSAGE_UPDATE", msg)
        return message_payload(self.world, msg)

    async def _delete_message(self, req: Request) -> Any:
        msg = channel_message(self.world, req)
        await self.gateway.delete(msg)
        return None

    async def _no_content(self, req: Request) -> Any:
        channel_of(self.world, req)
        return None

    async def _add_reaction(self, req: Request) -> Any:
        msg = channel_message(self.world, req)
        msg.reactions.setdefault(req.params["emoji"], set()).add(self.world.bot.id)
        self.world.changed()
        return None

    async def _remove_reaction(self, req: Request) -> Any:
        msg = channel_message(self.world, req)
        msg.reactions.get(req.params["emoji"], set()).discard(self.world.bot.id)
        self.world.changed()
        return None

    async def _start_thread(self, req: Request) -> Any:
        parent = channel_of(self.world, req)
        if parent.is_thread or parent.is_dm:
            raise HTTPError(400, 50024, "Cannot execute action on this channel type")
        body = req.json or {}
        name = str(body.get("name") or "")
        if not 1 <= len(name) <= 100:
            raise form_error("name", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")
        private = (
            "message_id" not in req.params
            and int(body.get("type", CHANNEL_PRIVATE_THREAD)) == CHANNEL_PRIVATE_THREAD
        )
        thread = FakeChannel(
            self.world.ids.next() if "message_id" not in req.params else int(req.params["message_id"]),
            name,
            CHANNEL_PRIVATE_THREAD if private else CHANNEL_PUBLIC_THREAD,
            parent.guild_id,
            parent_id=parent.id,
            owner_id=self.world.bot.id,
            invitable=bool(body.get("invitable", True)),
        )
        if "message_id" in req.params:
            channel_message(self.world, req)
            if thread.id in self.world.channels:
                raise HTTPError(400, 160004, "A thread has already been created for this message")
        thread.thread_member_ids.add(self.world.bot.id)
        self.world.channels[thread.id] = thread
        payload = channel_payload(self.world, thread)
        if self.gateway.live_session() is not None:
            await self.gateway.dispatch("THREAD_CREATE", {**payload, "newly_created": True})
        self.world.changed()
        return 201, payload

    async def _join_thread(self, req: Request) -> Any:
        thread = channel_of(self.world, req)
        uid = self.world.bot.id if req.params["user_id"] == "@me" else int_or_zero(req.params["user_id"])
        if uid not in self.world.users:
            raise unknown("User", 10013)
        thread.thread_member_ids.add(uid)
        self.world.changed()
        return None

    async def _leave_thread(self, req: Request) -> Any:
        thread = channel_of(self.world, req)
        uid = self.world.bot.id if req.params["user_id"] == "@me" else int_or_zero(req.params["user_id"])
        thread.thread_member_ids.discard(uid)
        self.world.changed()
        return None

    # ------------------------------------------------------------------ servers
    async def _get_guild(self, req: Request) -> Any:
        guild = guild_of_request(self.world, req)
        data = guild_create_payload(self.world, guild, 0)
        for key in (
            "members",
            "channels",
            "threads",
            "presences",
            "voice_states",
            "joined_at",
            "large",
            "member_count",
        ):
            data.pop(key, None)
        data["approximate_member_count"] = len(guild.member_ids)
        return data

    async def _get_guild_channels(self, req: Request) -> Any:
        guild = guild_of_request(self.world, req)
        return [channel_payload(self.world, self.world.channels[cid]) for cid in guild.channel_ids]

    async def _list_members(self, req: Request) -> Any:
        guild = guild_of_request(self.world, req)
        limit = int(req.query.get("limit", 1))
        after = int(req.query.get("after", 0))
        ids = sorted(uid for uid in guild.member_ids if uid > after)[:limit]
        return [member_payload(self.world, guild, self.world.users[uid]) for uid in ids]

    async def _get_member(self, req: Request) -> Any:
        guild = guild_of_request(self.world, req)
        uid = int_or_zero(req.params["user_id"])
        if uid not in guild.member_ids:
            raise unknown("Member", 10007)
        return member_payload(self.world, guild, self.world.users[uid])
