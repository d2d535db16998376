"""``python -m bot play|telegram|discord|all``: the bot's entry point."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from collections.abc import Sequence

from bot.config import ConfigError, load_settings


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("play", help="play in the terminal against computer players")
    p.add_argument("--preset", default="kozel")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--lang", default=None, help="ru or en (default: DEFAULT_LANGUAGE)")
    p.add_argument("--options", default="", help='preset options as JSON, e.g. {"tie":"eggs"}')
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
    print(f"error: unknown command {args.command}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
