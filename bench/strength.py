"""How strong the ``rules`` computer player is against ``random``, per preset.

Fixed seeds 0-199 (never picked ones). Kozel presets: ``rules`` on one team (or seat 0
when each plays for himself) against ``random``; the figure is the matches it wins.
Petukh: ``rules`` at seat 0 against three ``random`` players; the figure is each seat's
average record left at the end (lower is better) and how often seat 0 wins.

    python bench/strength.py [--matches 200] [preset ...]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parents[1])

from engine.bots import make_bot  # noqa: E402
from engine.presets import PRESETS, make_rules  # noqa: E402
from engine.simulate import play_match  # noqa: E402

CASES = [
    ("kozel", 4), ("kozel", 2), ("kozel-4", 4), ("kozel-60", 2), ("kozel-hvalenyi", 4),
    ("kozel-nn", 4), ("kozel-kocherga", 4), ("petukh", 4), ("petukh-25", 4),
]


def run(preset: str, players: int, matches: int) -> str:
    rules = make_rules(preset, players)
    if rules.partnership:
        levels = ["rules", "random"] * (players // 2)
    else:
        levels = ["rules"] + ["random"] * (players - 1)
    bots = [make_bot(level) for level in levels]
    wins = 0
    left = [0] * players
    start = time.perf_counter()
    for seed in range(matches):
        match, _deals, _actions = play_match(rules, bots, seed, check=False)
        wins += 0 in match.winners
        if rules.scoring == "record":
            left = [a + b for a, b in zip(left, match.scores, strict=True)]
    seconds = time.perf_counter() - start
    text = f"{preset:14} {players}p rules wins {wins}/{matches}"
    if rules.scoring == "record":
        text += " · average record left " + " ".join(f"{x / matches:.1f}" for x in left)
    return text + f" · {seconds:.1f} s"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("presets", nargs="*")
    args = parser.parse_args()
    for preset, players in CASES:
        if args.presets and preset not in args.presets:
            continue
        assert preset in PRESETS
        print(run(preset, players, args.matches), flush=True)


if __name__ == "__main__":
    main()
