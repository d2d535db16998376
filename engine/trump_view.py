"""What one seat (or the table) sees of a permanent-trump match (RULES.md 4)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.cards import CARD_TEXT, Card
from engine.observe import Observation, SeenPlay, visible_to_act
from engine.trump_rules import points_of

if TYPE_CHECKING:
    from engine.trump import TrumpMatch


def seen_plays(m: TrumpMatch, viewer: int | None) -> tuple[SeenPlay, ...]:
    if m.phase == "boast" and m.laid:
        k = len(m.laid)
        out: list[SeenPlay] = [
            (m.boaster, "lay", m.laid if viewer == m.boaster else None, k)
        ]
        out.extend((s, "cover", cs, len(cs)) for s, cs in m.covers)
        return tuple(out)
    return tuple((s, "play", (c,), 1) for s, c in m.plays)

def info(m: TrumpMatch) -> dict[str, Any]:
    info: dict[str, Any] = {
        "redeals": m.redeals,
        "opened": [s for s in "CSHD" if m.opened >> "CSHD".index(s) & 1],
        "played": [CARD_TEXT[c] for c in played_cards(m)],
    }
    if m.nn:
        boast: dict[str, Any] | None = None
        if m.phase == "boast":
            boast = {"boaster": m.boaster, "laid": len(m.laid)}
        elif m.boast_piles:
            boast = {
                "boaster": (m.dealer + 1) % 4,
                "piles": [
                    {"cards": [CARD_TEXT[c] for c in cs], "winner": w, "points": points_of(cs)}
                    for cs, w in m.boast_piles
                ],
                "leader": m.boast_leader,
                "team": None if m.boast_leader is None else m.boast_leader % 2,
            }
        info["boast"] = boast
    return info

def played_cards(m: TrumpMatch) -> list[Card]:
    """The cards played to tricks in this dealing, in order (public: face up)."""
    out: list[Card] = []
    boast = {c for cs, _w in m.boast_piles for c in cs}
    for pile in m.piles:
        out.extend(c for c in pile if c not in boast)
    out.extend(c for _s, c in m.plays)
    return out

def observe_trump(m: TrumpMatch, seat: int | None) -> Observation:
    acting = m.to_act()
    last = None
    if m.last_trick is not None:
        w, ps = m.last_trick
        last = (w, tuple((s, "play", (c,), 1) for s, c in ps))
    win_seat = m.leader
    win_cards: tuple[Card, ...] = ()
    if m.phase == "play" and m.plays:
        win_seat = m.table.winner(m.plays)
        win_cards = (next(c for s, c in m.plays if s == win_seat),)
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
        stock=len(m.stock),
        hand=tuple(sorted(m.hands[seat])) if seat is not None else (),
        hand_sizes=tuple(len(h) for h in m.hands),
        leader=m.leader,
        to_move=acting[0] if acting else -1,
        to_act=visible_to_act(acting, seat),
        trick=seen_plays(m, seat),
        win_seat=win_seat,
        win_cards=win_cards,
        declared=None,
        tricks=tuple(m.tricks),
        pile_sizes=tuple(len(p) for p in m.piles),
        last_trick=last,
        moment=m.moment,
        counter=m.counter,
        scores=tuple(m.scores),
        out=(False, False),
        eggs=m.eggs,
        finished=m.finished,
        winners=m.winners,
        phase=m.phase,
        info=info(m),
    )
