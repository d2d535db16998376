"""Random full deals per second per preset, on one core.

Times the path ``simulate`` uses: observe, legal actions, a random choice, apply (with its
events), deal scoring and the next deal. Invariant checks are off (they are for tests).

Beside them, random full deals per second through a family's compact playout form
(``engine.players.playout``: the drawing family's ``engine.families.drawing.compact``): a match dealt, its
compact form built from its state, played out by uniformly random legal moves (the compact
form's full legality), and by its quick player (the rules player's choices).

Then the search's speed: playouts per 100 ms of thinking per preset (issue 15), averaged
over the moves of the first deals of seeds 0.. (the hard seat's own moves); the playouts
go through the family's compact form where it has one ("compact"), else through the
``Game`` API.

    python bench/engine.py [--seconds 3] [--search-only | --engine-only]
        [--quick rules|random|mixed] [preset ...]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

# This file is named like the package it measures: import the package, not this script.
sys.path[0] = str(Path(__file__).resolve().parents[1])

import random  # noqa: E402

from engine.players.bots import RandomBot, RulesBot  # noqa: E402
from engine.presets import PRESETS, SEARCH_TABLES, make_rules  # noqa: E402
from engine.registry import new_match  # noqa: E402
from engine.simulate import play_match  # noqa: E402

CASES = [
    ("kozel", 4, {}),
    ("kozel", 3, {}),
    ("kozel", 2, {}),
    ("kozel-4", 4, {}),
    ("kozel-60", 4, {}),
    ("kozel-60", 2, {}),
    ("kozel-60", 4, {"deal": "halves"}),
    ("kozel-hvalenyi", 4, {}),
    ("kozel-nn", 4, {}),
    ("kozel-kocherga", 4, {}),
    ("petukh", 4, {}),
    ("petukh", 6, {}),
    ("petukh-25", 4, {}),
]


def bench(preset: str, players: int, options: dict[str, str], seconds: float) -> tuple[float, float]:
    rules = make_rules(preset, players, options)
    bots = [RandomBot() for _ in range(players)]
    deals = actions = 0
    seed = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        _m, d, a = play_match(rules, bots, seed, check=False)
        deals += d
        actions += a
        seed += 1
    elapsed = time.perf_counter() - start
    return deals / elapsed, actions / elapsed


SEARCH_CASES = list(SEARCH_TABLES)


# the drawing family's tables: its compact form is timed on its own (``compact_bench``)
COMPACT_CASES = [case for case in CASES if PRESETS[case[0]].family == "drawing"]


def compact_bench(preset: str, players: int, options: dict[str, str], seconds: float, quick: bool) -> float:
    """Full deals per second through the compact form (random or quick-player moves): the
    compact form built from a dealt match's state and played to the deal's end (the
    dealing through the ``Game`` API is not timed)."""
    from engine.families.drawing.compact import build

    rules = make_rules(preset, players, options)
    deals = 0
    seed = 0
    spent = 0.0
    while spent < seconds:
        game = new_match(rules, seed=seed)
        rng = random.Random(seed)
        start = time.perf_counter()
        c = build(game, 0)
        assert c is not None
        if quick:
            c.finish(rng)
        else:
            c.finish_random(rng)
        spent += time.perf_counter() - start
        deals += 1
        seed += 1
    return deals / spent


def compact_speed(seconds: float) -> None:
    for preset, players, options in COMPACT_CASES:
        opts = ",".join(f"{k}={v}" for k, v in options.items())
        random_dps = compact_bench(preset, players, options, seconds, quick=False)
        quick_dps = compact_bench(preset, players, options, seconds, quick=True)
        print(
            f"{preset:14} {players}p {opts:12} compact {random_dps:8.0f} random deals/s"
            f" {quick_dps:8.0f} quick-player deals/s",
            flush=True,
        )


def search_speed(preset: str, players: int, seconds: float) -> tuple[float, float, int]:
    """Playouts per 100 ms of the search, over the moves with a choice of first deals: of
    wall-clock time (what a move gets) and of the process's CPU time (what a loaded machine
    leaves it: nearer what one quiet core gives)."""
    from engine.players.search import think

    rules = make_rules(preset, players)
    playouts = 0
    spent = cpu = 0.0
    moves = 0
    seed = 0
    while spent < seconds:
        match = new_match(rules, seed=seed)
        rng = random.Random(seed)
        rules_bot = RulesBot()
        while not match.finished and not any(r.result for r in match.history):
            seat = match.to_act()[0]
            legal = match.legal_actions(seat)
            if len(legal) > 1 and seat == 0:
                t, c = time.perf_counter(), time.process_time()
                thought = think(match, seat, rng, ms=100)
                spent += time.perf_counter() - t
                cpu += time.process_time() - c
                playouts += thought.playouts
                moves += 1
            act = rules_bot.choose(match.observe(seat), legal, rng, True) or legal[0]
            match.apply(seat, act)
        seed += 1
    return playouts / spent / 10, playouts / max(cpu, 1e-9) / 10, moves


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--search-only", action="store_true")
    parser.add_argument("--engine-only", action="store_true")
    parser.add_argument(
        "--quick", choices=("rules", "random", "mixed"), default="rules", help="compact playouts' player"
    )
    parser.add_argument("presets", nargs="*", help="the search's presets (default: all)")
    args = parser.parse_args()
    from engine.families.drawing import compact as compact_drawing
    from engine.families.petukh import compact as compact_petukh
    from engine.families.trump import compact as compact_trump

    compact_drawing.QUICK = args.quick
    compact_trump.QUICK = compact_petukh.QUICK = "rules" if args.quick == "rules" else "random"
    print(
        f"# {time.strftime('%Y-%m-%d %H:%M')} · Python {sys.version.split()[0]} · load "
        + " ".join(f"{x:.1f}" for x in os.getloadavg())
        + f" · quick player {args.quick}",
        flush=True,
    )
    if not args.search_only:
        engine_speed(args.seconds)
        compact_speed(args.seconds)
    if not args.engine_only:
        for preset, players in SEARCH_CASES:
            if args.presets and preset not in args.presets:
                continue
            per_100ms, per_cpu, moves = search_speed(preset, players, args.seconds)
            how = "compact"
            print(
                f"{preset:14} {players}p search {per_100ms:7.0f} playouts per 100 ms ({per_cpu:.0f} per"
                f" 100 ms of CPU; {moves} moves, {how} playouts)",
                flush=True,
            )


def engine_speed(seconds: float) -> None:
    for preset, players, options in CASES:
        dps, aps = bench(preset, players, options, seconds)
        opts = ",".join(f"{k}={v}" for k, v in options.items())
        print(f"{preset:14} {players}p {opts:12} {dps:8.0f} deals/s {aps:9.0f} actions/s", flush=True)


if __name__ == "__main__":
    main()
