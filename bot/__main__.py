"""``python -m bot play|telegram|discord|all|health`` (also ``kozel-bot``): the bot's entry
point, the composition root.

The root makes the store, the service and the process's one timer loop, and hands the
adapters a ``stop`` event. SIGTERM (``docker stop``) or SIGINT sets it: the adapters stop
taking updates, finish what is in flight and drain their painters (bounded); the timer loop
gives its leases back; the pools close; the process exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import logging
import signal
import sys
from collections.abc import Sequence

from bot.config import ConfigError, Settings, load_settings
from bot.metrics import Metrics

log = logging.getLogger(__name__)

STOP_SECONDS = 10.0  # how long a stopping adapter may take to drain


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kozel-bot")
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("play", help="play in the terminal against computer players")
    p.add_argument("--preset", default="kozel")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--lang", default=None, help="ru, en, uk or hr (default: DEFAULT_LANGUAGE)")
    p.add_argument("--options", default="", help='preset options as JSON, e.g. {"tie":"eggs"}')
    p.add_argument(
        "--bots",
        default="normal",
        help="the computer players' level: easy, normal or hard (or one each, comma-separated)",
    )
    p.add_argument("--web", action="store_true", help="play on the web table in a browser instead")
    p.add_argument("--port", type=int, default=None, help="the web table's port (default: WEBAPP_PORT)")
    tg = sub.add_parser("telegram", help="run the Telegram bot (BOT_TOKEN)")
    tg.add_argument(
        "--webhook",
        action="store_true",
        help="a webhook worker: refuse to start without WEBHOOK_URL (long polling "
        "allows one process a token)",
    )
    sub.add_parser("discord", help="run the Discord bot (DISCORD_TOKEN)")
    sub.add_parser("all", help="run both bots in one process")
    sub.add_parser("web", help="serve only the web table (a worker behind WEBAPP_URL; BOT_TOKEN)")
    sub.add_parser("health", help="exit 0 when the running bot is alive and Redis answers")
    args = parser.parse_args(argv)
    try:
        settings = load_settings()
    except ConfigError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    from bot import logs

    logs.setup(
        settings.log_level,
        settings.log_format,
        secrets=[settings.bot_token or "", settings.discord_token or "", settings.webhook_secret or ""],
    )
    if args.command == "play":
        return _play(settings, args)
    if args.command == "health":
        return _health(settings)
    if getattr(args, "webhook", False) and not settings.webhook_url:
        print(
            "error: WEBHOOK_URL is not set: a --webhook worker takes updates by webhook only", file=sys.stderr
        )
        return 2
    try:
        return asyncio.run(_serve(settings, args.command))
    except ConfigError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def _play(settings: Settings, args: argparse.Namespace) -> int:
    from adapters.console.app import play

    try:
        options = json.loads(args.options) if args.options else None
    except json.JSONDecodeError:
        print("error: --options must be JSON", file=sys.stderr)
        return 2
    lang = args.lang or settings.default_language
    if args.web:
        return _play_web(settings, args, lang, options)
    try:
        return asyncio.run(
            play(
                settings,
                args.preset,
                args.players,
                args.seed,
                lang,
                options,
                metrics=_metrics(settings),
                bots=args.bots.split(","),
            )
        )
    except KeyboardInterrupt:
        return 130
    except ConfigError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except (OSError, RuntimeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


def _play_web(
    settings: Settings, args: argparse.Namespace, lang: str, options: dict[str, object] | None
) -> int:
    from adapters.web.local import play

    port = args.port if args.port is not None else settings.webapp_port
    try:
        return asyncio.run(
            play(
                settings,
                args.preset,
                args.players,
                args.seed,
                lang,
                options,
                port=port,
                metrics=_metrics(settings),
                bots=args.bots.split(","),
            )
        )
    except KeyboardInterrupt:
        return 130
    except ConfigError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except (OSError, RuntimeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


async def _serve(settings: Settings, which: str) -> int:
    """The platform adapters share one service, one store and one timer loop."""
    from bot.service import GameService, Services, thinker_for
    from bot.store import open_store

    if which in ("telegram", "all", "web") and not settings.bot_token:
        raise ConfigError("BOT_TOKEN is not set: the Telegram adapter and the web table need the bot's token")
    if which in ("discord", "all") and not settings.discord_token:
        raise ConfigError("DISCORD_TOKEN is not set: the Discord adapter needs the bot's token")
    store = await open_store(settings)
    # the process's one search pool and one timer loop are made here, beside the service
    service = GameService(store, settings, metrics=_metrics(settings), thinker=thinker_for(settings))
    # the pieces the adapters take: the rooms and moves, the chats' settings and statistics,
    # the platform's records (paint leases, flood budgets, message and hand records)
    services = Services.on(service)
    stop = asyncio.Event()
    _on_signals(stop)
    from bot.health import beat

    heart = asyncio.create_task(beat(settings.heartbeat_file, stop), name="heartbeat")
    runs = []
    if which in ("telegram", "all"):
        from adapters.telegram.app import run as run_telegram

        runs.append(asyncio.create_task(run_telegram(settings, services, stop), name="telegram"))
    if which in ("discord", "all"):
        from adapters.discord.app import run as run_discord

        runs.append(asyncio.create_task(run_discord(settings, services, stop), name="discord"))
    if which == "web" or which in ("telegram", "all") and settings.webapp_url:
        from adapters.telegram.app import make_bot
        from adapters.telegram.members import Members
        from adapters.web.app import run as run_web

        # who may watch a table: the members of its group, asked of Telegram (getChatMember)
        members = Members(make_bot(settings), service.clock)
        runs.append(asyncio.create_task(run_web(settings, services, stop, members), name="web"))
    timers = asyncio.create_task(services.timers.serve_timers(stop), name="timers")
    # what start-up made (the libraries' modules, the adapters) lives as long as the process:
    # left out of the collector's scans, a full collection no longer stalls moves for tens of
    # milliseconds (bench/service.py's p99)
    gc.freeze()
    try:
        # an adapter that ends (a fatal start-up error) stops the others
        done, _pending = await asyncio.wait(runs, return_when=asyncio.FIRST_COMPLETED)
        stop.set()
        results = await asyncio.gather(*runs, return_exceptions=True)
        for r in results:
            if isinstance(r, ConfigError):
                raise r
            if isinstance(r, BaseException) and not isinstance(r, asyncio.CancelledError):
                log.error("adapter stopped: %r", r)
                return 1
        return 0
    finally:
        stop.set()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(timers, STOP_SECONDS)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(heart, STOP_SECONDS)
        await service.close()


def _metrics(settings: Settings) -> Metrics | None:
    """Prometheus metrics when ``METRICS_PORT`` is set, else none."""
    if settings.metrics_port is None:
        return None
    from bot.metrics_prometheus import PrometheusMetrics

    metrics = PrometheusMetrics()
    metrics.serve(settings.metrics_port, settings.metrics_host)
    return metrics


def _health(settings: Settings) -> int:
    from bot.health import check

    problem = asyncio.run(check(settings, settings.heartbeat_file))
    if problem is not None:
        print(f"unhealthy: {problem}", file=sys.stderr)
        return 1
    return 0


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("kozel-bot")
    except PackageNotFoundError:
        return "unknown"


def _on_signals(stop: asyncio.Event) -> None:
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)


if __name__ == "__main__":
    raise SystemExit(main())
