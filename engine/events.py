"""Events: what happened, with parameters, never text (adapters word them).

Every event here is public: it may be shown to the whole table. Nothing hidden travels in
an event: a throw names its seat and how many cards went face down, never which; a trick
won names only its face-up cards; card points appear only in ``DealEnded``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from engine.cards import CARD_TEXT, Card


@dataclass(frozen=True, slots=True)
class Event:
    @property
    def name(self) -> str:
        """``TrickWon`` -> ``trick_won``: the locale key stem."""
        n = type(self).__name__
        return "".join("_" + ch.lower() if ch.isupper() else ch for ch in n).lstrip("_")

    def to_json(self) -> dict[str, Any]:
        """Plain data with cards as text (for logs, views and tests)."""
        out: dict[str, Any] = {"event": self.name}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in _CARD_FIELDS:
                value = _cards_json(value)
            out[f.name] = value
        return out


_CARD_FIELDS = {"cards", "card", "face_up", "trump_card"}


def _cards_json(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, int):
        return CARD_TEXT[value]
    return [_cards_json(v) for v in value]


@dataclass(frozen=True, slots=True)
class DealStarted(Event):
    deal_no: int
    dealer: int
    trump: int  # suit index
    trump_card: Card | None  # the face-up (or shown) card, when one is public
    leader: int


@dataclass(frozen=True, slots=True)
class Led(Event):
    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Declared(Event):
    """A Moscow, a Molodka (RULES.md 1) or a pull (RULES.md 2): the cards are led face up."""

    seat: int
    combination: str  # "moscow" | "molodka" | "pull"
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class CardsReturned(Event):
    """Cards on the table went back to their owners (a Moscow over a Molodka, a pull)."""

    seats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Beaten(Event):
    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Thrown(Event):
    """Face-down cards: how many, never which."""

    seat: int
    count: int


@dataclass(frozen=True, slots=True)
class Played(Event):
    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class TrickWon(Event):
    seat: int
    side: int
    face_up: tuple[Card, ...]
    face_down: int


@dataclass(frozen=True, slots=True)
class CardsDrawn(Event):
    """After a trick each seat drew ``counts[i]`` cards (which ones is private)."""

    seats: tuple[int, ...]
    counts: tuple[int, ...]
    stock: int


@dataclass(frozen=True, slots=True)
class TrumpCardTaken(Event):
    """The face-up trump under the stock was drawn (it was public all along)."""

    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class SecondHalfDealt(Event):
    """``kozel-60`` ``halves``: the second half of the deck is dealt (RULES.md 3)."""

    leader: int


@dataclass(frozen=True, slots=True)
class DealEnded(Event):
    """Card points and tricks per side, and what the deal scored per side."""

    deal_no: int
    points: tuple[int, ...]
    tricks: tuple[int, ...]
    scored: tuple[int, ...]  # penalties (or kozel-60 points) added per side
    score: tuple[int, ...]  # the match score per side after this deal
    outcome: str  # "normal" | "eggs" | "void" | "tie"
    doubled: bool


@dataclass(frozen=True, slots=True)
class SideOut(Event):
    """A side reached the losing mark and leaves the match (RULES.md 1)."""

    side: int
    seats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class MatchEnded(Event):
    winners: tuple[int, ...]  # seats
    score: tuple[int, ...]


# The commonest drawing events by seat and card (a throw's by seat and count), made once and
# shared as the one-card actions are (``engine.actions.ONE_CARD``): events are immutable
# values, and a search's playouts make many a second.
_SEATS = range(6)
LED_ONE = tuple(tuple(Led(s, (c,)) for c in range(36)) for s in _SEATS)
BEATEN_ONE = tuple(tuple(Beaten(s, (c,)) for c in range(36)) for s in _SEATS)
PLAYED_ONE = tuple(tuple(Played(s, c) for c in range(36)) for s in _SEATS)
THROWN_BY_COUNT = tuple(tuple(Thrown(s, n) for n in range(5)) for s in _SEATS)
