"""How strong the computer players are, per preset, on fixed seeds (never picked ones).

Default: ``hard`` (search) against ``normal`` (rules), issue 15. Kozel presets: ``hard`` on
one team (or seat 0 when each plays for himself), ``normal`` on the other; the figures are
the hard side's share of the card points per deal and the matches it wins. Where a catch of
the Q♣ ends a deal (RULES.md 4a-4c: its card points do not count), also the catches per side
and the share over the deals in which no catch could be made. Petukh: one ``hard`` seat (0)
and three ``normal``; the figures are each seat's average record left at the end (lower is
better) and how often seat 0 wins.

``--deals`` plays only the first deal of each seed's match (the card-point share on many
deals at a small cost); the default plays whole matches. ``--both`` plays each seed twice,
the strong level on one side and then on the other (as duplicate bridge deals the same cards
to both pairs): the luck of the deals cancels, which on 200 seeds is worth a few points of
the share (kozel-kocherga's first deals of seeds 0-199 give side 0 48.3% of the card points
with ``normal`` on both sides). The search's budget is
``--iterations`` playouts a move (exact for a seed) or ``--think-ms`` a move.
``--levels rules,random`` measures the rules player against random instead (the older
figure).

    python bench/strength.py [--seeds 200] [--first 0] [--jobs 1] [--deals] [--both] [--iterations 40 |
        --think-ms 100] [--levels search,rules] [--quick rules|random|mixed] [preset | preset:players ...]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parents[1])

from engine.cards import CLUBS  # noqa: E402
from engine.families.drawing import compact as compact_drawing  # noqa: E402
from engine.families.petukh import compact as compact_petukh  # noqa: E402
from engine.families.trump import compact as compact_trump  # noqa: E402
from engine.families.trump.rules import QUEEN_CLUBS  # noqa: E402
from engine.game import Game  # noqa: E402
from engine.players import search  # noqa: E402
from engine.presets import PRESETS, SEARCH_TABLES, Rules, make_rules, trump_ladder  # noqa: E402
from engine.registry import new_match  # noqa: E402
from engine.simulate import deal_totals, make_bots, play_match, step  # noqa: E402

CASES = list(SEARCH_TABLES)


def seat_levels(rules: Rules, strong: str, weak: str, side: int = 0) -> list[str]:
    """The levels per seat: ``strong`` on the team ``side`` (or at seat ``side`` when each
    plays for himself), ``weak`` elsewhere."""
    if rules.partnership:
        return [strong if seat % 2 == side else weak for seat in range(rules.players)]
    return [strong if seat == side else weak for seat in range(rules.players)]


def turned(row: list[int], side: int) -> list[int]:
    """A per-side (or per-seat) row turned so that the strong side's entry comes first."""
    return row[side:] + row[:side]


def first_deal(rules: Rules, bots: list, seed: int) -> Game:  # type: ignore[type-arg]
    """Play the match of ``seed`` until its first deal is scored."""
    match = new_match(rules, seed=seed)
    rng = random.Random(f"bots:{seed}")
    while not match.finished and not any(r.result for r in match.history):
        step(match, bots, rng)
    return match


def configure(args: argparse.Namespace) -> None:
    """The playouts' quick player and the search's margin, as asked (in every process):
    ``mixed`` is the drawing family's alone (the others play it as ``random``)."""
    compact_drawing.QUICK = args.quick
    compact_trump.QUICK = compact_petukh.QUICK = "rules" if args.quick == "rules" else "random"
    if args.margin is not None:
        search.MARGIN = args.margin


# won; the scores at the end (Petukh: records left per seat; a Kozel first deal: its eyes or
# penalties per side); card points per side; deals counted; catches per side; card points
# per side and deals counted of the deals where no catch could be made
Tally = tuple[int, list[int], list[int], int, list[int], list[int], int]


def catchless(match: Game, sides: int) -> tuple[list[int], int]:
    """Card points per side (and how many deals) of the match's deals played to their end in
    which the catcher and the Q♣ were held by one team, so that no catch could be made: a
    measure the catches do not bias (a caught deal's card points do not count, and the
    side that catches more loses more of its good deals from the share)."""
    totals, deals = [0] * sides, 0
    if match.rules.family != "trump":
        return totals, deals
    catcher = trump_ladder(match.rules.preset, CLUBS)[0]  # the 6♣ (kocherga: the 7♣)
    for record in match.history:
        points = (record.result or {}).get("points")
        if not points:
            continue
        holders = {
            match.rules.side_of(seat)
            for seat, action in record.actions
            if catcher in action.cards or QUEEN_CLUBS in action.cards
        }
        if len(holders) == 1:
            deals += 1
            totals = [a + b for a, b in zip(totals, points, strict=True)]
    return totals, deals


def deal_catches(match: Game, sides: int) -> list[int]:
    """The match's deals ended by a catch of the Q♣ (RULES.md 4a-4c), per side that caught:
    the side that scored eyes for it, or in kozel-nn's penalties the side that took none."""
    caught = [0] * sides
    before = [0] * sides
    for record in match.history:
        result = record.result or {}
        score = result.get("score")
        if score is None:
            continue
        if result.get("outcome") == "caught":
            delta = [a - b for a, b in zip(score, before, strict=True)]
            best = min(delta) if match.rules.scoring == "penalty" else max(delta)
            caught[delta.index(best)] += 1
        before = list(score)
    return caught


def one_seed(preset: str, players: int, args: argparse.Namespace, seed: int, side: int = 0) -> Tally:
    """One seed's match (or first deal) with the strong level on ``side``: whether it won,
    the scores (``Tally``), the card points per side, how many deals counted them and the
    catches, every row turned so that the strong side comes first."""
    configure(args)
    rules = make_rules(preset, players)
    strong, weak = args.levels.split(",")
    bots = make_bots(seat_levels(rules, strong, weak, side), args.think_ms, args.iterations)
    won, left = 0, [0] * players
    if args.deals:
        match = first_deal(rules, bots, seed)
        if rules.scoring in ("eyes", "penalty"):  # what the deal scored, per side
            left = list(match.scores)
    else:
        match, _d, _a = play_match(rules, bots, seed, check=False)
        won = int(side in match.winners)
        if rules.scoring == "record":  # Petukh: records per seat (Kozel: per side)
            left = list(match.scores)
    totals, n = deal_totals(match, rules.sides)
    closed, m = catchless(match, rules.sides)
    caught = deal_catches(match, rules.sides)
    return won, turned(left, side), turned(totals, side), n, turned(caught, side), turned(closed, side), m


def _one(job: tuple[str, int, argparse.Namespace, int, int]) -> Tally:
    return one_seed(*job)


def run(preset: str, players: int, args: argparse.Namespace) -> str:
    rules = make_rules(preset, players)
    strong, weak = args.levels.split(",")
    seeds = range(args.first, args.first + args.seeds)
    start = time.perf_counter()
    sides = (0, 1) if args.both else (0,)
    jobs = [(preset, players, args, seed, side) for seed in seeds for side in sides]
    tallies = _play(jobs, args.jobs)
    totals = Totals.of(tallies, rules.sides)
    seconds = time.perf_counter() - start
    text = f"{preset:14} {players}p {strong} vs {weak}, seeds {seeds.start}-{seeds.stop - 1}:"
    if args.both:
        text += " both sides:" + _sides_text(tallies, jobs, sides, strong)
    text += _figures_text(rules, args, totals, len(jobs))
    return text + f" · {seconds:.0f} s"


def _play(jobs: list[tuple[str, int, argparse.Namespace, int, int]], processes: int) -> list[Tally]:
    """Each job's tally, in order."""
    if processes > 1:  # each seed's match is its own (its bots' dice are seeded by it)
        with multiprocessing.Pool(processes) as pool:
            return pool.map(_one, jobs, chunksize=1)
    return [_one(job) for job in jobs]


@dataclass(frozen=True)
class Totals:
    """The tallies of a preset's seeds added up (the strong side's entries first)."""

    wins: int
    left: list[int]
    points: list[int]
    deals: int
    catches: list[int]
    closed: list[int]
    closed_deals: int

    @classmethod
    def of(cls, tallies: list[Tally], sides: int) -> Totals:
        return cls(
            wins=sum(t[0] for t in tallies),
            left=[sum(column) for column in zip(*(t[1] for t in tallies), strict=True)],
            points=[sum(t[2][side] for t in tallies) for side in range(sides)],
            deals=sum(t[3] for t in tallies),
            catches=[sum(t[4][side] for t in tallies) for side in range(sides)],
            closed=[sum(t[5][side] for t in tallies) for side in range(sides)],
            closed_deals=sum(t[6] for t in tallies),
        )


def _sides_text(
    tallies: list[Tally],
    jobs: list[tuple[str, int, argparse.Namespace, int, int]],
    sides: tuple[int, ...],
    strong: str,
) -> str:
    """With ``--both``: each orientation's own share, beside the two together."""
    text = ""
    for side in sides:
        mine = [t[2] for t, job in zip(tallies, jobs, strict=True) if job[4] == side]
        part = sum(t[0] for t in mine), sum(sum(t) for t in mine)
        if part[1] > 0:
            text += f" {strong} on side {side} {100 * part[0] / part[1]:.1f}%,"
    return text


def _figures_text(rules: Rules, args: argparse.Namespace, totals: Totals, n: int) -> str:
    """The card points' share, the scores, the catches and the matches won."""
    text = ""
    points, left = totals.points, totals.left
    total = sum(points)
    if rules.scoring != "record" and total > 0:
        text += (
            f" card points {100 * points[0] / total:.1f}% over {totals.deals} deals ({points[0]} of {total})"
        )
    if args.deals and rules.scoring in ("eyes", "penalty"):
        text += f" · {rules.scoring} scored " + " to ".join(str(x) for x in left)
    if any(totals.catches):
        text += " · catches of the Q♣ " + " to ".join(str(x) for x in totals.catches)
    if totals.closed_deals:
        share = 100 * totals.closed[0] / sum(totals.closed)
        text += f" · where no catch could be made {share:.1f}% over {totals.closed_deals} deals"
    if not args.deals:
        text += f" · matches won {totals.wins}/{n}"
        if rules.scoring == "record":
            text += " · average record left " + " ".join(f"{x / n:.1f}" for x in left)
            text += " (sums " + " ".join(str(x) for x in left) + ")"
    return text


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1, help="processes playing seeds side by side")
    parser.add_argument("--deals", action="store_true", help="first deals only")
    parser.add_argument(
        "--both",
        action="store_true",
        help="each seed twice, the strong level on each side in turn (the deals' luck cancels)",
    )
    parser.add_argument("--iterations", type=int, default=None)
    parser.add_argument("--think-ms", type=float, default=None)
    parser.add_argument("--levels", default="search,rules")
    parser.add_argument(
        "--quick",
        choices=("rules", "random", "mixed"),
        default="rules",
        help="the compact playouts' quick player",
    )
    parser.add_argument("--margin", type=float, default=None, help="the search's margin instead")
    parser.add_argument("presets", nargs="*", help="presets, or preset:players (kozel:4)")
    args = parser.parse_args()
    if args.iterations is None and args.think_ms is None:
        args.think_ms = 100.0
    if args.jobs > 1 and args.iterations is None:
        parser.error("--jobs needs --iterations: side by side, a time budget buys fewer playouts")
    configure(args)
    print(
        f"# {time.strftime('%Y-%m-%d %H:%M')} · Python {sys.version.split()[0]} · load "
        + " ".join(f"{x:.1f}" for x in os.getloadavg())
        + f" · budget {args.iterations or ''} playouts {args.think_ms or ''} ms · quick player {args.quick}"
        + f" · margin {search.MARGIN} · jobs {args.jobs}",
        flush=True,
    )
    for preset, players in CASES:
        if args.presets and preset not in args.presets and f"{preset}:{players}" not in args.presets:
            continue
        assert preset in PRESETS
        if args.deals and make_rules(preset, players).family == "petukh":
            print(f"{preset:<14} {players}p: not with --deals (records left need whole matches)", flush=True)
            continue
        print(run(preset, players, args), flush=True)


if __name__ == "__main__":
    main()
