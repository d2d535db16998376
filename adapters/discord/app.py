"""Running the Discord adapter: ``python -m bot discord`` (or ``all`` with Telegram).

An ``AutoShardedClient`` with default intents (nothing privileged: slash commands and
components need none) and a ``CommandTree``. Discord sends a server's interactions to its
shard's gateway connection, so the bot scales by shards: one process runs every shard
Discord asks for; several processes split them (``shard_ids``, ``shard_count``) and share
Redis, each drawing any table under the service's paint leases. ``setup_hook`` registers
the dynamic items (so buttons of any earlier process keep working), the catalog translator,
syncs the commands and redraws the tables that changed while nobody drew them. The
service's changes reach the painter through ``service.on_change``.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, cast

import aiohttp
import discord
from discord import app_commands, ui

from adapters.discord import commands, history, views
from adapters.discord.activity import Activity, Sleep
from adapters.discord.handlers import Handlers
from adapters.discord.painter import Painter
from adapters.discord.tournament import TourButton, TournamentPainter, tournament_press
from bot.config import ConfigError, Settings
from bot.service import GameService, Services

log = logging.getLogger(__name__)


# The bot has no voice: discord.py's warnings about its missing voice libraries (PyNaCl,
# davey) would only worry an operator. They are class flags it checks once per process.
discord.VoiceClient.warn_nacl = False
discord.VoiceClient.warn_dave = False


class RateLimits(logging.Filter):
    """discord.py sleeps out a 429 of up to ``max_ratelimit_timeout`` inside the request and
    only logs it: each such line is counted as a 429 with its wait (the longer ones raise
    ``RateLimited``, which the painter counts). The line is made at WARNING, so while the
    filter is on, ``discord.http`` logs from WARNING on whatever the process's level, and
    the filter lets through only what that level would."""

    WAITED = "We are being rate limited. %s %s responded with 429. Retrying in %.2f seconds."
    HTTP = logging.getLogger("discord.http")

    def __init__(self, service: GameService) -> None:
        super().__init__()
        self.service = service
        self.shown = logging.WARNING
        self.level = logging.NOTSET

    def filter(self, record: logging.LogRecord) -> bool:
        wait = record.args[-1] if isinstance(record.args, tuple) and record.args else None
        if record.msg == self.WAITED and isinstance(wait, int | float):
            self.service.metrics.platform_429("dc", float(wait))
        return record.levelno >= self.shown

    def install(self) -> None:
        if self in self.HTTP.filters:
            return
        self.level, self.shown = self.HTTP.level, self.HTTP.getEffectiveLevel()
        self.HTTP.setLevel(min(self.shown, logging.WARNING))
        self.HTTP.addFilter(self)

    def remove(self) -> None:
        if self in self.HTTP.filters:
            self.HTTP.removeFilter(self)
            self.HTTP.setLevel(self.level)


class KozelClient(discord.AutoShardedClient):
    def __init__(
        self,
        services: Services,
        settings: Settings,
        *,
        sync_commands: bool = True,
        sleep: Sleep = asyncio.sleep,
        **options: Any,
    ) -> None:
        options.setdefault("intents", discord.Intents.default())
        options.setdefault("allowed_mentions", discord.AllowedMentions.none())
        # a long 429 raises RateLimited at once (the painter waits it out on its own clock,
        # holding nothing else back) instead of discord.py sleeping inside the request
        options.setdefault("max_ratelimit_timeout", 30.0)
        super().__init__(**options)
        service = self.service = services.games
        self.tree: app_commands.CommandTree[discord.Client] = app_commands.CommandTree(self)
        # ``sleep``: how drawings wait for a later time (tests give one on their clock)
        self.doing = Activity(sleep)
        self.painter = Painter(self, service, services.platform, services.chats, self.doing)
        self.handlers = Handlers(services, self.painter, self.doing, settings.default_language)
        self.sync_commands = sync_commands
        self.rate_limits = RateLimits(service)
        commands.register(self.tree, self.handlers)
        service.on_change(self.painter.changed)
        tournaments = services.tournaments
        tournaments.on_tournament(TournamentPainter(self, tournaments, self.painter, self.doing).changed)

    async def setup_hook(self) -> None:
        self.rate_limits.install()
        self.add_dynamic_items(*views.DYNAMIC_ITEMS, TourButton, *history.ITEMS)
        await self.tree.set_translator(commands.CatalogTranslator())
        if self.sync_commands:
            await self.tree.sync()
        # tables (and their live hands) that changed while no process drew them
        redrawn = await self.painter.redraw_stale()
        if redrawn:
            log.info("redrawing %d Discord tables at start", redrawn)

    async def on_interaction(self, interaction: discord.Interaction[discord.Client]) -> None:
        """A component our items will not answer: a custom id no item parses, or one that
        is not on the message it claims to come from (discord.py drops those silently).
        A move pressed twice is one of those (the first press's answer already redrew the
        hand): the service tells it from a forgery. Anything else gets a refusal rather
        than "interaction failed"."""
        if interaction.type is not discord.InteractionType.component:
            return
        data = cast(dict[str, Any], interaction.data or {})
        custom_id = str(data.get("custom_id", ""))
        items: tuple[type[ui.DynamicItem[Any]], ...] = (*views.DYNAMIC_ITEMS, TourButton, *history.ITEMS)
        ours = any(item.__discord_ui_compiled_template__.fullmatch(custom_id) for item in items)
        if ours and custom_id in views.custom_ids_of(interaction.message):
            return
        values = [str(v) for v in data.get("values") or []]
        async with self.handlers.handling(interaction) as go:
            if go and not await tournament_press(self.handlers, interaction, custom_id):
                await self.handlers.off_message(interaction, custom_id, values)

    async def stop_serving(self, grace: float) -> None:
        """Stopping (SIGTERM): no new interaction is served (each gets a short "restarting"
        answer while the gateway is still open), those in flight finish, drawings end; what
        still waits after ``grace`` seconds is given up (a room is redrawn at the next
        start: ``rooms_to_redraw``)."""
        self.doing.stopping = True
        try:
            await asyncio.wait_for(self.doing.idle(), grace)
        except TimeoutError:
            log.warning("stopping: %d Discord drawings given up", self.doing.sleeping + self.doing.running)
            self.doing.cancel_sleepers()

    async def close(self) -> None:
        if not self.is_closed():
            await self.stop_serving(STOP_SECONDS)
        await super().close()
        self.rate_limits.remove()


STOP_SECONDS = 10.0  # how long stopping may take to draw what is left


async def run(settings: Settings, services: Services, stop: asyncio.Event) -> None:
    """Serve until ``stop`` is set (SIGTERM): the gateway and the painter; then close the
    gateway (no more interactions), draw what is left (bounded) and close. The composition
    root runs the timer loop."""
    token = (settings.discord_token or "").strip()
    if not token:
        raise ConfigError("DISCORD_TOKEN is not set: the Discord adapter needs the bot's token")
    shards: dict[str, Any] = {}
    if settings.discord_shard_count is not None:  # this process runs some of the shards
        shards["shard_count"] = settings.discord_shard_count
        if settings.discord_shard_ids is not None:
            shards["shard_ids"] = settings.discord_shard_ids
    client = KozelClient(services, settings, **shards)
    try:
        try:
            await client.login(token)
        except discord.LoginFailure:
            raise ConfigError("DISCORD_TOKEN was rejected by Discord (401 Unauthorized)") from None
        except (aiohttp.ClientError, OSError) as e:
            raise ConfigError(f"cannot reach Discord: {e}") from None
        gateway = asyncio.create_task(client.connect(), name="dc-gateway")
        stopping = asyncio.create_task(stop.wait())
        await asyncio.wait([gateway, stopping], return_when=asyncio.FIRST_COMPLETED)
        stopping.cancel()
        if gateway.done() and gateway.exception() is not None:
            raise gateway.exception()  # type: ignore[misc]
    finally:
        await client.close()  # drains the painter (bounded) first
