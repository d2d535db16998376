"""Skill ratings (openskill's Plackett-Luce model): teams in the partnership games, every
player for himself in the others.

A chat keeps its own ratings, written in the same step as the record of the match (the
store checks that nobody rated the chat meanwhile); each person has an overall rating,
moved by the same match right after. Computer players are rated by level (``bot:hard``),
one rating for all the computer players of that level, so people see how they stand
against each level.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from openskill.models import PlackettLuce

MODEL = PlackettLuce()
MU, SIGMA = MODEL.mu, MODEL.sigma
MIN_MATCHES = 3  # matches before a person is ranked in /top


def rated(member: str) -> str:
    """Who a seat's member is for ratings: a person, or a computer player's level."""
    if member.startswith("bot:"):
        return ":".join(member.split(":")[:2])
    return member


def ranks(record: Mapping[str, Any], lower_is_better: bool) -> list[int]:
    """Each side's place (1 best): the winners first, then by score."""
    winners = set(record["winning_sides"])
    scores = record["score"]
    order = sorted(
        range(len(scores)), key=lambda s: (s not in winners, scores[s] if lower_is_better else -scores[s])
    )
    out = [0] * len(scores)
    place, last = 0, None
    for i, side in enumerate(order):
        key = (side in winners, scores[side])
        if key != last:
            place, last = i + 1, key
        out[side] = place
    return out


def rate(
    sides: Sequence[Sequence[str]], places: Sequence[int], current: Mapping[str, tuple[float, float]]
) -> dict[str, tuple[float, float]]:
    """New (mu, sigma) of everyone in the match. A level that sat several times (two
    computer players of one level) moves by the mean of its seats."""
    teams = [
        [MODEL.create_rating(list(current.get(rated(m), (MU, SIGMA))), name=rated(m)) for m in side]
        for side in sides
    ]
    result = MODEL.rate(teams, ranks=[float(p) for p in places])
    seen: dict[str, list[tuple[float, float]]] = {}
    for team in result:
        for r in team:
            seen.setdefault(str(r.name), []).append((r.mu, r.sigma))
    return {name: (sum(m for m, _ in v) / len(v), sum(s for _, s in v) / len(v)) for name, v in seen.items()}


def ordinal(mu: float, sigma: float) -> float:
    """What /top ranks by: a cautious estimate (mu - 3 sigma), rising as a player is known."""
    return mu - 3 * sigma
