"""The Petukh family's hidden cards as a sample deals them again (``engine.players.sampler``):
the deck, which a sample replays with the deal's actions (RULES.md 5)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.actions import Action
from engine.cards import Card
from engine.codec import pack_action, pack_cards, unpack_action, unpack_cards
from engine.families.petukh.match import PetukhMatch
from engine.family import Place
from engine.game import Game


def places(game: Game) -> list[Place]:
    """``Family.places``: the deal's deck (a sample deals it again and replays the actions)."""
    assert isinstance(game, PetukhMatch)
    return [("deck", list(game.history[-1].deck))]


def relabel(state: dict[str, Any], f: Callable[[Card], Card]) -> dict[str, Any]:
    def act(text: str) -> str:
        s, a = unpack_action(text)
        return pack_action(s, Action(a.kind, tuple(sorted(map(f, a.cards)))))

    return {
        **state,
        "deck": pack_cards(map(f, unpack_cards(state["deck"]))),
        "actions": [act(a) for a in state["actions"]],
    }
