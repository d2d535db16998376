"""Fit the Petukh search's odds tables (``engine.families.petukh.odds``) from rules-player matches.

The search values a deal's end by the seat's chance to win the match from the records it
leaves (RULES.md 5: the first to exactly 0 wins). This script plays ``--matches`` matches of
four rules players (seeds ``odds0``, ``odds1``, ...: not the strength bench's), takes the
records before every deal and who went on to win, and fits one weight per record by maximum
likelihood: a seat's chance is its weight over the sum of every seat's. It prints the
weights' logarithms as an entry of ``engine.families.petukh.odds.ODDS``.

    python bench/petukh_odds.py [--matches 20000] [--players 4] [preset ...]
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections import Counter
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parents[1])

from engine.families.petukh.rules import settings_of  # noqa: E402
from engine.presets import make_rules  # noqa: E402
from engine.simulate import make_bots, play_match  # noqa: E402

Position = tuple[tuple[int, ...], tuple[int, ...]]  # the records before a deal, the winners


def positions(preset: str, players: int, matches: int) -> tuple[Counter[Position], int]:
    """How often each (records, winners) pair was seen, and the start record."""
    rules = make_rules(preset, players)
    start = settings_of(rules).start
    bots = make_bots(["rules"] * players)
    seen: Counter[Position] = Counter()
    for seed in range(matches):
        match, _deals, _actions = play_match(rules, bots, f"odds{seed}", check=False)
        records = [tuple([start] * players)]
        records += [tuple(r.result["score"]) for r in match.history if r.result is not None]
        winners = tuple(match.winners)
        for before in records[:-1]:
            seen[tuple(min(start, x) for x in before), winners] += 1
    return seen, start


def fit(seen: Counter[Position], start: int, rounds: int = 600) -> list[float]:
    """Log-weights per record 0..start (the start's fixed at 0), by gradient ascent."""
    theta = [-r / 4 for r in range(start + 1)]
    total = sum(seen.values())
    for _ in range(rounds):
        grad = [0.0] * (start + 1)
        for (records, winners), count in seen.items():
            weights = [math.exp(theta[r]) for r in records]
            whole = sum(weights)
            for w in winners:
                grad[records[w]] += count / len(winners)
            for r, weight in zip(records, weights, strict=True):
                grad[r] -= count * weight / whole
        theta = [t + 2.0 * g / total for t, g in zip(theta, grad, strict=True)]
        theta = [t - theta[start] for t in theta]
    return theta


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=20000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("presets", nargs="*", default=["petukh", "petukh-25"])
    args = parser.parse_args()
    print(f"# {time.strftime('%Y-%m-%d %H:%M')} · Python {sys.version.split()[0]}", flush=True)
    for preset in args.presets:
        seen, start = positions(preset, args.players, args.matches)
        theta = fit(seen, start)
        cfg = settings_of(make_rules(preset, args.players))
        print(f"# {preset} {args.players}p, {sum(seen.values())} deals of {args.matches} matches")
        print(f"    ({cfg.start}, {cfg.boys_finish}, {cfg.exchange}): (")
        for i in range(1, start + 1, 10):
            print("        " + " ".join(f"{t:.2f}," for t in theta[i : i + 10]))
        print("    ),", flush=True)


if __name__ == "__main__":
    main()
