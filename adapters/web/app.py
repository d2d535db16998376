"""Running the web table beside the bots (``python -m bot telegram|all|web``): the server on
``WEBAPP_HOST:WEBAPP_PORT``, behind the https proxy that ``WEBAPP_URL`` names."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from adapters.web.server import WebTable
from bot.config import ConfigError, Settings
from bot.service import Services

log = logging.getLogger(__name__)


async def run(settings: Settings, services: Services, stop: asyncio.Event, members: Any = None) -> None:
    """Serve the web table until ``stop``. ``members``: what tells whether a Telegram user is
    a member of a group (``is_member(chat, user)``, its ``bot`` closed at the end); without
    it nobody watches a table he does not play at."""
    if not settings.bot_token:
        raise ConfigError("BOT_TOKEN is not set: the web table checks Telegram's signature with it")
    table = WebTable(
        services.games, services.chats, member=members.is_member if members is not None else None
    )
    try:
        await table.start(settings.webapp_host, settings.webapp_port)
    except OSError as e:
        raise ConfigError(
            f"cannot serve the web table on {settings.webapp_host}:{settings.webapp_port}: {e.strerror}"
        ) from None
    log.info("web table on %s:%s", settings.webapp_host, settings.webapp_port)
    try:
        await stop.wait()
    finally:
        await table.close()
        if members is not None:
            with contextlib.suppress(Exception):
                await members.bot.session.close()
