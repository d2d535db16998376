"""A fake Discord (REST API + gateway websocket) for driving the *real* discord.py 2.7.

`FakeDiscord` is an aiohttp server on 127.0.0.1 that serves

* the REST API under ``http://127.0.0.1:PORT/api/v10`` (``fake.api_base``), and
* the gateway websocket at ``ws://127.0.0.1:PORT/gateway`` (``fake.gateway_url``).

Pointing discord.py at it (``fake.patch_discord_py()`` does exactly this and restores it):

* ``discord.http.Route.BASE = fake.api_base`` -- every REST call (including the interaction
  webhook adapter, which reuses ``Route``) builds its URL from this class attribute.
* ``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(fake.gateway_url)`` -- a plain
  ``Client.connect()`` in 2.7 does **not** call ``GET /gateway/bot``; it connects straight to
  ``DEFAULT_GATEWAY`` (only ``AutoShardedClient`` asks ``/gateway/bot``, which is served too).

discord.py behaviours the harness has to live with (all verified against 2.7.1):

* ``on_ready`` fires ``guild_ready_timeout`` seconds after the last GUILD_CREATE (default 2 s):
  build test clients with ``guild_ready_timeout=0.01``.
* Every non-initial IDENTIFY (after INVALID_SESSION) is preceded by
  ``Client.before_identify_hook``, which sleeps 5 s: override it in test clients.
* The heartbeat interval comes from HELLO; the fake sends 1 h, so the keep-alive thread only
  sends the immediate first beat.
* A 429 is only treated as a rate limit if the response has a ``Via`` header (else it is
  taken for a Cloudflare ban -> HTTPException); the fake sends ``Via``.  Responses must have
  ``Content-Type`` exactly ``application/json`` or the body is treated as text.
* discord.py sleeps ``1 + 2*try`` s on 500/502/504/524 before retrying: inject 503 or 4xx.
* The client acts on a response some time after the fake wrote it (e.g. it stores a
  non-persistent view under the new message id only then).  The fake can only say when it
  is *idle* (no REST request in flight: ``idle()``); that discord.py and the bot have done
  with a response is the bot's own signal to give (the adapter's ``Activity``, or a test
  bot's "answered" event). Nothing here counts event-loop turns or sleeps.

Limits, as the platform keeps them, on the fake's own clock (``clock=``, a callable
returning seconds; tests pass their manual clock so nothing waits in real time):

* rate limits per route bucket: five message posts per channel in five seconds, five
  message edits (or deletes) per channel in five seconds, five interaction-webhook calls
  per token in two seconds. A write past them gets a 429 whose ``retry_after`` is the time
  until the bucket has room (``fake.limited`` records them). No ``X-RateLimit-*`` headers
  are sent, so discord.py never sleeps pre-emptively on its own clock;
* an interaction must be answered within 3 s (later: 404 Unknown interaction, 10062) and
  its token works for 15 minutes (later: 401 Invalid Webhook Token, 50027).

Payloads Discord refuses get its 400 ``{"code": 50035, "message": "Invalid Form Body",
"errors": {...}}``, the errors nested by the refused field's path (``components.0.
components.1.url``), as the Component Reference (developers/components/reference.mdx in
discord/discord-api-docs) sets the limits: content <= 2000, embeds, action rows, custom ids
1-100 and unique, buttons by style (a link button has a ``url`` <= 512 and no ``custom_id``,
a premium one a ``sku_id`` only, the others a ``custom_id`` and neither), labels <= 80,
selects (placeholder <= 150, min_values 0-25, max_values 1-25 and at most the options;
a string select's 1-25 options of unique values, label and value 1-100, description <= 100),
action rows (up to 5 buttons or one select, nothing else), and with IS_COMPONENTS_V2
(``1 << 15``): sections of 1-3 text displays and one accessory (a button or a thumbnail),
containers of the child types their page lists, 40 components in all (nested ones counted;
a container has no limit of its own), text displays of at most 4,000 characters together.
Error *codes* the docs don't name are the fake's own: match on the path, not on the code.

`start_client` / `stop_client` wrap login + connect + waiting for READY and the guilds.

Typical use::

    async with FakeDiscord() as fake:
        with fake.patch_discord_py():
            client = MyBot(intents=discord.Intents.default(), guild_ready_timeout=0.01)
            task = await start_client(client, fake)
            await client.tree.sync()
            inter = await fake.interaction_command(fake.alice, fake.channel, "ping")
            msg = await fake.wait_for_original(inter)
            assert msg.content == "pong" and msg.ephemeral
            await stop_client(client, task)
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import secrets
import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar

import yarl
from aiohttp import WSMsgType, web

if TYPE_CHECKING:
    import discord

__all__ = [
    "ALL_PERMISSIONS",
    "DEFAULT_MEMBER_PERMISSIONS",
    "FLAG_EPHEMERAL",
    "FLAG_IS_COMPONENTS_V2",
    "FLAG_LOADING",
    "PERM_ADMINISTRATOR",
    "PERM_MANAGE_GUILD",
    "FakeChannel",
    "FakeDiscord",
    "FakeGuild",
    "FakeInteraction",
    "FakeMessage",
    "FakeUser",
    "GatewayConnection",
    "RecordedCall",
    "start_client",
    "stop_client",
]

T = TypeVar("T")

API_VERSION = 10
ANSWER_WINDOW = 3.0  # seconds to answer an interaction
TOKEN_LIFE = 15 * 60.0  # seconds an interaction token keeps working
DISCORD_EPOCH_MS = 1420070400000

# --- permission bits -------------------------------------------------------------------------
PERM_CREATE_INSTANT_INVITE = 1 << 0
PERM_ADMINISTRATOR = 1 << 3
PERM_MANAGE_CHANNELS = 1 << 4
PERM_MANAGE_GUILD = 1 << 5
PERM_ADD_REACTIONS = 1 << 6
PERM_VIEW_CHANNEL = 1 << 10
PERM_SEND_MESSAGES = 1 << 11
PERM_MANAGE_MESSAGES = 1 << 13
PERM_EMBED_LINKS = 1 << 14
PERM_ATTACH_FILES = 1 << 15
PERM_READ_MESSAGE_HISTORY = 1 << 16
PERM_USE_EXTERNAL_EMOJIS = 1 << 18
PERM_USE_APPLICATION_COMMANDS = 1 << 31
PERM_MANAGE_THREADS = 1 << 34
PERM_CREATE_PUBLIC_THREADS = 1 << 35
PERM_CREATE_PRIVATE_THREADS = 1 << 36
PERM_SEND_MESSAGES_IN_THREADS = 1 << 38
ALL_PERMISSIONS = (1 << 51) - 1

DEFAULT_MEMBER_PERMISSIONS = (
    PERM_CREATE_INSTANT_INVITE
    | PERM_ADD_REACTIONS
    | PERM_VIEW_CHANNEL
    | PERM_SEND_MESSAGES
    | PERM_EMBED_LINKS
    | PERM_ATTACH_FILES
    | PERM_READ_MESSAGE_HISTORY
    | PERM_USE_EXTERNAL_EMOJIS
    | PERM_USE_APPLICATION_COMMANDS
    | PERM_CREATE_PUBLIC_THREADS
    | PERM_CREATE_PRIVATE_THREADS
    | PERM_SEND_MESSAGES_IN_THREADS
)
DEFAULT_BOT_PERMISSIONS = (
    DEFAULT_MEMBER_PERMISSIONS | PERM_MANAGE_MESSAGES | PERM_MANAGE_THREADS | PERM_MANAGE_CHANNELS
)

# --- message flags ---------------------------------------------------------------------------
FLAG_SUPPRESS_EMBEDS = 1 << 2
FLAG_EPHEMERAL = 1 << 6
FLAG_LOADING = 1 << 7
FLAG_SUPPRESS_NOTIFICATIONS = 1 << 12
FLAG_IS_COMPONENTS_V2 = 1 << 15

# --- gateway intents -------------------------------------------------------------------------
INTENT_GUILDS = 1 << 0
INTENT_GUILD_MEMBERS = 1 << 1
INTENT_GUILD_PRESENCES = 1 << 8
INTENT_GUILD_MESSAGES = 1 << 9
INTENT_DIRECT_MESSAGES = 1 << 12
INTENT_MESSAGE_CONTENT = 1 << 15
PRIVILEGED_INTENTS = INTENT_GUILD_MEMBERS | INTENT_GUILD_PRESENCES | INTENT_MESSAGE_CONTENT

# --- channel types ---------------------------------------------------------------------------
CHANNEL_TEXT = 0
CHANNEL_DM = 1
CHANNEL_PUBLIC_THREAD = 11
CHANNEL_PRIVATE_THREAD = 12
THREAD_TYPES = (10, CHANNEL_PUBLIC_THREAD, CHANNEL_PRIVATE_THREAD)

# --- interactions ----------------------------------------------------------------------------
INTERACTION_PING = 1
INTERACTION_APPLICATION_COMMAND = 2
INTERACTION_MESSAGE_COMPONENT = 3
INTERACTION_AUTOCOMPLETE = 4
INTERACTION_MODAL_SUBMIT = 5

CALLBACK_PONG = 1
CALLBACK_CHANNEL_MESSAGE = 4
CALLBACK_DEFERRED_CHANNEL_MESSAGE = 5
CALLBACK_DEFERRED_UPDATE_MESSAGE = 6
CALLBACK_UPDATE_MESSAGE = 7
CALLBACK_AUTOCOMPLETE_RESULT = 8
CALLBACK_MODAL = 9

# --- component types -------------------------------------------------------------------------
COMPONENT_ACTION_ROW = 1
COMPONENT_BUTTON = 2
COMPONENT_STRING_SELECT = 3
COMPONENT_TEXT_INPUT = 4
COMPONENT_USER_SELECT = 5
COMPONENT_ROLE_SELECT = 6
COMPONENT_MENTIONABLE_SELECT = 7
COMPONENT_CHANNEL_SELECT = 8
COMPONENT_SECTION = 9
COMPONENT_TEXT_DISPLAY = 10
COMPONENT_THUMBNAIL = 11
COMPONENT_CONTAINER = 17
COMPONENT_LABEL = 18
SELECT_TYPES = (3, 5, 6, 7, 8)
BUTTON_LINK = 5
BUTTON_PREMIUM = 6
BUTTON_STYLES = (1, 2, 3, 4, BUTTON_LINK, BUTTON_PREMIUM)
INTERACTIVE_TYPES = (2, *SELECT_TYPES)
V2_TOP_LEVEL_TYPES = (1, 9, 10, 12, 13, 14, 17)
# Container Child Components: action row, text display, section, media gallery, separator, file
CONTAINER_CHILD_TYPES = (1, 9, 10, 12, 13, 14)

_USER_MENTION_RE = re.compile(r"<@!?(\d+)>")
_COMMAND_NAME_RE = re.compile(r"^[-_'\w]{1,32}$")


def _now_iso() -> str:
    return datetime.now(UTC).isoformat()


class _Snowflakes:
    """Monotonic snowflakes whose timestamp part is "now" (discord.utils.snowflake_time works)."""

    def __init__(self) -> None:
        self._last = 0

    def next(self) -> int:
        candidate = (int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22
        if candidate <= self._last:
            candidate = self._last + 1
        self._last = candidate
        return candidate


#: how long a test-side wait lasts before it fails: only a bound that turns a hang into a
#: failure, never a measure of speed (a loaded 2-core machine may take seconds to answer)
HANG = 60.0


class FakeDiscordError(Exception):
    """Raised by test-side helpers when the requested action is impossible on real Discord."""


class _HTTPError(Exception):
    def __init__(
        self,
        status: int,
        code: int,
        message: str,
        errors: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status = status
        self.body: dict[str, Any] = {"message": message, "code": code}
        if errors:
            self.body["errors"] = errors


def _form_error(path: str, code: str, message: str) -> _HTTPError:
    """400 / 50035 Invalid Form Body with Discord's nested ``errors`` object."""
    errors: dict[str, Any] = {"_errors": [{"code": code, "message": message}]}
    for part in reversed(path.split(".")):
        errors = {part: errors}
    return _HTTPError(400, 50035, "Invalid Form Body", errors)


def _unknown(what: str, code: int) -> _HTTPError:
    return _HTTPError(404, code, f"Unknown {what}")


def walk_components(components: Iterable[Mapping[str, Any]]) -> Iterator[dict[str, Any]]:
    """Depth-first walk over a component tree (rows, containers, sections, labels...)."""
    for comp in components:
        yield comp  # type: ignore[misc]
        children = comp.get("components")
        if isinstance(children, list):
            yield from walk_components(children)
        for key in ("accessory", "component"):
            child = comp.get(key)
            if isinstance(child, dict):
                yield from walk_components([child])


# =============================================================================================
# World model
# =============================================================================================


@dataclass(eq=False)
class FakeUser:
    id: int
    username: str
    global_name: str | None = None
    bot: bool = False
    permissions: int = DEFAULT_MEMBER_PERMISSIONS
    locale: str = "en-US"

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "username": self.username,
            "global_name": self.global_name,
            "discriminator": "0",
            "avatar": None,
            "public_flags": 0,
            "flags": 0,
        }
        if self.bot:
            data["bot"] = True
        return data


@dataclass(eq=False)
class FakeChannel:
    id: int
    name: str
    type: int = CHANNEL_TEXT
    guild_id: int | None = None
    parent_id: int | None = None
    owner_id: int | None = None
    position: int = 0
    topic: str | None = None
    recipient_id: int | None = None
    archived: bool = False
    locked: bool = False
    invitable: bool = True
    thread_member_ids: set[int] = field(default_factory=set)

    @property
    def is_thread(self) -> bool:
        return self.type in THREAD_TYPES

    @property
    def is_dm(self) -> bool:
        return self.type == CHANNEL_DM

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"


@dataclass(eq=False)
class FakeGuild:
    id: int
    name: str
    owner_id: int
    channel_ids: list[int] = field(default_factory=list)
    member_ids: list[int] = field(default_factory=list)
    permission_overrides: dict[int, int] = field(default_factory=dict)
    roles: dict[int, dict[str, Any]] = field(default_factory=dict)
    joined_at: str = field(default_factory=_now_iso)
    locale: str = "en-US"


@dataclass(eq=False)
class FakeMessage:
    id: int
    channel_id: int
    guild_id: int | None
    author: FakeUser
    content: str = ""
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    attachments: list[dict[str, Any]] = field(default_factory=list)
    files: dict[str, bytes] = field(default_factory=dict)
    flags: int = 0
    type: int = 0
    #: user id the message is visible to when ephemeral (the interaction's user)
    ephemeral_for: int | None = None
    interaction_id: int | None = None
    interaction_metadata: dict[str, Any] | None = None
    webhook_id: int | None = None
    message_reference: dict[str, Any] | None = None
    timestamp: str = field(default_factory=_now_iso)
    edited_timestamp: str | None = None
    deleted: bool = False
    pinned: bool = False
    reactions: dict[str, set[int]] = field(default_factory=dict)
    #: every edit body applied to this message, in order
    edits: list[dict[str, Any]] = field(default_factory=list)

    # ---- convenience for assertions ----
    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & FLAG_EPHEMERAL)

    @property
    def loading(self) -> bool:
        """A deferred ("Bot is thinking...") response that has not been filled in yet."""
        return bool(self.flags & FLAG_LOADING)

    @property
    def is_components_v2(self) -> bool:
        return bool(self.flags & FLAG_IS_COMPONENTS_V2)

    def visible_to(self, user: FakeUser | int) -> bool:
        uid = user if isinstance(user, int) else user.id
        return not self.ephemeral or self.ephemeral_for == uid

    def iter_components(self) -> Iterator[dict[str, Any]]:
        return walk_components(self.components)

    def component(self, custom_id: str) -> dict[str, Any] | None:
        for comp in self.iter_components():
            if comp.get("custom_id") == custom_id:
                return comp
        return None

    def custom_ids(self) -> list[str]:
        return [c["custom_id"] for c in self.iter_components() if "custom_id" in c]

    def buttons(self) -> list[dict[str, Any]]:
        return [c for c in self.iter_components() if c.get("type") == COMPONENT_BUTTON]

    def text(self) -> str:
        """Content + V2 TextDisplay contents + embed text, newline-joined (for assertions)."""
        parts: list[str] = [self.content] if self.content else []
        for comp in self.iter_components():
            if comp.get("type") == COMPONENT_TEXT_DISPLAY and comp.get("content"):
                parts.append(str(comp["content"]))
        for embed in self.embeds:
            for key in ("title", "description"):
                if embed.get(key):
                    parts.append(str(embed[key]))
            for fld in embed.get("fields", []):
                parts.append(f"{fld.get('name', '')}\n{fld.get('value', '')}")
            footer = embed.get("footer") or {}
            if footer.get("text"):
                parts.append(str(footer["text"]))
        return "\n".join(parts)


@dataclass(eq=False)
class FakeInteraction:
    """An interaction the fake delivered, and what the bot did with it."""

    id: int
    token: str
    type: int
    user: FakeUser
    channel_id: int
    guild_id: int | None
    data: dict[str, Any]
    payload: dict[str, Any]
    #: message the component/modal was on (component interactions)
    source_message_id: int | None = None
    #: initial callback type (4, 5, 6, 7, 8, 9) once the bot answered
    response_type: int | None = None
    response_data: dict[str, Any] | None = None
    original_message_id: int | None = None
    followup_ids: list[int] = field(default_factory=list)
    #: modal definition when response_type == 9
    modal: dict[str, Any] | None = None
    #: autocomplete choices when response_type == 8
    choices: list[dict[str, Any]] | None = None
    #: all callback bodies POSTed (the 2nd+ were rejected with 40060)
    callbacks: list[dict[str, Any]] = field(default_factory=list)
    #: when the fake delivered it (the fake's clock): the answer window and the token's life
    created: float = 0.0

    @property
    def responded(self) -> bool:
        return self.response_type is not None

    @property
    def deferred(self) -> bool:
        return self.response_type in (
            CALLBACK_DEFERRED_CHANNEL_MESSAGE,
            CALLBACK_DEFERRED_UPDATE_MESSAGE,
        )


@dataclass
class RecordedCall:
    """One REST request the fake received."""

    index: int
    method: str
    path: str
    query: dict[str, str]
    json: Any
    status: int = 0
    response: Any = None
    authorized: bool = False
    files: list[dict[str, Any]] = field(default_factory=list)
    #: set when an injected fault produced the response
    injected: bool = False
    #: when it came (the fake's clock)
    at: float = 0.0

    def __repr__(self) -> str:
        return f"<RecordedCall #{self.index} {self.method} {self.path} -> {self.status}>"


@dataclass
class _Fault:
    method: str
    pattern: re.Pattern[str]
    status: int
    remaining: int
    retry_after: float
    code: int
    message: str
    is_global: bool


@dataclass
class _SessionState:
    session_id: str
    intents: int
    identify: dict[str, Any]
    seq: int = 0
    backlog: list[dict[str, Any]] = field(default_factory=list)

    @property
    def shard(self) -> tuple[int, int]:
        shard = self.identify.get("shard") or [0, 1]
        return int(shard[0]), max(1, int(shard[1]))

    def serves(self, guild_id: int | None) -> bool:
        """Whether this session's shard receives that server's events (DMs: shard 0)."""
        shard_id, count = self.shard
        if guild_id is None:
            return shard_id == 0
        return (guild_id >> 22) % count == shard_id


def _guild_of(data: Mapping[str, Any]) -> int | None:
    """The server an event belongs to, if it names one."""
    gid = data.get("guild_id")
    if gid is None and "members" in data and "channels" in data:  # GUILD_CREATE
        gid = data.get("id")
    return int(gid) if gid is not None else None


class GatewayConnection:
    """One websocket connection from discord.py."""

    def __init__(self, ws: web.WebSocketResponse, query: Mapping[str, str]) -> None:
        self.ws = ws
        self.query: dict[str, str] = dict(query)
        self.compress: str | None = query.get("compress")
        self._compressor = zlib.compressobj() if self.compress == "zlib-stream" else None
        self._lock = asyncio.Lock()
        self.session: _SessionState | None = None
        self.received: list[dict[str, Any]] = []
        self.sent: list[dict[str, Any]] = []
        self.heartbeats = 0
        self.closed = False

    async def send(self, payload: dict[str, Any]) -> None:
        async with self._lock:
            if self.closed or self.ws.closed:
                return
            raw = json.dumps(payload, separators=(",", ":"))
            self.sent.append(payload)
            if self._compressor is not None:
                data = self._compressor.compress(raw.encode()) + self._compressor.flush(zlib.Z_SYNC_FLUSH)
                await self.ws.send_bytes(data)
            else:
                await self.ws.send_str(raw)

    async def close(self, code: int = 1000, message: str = "") -> None:
        self.closed = True
        if not self.ws.closed:
            await self.ws.close(code=code, message=message.encode())


# =============================================================================================
# The fake server
# =============================================================================================

_Handler = Callable[["_Request"], Any]


@dataclass
class _Request:
    method: str
    path: str
    params: dict[str, str]
    query: dict[str, str]
    json: Any
    files: list[dict[str, Any]]
    call: RecordedCall


class FakeDiscord:
    """Fake Discord REST API + gateway on 127.0.0.1 (see module docstring)."""

    def __init__(
        self,
        *,
        token: str = "fake-bot-token",
        bot_name: str = "KozelBot",
        heartbeat_interval_ms: int = 3_600_000,
        privileged_intents_enabled: bool = True,
        validate: bool = True,
        clock: Callable[[], float] = time.monotonic,
        rate_limits: bool = True,
    ) -> None:
        self.token = token
        self.clock = clock
        self.rate_limits = rate_limits
        #: every write the platform's rate limits refused (429), in order
        self.limited: list[RecordedCall] = []
        self._buckets: dict[str, list[float]] = {}
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.privileged_intents_enabled = privileged_intents_enabled
        self.validate = validate

        self._ids = _Snowflakes()
        self.application_id = self._ids.next()
        self.bot = FakeUser(self.application_id, bot_name, bot=True, permissions=DEFAULT_BOT_PERMISSIONS)
        self.app_owner = FakeUser(self._ids.next(), "app-owner")

        self.users: dict[int, FakeUser] = {self.bot.id: self.bot, self.app_owner.id: self.app_owner}
        self.guilds: dict[int, FakeGuild] = {}
        self.channels: dict[int, FakeChannel] = {}
        self.messages: dict[int, FakeMessage] = {}
        self.interactions: dict[int, FakeInteraction] = {}
        self._interactions_by_token: dict[str, FakeInteraction] = {}
        self.global_commands: list[dict[str, Any]] = []
        self.guild_commands: dict[int, list[dict[str, Any]]] = {}

        self.calls: list[RecordedCall] = []
        self.connections: list[GatewayConnection] = []
        self.sessions: dict[str, _SessionState] = {}
        self.dispatched: list[tuple[str, dict[str, Any]]] = []
        self.presence_updates: list[dict[str, Any]] = []
        self._faults: list[_Fault] = []
        self._waiters: list[asyncio.Future[None]] = []
        self._background: set[asyncio.Task[Any]] = set()
        self._inflight = 0

        self._routes: list[tuple[str, re.Pattern[str], _Handler, bool]] = []
        self._register_routes()

        self._runner: web.AppRunner | None = None
        self.port = 0

        # ---- default world: one guild, two text channels, a thread, four players ----
        self.alice = self.add_user("alice", permissions=DEFAULT_MEMBER_PERMISSIONS | PERM_MANAGE_GUILD)
        self.bob = self.add_user("bob")
        self.carol = self.add_user("carol")
        self.dave = self.add_user("dave")
        self.guild = self.add_guild("Kozel Club", owner=self.app_owner)
        self.channel = self.add_text_channel(self.guild, "general")
        self.games = self.add_text_channel(self.guild, "kozel")
        self.thread = self.add_thread(self.games, "table-1", owner=self.alice)

    # ------------------------------------------------------------------ lifecycle
    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        return f"{self.base_url}/api/v{API_VERSION}"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    async def start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway", self._handle_gateway)
        app.router.add_route("*", r"/api/v{version:\d+}/{tail:.*}", self._handle_rest)
        self._runner = web.AppRunner(app, shutdown_timeout=0.1, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = int(self._runner.addresses[0][1])

    async def stop(self) -> None:
        for task in list(self._background):
            task.cancel()
        for conn in list(self.connections):
            with contextlib.suppress(Exception):
                await conn.close(1001, "server shutting down")
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeDiscord:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @contextlib.contextmanager
    def patch_discord_py(self) -> Iterator[None]:
        """Point discord.py's REST base URL and default gateway at this fake (restored on exit)."""
        from discord.gateway import DiscordWebSocket
        from discord.http import Route

        old_base, old_gateway = Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY
        Route.BASE = self.api_base
        DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(self.gateway_url)
        try:
            yield
        finally:
            Route.BASE = old_base
            DiscordWebSocket.DEFAULT_GATEWAY = old_gateway

    # ------------------------------------------------------------------ world building
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
            self._ids.next(),
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
        guild = FakeGuild(self._ids.next(), name, owner.id, locale=locale)
        guild.roles[guild.id] = {"name": "@everyone", "permissions": DEFAULT_MEMBER_PERMISSIONS}
        self.guilds[guild.id] = guild
        guild.member_ids.append(self.bot.id)
        for user in self.users.values():
            if not user.bot and user.id != guild.owner_id and user is not self.app_owner:
                guild.member_ids.append(user.id)
        if owner.id not in guild.member_ids:
            guild.member_ids.append(owner.id)
        if self._live_session() is not None:
            # a server joined now: Discord's payload has no "unavailable" (discord.py tells
            # a join, "guild_join", from a server coming back, "guild_available", by it)
            self._dispatch_soon(
                "GUILD_CREATE",
                lambda: {
                    k: v
                    for k, v in self._guild_create_payload(guild, self._intents()).items()
                    if k != "unavailable"
                },
            )
        return guild

    def add_member(self, guild: FakeGuild, user: FakeUser) -> None:
        if user.id in guild.member_ids:
            return
        guild.member_ids.append(user.id)
        if self._intents() & INTENT_GUILD_MEMBERS:
            self._dispatch_soon(
                "GUILD_MEMBER_ADD",
                lambda: {**self._member_payload(guild, user), "guild_id": str(guild.id)},
            )

    def add_text_channel(self, guild: FakeGuild, name: str, *, topic: str | None = None) -> FakeChannel:
        channel = FakeChannel(
            self._ids.next(),
            name,
            CHANNEL_TEXT,
            guild.id,
            position=len(guild.channel_ids),
            topic=topic,
        )
        self.channels[channel.id] = channel
        guild.channel_ids.append(channel.id)
        self._dispatch_soon("CHANNEL_CREATE", lambda: self._channel_payload(channel))
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
            self._ids.next(),
            name,
            CHANNEL_PRIVATE_THREAD if private else CHANNEL_PUBLIC_THREAD,
            parent.guild_id,
            parent_id=parent.id,
            owner_id=(owner or self.bot).id,
        )
        thread.thread_member_ids.add(thread.owner_id or self.bot.id)
        self.channels[thread.id] = thread
        self._dispatch_soon("THREAD_CREATE", lambda: {**self._channel_payload(thread), "newly_created": True})
        return thread

    def dm_channel(self, user: FakeUser) -> FakeChannel:
        """The bot's DM channel with ``user`` (created on first use)."""
        for channel in self.channels.values():
            if channel.is_dm and channel.recipient_id == user.id:
                return channel
        channel = FakeChannel(self._ids.next(), "", CHANNEL_DM, recipient_id=user.id)
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

    # ------------------------------------------------------------------ lookups for tests
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

    def calls_to(self, method: str = "*", route: str | re.Pattern[str] = ".*") -> list[RecordedCall]:
        """Recorded calls matching ``method`` ("*" = any) and ``route`` (template or regex)."""
        pattern = _route_regex(route)
        return [
            c
            for c in self.calls
            if (method == "*" or c.method == method.upper()) and pattern.fullmatch(c.path)
        ]

    @property
    def identify_payloads(self) -> list[dict[str, Any]]:
        return [s.identify for s in self.sessions.values()]

    # ------------------------------------------------------------------ fault injection
    def fail_next(
        self,
        method: str,
        route: str | re.Pattern[str],
        *,
        status: int = 429,
        times: int = 1,
        retry_after: float = 0.001,
        code: int = 0,
        message: str | None = None,
        is_global: bool = False,
    ) -> None:
        """Make the next ``times`` calls of ``method route`` fail with ``status``.

        ``route`` is a template such as ``"/channels/{channel_id}/messages"`` or a regex.
        429s carry ``retry_after`` (+ the ``Via`` header discord.py requires to treat it as a
        Discord rate limit rather than a Cloudflare ban) and are retried by discord.py
        internally (at most 5 tries in total).  Note discord.py sleeps ``1 + 2*try`` seconds on
        500/502/504/524 -- prefer 503 or 4xx for fast tests.
        """
        default_messages = {
            400: "Bad Request",
            401: "401: Unauthorized",
            403: "Missing Permissions",
            404: "404: Not Found",
            429: "You are being rate limited.",
        }
        self._faults.append(
            _Fault(
                method=method.upper(),
                pattern=_route_regex(route),
                status=status,
                remaining=times,
                retry_after=retry_after,
                code=code if code or status != 403 else 50013,
                message=message or default_messages.get(status, "Injected failure"),
                is_global=is_global,
            )
        )

    def clear_faults(self) -> None:
        self._faults.clear()

    # ------------------------------------------------------------------ waiting
    def _changed(self) -> None:
        waiters, self._waiters = self._waiters, []
        for fut in waiters:
            if not fut.done():
                fut.set_result(None)

    async def wait_for(
        self,
        predicate: Callable[[], T | None],
        timeout: float = HANG,
        what: str | None = None,
        *,
        poll: float = 0.005,
    ) -> T:
        """Return ``predicate()`` once it is truthy; TimeoutError after ``timeout`` seconds.

        Re-evaluated immediately on every fake-side change (REST call, gateway frame, message
        edit ...) and otherwise every ``poll`` seconds, so predicates over discord.py's client
        state (cache, on_message lists) work too.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            result = predicate() if self._inflight == 0 else None
            if result:
                return result
            remaining = deadline - loop.time()
            if remaining <= 0:
                recent = "\n  ".join(repr(c) for c in self.calls[-10:])
                raise TimeoutError(
                    f"FakeDiscord: timed out after {timeout}s waiting for "
                    f"{what or getattr(predicate, '__name__', 'condition')};"
                    f" last calls:\n  {recent}"
                )
            fut: asyncio.Future[None] = loop.create_future()
            self._waiters.append(fut)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(fut, min(remaining, poll))
            if fut in self._waiters:
                self._waiters.remove(fut)

    @property
    def is_idle(self) -> bool:
        """No REST request is being served (every response is on its socket)."""
        return self._inflight == 0

    async def idle(self) -> None:
        """Until no REST request is in flight (woken by the requests' own ends)."""
        while self._inflight:
            fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiters.append(fut)
            await fut

    async def wait_for_call(
        self,
        method: str = "*",
        route: str | re.Pattern[str] = ".*",
        *,
        predicate: Callable[[RecordedCall], bool] | None = None,
        since: int = 0,
        timeout: float = HANG,
    ) -> RecordedCall:
        """First recorded call with index >= ``since`` matching method/route/predicate."""

        def find() -> RecordedCall | None:
            for c in self.calls_to(method, route):
                if c.index >= since and c.status and (predicate is None or predicate(c)):
                    return c
            return None

        return await self.wait_for(find, timeout, f"call {method} {route}")

    async def wait_for_message(
        self,
        predicate: Callable[[FakeMessage], bool] | None = None,
        *,
        channel: FakeChannel | int | None = None,
        after: int = 0,
        timeout: float = HANG,
    ) -> FakeMessage:
        """First live message (id > ``after``) matching ``predicate`` (re-checked after edits)."""

        def find() -> FakeMessage | None:
            pool = self.messages_in(channel) if channel is not None else self.messages.values()
            for m in pool:
                if m.id > after and not m.deleted and (predicate is None or predicate(m)):
                    return m
            return None

        return await self.wait_for(find, timeout, "message")

    async def wait_for_response(self, interaction: FakeInteraction, timeout: float = HANG) -> FakeInteraction:
        """Wait until the bot sent the initial interaction callback."""
        return await self.wait_for(
            lambda: interaction if interaction.responded else None,
            timeout,
            f"response to interaction {interaction.id}",
        )

    async def wait_for_original(
        self,
        interaction: FakeInteraction,
        predicate: Callable[[FakeMessage], bool] | None = None,
        timeout: float = HANG,
    ) -> FakeMessage:
        """The interaction's original response message once it is not "thinking" any more
        (and satisfies ``predicate``).  For type 6/7 responses this is the component's message."""

        def find() -> FakeMessage | None:
            msg = self.original_message(interaction)
            if msg is None or msg.loading:
                return None
            return msg if predicate is None or predicate(msg) else None

        return await self.wait_for(find, timeout, f"original response of {interaction.id}")

    async def wait_for_followup(
        self, interaction: FakeInteraction, index: int = 0, timeout: float = HANG
    ) -> FakeMessage:
        def find() -> FakeMessage | None:
            if len(interaction.followup_ids) > index:
                return self.messages[interaction.followup_ids[index]]
            return None

        return await self.wait_for(find, timeout, f"follow-up #{index} of {interaction.id}")

    async def wait_until_connected(self, timeout: float = HANG) -> GatewayConnection:
        """A gateway connection that has identified (or resumed) and got READY."""
        return await self.wait_for(self._live_connection, timeout, "gateway session")

    # ------------------------------------------------------------------ gateway: test side
    def _live_connection(self, guild_id: int | None = None) -> GatewayConnection | None:
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
        return self._live_connection()

    def _live_session(self) -> _SessionState | None:
        conn = self._live_connection()
        return conn.session if conn else None

    def _intents(self) -> int:
        session = self._live_session()
        return session.intents if session else 0

    async def dispatch(self, event: str, data: dict[str, Any], guild_id: int | None = None) -> None:
        """Send a raw DISPATCH (op 0) to the current gateway session (of that server's
        shard)."""
        conn = self._live_connection(guild_id if guild_id is not None else _guild_of(data))
        if conn is None or conn.session is None:
            raise FakeDiscordError("no identified gateway session; is the client connected?")
        await self._send_dispatch(conn, event, data)

    async def _send_dispatch(self, conn: GatewayConnection, event: str, data: dict[str, Any]) -> None:
        session = conn.session
        assert session is not None
        session.seq += 1
        payload = {"op": 0, "t": event, "s": session.seq, "d": data}
        session.backlog.append(payload)
        self.dispatched.append((event, data))
        await conn.send(payload)
        self._changed()

    def _dispatch_soon(self, event: str, build: Callable[[], dict[str, Any]]) -> None:
        """Dispatch from sync code if a session is live (keeps order via the send lock)."""
        if self._live_session() is None:
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
        conn = self._live_connection()
        if conn is None:
            raise FakeDiscordError("no gateway session")
        await conn.send({"op": 7, "d": None, "s": None, "t": None})

    async def invalidate_session(self, resumable: bool = False) -> None:
        """Send op 9 INVALID_SESSION; discord.py re-identifies (or resumes if resumable)."""
        conn = self._live_connection()
        if conn is None:
            raise FakeDiscordError("no gateway session")
        await conn.send({"op": 9, "d": resumable, "s": None, "t": None})

    async def drop_gateway(self, code: int = 4000) -> None:
        """Close the websocket from the server side (4000 = reconnect + resume)."""
        conn = self._live_connection()
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
        msg = self._create_message(channel, user, {"content": content, "embeds": embeds or []})
        await self._echo_message("MESSAGE_CREATE", msg)
        return msg

    # ------------------------------------------------------------------ interactions: test side
    async def interaction_command(
        self,
        user: FakeUser,
        channel: FakeChannel,
        name: str,
        options: Mapping[str, Any] | Sequence[dict[str, Any]] | None = None,
        *,
        resolved: dict[str, Any] | None = None,
        check_registered: bool = True,
    ) -> FakeInteraction:
        """Deliver an APPLICATION_COMMAND (type 2) INTERACTION_CREATE for ``/name``.

        ``name`` may include subcommands: ``"kozel start"``.  ``options`` is either a mapping
        ``{option_name: value}`` (types are taken from the registered command; FakeUser /
        FakeChannel values become ids with ``resolved`` data) or a raw Discord options list.
        With ``check_registered`` (default) the command must have been synced, and Discord's
        client-side rules are applied: ``default_member_permissions`` hides the command from
        members lacking them, ``contexts`` gate DM usage, and a value must be one of the
        option's choices and within its min/max (FakeDiscordError is raised).
        """
        parts = name.split()
        root, sub_path = parts[0], parts[1:]
        guild = self.guilds.get(channel.guild_id) if channel.guild_id else None
        cmd = self.command(root, guild)
        data: dict[str, Any] = {"name": root, "type": 1}
        if cmd is None:
            if check_registered:
                raise FakeDiscordError(f"/{root} is not registered (did the bot run tree.sync()?)")
            data["id"] = str(self._ids.next())
        else:
            data["id"] = cmd["id"]
            if cmd.get("guild_id"):
                data["guild_id"] = cmd["guild_id"]
            if check_registered:
                self._check_command_allowed(cmd, user, guild)

        resolved_data: dict[str, Any] = dict(resolved or {})
        definition: list[dict[str, Any]] = list(cmd.get("options", [])) if cmd else []
        leaf_options = self._build_options(options, definition, sub_path, guild, resolved_data, cmd)
        if leaf_options:
            data["options"] = leaf_options
        if resolved_data:
            data["resolved"] = resolved_data
        return await self._deliver_interaction(INTERACTION_APPLICATION_COMMAND, user, channel, data)

    async def interaction_component(
        self,
        user: FakeUser,
        message: FakeMessage | int,
        custom_id: str,
        values: Sequence[Any] | None = None,
        *,
        check_component: bool = True,
    ) -> FakeInteraction:
        """Deliver a MESSAGE_COMPONENT (type 3) interaction: ``user`` clicks the button /
        picks ``values`` in the select with ``custom_id`` on ``message``.

        Checks what the Discord client enforces: the component exists and is enabled, the
        user can see the message (ephemerals only by their recipient), and select values are
        valid options within min/max.  ``values`` for user/channel selects may be FakeUser /
        FakeChannel objects or ids.
        """
        if isinstance(values, str):
            raise TypeError("values must be a list of option values, not a str")
        msg = self.messages[message] if isinstance(message, int) else message
        if msg.deleted:
            raise FakeDiscordError(f"message {msg.id} was deleted")
        if not msg.visible_to(user):
            raise FakeDiscordError(f"{user.username} cannot see ephemeral message {msg.id}")
        comp = msg.component(custom_id)
        if comp is None:
            if check_component:
                raise FakeDiscordError(
                    f"no component {custom_id!r} on message {msg.id}; has {msg.custom_ids()}"
                )
            comp = {"type": COMPONENT_BUTTON if values is None else COMPONENT_STRING_SELECT}
        if check_component and comp.get("disabled"):
            raise FakeDiscordError(f"component {custom_id!r} is disabled")
        ctype = int(comp["type"])
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": ctype}
        if ctype in SELECT_TYPES:
            raw_values = list(values or [])
            if check_component:
                self._check_select_values(comp, raw_values, ctype)
            data["values"] = [
                str(v.id) if isinstance(v, FakeUser | FakeChannel) else str(v) for v in raw_values
            ]
            resolved = self._resolve_select(ctype, raw_values, self.guilds.get(msg.guild_id or 0))
            if resolved:
                data["resolved"] = resolved
        elif values is not None:
            raise FakeDiscordError(f"component {custom_id!r} is a button; values make no sense")
        channel = self.channels.get(msg.channel_id) or FakeChannel(
            msg.channel_id, "unknown", guild_id=msg.guild_id
        )
        return await self._deliver_interaction(
            INTERACTION_MESSAGE_COMPONENT, user, channel, data, message=msg
        )

    async def interaction_modal_submit(
        self,
        user: FakeUser,
        opened_by: FakeInteraction,
        values: Mapping[str, str | Sequence[str]],
    ) -> FakeInteraction:
        """Submit the modal the bot opened (type 9 callback) in response to ``opened_by``.

        ``values`` maps text-input custom_ids to strings (select custom_ids to lists).
        """
        modal = opened_by.modal
        if modal is None:
            raise FakeDiscordError(f"interaction {opened_by.id} did not open a modal")

        def fill(components: list[dict[str, Any]]) -> list[dict[str, Any]]:
            out: list[dict[str, Any]] = []
            for comp in components:
                ctype = comp.get("type")
                if ctype == COMPONENT_ACTION_ROW:
                    out.append({"type": 1, "components": fill(comp.get("components", []))})
                elif ctype == COMPONENT_LABEL and isinstance(comp.get("component"), dict):
                    inner = fill([comp["component"]])
                    if inner:
                        out.append({"type": COMPONENT_LABEL, "component": inner[0]})
                elif "custom_id" in comp:
                    cid = comp["custom_id"]
                    entry: dict[str, Any] = {"type": ctype, "custom_id": cid}
                    if "id" in comp:
                        entry["id"] = comp["id"]
                    val = values.get(cid)
                    if ctype == COMPONENT_TEXT_INPUT:
                        entry["value"] = "" if val is None else str(val)
                    else:
                        entry["values"] = [] if val is None else [str(v) for v in val]
                    out.append(entry)
            return out

        unknown = set(values) - {c.get("custom_id") for c in walk_components(modal.get("components", []))}
        if unknown:
            raise FakeDiscordError(f"modal has no inputs {sorted(unknown)}")
        data = {"custom_id": modal["custom_id"], "components": fill(modal.get("components", []))}
        channel = self.channels.get(opened_by.channel_id) or FakeChannel(opened_by.channel_id, "unknown")
        source = self.messages.get(opened_by.source_message_id or 0)
        return await self._deliver_interaction(INTERACTION_MODAL_SUBMIT, user, channel, data, message=source)

    # ------------------------------------------------------------------ interaction helpers
    def _check_command_allowed(self, cmd: dict[str, Any], user: FakeUser, guild: FakeGuild | None) -> None:
        contexts = cmd.get("contexts")
        if guild is None:
            if contexts is not None and 1 not in contexts:
                raise FakeDiscordError(f"/{cmd['name']} is not available in DMs (contexts={contexts})")
            if contexts is None and cmd.get("dm_permission") is False:
                raise FakeDiscordError(f"/{cmd['name']} has dm_permission=false")
            return
        if contexts is not None and 0 not in contexts:
            raise FakeDiscordError(f"/{cmd['name']} is not available in guilds (contexts={contexts})")
        required = cmd.get("default_member_permissions")
        if required is not None:
            need = int(required)
            have = self.member_permissions(guild, user)
            if have & need != need:
                raise FakeDiscordError(
                    f"/{cmd['name']} requires permissions {need:#x}; {user.username} has {have:#x}"
                )

    def _build_options(
        self,
        options: Mapping[str, Any] | Sequence[dict[str, Any]] | None,
        definition: list[dict[str, Any]],
        sub_path: list[str],
        guild: FakeGuild | None,
        resolved: dict[str, Any],
        cmd: dict[str, Any] | None,
    ) -> list[dict[str, Any]]:
        # descend into subcommand groups / subcommands
        chain: list[tuple[str, int]] = []
        for part in sub_path:
            found = next((o for o in definition if o.get("name") == part and o.get("type") in (1, 2)), None)
            if found is None and cmd is not None:
                raise FakeDiscordError(f"/{cmd['name']} has no subcommand {part!r}")
            chain.append((part, found["type"] if found else 1))
            definition = list(found.get("options", [])) if found else []

        if options is None:
            leaf: list[dict[str, Any]] = []
        elif isinstance(options, Mapping):
            leaf = []
            for opt_name, value in options.items():
                spec = next((o for o in definition if o.get("name") == opt_name), None)
                if spec is None and cmd is not None:
                    raise FakeDiscordError(f"command has no option {opt_name!r}")
                otype = int(spec["type"]) if spec else _guess_option_type(value)
                leaf.append(
                    {
                        "name": opt_name,
                        "type": otype,
                        "value": self._option_value(otype, value, guild, resolved),
                    }
                )
        else:
            leaf = [dict(o) for o in options]

        if cmd is not None and isinstance(options, Mapping | None):
            given = {o["name"] for o in leaf}
            missing = [o["name"] for o in definition if o.get("required") and o["name"] not in given]
            if missing:
                raise FakeDiscordError(f"missing required options {missing}")
            for o in leaf:
                spec = next((d for d in definition if d.get("name") == o["name"]), None)
                if spec and spec.get("choices") and o["value"] not in [c["value"] for c in spec["choices"]]:
                    raise FakeDiscordError(f"{o['value']!r} is not a choice of option {o['name']!r}")
                if spec:
                    _check_option_range(spec, o["value"])

        for part, ptype in reversed(chain):
            leaf = [{"name": part, "type": ptype, "options": leaf}]
        return leaf

    def _option_value(self, otype: int, value: Any, guild: FakeGuild | None, resolved: dict[str, Any]) -> Any:
        if otype in (6, 9) and isinstance(value, FakeUser | int) and not isinstance(value, bool):
            user = value if isinstance(value, FakeUser) else self.users.get(value)
            if user is not None:
                resolved.setdefault("users", {})[str(user.id)] = user.payload()
                if guild is not None and user.id in guild.member_ids:
                    member = self._member_payload(guild, user, with_permissions=True)
                    member.pop("user")
                    resolved.setdefault("members", {})[str(user.id)] = member
                return str(user.id)
        if otype == 7 and isinstance(value, FakeChannel | int) and not isinstance(value, bool):
            channel = value if isinstance(value, FakeChannel) else self.channels.get(value)
            if channel is not None:
                ch = self._channel_payload(channel)
                ch["permissions"] = str(ALL_PERMISSIONS)
                resolved.setdefault("channels", {})[str(channel.id)] = ch
                return str(channel.id)
        if isinstance(value, FakeUser | FakeChannel):
            return str(value.id)
        return value

    def _check_select_values(self, comp: dict[str, Any], values: list[Any], ctype: int) -> None:
        lo, hi = int(comp.get("min_values", 1)), int(comp.get("max_values", 1))
        if not lo <= len(values) <= hi:
            raise FakeDiscordError(
                f"select {comp.get('custom_id')!r} takes {lo}..{hi} values, got {len(values)}"
            )
        if ctype == COMPONENT_STRING_SELECT:
            allowed = {o["value"] for o in comp.get("options", [])}
            bad = [v for v in values if v not in allowed]
            if bad:
                raise FakeDiscordError(f"{bad} not among options {sorted(allowed)}")

    def _resolve_select(self, ctype: int, values: list[Any], guild: FakeGuild | None) -> dict[str, Any]:
        resolved: dict[str, Any] = {}
        if ctype in (COMPONENT_USER_SELECT, COMPONENT_MENTIONABLE_SELECT):
            for v in values:
                self._option_value(6, v if isinstance(v, FakeUser) else int(v), guild, resolved)
        elif ctype == COMPONENT_CHANNEL_SELECT:
            for v in values:
                self._option_value(7, v if isinstance(v, FakeChannel) else int(v), guild, resolved)
        elif ctype == COMPONENT_ROLE_SELECT and guild is not None:
            for v in values:
                role = guild.roles.get(int(v))
                if role is not None:
                    resolved.setdefault("roles", {})[str(v)] = self._role_payload(guild, int(v), role)
        return resolved

    async def _deliver_interaction(
        self,
        itype: int,
        user: FakeUser,
        channel: FakeChannel,
        data: dict[str, Any],
        *,
        message: FakeMessage | None = None,
    ) -> FakeInteraction:
        await self.idle()
        conn = self._live_connection(channel.guild_id)
        if conn is None:
            raise FakeDiscordError("no identified gateway session; is the client connected?")
        iid = self._ids.next()
        token = f"aW50ZXJhY3Rpb24.{iid}.{secrets.token_hex(16)}"
        guild = self.guilds.get(channel.guild_id) if channel.guild_id else None
        payload: dict[str, Any] = {
            "id": str(iid),
            "application_id": str(self.application_id),
            "type": itype,
            "data": data,
            "token": token,
            "version": 1,
            "channel_id": str(channel.id),
            "channel": self._channel_payload(channel),
            "locale": user.locale,
            "entitlements": [],
            "attachment_size_limit": 10 * 1024 * 1024,
        }
        if guild is not None:
            payload.update(
                guild_id=str(guild.id),
                guild={"id": str(guild.id), "locale": guild.locale, "features": []},
                guild_locale=guild.locale,
                member=self._member_payload(guild, user, with_permissions=True),
                app_permissions=str(self.member_permissions(guild, self.bot)),
                authorizing_integration_owners={"0": str(guild.id)},
                context=0,
            )
        else:
            payload.update(
                user=user.payload(),
                app_permissions=str(DEFAULT_BOT_PERMISSIONS),
                authorizing_integration_owners={"0": "0"},
                context=1,
            )
        if message is not None:
            payload["message"] = self._message_payload(message)
        inter = FakeInteraction(
            id=iid,
            token=token,
            type=itype,
            user=user,
            channel_id=channel.id,
            guild_id=guild.id if guild else None,
            data=data,
            payload=payload,
            source_message_id=message.id if message else None,
            created=self.clock(),
        )
        self.interactions[iid] = inter
        self._interactions_by_token[token] = inter
        await self._send_dispatch(conn, "INTERACTION_CREATE", payload)
        return inter

    # ================================================================== payload builders
    def _channel_payload(self, channel: FakeChannel) -> dict[str, Any]:
        if channel.is_dm:
            recipient = self.users.get(channel.recipient_id or 0)
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
            msg_count = len(self.messages_in(channel))
            data.update(
                parent_id=str(channel.parent_id),
                owner_id=str(channel.owner_id),
                message_count=msg_count,
                total_message_sent=msg_count,
                member_count=len(channel.thread_member_ids),
                thread_metadata={
                    "archived": channel.archived,
                    "auto_archive_duration": 1440,
                    "archive_timestamp": _now_iso(),
                    "locked": channel.locked,
                    "invitable": channel.invitable,
                    "create_timestamp": _now_iso(),
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

    def _role_payload(self, guild: FakeGuild, role_id: int, role: dict[str, Any]) -> dict[str, Any]:
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

    def _member_roles(self, guild: FakeGuild, user: FakeUser) -> list[str]:
        """Roles giving the member exactly its configured permissions (beyond @everyone)."""
        perms = guild.permission_overrides.get(user.id, user.permissions)
        everyone = guild.roles[guild.id]["permissions"]
        if perms == everyone:
            return []
        for rid, role in guild.roles.items():
            if rid != guild.id and role["permissions"] == perms:
                return [str(rid)]
        rid = self._ids.next()
        guild.roles[rid] = {"name": f"perms-{perms:x}", "permissions": perms}
        return [str(rid)]

    def _member_payload(
        self, guild: FakeGuild, user: FakeUser, *, with_permissions: bool = False
    ) -> dict[str, Any]:
        data: dict[str, Any] = {
            "user": user.payload(),
            "roles": self._member_roles(guild, user),
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
            data["permissions"] = str(self.member_permissions(guild, user))
        return data

    def _guild_create_payload(self, guild: FakeGuild, intents: int) -> dict[str, Any]:
        members = [
            self._member_payload(guild, self.users[uid])
            for uid in guild.member_ids
            if intents & INTENT_GUILD_MEMBERS or uid == self.bot.id
        ]
        channels = [self._channel_payload(self.channels[cid]) for cid in guild.channel_ids]
        threads = [
            self._channel_payload(ch)
            for ch in self.channels.values()
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
            "roles": [self._role_payload(guild, rid, r) for rid, r in guild.roles.items()],
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

    def _message_payload(self, msg: FakeMessage, *, gateway: bool = False) -> dict[str, Any]:
        mentions = []
        for uid in dict.fromkeys(int(x) for x in _USER_MENTION_RE.findall(msg.content)):
            if uid in self.users:
                mentions.append(self.users[uid].payload())
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
                    "me": self.bot.id in users,
                    "me_burst": False,
                }
                for emoji, users in msg.reactions.items()
                if users
            ]
        if msg.webhook_id is not None:
            data["webhook_id"] = str(msg.webhook_id)
            data["application_id"] = str(self.application_id)
        if msg.interaction_metadata is not None:
            data["interaction_metadata"] = msg.interaction_metadata
        if msg.message_reference is not None:
            data["message_reference"] = msg.message_reference
        if gateway and msg.guild_id is not None:
            data["guild_id"] = str(msg.guild_id)
            guild = self.guilds.get(msg.guild_id)
            if guild is not None and msg.author.id in guild.member_ids:
                member = self._member_payload(guild, msg.author)
                member.pop("user")
                data["member"] = member
        return data

    # ================================================================== message store
    def _create_message(
        self,
        channel: FakeChannel | int,
        author: FakeUser,
        body: Mapping[str, Any],
        *,
        files: Sequence[dict[str, Any]] = (),
        interaction: FakeInteraction | None = None,
        msg_type: int = 0,
        flags: int | None = None,
    ) -> FakeMessage:
        ch = channel if isinstance(channel, FakeChannel) else self.channels.get(channel)
        cid = ch.id if ch else int(channel)  # type: ignore[arg-type]
        msg = FakeMessage(
            id=self._ids.next(),
            channel_id=cid,
            guild_id=ch.guild_id if ch else None,
            author=author,
            content=str(body.get("content") or ""),
            embeds=list(body.get("embeds") or []),
            components=_number_components(list(body.get("components") or [])),
            flags=int(body.get("flags") or 0) if flags is None else flags,
            type=msg_type,
            message_reference=body.get("message_reference"),
        )
        self._attach_files(msg, body, files)
        if interaction is not None:
            msg.webhook_id = self.application_id
            msg.interaction_id = interaction.id
            msg.interaction_metadata = {
                "id": str(interaction.id),
                "type": interaction.type,
                "user": interaction.user.payload(),
                "authorizing_integration_owners": interaction.payload.get(
                    "authorizing_integration_owners", {}
                ),
            }
            if interaction.source_message_id is not None:
                msg.interaction_metadata["interacted_message_id"] = str(interaction.source_message_id)
            if msg.flags & FLAG_EPHEMERAL:
                msg.ephemeral_for = interaction.user.id
        self.messages[msg.id] = msg
        if ch is not None and ch.is_thread:
            ch.thread_member_ids.add(author.id)
        self._changed()
        return msg

    def _attach_files(
        self, msg: FakeMessage, body: Mapping[str, Any], files: Sequence[dict[str, Any]]
    ) -> None:
        if "attachments" in body:
            keep = {str(a.get("id")) for a in body.get("attachments") or []}
            msg.attachments = [a for a in msg.attachments if a["id"] in keep]
        for f in files:
            att_id = str(self._ids.next())
            url = f"{self.base_url}/attachments/{msg.channel_id}/{att_id}/{f['filename']}"
            msg.attachments.append(
                {
                    "id": att_id,
                    "filename": f["filename"],
                    "size": len(f["data"]),
                    "url": url,
                    "proxy_url": url,
                    "content_type": f.get("content_type") or "application/octet-stream",
                }
            )
            msg.files[f["filename"]] = f["data"]

    def _edit_message(
        self, msg: FakeMessage, body: Mapping[str, Any], files: Sequence[dict[str, Any]] = ()
    ) -> None:
        before = (
            msg.content,
            list(msg.embeds),
            list(msg.components),
            msg.flags,
            list(msg.attachments),
        )
        if "content" in body:
            msg.content = str(body["content"] or "")
        if "embeds" in body:
            msg.embeds = list(body["embeds"] or [])
        if "components" in body:
            msg.components = _number_components(list(body["components"] or []))
        if "flags" in body and body["flags"] is not None:
            # ephemerality can't change; IS_COMPONENTS_V2 can't be removed once set
            sticky = msg.flags & (FLAG_EPHEMERAL | FLAG_IS_COMPONENTS_V2)
            msg.flags = (int(body["flags"]) & ~(FLAG_EPHEMERAL | FLAG_LOADING)) | sticky
        msg.flags &= ~FLAG_LOADING
        self._attach_files(msg, body, files)
        try:
            self._validate_message(msg)
        except _HTTPError:
            msg.content, msg.embeds, msg.components, msg.flags, msg.attachments = before
            raise
        msg.edited_timestamp = _now_iso()
        msg.edits.append(dict(body))
        self._changed()

    async def _echo_message(self, event: str, msg: FakeMessage) -> None:
        """Gateway echo of a message, as Discord does (never for ephemerals), to the shard of
        its server."""
        conn = self._live_connection(msg.guild_id)
        if conn is None or conn.session is None or msg.ephemeral:
            return
        intents = conn.session.intents
        ch = self.channels.get(msg.channel_id)
        is_dm = ch is not None and ch.is_dm
        if not intents & (INTENT_DIRECT_MESSAGES if is_dm else INTENT_GUILD_MESSAGES):
            return
        payload = self._message_payload(msg, gateway=True)
        privileged_content = (
            intents & INTENT_MESSAGE_CONTENT
            or is_dm
            or msg.author.id == self.bot.id
            or any(m["id"] == str(self.bot.id) for m in payload["mentions"])
        )
        if not privileged_content:
            payload.update(content="", embeds=[], attachments=[], components=[])
        await self._send_dispatch(conn, event, payload)

    # ---- validation of what the bot sends (mirrors Discord's server-side checks) ----
    def _validate_message(self, msg: FakeMessage) -> None:
        if not self.validate:
            return
        v2 = msg.is_components_v2
        if len(msg.content) > 2000:
            raise _form_error("content", "BASE_TYPE_MAX_LENGTH", "Must be 2000 or fewer in length.")
        if v2 and (msg.content or msg.embeds):
            raise _form_error(
                "content" if msg.content else "embeds",
                "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2",
                "The 'content' and 'embeds' fields cannot be used when using MessageFlags.IS_COMPONENTS_V2",
            )
        if not (msg.content or msg.embeds or msg.components or msg.attachments) and not msg.loading:
            raise _HTTPError(400, 50006, "Cannot send an empty message")
        if len(msg.embeds) > 10:
            raise _form_error("embeds", "BASE_TYPE_MAX_LENGTH", "Must be 10 or fewer in length.")
        total_embed_chars = 0
        for i, embed in enumerate(msg.embeds):
            for key, limit in (("title", 256), ("description", 4096)):
                value = str(embed.get(key) or "")
                total_embed_chars += len(value)
                if len(value) > limit:
                    raise _form_error(
                        f"embeds.{i}.{key}",
                        "BASE_TYPE_MAX_LENGTH",
                        f"Must be {limit} or fewer in length.",
                    )
            for fld in embed.get("fields", []):
                total_embed_chars += len(str(fld.get("name", ""))) + len(str(fld.get("value", "")))
        if total_embed_chars > 6000:
            raise _form_error("embeds", "MAX_EMBED_SIZE_EXCEEDED", "Embed size exceeds maximum size of 6000")
        self._validate_components(msg.components, v2)

    def _validate_components(self, components: list[dict[str, Any]], v2: bool) -> None:
        if v2:
            for i, comp in enumerate(components):
                if comp.get("type") not in V2_TOP_LEVEL_TYPES:
                    raise _form_error(
                        f"components.{i}.type",
                        "UNION_TYPE_CHOICES",
                        'Value of field "type" must be one of top-level types.',
                    )
            # Component Reference: "Messages allow up to 40 total components" - nested ones
            # (a container's children, a section's texts and accessory) count; a container has
            # no limit of its own since 2025-04-29 (change log "Raised Component Limits").
            total = sum(1 for _ in walk_components(components))
            if total > 40:
                raise _form_error("components", "BASE_TYPE_MAX_LENGTH", "Must be 40 or fewer in length.")
        else:
            if len(components) > 5:
                raise _form_error("components", "BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer in length.")
            for i, comp in enumerate(components):
                if comp.get("type") != COMPONENT_ACTION_ROW:
                    raise _form_error(
                        f"components.{i}.type",
                        "COMPONENT_LAYOUT_WIDTH_EXCEEDED"
                        if comp.get("type") in INTERACTIVE_TYPES
                        else "UNION_TYPE_CHOICES",
                        "Top-level components must be action rows without the IS_COMPONENTS_V2 flag.",
                    )
        seen: set[str] = set()
        for path, comp in _walk_with_paths(components, "components"):
            self._validate_component(path, comp, seen)
        if v2:
            # 4000 characters of text across the message's text displays: not on Discord's
            # pages but enforced by it, as discord.py documents (ui.TextDisplay "Up to 4000
            # characters", LayoutView.content_length "a maximum of 4000 display characters
            # across all its items") and JDA (TextDisplay: "the 4000 total characters, as
            # imposed by components V2"). The error code is the fake's.
            text_len = sum(
                len(str(c.get("content", "")))
                for c in walk_components(components)
                if c.get("type") == COMPONENT_TEXT_DISPLAY
            )
            if text_len > 4000:
                raise _form_error(
                    "components",
                    "MAX_TEXT_LENGTH",
                    "Total text in components exceeds 4000 characters.",
                )

    @staticmethod
    def _validate_component(path: str, comp: dict[str, Any], seen: set[str]) -> None:
        """One component's own limits (rows' width, custom ids, labels, options)."""
        ctype = comp.get("type")
        if ctype == COMPONENT_ACTION_ROW:
            # "Up to 5 contextually grouped buttons" or "A single select component"
            children = comp.get("components", [])
            _children_of(path, children, INTERACTIVE_TYPES)
            selects = [c for c in children if c.get("type") in SELECT_TYPES]
            if not children or len(children) > 5 or (selects and len(children) > 1):
                raise _form_error(
                    f"{path}.components",
                    "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
                    "The specified component exceeds the maximum width",
                )
        elif ctype == COMPONENT_SECTION:
            _validate_section(path, comp)
        elif ctype == COMPONENT_CONTAINER:
            _children_of(path, comp.get("components") or [], CONTAINER_CHILD_TYPES)
        elif ctype == COMPONENT_TEXT_DISPLAY:
            # "content: Text that will be displayed similar to a message" (required); at most
            # 4000 characters, the whole message's text limit (see _validate_components)
            _max_length(f"{path}.content", comp.get("content"), 4000, required=True)
        elif ctype == COMPONENT_THUMBNAIL:
            media = comp.get("media")
            if not isinstance(media, dict) or not media.get("url"):
                raise _form_error(f"{path}.media", "BASE_TYPE_REQUIRED", "This field is required")
        if ctype in INTERACTIVE_TYPES:
            takes_custom_id = ctype != COMPONENT_BUTTON or comp.get("style") not in (
                BUTTON_LINK,
                BUTTON_PREMIUM,
            )
            cid = comp.get("custom_id")
            if takes_custom_id:
                if not cid:
                    raise _form_error(f"{path}.custom_id", "BASE_TYPE_REQUIRED", "This field is required")
                if len(cid) > 100:
                    raise _form_error(
                        f"{path}.custom_id",
                        "BASE_TYPE_MAX_LENGTH",
                        "Must be 100 or fewer in length.",
                    )
                if cid in seen:
                    raise _form_error(
                        f"{path}.custom_id",
                        "COMPONENT_CUSTOM_ID_DUPLICATED",
                        "Component custom id cannot be duplicated",
                    )
                seen.add(cid)
            if ctype == COMPONENT_BUTTON:
                _validate_button(path, comp)
            if ctype in SELECT_TYPES:
                _validate_select(path, comp)

    # ================================================================== REST plumbing
    def _route(self, method: str, template: str, handler: _Handler, *, auth: bool = True) -> None:
        self._routes.append((method, _route_regex(template), handler, auth))

    def _register_routes(self) -> None:
        r = self._route
        r("GET", "/users/@me", self._get_me)
        r("GET", "/users/{user_id}", self._get_user)
        r("POST", "/users/@me/channels", self._create_dm)
        r("GET", "/gateway", self._get_gateway, auth=False)
        r("GET", "/gateway/bot", self._get_gateway_bot)
        r("GET", "/oauth2/applications/@me", self._get_application)
        r("GET", "/applications/@me", self._get_application)
        r("GET", "/applications/{app_id}/commands", self._get_commands)
        r("PUT", "/applications/{app_id}/commands", self._put_commands)
        r("POST", "/applications/{app_id}/commands", self._post_command)
        r("DELETE", "/applications/{app_id}/commands/{command_id}", self._delete_command)
        r("GET", "/applications/{app_id}/guilds/{guild_id}/commands", self._get_commands)
        r("PUT", "/applications/{app_id}/guilds/{guild_id}/commands", self._put_commands)
        r("POST", "/applications/{app_id}/guilds/{guild_id}/commands", self._post_command)
        r(
            "DELETE",
            "/applications/{app_id}/guilds/{guild_id}/commands/{command_id}",
            self._delete_command,
        )
        r("GET", "/channels/{channel_id}", self._get_channel)
        r("PATCH", "/channels/{channel_id}", self._patch_channel)
        r("GET", "/channels/{channel_id}/messages", self._list_messages)
        r("POST", "/channels/{channel_id}/messages", self._post_message)
        r("GET", "/channels/{channel_id}/messages/{message_id}", self._get_message)
        r("PATCH", "/channels/{channel_id}/messages/{message_id}", self._patch_message)
        r("DELETE", "/channels/{channel_id}/messages/{message_id}", self._delete_message)
        r("POST", "/channels/{channel_id}/typing", self._no_content)
        r(
            "PUT",
            "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me",
            self._add_reaction,
        )
        r(
            "DELETE",
            "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me",
            self._remove_reaction,
        )
        r("POST", "/channels/{channel_id}/threads", self._start_thread)
        r("POST", "/channels/{channel_id}/messages/{message_id}/threads", self._start_thread)
        r("PUT", "/channels/{channel_id}/thread-members/{user_id}", self._join_thread)
        r("DELETE", "/channels/{channel_id}/thread-members/{user_id}", self._leave_thread)
        r("GET", "/guilds/{guild_id}", self._get_guild)
        r("GET", "/guilds/{guild_id}/channels", self._get_guild_channels)
        r("GET", "/guilds/{guild_id}/members", self._list_members)
        r("GET", "/guilds/{guild_id}/members/{user_id}", self._get_member)
        r(
            "POST",
            "/interactions/{interaction_id}/{token}/callback",
            self._interaction_callback,
            auth=False,
        )
        r("POST", "/webhooks/{app_id}/{token}", self._webhook_execute, auth=False)
        r("GET", "/webhooks/{app_id}/{token}/messages/{message_id}", self._webhook_get, auth=False)
        r(
            "PATCH",
            "/webhooks/{app_id}/{token}/messages/{message_id}",
            self._webhook_edit,
            auth=False,
        )
        r(
            "DELETE",
            "/webhooks/{app_id}/{token}/messages/{message_id}",
            self._webhook_delete,
            auth=False,
        )

    async def _handle_rest(self, request: web.Request) -> web.StreamResponse:
        # Waiters are woken only once the response bytes are on the socket, so a test never
        # acts on state whose HTTP response discord.py has not even received yet.
        self._inflight += 1
        try:
            response = await self._route_rest(request)
            await response.prepare(request)
            await response.write_eof()
            return response
        finally:
            self._inflight -= 1
            self._changed()

    async def _route_rest(self, request: web.Request) -> web.Response:
        path = "/" + request.match_info["tail"]
        method = request.method.upper()
        call = RecordedCall(
            index=len(self.calls),
            method=method,
            path=path,
            query=dict(request.query),
            json=None,
            authorized=request.headers.get("Authorization") == f"Bot {self.token}",
            at=self.clock(),
        )
        self.calls.append(call)
        files: list[dict[str, Any]] = []
        try:
            ctype = request.headers.get("Content-Type", "")
            if ctype.startswith("multipart/"):
                form = await request.post()
                for key, value in form.items():
                    if key == "payload_json":
                        call.json = json.loads(str(value))
                    elif isinstance(value, web.FileField):
                        files.append(
                            {
                                "field": key,
                                "filename": value.filename,
                                "content_type": value.content_type,
                                "data": value.file.read(),
                            }
                        )
                call.files = [{k: v for k, v in f.items() if k != "data"} for f in files]
            elif request.can_read_body:
                raw = await request.read()
                if raw:
                    call.json = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            return self._finish(call, 400, {"message": "400: Bad Request", "code": 50109})

        fault = self._take_fault(method, path)
        if fault is not None:
            call.injected = True
            return self._fault_response(call, fault)
        wait = self._take_rate(method, path)
        if wait > 0:
            self.limited.append(call)
            return self._fault_response(
                call, _Fault(method, re.compile(""), 429, 0, wait, 0, "You are being rate limited.", False)
            )

        for route_method, pattern, handler, auth in self._routes:
            match = pattern.fullmatch(path)
            if route_method != method or match is None:
                continue
            if auth and not call.authorized:
                return self._finish(call, 401, {"message": "401: Unauthorized", "code": 0})
            req = _Request(method, path, match.groupdict(), dict(request.query), call.json, files, call)
            try:
                result = await handler(req)
            except _HTTPError as exc:
                return self._finish(call, exc.status, exc.body)
            if result is None:
                return self._finish(call, 204, None)
            status, body = result if isinstance(result, tuple) else (200, result)
            return self._finish(call, status, body)
        return self._finish(call, 404, {"message": "404: Not Found", "code": 0})

    def _finish(
        self,
        call: RecordedCall,
        status: int,
        body: Any,
        headers: dict[str, str] | None = None,
    ) -> web.Response:
        call.status = status
        call.response = body
        self._changed()
        if body is None:
            return web.Response(status=status, headers=headers)
        # exactly "application/json": discord.py's json_or_text() compares the header verbatim
        # and treats "application/json; charset=utf-8" (aiohttp's default) as plain text
        return web.Response(
            body=json.dumps(body).encode(),
            status=status,
            headers={**(headers or {}), "Content-Type": "application/json"},
        )

    def _take_fault(self, method: str, path: str) -> _Fault | None:
        for fault in self._faults:
            if fault.remaining > 0 and fault.method in ("*", method) and fault.pattern.fullmatch(path):
                fault.remaining -= 1
                if fault.remaining == 0:
                    self._faults.remove(fault)
                return fault
        return None

    def _bucket_of(self, method: str, path: str) -> tuple[str, int, float] | None:
        """The rate-limit bucket a request falls in (key, limit, window), if any."""
        parts = path.strip("/").split("/")
        if parts[0] == "channels" and len(parts) == 3 and parts[2] == "messages" and method == "POST":
            return f"post:{parts[1]}", 5, 5.0
        if (
            parts[0] == "channels"
            and len(parts) == 4
            and parts[2] == "messages"
            and method in ("PATCH", "DELETE")
        ):
            return f"edit:{parts[1]}", 5, 5.0
        if parts[0] == "webhooks" and len(parts) >= 3 and method != "GET":
            return f"hook:{parts[2]}", 5, 2.0
        return None

    def _take_rate(self, method: str, path: str) -> float:
        """0: the request may go (and is counted); else seconds until its bucket has room."""
        bucket = self._bucket_of(method, path) if self.rate_limits else None
        if bucket is None:
            return 0.0
        key, limit, window = bucket
        now = self.clock()
        times = [t for t in self._buckets.get(key, []) if t > now - window]
        self._buckets[key] = times
        if len(times) >= limit:
            return round(times[0] + window - now, 3) or 0.001
        times.append(now)
        return 0.0

    def _fault_response(self, call: RecordedCall, fault: _Fault) -> web.Response:
        if fault.status == 429:
            body = {
                "message": fault.message,
                "retry_after": fault.retry_after,
                "global": fault.is_global,
                "code": 0,
            }
            headers = {
                "Via": "1.1 google",  # discord.py treats a 429 without Via as a Cloudflare ban
                "Retry-After": str(max(1, int(fault.retry_after + 0.999))),
                "X-RateLimit-Scope": "global" if fault.is_global else "user",
            }
            if fault.is_global:
                headers["X-RateLimit-Global"] = "true"
            return self._finish(call, 429, body, headers)
        return self._finish(call, fault.status, {"message": fault.message, "code": fault.code})

    # ---- small helpers for handlers ----
    def _channel(self, req: _Request) -> FakeChannel:
        channel = self.channels.get(int(req.params["channel_id"]))
        if channel is None:
            raise _unknown("Channel", 10003)
        return channel

    def _guild(self, req: _Request) -> FakeGuild:
        guild = self.guilds.get(int(req.params["guild_id"]))
        if guild is None:
            raise _unknown("Guild", 10004)
        return guild

    def _channel_message(self, req: _Request) -> FakeMessage:
        msg = self.messages.get(_int_or_zero(req.params["message_id"]))
        # ephemeral messages are invisible to the channel endpoints
        if msg is None or msg.deleted or msg.ephemeral or msg.channel_id != int(req.params["channel_id"]):
            raise _unknown("Message", 10008)
        return msg

    def _check_app(self, req: _Request) -> None:
        if req.params.get("app_id") != str(self.application_id):
            raise _HTTPError(403, 50001, "Missing Access")

    # ---- users / app / gateway ----
    async def _get_me(self, req: _Request) -> Any:
        return {
            **self.bot.payload(),
            "verified": True,
            "mfa_enabled": False,
            "locale": "en-US",
            "email": None,
        }

    async def _get_user(self, req: _Request) -> Any:
        user = self.users.get(_int_or_zero(req.params["user_id"]))
        if user is None:
            raise _unknown("User", 10013)
        return user.payload()

    async def _create_dm(self, req: _Request) -> Any:
        user = self.users.get(_int_or_zero(str((req.json or {}).get("recipient_id"))))
        if user is None:
            raise _unknown("User", 10013)
        return self._channel_payload(self.dm_channel(user))

    async def _get_gateway(self, req: _Request) -> Any:
        return {"url": self.gateway_url}

    async def _get_gateway_bot(self, req: _Request) -> Any:
        return {
            "url": self.gateway_url,
            "shards": 1,
            "session_start_limit": {
                "total": 1000,
                "remaining": 999,
                "reset_after": 14_400_000,
                "max_concurrency": 1,
            },
        }

    async def _get_application(self, req: _Request) -> Any:
        return {
            "id": str(self.application_id),
            "name": self.bot.username,
            "icon": None,
            "description": "",
            "summary": "",
            "rpc_origins": [],
            "bot_public": True,
            "bot_require_code_grant": False,
            "bot": self.bot.payload(),
            "owner": self.app_owner.payload(),
            "team": None,
            "verify_key": "0" * 64,
            "flags": 0,
            "interactions_endpoint_url": None,
            "redirect_uris": [],
            "approximate_guild_count": len(self.guilds),
            "tags": [],
            "integration_types_config": {"0": {}},
        }

    # ---- application commands ----
    def _command_pool(self, req: _Request) -> tuple[list[dict[str, Any]], int | None]:
        self._check_app(req)
        if "guild_id" in req.params:
            guild = self._guild(req)
            return self.guild_commands.setdefault(guild.id, []), guild.id
        return self.global_commands, None

    def _normalise_command(
        self, body: dict[str, Any], guild_id: int | None, existing: list[dict[str, Any]], index: int
    ) -> dict[str, Any]:
        ctype = int(body.get("type", 1))
        name = str(body.get("name", ""))
        if self.validate:
            if not _COMMAND_NAME_RE.fullmatch(name) or (ctype == 1 and name != name.lower()):
                raise _form_error(
                    f"{index}.name", "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid"
                )
            if ctype == 1 and not 1 <= len(str(body.get("description", ""))) <= 100:
                raise _form_error(
                    f"{index}.description",
                    "BASE_TYPE_BAD_LENGTH",
                    "Must be between 1 and 100 in length.",
                )
            for loc_name in (body.get("name_localizations") or {}).values():
                if not _COMMAND_NAME_RE.fullmatch(loc_name) or (ctype == 1 and loc_name != loc_name.lower()):
                    raise _form_error(
                        f"{index}.name_localizations",
                        "APPLICATION_COMMAND_INVALID_NAME",
                        "Command name is invalid",
                    )
            _validate_command_options(body.get("options") or [], f"{index}.options")
        old = next((c for c in existing if c["name"] == name and c.get("type", 1) == ctype), None)
        cmd = {
            "id": old["id"] if old else str(self._ids.next()),
            "application_id": str(self.application_id),
            "version": str(self._ids.next()),
            "type": ctype,
            "name": name,
            "description": body.get("description", "") if ctype == 1 else "",
            "options": body.get("options") or [],
            "default_member_permissions": body.get("default_member_permissions"),
            "dm_permission": body.get("dm_permission", True),
            "nsfw": bool(body.get("nsfw", False)),
            "name_localizations": body.get("name_localizations"),
            "description_localizations": body.get("description_localizations"),
            "contexts": body.get("contexts"),
            "integration_types": body.get("integration_types") or [0],
        }
        if guild_id is not None:
            cmd["guild_id"] = str(guild_id)
        return cmd

    async def _get_commands(self, req: _Request) -> Any:
        pool, _ = self._command_pool(req)
        return pool

    async def _put_commands(self, req: _Request) -> Any:
        pool, guild_id = self._command_pool(req)
        bodies = req.json or []
        if not isinstance(bodies, list):
            raise _HTTPError(400, 50035, "Invalid Form Body")
        if len(bodies) > 100:
            raise _form_error("_errors", "BASE_TYPE_MAX_LENGTH", "Must be 100 or fewer in length.")
        seen: set[tuple[str, int]] = set()
        new = []
        for i, body in enumerate(bodies):
            key = (str(body.get("name")), int(body.get("type", 1)))
            if key in seen:
                raise _form_error(
                    f"{i}.name",
                    "APPLICATION_COMMANDS_DUPLICATE_NAME",
                    f"Application command names must be unique: {key[0]}",
                )
            seen.add(key)
            new.append(self._normalise_command(body, guild_id, pool, i))
        pool[:] = new
        self._changed()
        return new

    async def _post_command(self, req: _Request) -> Any:
        pool, guild_id = self._command_pool(req)
        cmd = self._normalise_command(dict(req.json or {}), guild_id, pool, 0)
        existed = any(c["id"] == cmd["id"] for c in pool)
        pool[:] = [c for c in pool if c["id"] != cmd["id"]] + [cmd]
        return (200 if existed else 201), cmd

    async def _delete_command(self, req: _Request) -> Any:
        pool, _ = self._command_pool(req)
        before = len(pool)
        pool[:] = [c for c in pool if c["id"] != req.params["command_id"]]
        if len(pool) == before:
            raise _unknown("application command", 10063)
        return None

    # ---- channels / messages ----
    async def _get_channel(self, req: _Request) -> Any:
        return self._channel_payload(self._channel(req))

    async def _patch_channel(self, req: _Request) -> Any:
        channel = self._channel(req)
        body = req.json or {}
        if "name" in body:
            channel.name = str(body["name"])
        if "archived" in body:
            channel.archived = bool(body["archived"])
        if "locked" in body:
            channel.locked = bool(body["locked"])
        if "topic" in body:
            channel.topic = body["topic"]
        payload = self._channel_payload(channel)
        if self._live_session() is not None:
            await self.dispatch("THREAD_UPDATE" if channel.is_thread else "CHANNEL_UPDATE", payload)
        return payload

    def _check_can_post(self, channel: FakeChannel) -> None:
        if channel.is_thread and (channel.archived or channel.locked):
            raise _HTTPError(400, 50083, "Thread is archived")
        guild = self.guilds.get(channel.guild_id or 0)
        if guild is not None:
            perms = self.member_permissions(guild, self.bot)
            need = PERM_SEND_MESSAGES_IN_THREADS if channel.is_thread else PERM_SEND_MESSAGES
            if perms & (need | PERM_VIEW_CHANNEL) != need | PERM_VIEW_CHANNEL:
                raise _HTTPError(403, 50013, "Missing Permissions")

    async def _list_messages(self, req: _Request) -> Any:
        channel = self._channel(req)
        limit = min(int(req.query.get("limit", 50)), 100)
        msgs = [m for m in self.messages_in(channel) if not m.ephemeral]
        if "before" in req.query:
            msgs = [m for m in msgs if m.id < int(req.query["before"])]
        if "after" in req.query:
            msgs = [m for m in msgs if m.id > int(req.query["after"])][:limit]
        msgs = sorted(msgs, key=lambda m: m.id, reverse=True)[:limit]
        return [self._message_payload(m) for m in msgs]

    async def _post_message(self, req: _Request) -> Any:
        channel = self._channel(req)
        self._check_can_post(channel)
        body = dict(req.json or {})
        flags = int(body.get("flags") or 0)
        if flags & FLAG_EPHEMERAL:
            raise _form_error(
                "flags",
                "MESSAGE_FLAGS_INVALID",
                "Ephemeral messages can only be sent as interaction responses",
            )
        ref = body.get("message_reference")
        if ref and self.validate:
            target = self.messages.get(_int_or_zero(str(ref.get("message_id"))))
            if (target is None or target.deleted) and ref.get("fail_if_not_exists", True):
                raise _form_error("message_reference", "MESSAGE_REFERENCE_UNKNOWN_MESSAGE", "Unknown message")
        msg = self._build_validated(channel, self.bot, body, req.files, msg_type=19 if ref else 0)
        await self._echo_message("MESSAGE_CREATE", msg)
        return self._message_payload(msg)

    def _build_validated(
        self,
        channel: FakeChannel | int,
        author: FakeUser,
        body: Mapping[str, Any],
        files: Sequence[dict[str, Any]],
        **kwargs: Any,
    ) -> FakeMessage:
        msg = self._create_message(channel, author, body, files=files, **kwargs)
        try:
            self._validate_message(msg)
        except _HTTPError:
            del self.messages[msg.id]
            raise
        return msg

    async def _get_message(self, req: _Request) -> Any:
        return self._message_payload(self._channel_message(req))

    async def _patch_message(self, req: _Request) -> Any:
        msg = self._channel_message(req)
        if msg.author.id != self.bot.id:
            raise _HTTPError(403, 50005, "Cannot edit a message authored by another user")
        self._edit_message(msg, dict(req.json or {}), req.files)
        await self._echo_message("MESSAGE_UPDATE", msg)
        return self._message_payload(msg)

    async def _delete_message(self, req: _Request) -> Any:
        msg = self._channel_message(req)
        await self._delete(msg)
        return None

    async def _delete(self, msg: FakeMessage) -> None:
        msg.deleted = True
        self._changed()
        if not msg.ephemeral and self._live_session() is not None:
            data = {"id": str(msg.id), "channel_id": str(msg.channel_id)}
            if msg.guild_id:
                data["guild_id"] = str(msg.guild_id)
            await self.dispatch("MESSAGE_DELETE", data)

    async def _no_content(self, req: _Request) -> Any:
        self._channel(req)
        return None

    async def _add_reaction(self, req: _Request) -> Any:
        msg = self._channel_message(req)
        msg.reactions.setdefault(req.params["emoji"], set()).add(self.bot.id)
        self._changed()
        return None

    async def _remove_reaction(self, req: _Request) -> Any:
        msg = self._channel_message(req)
        msg.reactions.get(req.params["emoji"], set()).discard(self.bot.id)
        self._changed()
        return None

    async def _start_thread(self, req: _Request) -> Any:
        parent = self._channel(req)
        if parent.is_thread or parent.is_dm:
            raise _HTTPError(400, 50024, "Cannot execute action on this channel type")
        body = req.json or {}
        name = str(body.get("name") or "")
        if not 1 <= len(name) <= 100:
            raise _form_error("name", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")
        private = (
            "message_id" not in req.params
            and int(body.get("type", CHANNEL_PRIVATE_THREAD)) == CHANNEL_PRIVATE_THREAD
        )
        thread = FakeChannel(
            self._ids.next() if "message_id" not in req.params else int(req.params["message_id"]),
            name,
            CHANNEL_PRIVATE_THREAD if private else CHANNEL_PUBLIC_THREAD,
            parent.guild_id,
            parent_id=parent.id,
            owner_id=self.bot.id,
            invitable=bool(body.get("invitable", True)),
        )
        if "message_id" in req.params:
            self._channel_message(req)
            if thread.id in self.channels:
                raise _HTTPError(400, 160004, "A thread has already been created for this message")
        thread.thread_member_ids.add(self.bot.id)
        self.channels[thread.id] = thread
        payload = self._channel_payload(thread)
        if self._live_session() is not None:
            await self.dispatch("THREAD_CREATE", {**payload, "newly_created": True})
        self._changed()
        return 201, payload

    async def _join_thread(self, req: _Request) -> Any:
        thread = self._channel(req)
        uid = self.bot.id if req.params["user_id"] == "@me" else _int_or_zero(req.params["user_id"])
        if uid not in self.users:
            raise _unknown("User", 10013)
        thread.thread_member_ids.add(uid)
        self._changed()
        return None

    async def _leave_thread(self, req: _Request) -> Any:
        thread = self._channel(req)
        uid = self.bot.id if req.params["user_id"] == "@me" else _int_or_zero(req.params["user_id"])
        thread.thread_member_ids.discard(uid)
        self._changed()
        return None

    # ---- guilds ----
    async def _get_guild(self, req: _Request) -> Any:
        guild = self._guild(req)
        data = self._guild_create_payload(guild, 0)
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

    async def _get_guild_channels(self, req: _Request) -> Any:
        guild = self._guild(req)
        return [self._channel_payload(self.channels[cid]) for cid in guild.channel_ids]

    async def _list_members(self, req: _Request) -> Any:
        guild = self._guild(req)
        limit = int(req.query.get("limit", 1))
        after = int(req.query.get("after", 0))
        ids = sorted(uid for uid in guild.member_ids if uid > after)[:limit]
        return [self._member_payload(guild, self.users[uid]) for uid in ids]

    async def _get_member(self, req: _Request) -> Any:
        guild = self._guild(req)
        uid = _int_or_zero(req.params["user_id"])
        if uid not in guild.member_ids:
            raise _unknown("Member", 10007)
        return self._member_payload(guild, self.users[uid])

    # ---- interactions ----
    def _interaction_for_token(self, req: _Request) -> FakeInteraction:
        self._check_webhook_app(req)
        inter = self._interactions_by_token.get(req.params["token"])
        if inter is None:
            raise _unknown("Webhook", 10015)
        if self.clock() - inter.created > TOKEN_LIFE:
            raise _HTTPError(401, 50027, "Invalid Webhook Token")
        return inter

    def _check_webhook_app(self, req: _Request) -> None:
        if req.params.get("app_id") != str(self.application_id):
            raise _unknown("Webhook", 10015)

    async def _interaction_callback(self, req: _Request) -> Any:
        inter = self.interactions.get(_int_or_zero(req.params["interaction_id"]))
        if inter is None or inter.token != req.params["token"]:
            raise _unknown("interaction", 10062)
        if self.clock() - inter.created > ANSWER_WINDOW:
            raise _unknown("interaction", 10062)  # Discord: answered too late
        body = dict(req.json or {})
        inter.callbacks.append(body)
        self._changed()
        if inter.responded:
            raise _HTTPError(400, 40060, "Interaction has already been acknowledged.")
        ctype = int(body.get("type", 0))
        data = dict(body.get("data") or {})
        allowed = {
            INTERACTION_APPLICATION_COMMAND: {4, 5, 9},
            INTERACTION_MESSAGE_COMPONENT: {4, 5, 6, 7, 9},
            INTERACTION_AUTOCOMPLETE: {8},
            INTERACTION_MODAL_SUBMIT: {4, 5, 6, 7} if inter.source_message_id else {4, 5},
        }.get(inter.type, set())
        if ctype not in allowed:
            raise _form_error(
                "type",
                "INTERACTION_CALLBACK_TYPE_INVALID",
                f"Callback type {ctype} is invalid for interaction type {inter.type}",
            )

        resource = self._apply_callback(inter, ctype, data, req.files)
        inter.response_type = ctype
        inter.response_data = data
        self._changed()
        original = self.messages.get(inter.original_message_id or 0)
        if original is not None and ctype in (
            CALLBACK_CHANNEL_MESSAGE,
            CALLBACK_DEFERRED_CHANNEL_MESSAGE,
        ):
            await self._echo_message("MESSAGE_CREATE", original)
        elif original is not None and ctype == CALLBACK_UPDATE_MESSAGE:
            await self._echo_message("MESSAGE_UPDATE", original)

        info: dict[str, Any] = {"id": str(inter.id), "type": inter.type}
        if original is not None and ctype in (4, 5, 7):
            info["response_message_id"] = str(original.id)
            info["response_message_loading"] = original.loading
            info["response_message_ephemeral"] = original.ephemeral
        result: dict[str, Any] = {"interaction": info}
        if resource is not None:
            result["resource"] = resource
        return result

    def _apply_callback(
        self, inter: FakeInteraction, ctype: int, data: dict[str, Any], files: list[dict[str, Any]]
    ) -> dict[str, Any] | None:
        """What an accepted answer does (a message, a thinking message, an edit of the
        component's message...); the callback's ``resource`` when it made or edited one."""
        resource: dict[str, Any] | None = None
        msg_type = 20 if inter.type == INTERACTION_APPLICATION_COMMAND else 0
        if ctype == CALLBACK_CHANNEL_MESSAGE:
            flags = int(data.get("flags") or 0)
            msg = self._build_validated(
                inter.channel_id,
                self.bot,
                data,
                files,
                interaction=inter,
                msg_type=msg_type,
                flags=flags,
            )
            inter.original_message_id = msg.id
            resource = {"type": ctype, "message": self._message_payload(msg)}
        elif ctype == CALLBACK_DEFERRED_CHANNEL_MESSAGE:
            flags = FLAG_LOADING | (int(data.get("flags") or 0) & FLAG_EPHEMERAL)
            msg = self._create_message(
                inter.channel_id, self.bot, {}, interaction=inter, msg_type=msg_type, flags=flags
            )
            inter.original_message_id = msg.id
            resource = {"type": ctype, "message": self._message_payload(msg)}
        elif ctype in (CALLBACK_DEFERRED_UPDATE_MESSAGE, CALLBACK_UPDATE_MESSAGE):
            source = self.messages.get(inter.source_message_id or 0)
            if source is None or source.deleted:
                raise _unknown("Message", 10008)
            if ctype == CALLBACK_UPDATE_MESSAGE:
                self._edit_message(source, data, files)
                resource = {"type": ctype, "message": self._message_payload(source)}
            inter.original_message_id = source.id
        elif ctype == CALLBACK_AUTOCOMPLETE_RESULT:
            inter.choices = list(data.get("choices") or [])
        elif ctype == CALLBACK_MODAL:
            if not data.get("custom_id") or not data.get("title"):
                raise _form_error("data", "BASE_TYPE_REQUIRED", "custom_id and title are required")
            inter.modal = data
        return resource

    async def _webhook_execute(self, req: _Request) -> Any:
        inter = self._interaction_for_token(req)
        if not inter.responded:
            raise _unknown("Webhook", 10015)
        body = dict(req.json or {})
        original = self.original_message(inter)
        if (
            inter.response_type == CALLBACK_DEFERRED_CHANNEL_MESSAGE
            and original is not None
            and original.loading
        ):
            # Discord: the first follow-up after a "thinking" defer fills in that message,
            # keeping the defer's ephemerality (flags 64 on the follow-up is ignored).
            self._edit_message(original, body, req.files)
            msg = original
            inter.followup_ids.append(msg.id)
            await self._echo_message("MESSAGE_UPDATE", msg)
        else:
            flags = int(body.get("flags") or 0)
            msg = self._build_validated(
                inter.channel_id, self.bot, body, req.files, interaction=inter, flags=flags
            )
            if msg.interaction_metadata is not None and inter.original_message_id is not None:
                msg.interaction_metadata["original_response_message_id"] = str(inter.original_message_id)
            inter.followup_ids.append(msg.id)
            self._changed()
            await self._echo_message("MESSAGE_CREATE", msg)
        if req.query.get("wait", "0").lower() in ("0", "false"):
            return None
        return self._message_payload(msg)

    def _webhook_message(self, req: _Request, inter: FakeInteraction) -> FakeMessage:
        mid = req.params["message_id"]
        target = inter.original_message_id if mid == "@original" else _int_or_zero(mid)
        msg = self.messages.get(target or 0)
        owned = target == inter.original_message_id or target in inter.followup_ids
        if msg is None or msg.deleted or not owned:
            raise _unknown("Message", 10008)
        return msg

    async def _webhook_get(self, req: _Request) -> Any:
        inter = self._interaction_for_token(req)
        return self._message_payload(self._webhook_message(req, inter))

    async def _webhook_edit(self, req: _Request) -> Any:
        inter = self._interaction_for_token(req)
        msg = self._webhook_message(req, inter)
        self._edit_message(msg, dict(req.json or {}), req.files)
        await self._echo_message("MESSAGE_UPDATE", msg)
        return self._message_payload(msg)

    async def _webhook_delete(self, req: _Request) -> Any:
        inter = self._interaction_for_token(req)
        await self._delete(self._webhook_message(req, inter))
        return None

    # ================================================================== gateway plumbing
    async def _handle_gateway(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=0, timeout=2.0)
        await ws.prepare(request)
        conn = GatewayConnection(ws, request.query)
        self.connections.append(conn)
        self._changed()
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
                self._changed()
        finally:
            conn.closed = True
            self._changed()
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
        session = _SessionState(session_id=secrets.token_hex(16), intents=intents, identify=data)
        self.sessions[session.session_id] = session
        conn.session = session
        ready = {
            "v": API_VERSION,
            "user": {**self.bot.payload(), "verified": True, "mfa_enabled": False, "email": None},
            "guilds": [
                {"id": str(g.id), "unavailable": True} for g in self.guilds.values() if session.serves(g.id)
            ],
            "session_id": session.session_id,
            "session_type": "normal",
            "resume_gateway_url": self.gateway_url,
            "shard": data.get("shard", [0, 1]),
            "application": {"id": str(self.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": [],
            "user_settings": {},
        }
        await self._send_dispatch(conn, "READY", ready)
        for guild in self.guilds.values():
            if not session.serves(guild.id):
                continue  # another shard's server
            await self._send_dispatch(conn, "GUILD_CREATE", self._guild_create_payload(guild, intents))

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
        await self._send_dispatch(conn, "RESUMED", {})

    async def _request_members(self, conn: GatewayConnection, data: dict[str, Any]) -> None:
        guild = self.guilds.get(_int_or_zero(str(data.get("guild_id"))))
        if guild is None or conn.session is None:
            return
        users = [self.users[uid] for uid in guild.member_ids]
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
            "members": [self._member_payload(guild, u) for u in users],
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
        }
        if data.get("nonce"):
            chunk["nonce"] = data["nonce"]
        await self._send_dispatch(conn, "GUILD_MEMBERS_CHUNK", chunk)


# =============================================================================================
# module helpers
# =============================================================================================


def _int_or_zero(value: str) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def _route_regex(route: str | re.Pattern[str]) -> re.Pattern[str]:
    if isinstance(route, re.Pattern):
        return route
    if "{" in route:
        pieces = re.split(r"(\{\w+\})", route)
        regex = "".join(
            f"(?P<{p[1:-1]}>[^/]+)" if p.startswith("{") and p.endswith("}") else re.escape(p) for p in pieces
        )
        return re.compile(regex)
    return re.compile(route)


def _check_option_range(spec: dict[str, Any], value: Any) -> None:
    """What the Discord client enforces before it sends a command: a number within the
    option's ``min_value``/``max_value``, a string within ``min_length``/``max_length``."""
    name = spec.get("name")
    if isinstance(value, int | float) and not isinstance(value, bool):
        lo, hi = spec.get("min_value"), spec.get("max_value")
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise FakeDiscordError(f"{value!r} is out of range for option {name!r} ({lo}..{hi})")
    elif isinstance(value, str):
        lo, hi = spec.get("min_length"), spec.get("max_length")
        if (lo is not None and len(value) < lo) or (hi is not None and len(value) > hi):
            raise FakeDiscordError(f"{value!r} is too short or long for option {name!r}")


def _guess_option_type(value: Any) -> int:
    if isinstance(value, bool):
        return 5
    if isinstance(value, int):
        return 4
    if isinstance(value, float):
        return 10
    if isinstance(value, FakeUser):
        return 6
    if isinstance(value, FakeChannel):
        return 7
    return 3


def _number_components(components: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Discord assigns sequential numeric ``id``s to components that have none."""
    used = {c["id"] for c in walk_components(components) if isinstance(c.get("id"), int)}
    counter = 0
    for comp in walk_components(components):
        if comp.get("id") is None:
            counter += 1
            while counter in used:
                counter += 1
            comp["id"] = counter
    return components


def _walk_with_paths(components: list[dict[str, Any]], prefix: str) -> Iterator[tuple[str, dict[str, Any]]]:
    for i, comp in enumerate(components):
        path = f"{prefix}.{i}"
        yield path, comp
        if isinstance(comp.get("components"), list):
            yield from _walk_with_paths(comp["components"], f"{path}.components")
        for key in ("accessory", "component"):
            if isinstance(comp.get(key), dict):
                yield f"{path}.{key}", comp[key]


def _not_allowed(path: str, field: str, why: str) -> _HTTPError:
    """A field the component's kind must not carry (the code is the fake's own)."""
    return _form_error(f"{path}.{field}", "COMPONENT_FIELD_NOT_ALLOWED", why)


def _validate_button(path: str, comp: dict[str, Any]) -> None:
    """A button's fields by style: developers/components/reference.mdx, "Button Structure" -
    "Non-link and non-premium buttons **must** have a custom_id, and cannot have a url or a
    sku_id. Link buttons **must** have a url, and cannot have a custom_id. Premium buttons
    **must** contain a sku_id, and cannot have a custom_id, label, url, or emoji."; label
    max 80 characters, url max 512. (custom_id itself is checked with every component's.)"""
    style = comp.get("style")
    if style not in BUTTON_STYLES:
        raise _form_error(f"{path}.style", "BASE_TYPE_CHOICES", "Value must be one of {1, 2, 3, 4, 5, 6}.")
    if style == BUTTON_LINK:
        url = comp.get("url")
        if not url:
            raise _form_error(f"{path}.url", "BASE_TYPE_REQUIRED", "This field is required")
        if len(str(url)) > 512:
            raise _form_error(f"{path}.url", "BASE_TYPE_MAX_LENGTH", "Must be 512 or fewer in length.")
        forbidden = {
            "custom_id": "Link buttons cannot have a custom_id",
            "sku_id": "Link buttons cannot have a sku_id",
        }
    elif style == BUTTON_PREMIUM:
        if not comp.get("sku_id"):
            raise _form_error(f"{path}.sku_id", "BASE_TYPE_REQUIRED", "This field is required")
        forbidden = {
            key: f"Premium buttons cannot have a {key}" for key in ("custom_id", "label", "url", "emoji")
        }
    else:
        forbidden = {key: f"Non-link buttons cannot have a {key}" for key in ("url", "sku_id")}
    for key, why in forbidden.items():
        if comp.get(key) is not None:
            raise _not_allowed(path, key, why)
    if len(str(comp.get("label") or "")) > 80:
        raise _form_error(f"{path}.label", "BASE_TYPE_MAX_LENGTH", "Must be 80 or fewer in length.")
    if style != BUTTON_PREMIUM and not comp.get("label") and not comp.get("emoji"):
        raise _form_error(path, "BUTTON_COMPONENT_LABEL_OR_EMOJI_REQUIRED", "A label or emoji is required")


def _max_length(path: str, value: Any, limit: int, *, required: bool = False) -> None:
    if value is None or value == "":
        if required:
            raise _form_error(path, "BASE_TYPE_REQUIRED", "This field is required")
        return
    if len(str(value)) > limit:
        raise _form_error(path, "BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length.")


def _number_at_most(path: str, value: int, limit: int) -> None:
    if value > limit:
        raise _form_error(path, "NUMBER_TYPE_MAX", f"int value should be less than or equal to {limit}.")


def _number_at_least(path: str, value: int, limit: int) -> None:
    if value < limit:
        raise _form_error(path, "NUMBER_TYPE_MIN", f"int value should be greater than or equal to {limit}.")


def _children_of(path: str, children: list[dict[str, Any]], allowed: tuple[int, ...]) -> None:
    """Every child of a layout component is of a type its page allows there."""
    for i, child in enumerate(children):
        if child.get("type") not in allowed:
            raise _form_error(
                f"{path}.components.{i}.type",
                "UNION_TYPE_CHOICES",
                f'Value of field "type" must be one of {allowed}.',
            )


def _validate_section(path: str, comp: dict[str, Any]) -> None:
    """developers/components/reference.mdx, "Section Structure": components - "One to three
    child components" (Section Child Components: Text Display); accessory - "A component
    that is contextually associated to the content of the section" (required; Section
    Accessory Components: Button, Thumbnail)."""
    children = comp.get("components") or []
    if not 1 <= len(children) <= 3:
        raise _form_error(f"{path}.components", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 3 in length.")
    _children_of(path, children, (COMPONENT_TEXT_DISPLAY,))
    accessory = comp.get("accessory")
    if not isinstance(accessory, dict):
        raise _form_error(f"{path}.accessory", "BASE_TYPE_REQUIRED", "This field is required")
    if accessory.get("type") not in (COMPONENT_BUTTON, COMPONENT_THUMBNAIL):
        raise _form_error(
            f"{path}.accessory.type",
            "UNION_TYPE_CHOICES",
            f'Value of field "type" must be one of {(COMPONENT_BUTTON, COMPONENT_THUMBNAIL)}.',
        )


def _validate_select(path: str, comp: dict[str, Any]) -> None:
    """A select menu's limits: developers/components/reference.mdx, "String Select Structure"
    (and the user, role, mentionable and channel selects alike): placeholder max 150
    characters, min_values 0-25 (default 1), max_values 1-25 (default 1); a string select's
    options max 25 ("Specified choices in a select menu"), each "Select Option Structure":
    label and value max 100 characters, description max 100. Beyond the page: an empty
    options list, an empty label or value, two options of one value, min_values above
    max_values and max_values above the number of options are refused too (a menu no one
    could answer as asked)."""
    _max_length(f"{path}.placeholder", comp.get("placeholder"), 150)
    low = int(comp.get("min_values", 1))
    high = int(comp.get("max_values", 1))
    _number_at_least(f"{path}.min_values", low, 0)
    _number_at_most(f"{path}.min_values", low, 25)
    _number_at_least(f"{path}.max_values", high, 1)
    _number_at_most(f"{path}.max_values", high, 25)
    _number_at_most(f"{path}.min_values", low, high)
    if comp.get("type") != COMPONENT_STRING_SELECT:
        return
    opts = comp.get("options") or []
    if not 1 <= len(opts) <= 25:
        raise _form_error(f"{path}.options", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 25 in length.")
    for i, opt in enumerate(opts):
        _max_length(f"{path}.options.{i}.label", opt.get("label"), 100, required=True)
        _max_length(f"{path}.options.{i}.value", opt.get("value"), 100, required=True)
        _max_length(f"{path}.options.{i}.description", opt.get("description"), 100)
    values = [opt.get("value") for opt in opts]
    if len(set(values)) != len(values):
        raise _form_error(
            f"{path}.options",
            "SELECT_COMPONENT_OPTION_VALUE_DUPLICATED",
            "Select option values must be unique",
        )
    _number_at_most(f"{path}.max_values", high, len(opts))


def _validate_command_options(options: list[dict[str, Any]], path: str) -> None:
    if len(options) > 25:
        raise _form_error(path, "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
    seen_optional = False
    for i, opt in enumerate(options):
        name = str(opt.get("name", ""))
        if not _COMMAND_NAME_RE.fullmatch(name) or name != name.lower():
            raise _form_error(
                f"{path}.{i}.name", "APPLICATION_COMMAND_INVALID_NAME", "Option name is invalid"
            )
        if not 1 <= len(str(opt.get("description", ""))) <= 100:
            raise _form_error(
                f"{path}.{i}.description",
                "BASE_TYPE_BAD_LENGTH",
                "Must be between 1 and 100 in length.",
            )
        if opt.get("type") in (1, 2):
            _validate_command_options(opt.get("options") or [], f"{path}.{i}.options")
            continue
        if opt.get("required"):
            if seen_optional:
                raise _form_error(
                    f"{path}.{i}.required",
                    "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
                    "Required options must be placed before non-required options",
                )
        else:
            seen_optional = True
        if len(opt.get("choices") or []) > 25:
            raise _form_error(f"{path}.{i}.choices", "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")


# =============================================================================================
# discord.py client helpers
# =============================================================================================


async def start_client(
    client: discord.Client,
    fake: FakeDiscord,
    token: str | None = None,
    *,
    timeout: float = HANG,
    reconnect: bool = True,
) -> asyncio.Task[None]:
    """``client.login`` + ``client.connect()`` as a background task; returns once on_ready
    fired and every guild of the fake is available in the client's cache.

    Requires ``fake.patch_discord_py()`` to be active.  Raises whatever connect() raised if
    it died first (e.g. ``discord.PrivilegedIntentsRequired``).
    """
    await client.login(token or fake.token)
    task = asyncio.create_task(client.connect(reconnect=reconnect), name="discord-client-connect")
    ready = asyncio.create_task(client.wait_until_ready())
    done, _ = await asyncio.wait({task, ready}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    if task in done:
        ready.cancel()
        task.result()
        raise FakeDiscordError("client.connect() returned before READY")
    if ready not in done:
        ready.cancel()
        task.cancel()
        raise TimeoutError("discord.py client did not become ready")
    count = client.shard_count or 1
    shards = getattr(client, "shard_ids", None) or [client.shard_id or 0]
    for guild_id in fake.guilds:
        if (guild_id >> 22) % count not in shards:
            continue  # another shard's server
        guild = client.get_guild(guild_id)
        if guild is None or guild.unavailable:
            await client.wait_for(
                "guild_available", check=lambda g, gid=guild_id: g.id == gid, timeout=timeout
            )
    return task


async def stop_client(
    client: discord.Client, task: asyncio.Task[None] | None = None, *, timeout: float = HANG
) -> None:
    """``client.close()`` and wait for the connect task to finish (re-raising its error)."""
    await client.close()
    if task is not None:
        await asyncio.wait_for(task, timeout)
