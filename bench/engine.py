"""Random full deals per second per preset, on one core.

Times the path ``simulate`` uses: observe, legal actions, a random choice, apply (with its
events), deal scoring and the next deal. Invariant checks are off (they are for tests).

    python bench/engine.py [--seconds 3]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

# This file is named like the package it measures: import the package, not this script.
sys.path[0] = str(Path(__file__).resolve().parents[1])

from engine.bots import RandomBot  # noqa: E402
from engine.presets import make_rules  # noqa: E402
from engine.simulate import play_match  # noqa: E402

CASES = [
    ("kozel", 4, {}), ("kozel", 3, {}), ("kozel", 2, {}), ("kozel-4", 4, {}),
    ("kozel-60", 4, {}), ("kozel-60", 2, {}), ("kozel-60", 4, {"deal": "halves"}),
    ("kozel-hvalenyi", 4, {}), ("kozel-nn", 4, {}), ("kozel-kocherga", 4, {}),
    ("petukh", 4, {}), ("petukh", 6, {}), ("petukh-25", 4, {}),
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    for preset, players, options in CASES:
        dps, aps = bench(preset, players, options, args.seconds)
        opts = ",".join(f"{k}={v}" for k, v in options.items())
        print(f"{preset:14} {players}p {opts:12} {dps:8.0f} deals/s {aps:9.0f} actions/s")


if __name__ == "__main__":
    main()
