"""Running the Telegram adapter: ``python -m bot telegram``.

Long polling by default; webhook mode when ``WEBHOOK_URL`` is set (the secret token header
is checked). ``TELEGRAM_API_URL`` points the bot at a self-hosted Bot API server (the
end-to-end tests point it at a fake one). The service, the painter and the words reach the
handlers as Dispatcher keyword arguments; the middlewares give them who and where.
"""

from __future__ import annotations

import asyncio
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
from adapters.telegram.handlers import build_router
from adapters.telegram.handlers.tournament import TournamentPainter
from adapters.telegram.middleware import Answer, Context
from adapters.telegram.painter import Painter
from adapters.telegram.words import Words
from bot.clock import Clock
from bot.config import ConfigError, Settings
from bot.logs import mask_url
from bot.service import Services

log = logging.getLogger(__name__)

# commands registered with ``is_ephemeral``: the client sends them so that only the bot
# sees them, and their answers are ephemeral too (nothing in the group, no group budget).
# Every group command: what it changes shows on the table, and its answer (a refusal, the
# leaderboard...) is for its sender alone (issue 33: /top every few seconds froze a table)
GROUP_COMMANDS = [
    ("newgame", N_("Open a table: a list of games")),
    ("join", N_("Take a seat")),
    ("leave", N_("Leave your seat")),
    ("addbot", N_("Seat a computer player: easy, normal or hard")),
    ("startgame", N_("Deal")),
    ("hand", N_("Show my cards (only I see them)")),
    ("settings", N_("The table's rules")),
    ("invite", N_("Invite friends")),
    ("kick", N_("Remove a player")),
    ("wait", N_("Queue for a seat (elimination)")),
    ("unwait", N_("Leave the queue")),
    ("cancel", N_("End the game")),
    ("tournament", N_("A tournament in this chat: /tournament game [rounds]")),
    ("score", N_("The match score")),
    ("series", N_("The series in this chat")),
    ("top", N_("The chat's leaderboard")),
    ("history", N_("The last matches here, and their replays")),
    ("stats", N_("A player's numbers: matches, wins, rating")),
    ("chart", N_("The score chart after long matches: on or off")),
    ("defaults", N_("The rules a new table starts from here")),
    ("notify", N_("Tell me when a table opens here: on or off")),
    ("rules", N_("A short rules card")),
    ("lang", N_("The chat's language")),
    ("help", N_("What I can do")),
]
EPHEMERAL = frozenset(c for c, _ in GROUP_COMMANDS)
PRIVATE_COMMANDS = [
    ("newgame", N_("A practice game against computer players")),
    ("hand", N_("Show my cards")),
    ("cancel", N_("End the practice game")),
    ("stats", N_("My numbers: matches, wins, rating")),
    ("rules", N_("A short rules card")),
    ("lang", N_("My language")),
    ("help", N_("What I can do")),
]
DRAIN_SECONDS = 10.0  # at shutdown: handlers in flight, then the painter's held writes


@dataclass
class TelegramApp:
    bot: Bot
    dispatcher: Dispatcher
    painter: Painter
    context: Context
    words: Words


def make_bot(settings: Settings) -> Bot:
    if not settings.bot_token:
        raise ConfigError("BOT_TOKEN is not set: the Telegram adapter needs the bot's token")
    session = None
    if settings.telegram_api_url:
        session = AiohttpSession(api=TelegramAPIServer.from_base(settings.telegram_api_url))
    return Bot(settings.bot_token, session=session)


async def build(bot: Bot, services: Services, settings: Settings, clock: Clock | None = None) -> TelegramApp:
    """Check the token (one clear line if rejected), wire the routers, register commands.
    The handlers get the pieces they use as Dispatcher keyword arguments: ``service`` (the
    rooms and moves), ``chats``, ``statistics``, ``platform_data``, ``chat_history``, ``tournaments``."""
    service = services.games
    try:
        await bot.me()
    except TelegramUnauthorizedError:
        raise ConfigError("BOT_TOKEN was rejected by Telegram (Unauthorized)") from None
    except TelegramNetworkError as e:
        where = mask_url(settings.telegram_api_url) if settings.telegram_api_url else "api.telegram.org"
        raise ConfigError(f"cannot reach the Telegram Bot API at {where}: {e.message}") from None
    clock = clock or service.clock
    words = Words(services.chats, clock, settings.default_language)
    painter = Painter(bot, service, services.platform, services.chats, clock, words, settings.idle_seconds)
    service.on_change(painter.changed)
    services.tournaments.on_tournament(TournamentPainter(services.tournaments, painter).changed)
    dp = Dispatcher(
        service=service,
        chats=services.chats,
        statistics=services.stats,
        platform_data=services.platform.data,
        chat_history=services.history,
        tournaments=services.tournaments,
        painter=painter,
        words=words,
    )
    context = Context(words, painter)
    dp.message.outer_middleware(context)
    dp.callback_query.outer_middleware(context)
    dp.callback_query.middleware(Answer())
    dp.include_router(build_router())
    await set_commands(bot, settings.default_language)
    return TelegramApp(bot, dp, painter, context, words)


async def set_commands(bot: Bot, default: str = "en") -> None:
    """setMyCommands per language and scope; the menu for other app languages (no
    ``language_code``) is in ``default``, the language the bot answers those people in."""
    for lang, code in [*((lang, lang) for lang in LANGUAGES), (default, None)]:
        t = Text(lang)
        group = [
            BotCommand(command=c, description=t._(d), is_ephemeral=(c in EPHEMERAL) or None)
            for c, d in GROUP_COMMANDS
        ]
        private = [BotCommand(command=c, description=t._(d)) for c, d in PRIVATE_COMMANDS]
        await bot.set_my_commands(group, scope=BotCommandScopeAllGroupChats(), language_code=code)
        await bot.set_my_commands(private, scope=BotCommandScopeAllPrivateChats(), language_code=code)


async def run(settings: Settings, services: Services, stop: asyncio.Event) -> None:
    """Serve until ``stop``: then take no more updates, let the handlers in flight finish,
    write what the painter holds (at most ``DRAIN_SECONDS`` in all) and close the session."""
    bot = make_bot(settings)
    try:
        app = await build(bot, services, settings)
        await app.painter.redraw_stale()
        painting = asyncio.Event()  # stops the painter's loop only once the drain begins
        painter_task = asyncio.create_task(app.painter.run(painting))
        try:
            if settings.webhook_url:
                await _serve_webhook(app, settings, stop)
            else:
                await _poll(app, stop)
            await app.context.idle(DRAIN_SECONDS / 2)
        finally:
            painting.set()
            await painter_task
            await app.painter.drain(DRAIN_SECONDS / 2)
    finally:
        await bot.session.close()


async def _poll(app: TelegramApp, stop: asyncio.Event) -> None:
    polling = asyncio.create_task(
        app.dispatcher.start_polling(app.bot, handle_signals=False, close_bot_session=False)
    )
    stopping = asyncio.create_task(stop.wait())
    done, _ = await asyncio.wait({polling, stopping}, return_when=asyncio.FIRST_COMPLETED)
    if polling in done:
        stopping.cancel()
        polling.result()  # polling ended by itself: say why
        return
    await app.dispatcher.stop_polling()
    await polling


def webhook_app(app: TelegramApp, settings: Settings) -> Any:
    """The aiohttp application serving ``/webhook`` (a wrong secret-token header gets 401),
    ``/healthz`` (the process answers) and ``/readyz`` (and Redis answers: a load balancer
    sends it updates)."""
    from aiogram.webhook.aiohttp_server import SimpleRequestHandler, setup_application
    from aiohttp import web

    if not settings.webhook_secret:
        raise ConfigError("WEBHOOK_SECRET is not set: webhook mode needs a secret token")
    web_app = web.Application()
    # an update is answered once it is handled, not before: a worker that dies on it leaves it
    # unanswered, and Telegram delivers it again (to this worker or another one)
    SimpleRequestHandler(
        app.dispatcher, app.bot, handle_in_background=False, secret_token=settings.webhook_secret
    ).register(web_app, path="/webhook")
    setup_application(web_app, app.dispatcher, bot=app.bot)
    service = app.painter.service

    async def healthz(_request: web.Request) -> web.Response:
        return web.Response(text="ok")

    async def readyz(_request: web.Request) -> web.Response:
        try:
            if service is not None:
                await asyncio.wait_for(service.ping(), 3.0)
        except Exception as e:  # not ready: the balancer sends updates elsewhere
            return web.Response(status=503, text=f"Redis does not answer: {type(e).__name__}")
        return web.Response(text="ready")

    web_app.router.add_get("/healthz", healthz)
    web_app.router.add_get("/readyz", readyz)
    return web_app


async def _serve_webhook(app: TelegramApp, settings: Settings, stop: asyncio.Event) -> None:
    from aiohttp import web

    web_app = webhook_app(app, settings)
    await app.bot.set_webhook(
        settings.webhook_url or "", secret_token=settings.webhook_secret, drop_pending_updates=False
    )
    runner = web.AppRunner(web_app)
    await runner.setup()
    site = web.TCPSite(runner, settings.webhook_host, settings.webhook_port)
    await site.start()
    try:
        await stop.wait()
    finally:
        await runner.cleanup()
