"""``python -m engine replay FILE`` and ``python -m engine simulate ...``."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from engine.game import Game
from engine.log import LogError, replay
from engine.presets import PresetError, preset_names
from engine.simulate import simulate


def _replay(args: argparse.Namespace) -> int:
    try:
        with open(args.file, encoding="utf-8") as f:
            log = json.load(f)
    except (OSError, ValueError) as e:  # JSONDecodeError, UnicodeDecodeError
        print(f"error: cannot read {args.file}: {e}", file=sys.stderr)
        return 2
    try:
        match, summary = replay(log)
    except LogError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    if args.moves:
        _print_moves(match, log.get("names"))
    print(json.dumps(summary, ensure_ascii=False))
    return 0


def _print_moves(match: Game, names: object) -> None:
    """Every action in order, dealing by dealing, with each deal's result: a match (the
    bot's /history exports one, with the seats' names) replayed in the terminal."""
    seats = [str(n) for n in names] if isinstance(names, list) else []

    def who(seat: int) -> str:
        return seats[seat] if seat < len(seats) else f"seat {seat}"

    for no, rec in enumerate(match.history, start=1):
        print(f"dealing {no}: dealer {who(rec.dealer)}")
        for seat, action in rec.actions:
            print(f"  {who(seat)}: {action}")
        if rec.result is not None:
            print(f"  result: {json.dumps(rec.result, ensure_ascii=False)}")


def _simulate(args: argparse.Namespace) -> int:
    try:
        options = json.loads(args.options) if args.options else None
    except json.JSONDecodeError as e:
        print(f"error: --options is not JSON: {e}", file=sys.stderr)
        return 2
    try:
        result = simulate(
            args.preset,
            args.players,
            args.matches,
            args.seed,
            args.bots.split(","),
            options,
            think_ms=args.think_ms,
            iterations=args.iterations,
        )
    except (PresetError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        print(
            f"{result['preset']} x{result['players']} ({','.join(result['bots'])}): "
            f"{result['matches']} matches, {result['deals']} deals, {result['actions']} actions "
            f"in {result['seconds']} s ({result['deals_per_second']} deals/s); "
            f"wins per seat {result['wins']}; invariants {result['invariants']}"
        )
    return 0 if result["invariants"] == "ok" else 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    rp = sub.add_parser("replay", help="replay a JSON deal log and print its result")
    rp.add_argument("file")
    rp.add_argument("--moves", action="store_true", help="print every action in order, deal by deal")
    sp = sub.add_parser("simulate", help="play whole matches between computer players")
    # checked by simulate (PresetError: one line listing the presets), not by argparse choices
    sp.add_argument("--preset", required=True, help=f"one of: {', '.join(preset_names())}")
    sp.add_argument("--players", type=int, required=True)
    sp.add_argument("--matches", type=int, default=100)
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument(
        "--bots",
        default="random",
        help="one level for all, or one per seat: random, easy, rules (normal), search (hard)",
    )
    sp.add_argument("--options", default="", help='preset options as JSON, e.g. {"tie":"eggs"}')
    sp.add_argument("--think-ms", type=float, default=None, help="search players' time a move, in ms")
    sp.add_argument(
        "--iterations", type=int, default=None, help="search players' playouts a move (exact for a seed)"
    )
    sp.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.command == "replay":
        return _replay(args)
    return _simulate(args)


if __name__ == "__main__":
    raise SystemExit(main())
