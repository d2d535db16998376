"""Compact playouts: a determinized deal in each family's own small form, for the search.

The search (``engine.players.search``) plays thousands of deals to their end for every move. Through
the public ``Game`` API each step builds observations, events and checks made for people;
a family may instead offer a compact form of one sampled deal (plain ints, bit masks) whose
legal moves and results agree with the engine's: a property test per family plays random
deals both ways and compares them step by step.

A family's module has ``build(game, seat) -> Compact | None``: the deal of ``game`` (a sampled
match, every hand known) seen from the searching ``seat``, or None where the compact form does
not cover the moment (then the search plays that position out through the ``Game`` API).
"""

from __future__ import annotations

import importlib
import random
from typing import Any, Protocol

from engine.actions import Action
from engine.game import Game

# A deal ended by a catch of the Q♣ (RULES.md 4a-4c) scores as much as one won with 91 card
# points or more (4 eyes; kozel-nn: the caught team's 4 penalties, a chiper's): a playout
# that ends so is worth CATCH to the catching side and 1 - CATCH to the other, not the card
# points taken until then (engine.players.search.deal_value and the compact forms)
CATCH = 0.9


class Compact(Protocol):
    """One determinized deal, from the searching seat's point of view."""

    def copy(self) -> Compact: ...

    def code(self, action: Action) -> int | None:
        """The root action ``action`` of the seat on move in the compact form; None if the
        compact form does not model it (the search then plays it through the ``Game`` API)."""
        ...

    def play(self, code: int) -> None:
        """The seat on move plays ``code``."""
        ...

    def finish(self, rng: random.Random) -> float:
        """Plays the deal to its end with the family's quick players and returns the
        searching seat's value, as ``engine.players.search.deal_value`` reads it (0..1)."""
        ...


class Relabels(Compact, Protocol):
    """A compact form that can also be one determinization of itself: every card ``x``
    replaced by ``f[x]`` (``engine.players.sampler.Sampler.draw``), cheaper than building the
    sample's ``Game`` and its compact form again (optional: the search checks for it).
    None where the relabelled deal breaks a duty its replay checks (Petukh: a seat that did
    not follow suit held none): the search draws again, as the sampler does."""

    def relabel(self, f: list[int]) -> Compact | None: ...


class Weighs(Relabels, Protocol):
    """A compact form that can weigh a determinization by how well the quick player
    explains the other seats' plays so far (optional: the search checks for it)."""

    def likelihood(self, history: list[tuple[int, int]], miss: float) -> float: ...

    def misses(self, history: list[tuple[int, int]], known: dict[int, int]) -> int: ...


# the family -> the module holding its ``build``
MODULES: dict[str, str] = {
    "drawing": "engine.families.drawing.compact",
    "trump": "engine.families.trump.compact",
    "petukh": "engine.families.petukh.compact",
}


def compact_of(game: Game, seat: int) -> Compact | None:
    """The compact form of ``game``'s deal for ``seat``, or None (no form for the family, or
    the moment is not covered)."""
    module = family_module(game.rules.family)
    if module is None:
        return None
    found: Compact | None = module.build(game, seat)
    return found


def draws_dice(family: str) -> bool:
    """Whether the family's compact playouts draw from the rng they are given: only a random
    or mixed quick player does (the module's ``QUICK``); the rules quick players choose
    without it, so their playouts need no Random seeded for each (``engine.players.search``)."""
    module = family_module(family)
    return module is None or module.QUICK != "rules"


def family_module(family: str) -> Any:
    """The module of the family's compact form (``MODULES``), or None where it has none."""
    name = MODULES.get(family)
    return None if name is None else importlib.import_module(name)
