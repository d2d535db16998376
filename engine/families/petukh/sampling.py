"""The Petukh family's hidden cards as a sample deals them again (``engine.players.sampler``):
the deck, which a sample replays with the deal's actions (RULES.md 5)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.actions import Action
from engine.cards import Card
from engine.codec import pack_action, pack_cards, unpack_action, unpack_cards
from engine.family import Place


def places(state: dict[str, Any]) -> list[Place]:
    return [("deck", unpack_cards(state["deck"]))]


def relabel(state: dict[str, Any], f: Callable[[Card], Card]) -> dict[str, Any]:
    def act(text: str) -> str:
        s, a = unpack_action(text)
        return pack_action(s, Action(a.kind, tuple(sorted(map(f, a.cards)))))

    return {
        **state,
        "deck": pack_cards(map(f, unpack_cards(state["deck"]))),
        "actions": [act(a) for a in state["actions"]],
    }
