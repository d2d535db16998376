"""What each rules family gives the rest of the engine: one ``Family`` record.

A family's package (``engine/families/<name>/``) ends in ``family.py``, which fills in the
record; ``engine.registry`` lists them. The match class and the rules player serve the
service; the rest serves the search (``engine.players``): the compact form a playout plays,
the places of the family's hidden cards and how a sample relabels them, the suits a lead
asks for, the voids a trail shows, and how the end of a deal is valued. Nothing outside a
family's package asks which family it is.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from engine.actions import Action
from engine.cards import Card
from engine.dealing import DeckSource
from engine.events import DealEnded, Event
from engine.game import Game
from engine.observation import Observation
from engine.presets import Family as FamilyName
from engine.presets import Rules

# the plays a table sees only the back of
FACE_DOWN = frozenset({"throw", "lay", "exchange", "swap"})

# the deal's actions so far, as (seat, action)
Trail = Sequence[tuple[int, Action]]

# a place of the stored state that holds cards: (name, its cards); primary places hold each
# card once (hands, stock, piles, the trick), and a sample deals the hidden ones again
Place = tuple[str, list[Card]]

# a rules player's choice: (what the seat sees, its legal actions, dice, on move) -> action
Choose = Callable[[Observation, list[Action], random.Random, bool], "Action | None"]

# the value of a deal's end for a seat and its side, from the events that ended it (0..1),
# None where no deal ended in them
DealValue = Callable[[list[Event], int, int], "float | None"]

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


class MatchKind(Protocol):
    """A family's match class: a new match, or one loaded from its stored form."""

    def __call__(
        self, rules: Rules, seed: int | str = 0, dealer: int | None = None, decks: DeckSource | None = None
    ) -> Game: ...

    def from_state(self, rules: Rules, state: dict[str, Any]) -> Game: ...


@dataclass(frozen=True)
class Voids:
    """Which suit classes a trail shows a seat lacks: the classes it did not follow, and with
    ``trump_leads`` (kozel-nn: no trump lead while holding a non-trump) all but trumps for a
    seat that led a trump; ``fixed``: places that never hold a class."""

    trump_leads: int | None
    fixed: dict[str, set[int]]


@dataclass(frozen=True)
class Family:
    name: FamilyName
    match: MatchKind
    rules_choice: Choose  # the rules player (``normal``), and the search's prior
    # the compact form of a sampled match's deal for the searching seat, None where it does
    # not cover the moment (the playout then goes through the ``Game`` API)
    compact: Callable[[Game, int], Compact | None]
    # whether the compact form's quick players draw from their dice (asked at each search:
    # bench/engine.py --quick changes them)
    draws_dice: Callable[[], bool]
    # where the deal's cards lie, read from the match itself (``places``); and a sample: the
    # match's stored form with every card renamed, which the match class loads (``relabel``)
    places: Callable[[Game], list[Place]]
    relabel: Callable[[dict[str, Any], Callable[[Card], Card]], dict[str, Any]]
    # the suit class a lead asks to follow
    suit_class: Callable[[Rules], Callable[[Card], int]]
    # the voids a trail may show (None: the family's samples take none into account)
    voids: Callable[[Rules], Voids | None]
    # where a card the seat saw may since be hidden again: the seat that holds it or threw it
    # face down and the throws that may hold it (drawing: the turned trump), None if known
    hidden_again: Callable[[Game, Rules, Trail, int], tuple[int | None, set[Card]] | None] | None
    # whether a sample replays the deal's actions to check the duties they showed (Petukh)
    replays: bool
    value: Callable[[Rules], DealValue]
    # whether a deal's card points are its score, and so hold the whole deck's (RULES.md 1-4:
    # Kozel's 120); Petukh scores tricks and records
    scores_card_points: bool


def share(ev: DealEnded, side: int) -> float:
    """The side's share of the card points of an ended deal (of its tricks, where no card
    points were taken)."""
    total = sum(ev.points)
    mine = ev.tricks[side] / max(1, sum(ev.tricks)) if total <= 0 else ev.points[side] / total
    return float(mine)


def card_share(events: list[Event], seat: int, side: int) -> float | None:
    """``DealValue`` by the card points: the side's share of the deal ``events`` ended."""
    for ev in events:
        if isinstance(ev, DealEnded):
            return share(ev, side)
    return None


def plain_suits(rules: Rules) -> Callable[[Card], int]:
    """``Family.suit_class`` where a lead asks for its card's suit."""
    return _suit


def _suit(card: Card) -> int:
    return card // 9


def no_voids(rules: Rules) -> Voids | None:
    return None
