"""``python -m bot play|telegram|discord|all``: the bot's entry point."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from collections.abc import Sequence

from bot.config import ConfigError, Settings, load_settings


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("play", help="play in the terminal against computer players")
    p.add_argument("--preset", default="kozel")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--lang", default=None, help="ru or en (default: DEFAULT_LANGUAGE)")
    p.add_argument("--options", default="", help='preset options as JSON, e.g. {"tie":"eggs"}')
    sub.add_parser("telegram", help="run the Telegram bot (BOT_TOKEN)")
    sub.add_parser("discord", help="run the Discord bot (DISCORD_TOKEN)")
    sub.add_parser("all", help="run both bots in one process")
    args = parser.parse_args(argv)
    try:
        settings = load_settings()
    except ConfigError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.WARNING)
    if args.command == "play":
        from adapters.console.app import play

        try:
            options = json.loads(args.options) if args.options else None
        except json.JSONDecodeError:
            print("error: --options must be JSON", file=sys.stderr)
            return 2
        lang = args.lang or settings.default_language
        try:
            return asyncio.run(play(settings, args.preset, args.players, args.seed, lang, options))
        except KeyboardInterrupt:
            return 130
        except (OSError, RuntimeError) as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
    try:
        return asyncio.run(_serve(settings, args.command))
    except ConfigError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


async def _serve(settings: Settings, which: str) -> int:
    """The platform adapters share one service, one store and one timer loop."""
    from bot.service import GameService
    from bot.store import Store

    if which in ("telegram", "all") and not settings.bot_token:
        raise ConfigError("BOT_TOKEN is not set: the Telegram adapter needs the bot's token")
    if which in ("discord", "all") and not settings.discord_token:
        raise ConfigError("DISCORD_TOKEN is not set: the Discord adapter needs the bot's token")
    store = await Store.connect(settings.redis_url, settings.data_dir, settings.redis_cluster)
    try:
        service = GameService(store, settings)
        runs = []
        if which in ("telegram", "all"):
            from adapters.telegram.app import run as run_telegram

            runs.append(run_telegram(settings, service))
        if which in ("discord", "all"):
            from adapters.discord.app import run as run_discord

            # one timer loop a process: the Telegram side runs it in "all"
            runs.append(run_discord(settings, service, timers_loop=which == "discord"))
        await asyncio.gather(*runs)
        return 0
    finally:
        await store.close()


if __name__ == "__main__":
    raise SystemExit(main())
