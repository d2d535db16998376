"""Running the Telegram adapter: ``python -m bot telegram``.

Long polling by default; webhook mode when ``WEBHOOK_URL`` is set (the secret token header
is checked). ``TELEGRAM_API_URL`` points the bot at a self-hosted Bot API server (the
end-to-end tests point it at a fake one).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass
from typing import Any

from aiogram import Bot, Dispatcher
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.exceptions import TelegramNetworkError, TelegramUnauthorizedError
from aiogram.types import BotCommand, BotCommandScopeAllGroupChats, BotCommandScopeAllPrivateChats

from adapters.common.i18n import LANGUAGES, N_
from adapters.common.render import Text
from adapters.telegram.handlers import Context, build_router
from adapters.telegram.painter import Painter
from bot.clock import Clock, SystemClock
from bot.config import ConfigError, Settings
from bot.room import Room
from bot.service import GameService

log = logging.getLogger(__name__)

GROUP_COMMANDS = [
    ("newgame", N_("Open a table: /newgame and a game's name (see /rules)")),
    ("kozel", N_("Open a table of classic Kozel")),
    ("petukh", N_("Open a table of Petukh")),
    ("join", N_("Take a seat")),
    ("leave", N_("Leave your seat")),
    ("addbot", N_("Seat a computer player")),
    ("startgame", N_("Deal")),
    ("hand", N_("Show my cards (only I see them)")),
    ("settings", N_("The table's rules")),
    ("invite", N_("Invite friends")),
    ("kick", N_("Remove a player")),
    ("wait", N_("Queue for a seat (elimination)")),
    ("unwait", N_("Leave the queue")),
    ("cancel", N_("End the game")),
    ("score", N_("The match score")),
    ("series", N_("The series in this chat")),
    ("top", N_("The chat's leaderboard")),
    ("rules", N_("A short rules card")),
    ("lang", N_("The chat's language")),
    ("help", N_("What I can do")),
]
PRIVATE_COMMANDS = [("hand", N_("Show my cards")), ("rules", N_("A short rules card")),
                    ("help", N_("What I can do"))]


@dataclass
class TelegramApp:
    bot: Bot
    dispatcher: Dispatcher
    painter: Painter
    context: Context


def make_bot(settings: Settings) -> Bot:
    if not settings.bot_token:
        raise ConfigError("BOT_TOKEN is not set: the Telegram adapter needs the bot's token")
    session = None
    if settings.telegram_api_url:
        session = AiohttpSession(api=TelegramAPIServer.from_base(settings.telegram_api_url))
    return Bot(settings.bot_token, session=session)


async def build(bot: Bot, service: GameService, settings: Settings,
                clock: Clock | None = None) -> TelegramApp:
    """Check the token (one clear line if rejected), wire the routers, register commands."""
    try:
        me = await bot.me()
    except TelegramUnauthorizedError:
        raise ConfigError("BOT_TOKEN was rejected by Telegram (Unauthorized)") from None
    except TelegramNetworkError as e:
        where = settings.telegram_api_url or "api.telegram.org"
        raise ConfigError(f"cannot reach the Telegram Bot API at {where}: {e.message}") from None
    texts: dict[str, Text] = {}

    def text_for(room: Room) -> Text:
        lang = room.lang or settings.default_language
        if lang not in texts:
            texts[lang] = Text(lang)
        return texts[lang]

    painter = Painter(bot, service, clock or service.clock, text_for)
    service.on_change(painter.changed)
    ctx = Context(service, painter, me.username or "bot", settings.default_language)
    dp = Dispatcher()
    dp.include_router(build_router(ctx))
    await set_commands(bot)
    return TelegramApp(bot, dp, painter, ctx)


async def set_commands(bot: Bot) -> None:
    """setMyCommands per language and scope."""
    for lang in LANGUAGES:
        t = Text(lang)
        group = [BotCommand(command=c, description=t._(d), is_ephemeral=(c == "hand") or None)
                 for c, d in GROUP_COMMANDS]
        private = [BotCommand(command=c, description=t._(d)) for c, d in PRIVATE_COMMANDS]
        code = None if lang == "en" else lang
        await bot.set_my_commands(group, scope=BotCommandScopeAllGroupChats(), language_code=code)
        await bot.set_my_commands(private, scope=BotCommandScopeAllPrivateChats(),
                                  language_code=code)


STOP_SECONDS = 10.0  # how long stopping may take: in-flight updates, then the painter


async def run(settings: Settings, service: GameService, stop: asyncio.Event) -> None:
    """Serve until ``stop`` is set (SIGTERM): polling (or the webhook) and the painter.
    Then take no more updates, let the ones in hand finish, draw what is left (bounded)
    and close the session. The composition root runs the timer loop."""
    bot = make_bot(settings)
    try:
        app = await build(bot, service, settings, SystemClock())
        painting = asyncio.Event()
        painter = asyncio.create_task(app.painter.run(painting), name="tg-painter")
        if settings.webhook_url:
            serving = asyncio.create_task(_serve_webhook(app, settings, stop), name="tg-webhook")
        else:
            serving = asyncio.create_task(app.dispatcher.start_polling(
                bot, handle_signals=False, close_bot_session=False), name="tg-polling")
        stopping = asyncio.create_task(stop.wait())
        await asyncio.wait([serving, stopping], return_when=asyncio.FIRST_COMPLETED)
        stopping.cancel()
        if not settings.webhook_url and not serving.done():
            with contextlib.suppress(RuntimeError):
                await app.dispatcher.stop_polling()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(asyncio.shield(serving), STOP_SECONDS)
        in_flight = list(app.dispatcher._handle_update_tasks)  # updates being answered
        if in_flight:
            await asyncio.wait(in_flight, timeout=STOP_SECONDS)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(app.painter.flush(), STOP_SECONDS)
        painting.set()
        painter.cancel()
        if serving.done() and not serving.cancelled() and serving.exception() is not None:
            raise serving.exception()  # type: ignore[misc]
    finally:
        await bot.session.close()


def webhook_app(app: TelegramApp, settings: Settings) -> Any:
    """The aiohttp application serving ``/webhook``; a wrong secret-token header gets 401."""
    from aiogram.webhook.aiohttp_server import SimpleRequestHandler, setup_application
    from aiohttp import web

    if not settings.webhook_secret:
        raise ConfigError("WEBHOOK_SECRET is not set: webhook mode needs a secret token")
    web_app = web.Application()
    SimpleRequestHandler(app.dispatcher, app.bot,
                         secret_token=settings.webhook_secret).register(web_app, path="/webhook")
    setup_application(web_app, app.dispatcher, bot=app.bot)
    return web_app


async def _serve_webhook(app: TelegramApp, settings: Settings, stop: asyncio.Event) -> None:
    from aiohttp import web

    web_app = webhook_app(app, settings)
    await app.bot.set_webhook(settings.webhook_url or "", secret_token=settings.webhook_secret,
                              drop_pending_updates=False)
    runner = web.AppRunner(web_app)
    await runner.setup()
    site = web.TCPSite(runner, settings.webhook_host, settings.webhook_port)
    await site.start()
    try:
        await stop.wait()
    finally:
        await runner.cleanup()
