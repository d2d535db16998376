"""A drawing deal as compact JSON-safe data and back (cards packed with ``engine.codec``):
``DrawingDeal.to_state`` and ``from_state``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.codec import pack_cards, unpack_cards
from engine.families.drawing.rules import Play

if TYPE_CHECKING:
    from engine.families.drawing.deal import DrawingDeal


def _plays_out(ps: list[Play] | tuple[Play, ...]) -> list[list[Any]]:
    return [[seat, kind, pack_cards(cards)] for seat, kind, cards in ps]


def _plays_in(ps: list[list[Any]]) -> list[Play]:
    return [Play(seat, kind, tuple(unpack_cards(cards))) for seat, kind, cards in ps]


def state_of(d: DrawingDeal) -> dict[str, Any]:
    """The whole deal as compact JSON-safe data (``engine.codec`` card strings)."""
    return {
        "seats": list(d.seats),
        "dealer": d.dealer,
        "deck": pack_cards(d.deck),
        "hands": [pack_cards(h) for h in d.hands],
        "stock": pack_cards(d.stock),
        "trump": d.trump,
        "trump_card": d.trump_card,
        "public": d.trump_public,
        "piles": [pack_cards(p) for p in d.piles],
        "tricks": d.tricks,
        "leader": d.leader,
        "to_move": d.to_move,
        "plays": _plays_out(d.plays),
        "win_seat": d.win_seat,
        "win_cards": pack_cards(d.win_cards),
        "declared": d.declared,
        "counter": d.counter,
        "trick_no": d.trick_no,
        "last_trick": None if d.last_trick is None else [d.last_trick[0], _plays_out(d.last_trick[1])],
        "last_winner": getattr(d, "last_winner", None),
        "finished": d.finished,
        "reserve": pack_cards(d.reserve),
        "half": d.half,
        "first_leader": d.first_leader,
    }


def restore(d: DrawingDeal, state: dict[str, Any]) -> None:
    """Everything ``state_of`` wrote, back onto ``d`` (its rules already set)."""
    d.seats = tuple(state["seats"])
    d.dealer = state["dealer"]
    d.deck = tuple(unpack_cards(state["deck"]))
    d.hands = [unpack_cards(h) for h in state["hands"]]
    d.stock = unpack_cards(state["stock"])
    d.trump = state["trump"]
    d.trump_card = state["trump_card"]
    d.trump_public = state["public"]
    d.piles = [unpack_cards(p) for p in state["piles"]]
    d.tricks = list(state["tricks"])
    d.leader = state["leader"]
    d.to_move = state["to_move"]
    d.plays = _plays_in(state["plays"])
    d.win_seat = state["win_seat"]
    d.win_cards = tuple(unpack_cards(state["win_cards"]))
    d.declared = state["declared"]
    d.counter = state["counter"]
    d.trick_no = state["trick_no"]
    last = state["last_trick"]
    d.last_trick = None if last is None else (last[0], tuple(_plays_in(last[1])))
    if state["last_winner"] is not None:
        d.last_winner = state["last_winner"]
    d.finished = state["finished"]
    d.reserve = unpack_cards(state["reserve"])
    d.half = state["half"]
    d.first_leader = state["first_leader"]
