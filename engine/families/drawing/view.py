"""What a seat sees of a drawing-family match (RULES.md 1-3), and the whole table.

``DrawingTable`` is what the view reads of the match: ``engine.families.drawing.match.Match``
is one, and the view needs nothing else of it.
"""

from __future__ import annotations

from typing import Any, Protocol

from engine.families.drawing.deal import DrawingDeal
from engine.observation import Observation, SeenPlay, visible_to_act
from engine.presets import Rules


class DrawingTable(Protocol):
    rules: Rules
    deal: DrawingDeal
    deal_no: int
    scores: list[int]
    out: list[bool]
    eggs: bool
    finished: bool
    winners: tuple[int, ...]

    def to_act(self) -> tuple[int, ...]: ...


def seen(plays: Any, viewer: int | None) -> tuple[SeenPlay, ...]:
    return tuple(
        (s, kind, cards if kind != "throw" or s == viewer else None, len(cards)) for s, kind, cards in plays
    )


def observe_drawing(match: DrawingTable, seat: int | None = None) -> Observation:
    """``observe`` for the drawing family (RULES.md 1-3)."""
    d = match.deal
    last = None
    if d.last_trick is not None:
        last = (d.last_trick[0], seen(d.last_trick[1], seat))
    return Observation(
        preset=match.rules.preset,
        players=match.rules.players,
        partnership=match.rules.partnership,
        seat=seat,
        deal_no=match.deal_no,
        dealer=d.dealer,
        seats=d.seats,
        trump=d.trump,
        trump_card=d.trump_card if d.trump_public else None,
        stock=len(d.stock),
        hand=tuple(sorted(d.hands[seat])) if seat is not None else (),
        hand_sizes=tuple(len(h) for h in d.hands),
        leader=d.leader,
        to_move=d.to_move,
        # who else may act (declare out of turn) tells of hidden hands: a seat sees only its
        # own right, the public only the seat on move
        to_act=visible_to_act(match.to_act(), seat),
        trick=seen(d.plays, seat),
        win_seat=d.win_seat,
        win_cards=d.win_cards,
        declared=d.declared,
        tricks=tuple(d.tricks),
        pile_sizes=tuple(len(p) for p in d.piles),
        last_trick=last,
        moment=d.trick_no,
        counter=d.counter,
        scores=tuple(match.scores),
        out=tuple(match.out),
        eggs=match.eggs,
        finished=match.finished,
        winners=match.winners,
    )
