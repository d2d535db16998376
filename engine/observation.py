"""What one seat (or the public table) may see of a match.

``observe(match, seat)`` is the only window computer players and views get. Other hands,
the stock order and every face-down card (and so its points) never appear in it: a throw
shows as a count, except to its owner.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.cards import CARD_TEXT, SUIT_LETTERS, Card

# A play as seen: (seat, kind, cards or None when face down for this viewer, count).
SeenPlay = tuple[int, str, "tuple[Card, ...] | None", int]


class Extras:
    """A family's public extras in an observation (its own frozen dataclass: Petukh's records
    and boys, the permanent-trump family's redeals and boast piles), public to every viewer."""

    __slots__ = ()

    @property
    def score_start(self) -> int:
        """The score a match's scores start from (a chart's first point)."""
        return 0

    def to_json(self) -> dict[str, Any]:
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class Observation:
    preset: str
    players: int
    partnership: bool
    seat: int | None
    deal_no: int
    dealer: int
    seats: tuple[int, ...]  # active seats, clockwise
    trump: int
    trump_card: Card | None
    stock: int
    hand: tuple[Card, ...]  # the viewer's own hand (empty for the public)
    hand_sizes: tuple[int, ...]
    leader: int
    to_move: int
    to_act: tuple[int, ...]
    trick: tuple[SeenPlay, ...]
    win_seat: int
    win_cards: tuple[Card, ...]
    declared: str | None
    tricks: tuple[int, ...]  # per side
    pile_sizes: tuple[int, ...]  # cards per side's pile
    last_trick: tuple[int, tuple[SeenPlay, ...]] | None
    # the moment of the deal: a number that rises with every trick (the trick number in the
    # drawing family), and in the other families with every dealing and phase too; a button
    # made at one moment is stale at the next
    moment: int
    counter: int
    scores: tuple[int, ...]
    out: tuple[bool, ...]
    eggs: bool
    finished: bool
    winners: tuple[int, ...]
    # the moment of a deal: "play", or a family's phase ("cut", "boast", "exchange", ...)
    phase: str = "play"
    # a family's public extras (Petukh's records, passed seats and boys; boast piles)
    extras: Extras | None = None

    @property
    def trick_no(self) -> int:
        """The old name of ``moment``."""
        return self.moment

    def to_json(self) -> dict[str, Any]:
        def cards(cs: tuple[Card, ...] | None) -> list[str] | None:
            return None if cs is None else [CARD_TEXT[c] for c in cs]

        def plays(ps: tuple[SeenPlay, ...]) -> list[dict[str, Any]]:
            return [{"seat": s, "kind": k, "cards": cards(cs), "count": n} for s, k, cs, n in ps]

        return {
            "preset": self.preset,
            "players": self.players,
            "partnership": self.partnership,
            "seat": self.seat,
            "deal_no": self.deal_no,
            "dealer": self.dealer,
            "seats": list(self.seats),
            "trump": SUIT_LETTERS[self.trump],
            "trump_card": None if self.trump_card is None else CARD_TEXT[self.trump_card],
            "stock": self.stock,
            "hand": cards(self.hand),
            "hand_sizes": list(self.hand_sizes),
            "leader": self.leader,
            "to_move": self.to_move,
            "to_act": list(self.to_act),
            "trick": plays(self.trick),
            "win_seat": self.win_seat,
            "win_cards": cards(self.win_cards),
            "declared": self.declared,
            "tricks": list(self.tricks),
            "pile_sizes": list(self.pile_sizes),
            "last_trick": None
            if self.last_trick is None
            else {"winner": self.last_trick[0], "plays": plays(self.last_trick[1])},
            "moment": self.moment,
            "counter": self.counter,
            "scores": list(self.scores),
            "out": list(self.out),
            "eggs": self.eggs,
            "finished": self.finished,
            "winners": list(self.winners),
            "phase": self.phase,
            "info": {} if self.extras is None else self.extras.to_json(),
        }


def visible_to_act(acting: tuple[int, ...], seat: int | None) -> tuple[int, ...]:
    """Who may act, as ``seat`` may see it: the seat on move, and ``seat`` itself if it has
    an out-of-turn right (others' rights tell of their hidden hands)."""
    return acting[:1] + ((seat,) if seat is not None and seat in acting[1:] else ())


def observe(match: Any, seat: int | None = None) -> Observation:
    """What ``seat`` sees (``None``: what the whole table sees), for a match of any family."""
    result: Observation = match.observe(seat)
    return result
