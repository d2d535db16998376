"""Compact playouts: a determinized deal in each family's own small form, for the search.

The search (``engine.players.search``) plays thousands of deals to their end for every move. Through
the public ``Game`` API each step builds observations, events and checks made for people;
a family may instead offer a compact form of one sampled deal (plain ints, bit masks) whose
legal moves and results agree with the engine's: a property test per family plays random
deals both ways and compares them step by step.

A family's record (``engine.family.Family.compact``) builds it: the deal of ``game`` (a sampled
match, every hand known) seen from the searching ``seat``, or None where the compact form does
not cover the moment (then the search plays that position out through the ``Game`` API).
"""

from __future__ import annotations

from engine.family import Compact
from engine.game import Game
from engine.registry import family_of


def compact_of(game: Game, seat: int) -> Compact | None:
    """The compact form of ``game``'s deal for ``seat``, or None (the moment is not covered)."""
    return family_of(game.rules).compact(game, seat)


def draws_dice(game: Game) -> bool:
    """Whether the family's compact playouts draw from the rng they are given: only a random
    or mixed quick player does; the rules quick players choose without it, so their playouts
    need no Random seeded for each (``engine.players.search``)."""
    return family_of(game.rules).draws_dice()
