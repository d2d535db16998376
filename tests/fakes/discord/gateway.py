"""The gateway: discord.py's websocket, its sessions (IDENTIFY, RESUME, shards), the events
dispatched to it, and what a test does there (a user's message, a reconnect, a drop)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from collections.abc import Callable
from typing import Any

from aiohttp import WSMsgType, web

from tests.fakes.discord.connection import GatewayConnection, SessionState, guild_of
from tests.fakes.discord.model import FakeChannel, FakeDiscordError, FakeMessage, FakeUser, int_or_zero
from tests.fakes.discord.payloads import guild_create_payload, member_payload, message_payload
from tests.fakes.discord.protocol import (
    API_VERSION,
    HANG,
    INTENT_DIRECT_MESSAGES,
    INTENT_GUILD_MESSAGES,
    INTENT_MESSAGE_CONTENT,
    PRIVILEGED_INTENTS,
)
from tests.fakes.discord.store import MessageStore
from tests.fakes.discord.waiting import CallLog
from tests.fakes.discord.world import World


class Gateway:
    """The websocket side of the fake (``handle`` serves ``/gateway``).

    :param privileged_intents_enabled: False: an IDENTIFY asking for a privileged intent is
        closed with 4014, as for a bot whose intents are not enabled in the portal.
    """

    def __init__(
        self,
        world: World,
        store: MessageStore,
        log: CallLog,
        *,
        token: str,
        url: Callable[[], str],
        heartbeat_interval_ms: int = 3_600_000,
        privileged_intents_enabled: bool = True,
    ) -> None:
        self.world = world
        self.store = store
        self.log = log
        self.token = token
        self.url = url
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.privileged_intents_enabled = privileged_intents_enabled
        self.connections: list[GatewayConnection] = []
        self.sessions: dict[str, SessionState] = {}
        self.dispatched: list[tuple[str, dict[str, Any]]] = []
        self.presence_updates: list[dict[str, Any]] = []
        self._background: set[asyncio.Task[Any]] = set()

    async def close(self) -> None:
        """Stop the scheduled dispatches and close every connection (the server stops)."""
        for task in list(self._background):
            task.cancel()
        for conn in list(self.connections):
            with contextlib.suppress(Exception):
                await conn.close(1001, "server shutting down")

    @property
    def identify_payloads(self) -> list[dict[str, Any]]:
        return [s.identify for s in self.sessions.values()]

    async def wait_until_connected(self, timeout: float = HANG) -> GatewayConnection:
        """A gateway connection that has identified (or resumed) and got READY."""
        return await self.log.wait_for(self.live_connection, timeout, "gateway session")

    # ------------------------------------------------------------------ test side
    def live_connection(self, guild_id: int | None = None) -> GatewayConnection | None:
        """The newest identified connection; with ``guild_id``, of the shard that server
        belongs to (Discord: ``(guild_id >> 22) % shard_count``; DMs go to shard 0)."""
        for conn in reversed(self.connections):
            session = conn.session
            if session is None or conn.closed or conn.ws.closed:
                continue
            if guild_id is None or session.serves(guild_id):
                return conn
        return None

    @property
    def connection(self) -> GatewayConnection | None:
        """The current identified/resumed gateway connection, if any."""
        return self.live_connection()

    def live_session(self) -> SessionState | None:
        conn = self.live_connection()
        return conn.session if conn else None

    def intents(self) -> int:
        session = self.live_session()
        return session.intents if session else 0

    async def dispatch(self, event: str, data: dict[str, Any], guild_id: int | None = None) -> None:
        """Send a raw DISPATCH (op 0) to the current gateway session (of that server's
        shard)."""
        conn = self.live_connection(guild_id if guild_id is not None else guild_of(data))
        if conn is None or conn.session is None:
            raise FakeDiscordError("no identified gateway session; is the client connected?")
        await self.send_dispatch(conn, event, data)

    async def send_dispatch(self, conn: GatewayConnection, event: str, data: dict[str, Any]) -> None:
        session = conn.session
        assert session is not None
        session.seq += 1
        payload = {"op": 0, "t": event, "s": session.seq, "d": data}
        session.backlog.append(payload)
        self.dispatched.append((event, data))
        await conn.send(payload)
        self.log.changed()

    def dispatch_soon(self, event: str, build: Callable[[], dict[str, Any]]) -> None:
        """Dispatch from sync code if a session is live (keeps order via the send lock)."""
        if self.live_session() is None:
            return
        task = asyncio.get_running_loop().create_task(self.dispatch(event, build()))
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def flush(self) -> None:
        """Wait for dispatches scheduled by sync world-building helpers."""
        if self._background:
            await asyncio.gather(*self._background, return_exceptions=True)

    async def request_reconnect(self) -> None:
        """Send op 7 RECONNECT; discord.py reconnects and RESUMEs."""
        conn = self.live_connection()
        if conn is None:
            raise FakeDiscordError("no gateway session")
        await conn.send({"op": 7, "d": None, "s": None, "t": None})

    async def invalidate_session(self, resumable: bool = False) -> None:
        """Send op 9 INVALID_SESSION; discord.py re-identifies (or resumes if resumable)."""
        conn = self.live_connection()
        if conn is None:
            raise FakeDiscordError("no gateway session")
        await conn.send({"op": 9, "d": resumable, "s": None, "t": None})

    async def drop_gateway(self, code: int = 4000) -> None:
        """Close the websocket from the server side (4000 = reconnect + resume)."""
        conn = self.live_connection()
        if conn is None:
            raise FakeDiscordError("no gateway session")
        await conn.close(code, "dropped by test")

    async def user_message(
        self,
        user: FakeUser,
        channel: FakeChannel,
        content: str,
        *,
        embeds: list[dict[str, Any]] | None = None,
    ) -> FakeMessage:
        """A human posts a message (MESSAGE_CREATE if the intents allow)."""
        msg = self.store.create_message(channel, user, {"content": content, "embeds": embeds or []})
        await self.echo_message("MESSAGE_CREATE", msg)
        return msg

    async def delete(self, msg: FakeMessage) -> None:
        """A message deleted, and MESSAGE_DELETE (never for ephemerals) if a session is live."""
        msg.deleted = True
        self.log.changed()
        if not msg.ephemeral and self.live_session() is not None:
            data = {"id": str(msg.id), "channel_id": str(msg.channel_id)}
            if msg.guild_id:
                data["guild_id"] = str(msg.guild_id)
            await self.dispatch("MESSAGE_DELETE", data)

    async def echo_message(self, event: str, msg: FakeMessage) -> None:
        """Gateway echo of a message, as Discord does (never for ephemerals), to the shard of
        its server."""
        conn = self.live_connection(msg.guild_id)
        if conn is None or conn.session is None or msg.ephemeral:
            return
        intents = conn.session.intents
        ch = self.world.channels.get(msg.channel_id)
        is_dm = ch is not None and ch.is_dm
        if not intents & (INTENT_DIRECT_MESSAGES if is_dm else INTENT_GUILD_MESSAGES):
            return
        payload = message_payload(self.world, msg, gateway=True)
        privileged_content = (
            intents & INTENT_MESSAGE_CONTENT
            or is_dm
            or msg.author.id == self.world.bot.id
            or any(m["id"] == str(self.world.bot.id) for m in payload["mentions"])
        )
        if not privileged_content:
            payload.update(content="", embeds=[], attachments=[], components=[])
        await self.send_dispatch(conn, event, payload)

    # ------------------------------------------------------------------ the websocket
    async def handle(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=0, timeout=2.0)
        await ws.prepare(request)
        conn = GatewayConnection(ws, request.query)
        self.connections.append(conn)
        self.log.changed()
        try:
            if request.query.get("encoding", "json") != "json":
                await conn.close(4002, "Only encoding=json is supported by FakeDiscord")
                return ws
            await conn.send(
                {
                    "op": 10,
                    "d": {"heartbeat_interval": self.heartbeat_interval_ms},
                    "s": None,
                    "t": None,
                }
            )
            async for frame in ws:
                if frame.type == WSMsgType.TEXT:
                    payload = json.loads(frame.data)
                elif frame.type == WSMsgType.BINARY:
                    payload = json.loads(frame.data.decode())
                else:
                    break
                conn.received.append(payload)
                await self._on_gateway_payload(conn, payload)
                self.log.changed()
        finally:
            conn.closed = True
            self.log.changed()
        return ws

    async def _on_gateway_payload(self, conn: GatewayConnection, payload: dict[str, Any]) -> None:
        op = payload.get("op")
        data = payload.get("d")
        if op == 1:
            conn.heartbeats += 1
            await conn.send({"op": 11, "d": None, "s": None, "t": None})
        elif op == 2:
            await self._identify(conn, data or {})
        elif op == 3:
            self.presence_updates.append(data or {})
        elif op == 6:
            await self._resume(conn, data or {})
        elif op == 8:
            await self._request_members(conn, data or {})

    async def _identify(self, conn: GatewayConnection, data: dict[str, Any]) -> None:
        if conn.session is not None:
            await conn.close(4005, "Already authenticated.")
            return
        if data.get("token") != self.token:
            await conn.close(4004, "Authentication failed.")
            return
        if "intents" not in data:
            await conn.close(4013, "Invalid intent(s).")
            return
        intents = int(data["intents"])
        if intents & PRIVILEGED_INTENTS and not self.privileged_intents_enabled:
            await conn.close(4014, "Disallowed intent(s).")
            return
        session = SessionState(session_id=secrets.token_hex(16), intents=intents, identify=data)
        self.sessions[session.session_id] = session
        conn.session = session
        ready = {
            "v": API_VERSION,
            "user": {**self.world.bot.payload(), "verified": True, "mfa_enabled": False, "email": None},
            "guilds": [
                {"id": str(g.id), "unavailable": True}
                for g in self.world.guilds.values()
                if session.serves(g.id)
            ],
            "session_id": session.session_id,
            "session_type": "normal",
            "resume_gateway_url": self.url(),
            "shard": data.get("shard", [0, 1]),
            "application": {"id": str(self.world.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": [],
            "user_settings": {},
        }
        await self.send_dispatch(conn, "READY", ready)
        for guild in self.world.guilds.values():
            if not session.serves(guild.id):
                continue  # another shard's server
            await self.send_dispatch(conn, "GUILD_CREATE", guild_create_payload(self.world, guild, intents))

    async def _resume(self, conn: GatewayConnection, data: dict[str, Any]) -> None:
        session = self.sessions.get(str(data.get("session_id")))
        if session is None or data.get("token") != self.token:
            await conn.send({"op": 9, "d": False, "s": None, "t": None})
            return
        for old in self.connections:
            if old is not conn and old.session is session and not old.closed:
                await old.close(4000, "session resumed elsewhere")
        conn.session = session
        last = int(data.get("seq") or 0)
        for payload in session.backlog:
            if int(payload["s"]) > last:
                await conn.send(payload)
        await self.send_dispatch(conn, "RESUMED", {})

    async def _request_members(self, conn: GatewayConnection, data: dict[str, Any]) -> None:
        guild = self.world.guilds.get(int_or_zero(str(data.get("guild_id"))))
        if guild is None or conn.session is None:
            return
        users = [self.world.users[uid] for uid in guild.member_ids]
        if data.get("user_ids"):
            wanted = {int(u) for u in data["user_ids"]}
            users = [u for u in users if u.id in wanted]
        elif data.get("query"):
            users = [u for u in users if u.username.lower().startswith(str(data["query"]).lower())]
        limit = int(data.get("limit") or 0)
        if limit:
            users = users[:limit]
        chunk: dict[str, Any] = {
            "guild_id": str(guild.id),
            "members": [member_payload(self.world, guild, u) for u in users],
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
        }
        if data.get("nonce"):
            chunk["nonce"] = data["nonce"]
        await self.send_dispatch(conn, "GUILD_MEMBERS_CHUNK", chunk)
