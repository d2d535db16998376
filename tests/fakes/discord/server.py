"""The fake Discord server: the parts composed behind one aiohttp app (see the package)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator

import yarl
from aiohttp import web

from tests.fakes.discord.application import Application
from tests.fakes.discord.gateway import Gateway
from tests.fakes.discord.interactions import Interactions
from tests.fakes.discord.limits import Limits
from tests.fakes.discord.protocol import API_VERSION, DEFAULT_MEMBER_PERMISSIONS, PERM_MANAGE_GUILD
from tests.fakes.discord.responders import Responders
from tests.fakes.discord.rest import Rest
from tests.fakes.discord.store import MessageStore
from tests.fakes.discord.waiting import CallLog
from tests.fakes.discord.world import World


class FakeDiscord:
    """Fake Discord REST API + gateway on 127.0.0.1 (see the package docstring).

    Its parts, each with its own state: ``world`` (users, servers, channels, messages,
    commands), ``store`` (messages created and edited), ``log`` (the calls, waiting),
    ``limits`` (injected faults, rate limits), ``gateway`` (sessions, events),
    ``interacting`` (the users' interactions), ``rest`` (routing to the ``Responders`` and
    ``Application`` handlers). The names tests use most
    are lent by the parts (``fake.add_user`` is ``fake.world.add_user``).
    """

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
        self.port = 0
        self._runner: web.AppRunner | None = None

        # the parts (late-bound where a part tells another of its changes)
        self.world = World(
            bot_name,
            changed=lambda: self.log.changed(),
            announce=lambda event, build: self.gateway.dispatch_soon(event, build),
            intents=lambda: self.gateway.intents(),
            validate=validate,
        )
        self.store = MessageStore(self.world, lambda: self.base_url)
        self.log = CallLog(self.world)
        self.limits = Limits(clock, rate_limits=rate_limits)
        self.gateway = Gateway(
            self.world,
            self.store,
            self.log,
            token=token,
            url=lambda: self.gateway_url,
            heartbeat_interval_ms=heartbeat_interval_ms,
            privileged_intents_enabled=privileged_intents_enabled,
        )
        self.interacting = Interactions(self.world, self.log, self.gateway, clock)
        routes = Responders(self.world, self.store, self.gateway).routes()
        routes += Application(self.world, self.store, self.gateway, clock).routes()
        self.rest = Rest(self.log, self.limits, routes, token=token, clock=clock)

        # the names tests use most, lent by the parts (the rest: fake.world.guilds, ...)
        world, log, interacting = self.world, self.log, self.interacting
        self.bot = world.bot
        self.messages = world.messages
        self.add_user = world.add_user
        self.add_guild = world.add_guild
        self.add_text_channel = world.add_text_channel
        self.dm_channel = world.dm_channel
        self.set_permissions = world.set_permissions
        self.command = world.command
        self.messages_in = world.messages_in
        self.visible_messages = world.visible_messages
        self.ephemeral_messages = world.ephemeral_messages
        self.calls = log.calls
        self.calls_to = log.calls_to
        self.wait_for = log.wait_for
        self.wait_for_message = log.wait_for_message
        self.wait_for_response = log.wait_for_response
        self.wait_for_original = log.wait_for_original
        self.user_message = self.gateway.user_message
        self.wait_until_connected = self.gateway.wait_until_connected  # bench/startup.py
        self.interaction_command = interacting.interaction_command
        self.interaction_component = interacting.interaction_component
        self.interaction_modal_submit = interacting.interaction_modal_submit

        # ---- default world: one guild, two text channels, a thread, four players ----
        self.alice = self.add_user("alice", permissions=DEFAULT_MEMBER_PERMISSIONS | PERM_MANAGE_GUILD)
        self.bob = self.add_user("bob")
        self.carol = self.add_user("carol")
        self.dave = self.add_user("dave")
        self.guild = self.add_guild("Kozel Club", owner=world.app_owner)
        self.channel = self.add_text_channel(self.guild, "general")
        self.games = self.add_text_channel(self.guild, "kozel")
        self.thread = world.add_thread(self.games, "table-1", owner=self.alice)

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
        app.router.add_get("/gateway", self.gateway.handle)
        app.router.add_route("*", r"/api/v{version:\d+}/{tail:.*}", self.rest.handle)
        self._runner = web.AppRunner(app, shutdown_timeout=0.1, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = int(self._runner.addresses[0][1])

    async def stop(self) -> None:
        await self.gateway.close()
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
