"""Running the Discord adapter: ``python -m bot discord`` (or ``all`` with Telegram).

A plain ``discord.Client`` with default intents (nothing privileged: slash commands and
components need none) and a ``CommandTree``. ``setup_hook`` registers the dynamic items (so
buttons of any earlier process keep working), the catalog translator, and syncs the
commands. The service's changes reach the painter through ``service.on_change``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any, cast

import aiohttp
import discord
from discord import app_commands

from adapters.discord import commands, views
from adapters.discord.handlers import Handlers
from adapters.discord.painter import Painter
from bot.config import ConfigError, Settings
from bot.service import GameService

log = logging.getLogger(__name__)


class KozelClient(discord.Client):
    def __init__(self, service: GameService, settings: Settings, *, sync_commands: bool = True,
                 **options: Any) -> None:
        options.setdefault("intents", discord.Intents.default())
        options.setdefault("allowed_mentions", discord.AllowedMentions.none())
        super().__init__(**options)
        self.service = service
        self.tree: app_commands.CommandTree[discord.Client] = app_commands.CommandTree(self)
        self.painter = Painter(self, service)
        self.handlers = Handlers(service, self.painter, settings.default_language)
        self.sync_commands = sync_commands
        commands.register(self.tree, self.handlers)
        service.on_change(self.painter.changed)

    async def setup_hook(self) -> None:
        self.add_dynamic_items(*views.DYNAMIC_ITEMS)
        await self.tree.set_translator(commands.CatalogTranslator())
        if self.sync_commands:
            await self.tree.sync()

    async def on_interaction(self, interaction: discord.Interaction[discord.Client]) -> None:
        """A component our items will not answer: a custom id no item parses, or one that
        is not on the message it claims to come from (discord.py drops those silently).
        Forged or retired, it gets a refusal rather than "interaction failed"."""
        if interaction.type is not discord.InteractionType.component:
            return
        data = cast(dict[str, Any], interaction.data or {})
        custom_id = str(data.get("custom_id", ""))
        ours = any(item.__discord_ui_compiled_template__.fullmatch(custom_id)
                   for item in views.DYNAMIC_ITEMS)
        if ours and custom_id in views.custom_ids_of(interaction.message):
            return
        await self.handlers.refuse(interaction, "bad_token")

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.painter.drain(), STOP_SECONDS)
        await super().close()


STOP_SECONDS = 10.0  # how long stopping may take to draw what is left


async def run(settings: Settings, service: GameService, stop: asyncio.Event) -> None:
    """Serve until ``stop`` is set (SIGTERM): the gateway and the painter; then close the
    gateway (no more interactions), draw what is left (bounded) and close. The composition
    root runs the timer loop."""
    token = (settings.discord_token or "").strip()
    if not token:
        raise ConfigError("DISCORD_TOKEN is not set: the Discord adapter needs the bot's token")
    client = KozelClient(service, settings)
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
