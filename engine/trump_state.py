"""A permanent-trump match as compact JSON-safe data and back (cards packed with
``engine.codec``): ``TrumpMatch.to_state`` and ``from_state``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.codec import pack_action, pack_cards, unpack_action, unpack_cards
from engine.match import DealRecord
from engine.trump_rules import TrumpPlay

if TYPE_CHECKING:
    from engine.trump import TrumpMatch


def state_of(m: TrumpMatch) -> dict[str, Any]:
    """The match as compact JSON-safe data (cards packed with ``engine.codec``)."""
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
        "moment": m.moment,
        "deck": pack_cards(m.deck),
        "actions": [pack_action(s, a) for s, a in m.history[-1].actions],
        "stock": pack_cards(m.stock),
        "hands": [pack_cards(h) for h in m.hands],
        "piles": [pack_cards(p) for p in m.piles],
        "tricks": m.tricks,
        "plays": [[s, c] for s, c in m.plays],
        "last": None if m.last_trick is None else [m.last_trick[0], [[s, c] for s, c in m.last_trick[1]]],
        "opened": m.opened,
        "counter": m.counter,
        "played": m.played,
        "forced": m.forced,
        "boaster": m.boaster,
        "laid": pack_cards(m.laid),
        "covers": [[s, pack_cards(cs)] for s, cs in m.covers],
        "chooser": m.chooser,
        "leader": m.leader,
        "to_move": m.to_move,
        "phase": m.phase,
        "boast": [[pack_cards(cs), w] for cs, w in m.boast_piles],
        "boast_leader": m.boast_leader,
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
    m.moment = state["moment"]
    m.deck = tuple(unpack_cards(state["deck"]))
    m.history = [DealRecord(m.dealer, list(m.deck), None, [unpack_action(a) for a in state["actions"]])]
    m.stock = unpack_cards(state["stock"])
    m.hands = [unpack_cards(h) for h in state["hands"]]
    m.piles = [unpack_cards(p) for p in state["piles"]]
    m.tricks = list(state["tricks"])
    m.plays = [TrumpPlay(s, c) for s, c in state["plays"]]
    last = state["last"]
    m.last_trick = None if last is None else (last[0], tuple(TrumpPlay(s, c) for s, c in last[1]))
    m.opened = state["opened"]
    m.counter = state["counter"]
    m.played = state["played"]
    m.forced = state["forced"]
    m.boaster = state["boaster"]
    m.laid = tuple(unpack_cards(state["laid"]))
    m.covers = [(s, tuple(unpack_cards(cs))) for s, cs in state["covers"]]
    m.chooser = state["chooser"]
    m.leader = state["leader"]
    m.to_move = state["to_move"]
    m.phase = state["phase"]
    m.boast_piles = [(tuple(unpack_cards(cs)), w) for cs, w in state["boast"]]
    m.boast_leader = state["boast_leader"]
    m.start_events = []
