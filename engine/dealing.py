"""Dealing, shared by every family: each deal's deck from ``(seed, deal number)``, the first
dealer, and a deal's record in the log (``Game.history``).

Chance is explicit: a match replays exactly from its seed, or from the decks of a deal log
(``DeckSource``).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.actions import Action
from engine.cards import Card
from engine.presets import Rules

DeckSource = Callable[[int, int], "tuple[list[Card], Card | None]"]


@dataclass
class DealRecord:
    """One deal as the log keeps it: who dealt, the deck, the shown trump, the actions."""

    dealer: int
    deck: list[Card]
    trump_card: Card | None
    actions: list[tuple[int, Action]] = field(default_factory=list)
    result: dict[str, Any] | None = None


def _shuffle(rng: random.Random, x: list[Any]) -> None:
    """``rng.shuffle(x)`` with the same draws (one ``getrandbits`` a try, as CPython's
    ``Random._randbelow``), without a Python call a card: a deal's deck is shuffled many
    times a second in a search's playouts."""
    bits = rng.getrandbits
    for i, n, k in _shuffle_steps(len(x)):
        j = bits(k)
        while j >= n:
            j = bits(k)
        x[i], x[j] = x[j], x[i]


_STEPS: dict[int, tuple[tuple[int, int, int], ...]] = {}


def _shuffle_steps(size: int) -> tuple[tuple[int, int, int], ...]:
    """The swaps of a shuffle of ``size`` items: (position, choices, bits a draw), kept per size."""
    steps = _STEPS.get(size)
    if steps is None:
        steps = _STEPS[size] = tuple((i, i + 1, (i + 1).bit_length()) for i in range(size - 1, 0, -1))
    return steps


def _same_as_random() -> bool:
    """Does ``_shuffle`` draw as this Python's ``random.shuffle`` does (checked once)?"""
    mine, theirs = list(range(36)), list(range(36))
    _shuffle(random.Random("shuffle"), mine)
    random.Random("shuffle").shuffle(theirs)
    return mine == theirs


_SHUFFLE: Callable[[random.Random, list[Any]], None] = (
    _shuffle if _same_as_random() else lambda rng, x: rng.shuffle(x)
)


def shuffled_deck(rules: Rules, seed: int | str, deal_no: int) -> tuple[list[Card], Card | None]:
    """The deck for deal ``deal_no`` of a match seeded ``seed`` (and kozel-4's shown card)."""
    rng = random.Random(f"{seed}:{deal_no}")
    deck = list(rules.deck)
    _SHUFFLE(rng, deck)
    trump_card = None
    if rules.trump_mode == "middle":
        # RULES.md 2: a card picked at random from the middle of the stock.
        stock = deck[rules.hand_size * rules.players :]
        trump_card = stock[rng.randrange(1, len(stock) - 1)]
    return deck, trump_card


def first_dealer(players: int, seed: int | str) -> int:
    """RULES.md 0: the first dealer is chosen at random (from the match seed)."""
    return random.Random(f"{seed}:dealer").randrange(players)
