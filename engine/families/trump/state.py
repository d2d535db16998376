"""A permanent-trump match as compact JSON-safe data and back (cards packed with
``engine.codec``): ``TrumpMatch.to_state`` and ``from_state``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.codec import pack_action, pack_cards, unpack_action, unpack_cards
from engine.families.drawing.match import DealRecord
from engine.families.trump.rules import TrumpPlay

if TYPE_CHECKING:
    from engine.families.trump.match import TrumpMatch


def state_of(m: TrumpMatch) -> dict[str, Any]:
    """The match as compact JSON-safe data (cards packed with ``engine.codec``)."""
    d = m.deal
    return {
        "seed": m.seed,
        "dealer": m.dealer,
        "deal_no": m.deal_no,
        "dealing": m.dealing,
        "scores": m.scores,
        "finished": m.finished,
        "winners": list(m.winners),
        "eggs": m.eggs,
        "redeals": m.redeals,
        "moment": d.moment,
        "deck": pack_cards(d.deck),
        "actions": [pack_action(s, a) for s, a in m.history[-1].actions],
        "stock": pack_cards(d.stock),
        "hands": [pack_cards(h) for h in d.hands],
        "piles": [pack_cards(p) for p in d.piles],
        "tricks": d.tricks,
        "plays": [[s, c] for s, c in d.plays],
        "last": None if d.last_trick is None else [d.last_trick[0], [[s, c] for s, c in d.last_trick[1]]],
        "opened": d.opened,
        "counter": d.counter,
        "played": d.played,
        "forced": d.forced,
        "boaster": d.boaster,
        "laid": pack_cards(d.laid),
        "covers": [[s, pack_cards(cs)] for s, cs in d.covers],
        "chooser": d.chooser,
        "leader": d.leader,
        "to_move": d.to_move,
        "phase": d.phase,
        "boast": [[pack_cards(cs), w] for cs, w in d.boast_piles],
        "boast_leader": d.boast_leader,
    }


def restore(m: TrumpMatch, state: dict[str, Any]) -> None:
    """Everything ``state_of`` wrote, back onto ``m`` (its rules already set up)."""
    m.dealer = state["dealer"]
    m.deal_no = state["deal_no"]
    m.dealing = state["dealing"]
    m.scores = list(state["scores"])
    m.finished = state["finished"]
    m.winners = tuple(state["winners"])
    m.eggs = state["eggs"]
    m.redeals = state["redeals"]
    deck = tuple(unpack_cards(state["deck"]))
    m.history = [DealRecord(m.dealer, list(deck), None, [unpack_action(a) for a in state["actions"]])]
    boast = [(tuple(unpack_cards(cs)), w) for cs, w in state["boast"]]
    m.deal = d = m._make_deal(deck, state["moment"], boast, state["boast_leader"])
    d.stock = unpack_cards(state["stock"])
    d.hands = [unpack_cards(h) for h in state["hands"]]
    d.piles = [unpack_cards(p) for p in state["piles"]]
    d.tricks = list(state["tricks"])
    d.plays = [TrumpPlay(s, c) for s, c in state["plays"]]
    last = state["last"]
    d.last_trick = None if last is None else (last[0], tuple(TrumpPlay(s, c) for s, c in last[1]))
    d.opened = state["opened"]
    d.counter = state["counter"]
    d.played = state["played"]
    d.forced = state["forced"]
    d.boaster = state["boaster"]
    d.laid = tuple(unpack_cards(state["laid"]))
    d.covers = [(s, tuple(unpack_cards(cs))) for s, cs in state["covers"]]
    d.chooser = state["chooser"]
    d.leader = state["leader"]
    d.to_move = state["to_move"]
    d.phase = state["phase"]
    m.start_events = []
