"""What one seat (or the table) sees of a permanent-trump match (RULES.md 4)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from engine.cards import CARD_TEXT, Card, deck_points
from engine.families.trump.deal import TrumpDeal
from engine.families.trump.rules import Table
from engine.observation import Extras, Observation, SeenPlay, visible_to_act
from engine.presets import Rules


class TrumpTable(Protocol):
    """What the view reads of a permanent-trump match (``TrumpMatch`` is one)."""

    rules: Rules
    deal: TrumpDeal
    deal_no: int
    dealer: int
    scores: list[int]
    eggs: bool
    redeals: int
    nn: bool
    table: Table
    finished: bool
    winners: tuple[int, ...]

    @property
    def moment(self) -> int: ...

    def to_act(self) -> tuple[int, ...]: ...


def seen_plays(m: TrumpTable, viewer: int | None) -> tuple[SeenPlay, ...]:
    if m.deal.phase == "boast" and m.deal.laid:
        k = len(m.deal.laid)
        out: list[SeenPlay] = [(m.deal.boaster, "lay", m.deal.laid if viewer == m.deal.boaster else None, k)]
        out.extend((s, "cover", cs, len(cs)) for s, cs in m.deal.covers)
        return tuple(out)
    return tuple((s, "play", (c,), 1) for s, c in m.deal.plays)


@dataclass(frozen=True, slots=True)
class BoastLaying:
    """kozel-nn's boast under way (RULES.md 4b): the boaster, how many cards he laid."""

    boaster: int
    laid: int


@dataclass(frozen=True, slots=True)
class BoastPile:
    cards: tuple[str, ...]
    winner: int
    points: int


@dataclass(frozen=True, slots=True)
class BoastPiles:
    """kozel-nn's boast played out: its piles, who leads after it and his team."""

    boaster: int
    piles: tuple[BoastPile, ...]
    leader: int | None
    team: int | None


@dataclass(frozen=True, slots=True)
class TrumpExtras(Extras):
    """The permanent-trump family's public extras."""

    redeals: int  # redeals asked for in a row in this deal
    opened: tuple[str, ...]  # the plain suits led in this deal (the ace rule)
    played: tuple[str, ...]  # the cards played to tricks in this dealing
    nn: bool  # a game with the boast (kozel-nn)
    boast: BoastLaying | BoastPiles | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "redeals": self.redeals,
            "opened": list(self.opened),
            "played": list(self.played),
        }
        if self.nn:
            b = self.boast
            out["boast"] = (
                None
                if b is None
                else (
                    {"boaster": b.boaster, "laid": b.laid}
                    if isinstance(b, BoastLaying)
                    else {
                        "boaster": b.boaster,
                        "piles": [
                            {"cards": list(p.cards), "winner": p.winner, "points": p.points} for p in b.piles
                        ],
                        "leader": b.leader,
                        "team": b.team,
                    }
                )
            )
        return out


def extras(m: TrumpTable) -> TrumpExtras:
    boast: BoastLaying | BoastPiles | None = None
    if m.nn and m.deal.phase == "boast":
        boast = BoastLaying(m.deal.boaster, len(m.deal.laid))
    elif m.nn and m.deal.boast_piles:
        boast = BoastPiles(
            boaster=(m.dealer + 1) % 4,
            piles=tuple(
                BoastPile(tuple(CARD_TEXT[c] for c in cs), w, deck_points(cs)) for cs, w in m.deal.boast_piles
            ),
            leader=m.deal.boast_leader,
            team=None if m.deal.boast_leader is None else m.deal.boast_leader % 2,
        )
    return TrumpExtras(
        redeals=m.redeals,
        opened=tuple(s for s in "CSHD" if m.deal.opened >> "CSHD".index(s) & 1),
        played=tuple(CARD_TEXT[c] for c in played_cards(m)),
        nn=m.nn,
        boast=boast,
    )


def played_cards(m: TrumpTable) -> list[Card]:
    """The cards played to tricks in this dealing, in order (public: face up)."""
    out: list[Card] = []
    boast = {c for cs, _w in m.deal.boast_piles for c in cs}
    for pile in m.deal.piles:
        out.extend(c for c in pile if c not in boast)
    out.extend(c for _s, c in m.deal.plays)
    return out


def observe_trump(m: TrumpTable, seat: int | None) -> Observation:
    acting = m.to_act()
    last = None
    if m.deal.last_trick is not None:
        w, ps = m.deal.last_trick
        last = (w, tuple((s, "play", (c,), 1) for s, c in ps))
    win_seat = m.deal.leader
    win_cards: tuple[Card, ...] = ()
    if m.deal.phase == "play" and m.deal.plays:
        win_seat = m.table.winner(m.deal.plays)
        win_cards = (next(c for s, c in m.deal.plays if s == win_seat),)
    return Observation(
        preset=m.rules.preset,
        players=4,
        partnership=True,
        seat=seat,
        deal_no=m.deal_no,
        dealer=m.dealer,
        seats=(0, 1, 2, 3),
        trump=m.table.suit,
        trump_card=None,
        stock=len(m.deal.stock),
        hand=tuple(sorted(m.deal.hands[seat])) if seat is not None else (),
        hand_sizes=tuple(len(h) for h in m.deal.hands),
        leader=m.deal.leader,
        to_move=acting[0] if acting else -1,
        to_act=visible_to_act(acting, seat),
        trick=seen_plays(m, seat),
        win_seat=win_seat,
        win_cards=win_cards,
        declared=None,
        tricks=tuple(m.deal.tricks),
        pile_sizes=tuple(len(p) for p in m.deal.piles),
        last_trick=last,
        moment=m.moment,
        counter=m.deal.counter,
        scores=tuple(m.scores),
        out=(False, False),
        eggs=m.eggs,
        finished=m.finished,
        winners=m.winners,
        phase=m.deal.phase,
        extras=extras(m),
    )
