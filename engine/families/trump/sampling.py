"""The permanent-trump family's hidden cards as a sample deals them again
(``engine.players.sampler``), the suits a lead asks for and the voids play shows (RULES.md 4)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.actions import Action
from engine.cards import Card
from engine.codec import pack_action, pack_cards, unpack_action, unpack_cards
from engine.families.trump.match import TrumpMatch
from engine.families.trump.rules import TRUMPS, settings_of, table_for, trump_suit
from engine.family import Place, Voids
from engine.game import Game
from engine.presets import Rules

# Primary places hold each card once (hands, stock, piles, the trick); the rest of the state
# (the deck, the actions, the winning cards) names cards again and is relabelled with them.


def places(game: Game) -> list[Place]:
    """``Family.places``: the deal's cards where they lie, read from the deal itself."""
    assert isinstance(game, TrumpMatch)
    d = game.deal
    places: list[Place] = [(f"hand {i}", list(h)) for i, h in enumerate(d.hands)]
    places.append(("stock", list(d.stock)))
    places.extend((f"pile {i}", list(p)) for i, p in enumerate(d.piles))
    places.append(("trick", [c for _s, c in d.plays]))
    places.append(("laid", list(d.laid)))
    places.extend(("cover", list(cs)) for _s, cs in d.covers)
    return places


def relabel(state: dict[str, Any], f: Callable[[Card], Card]) -> dict[str, Any]:
    def pk(text: str) -> str:
        return pack_cards(map(f, unpack_cards(text)))

    def act(text: str) -> str:
        s, a = unpack_action(text)
        return text if a.kind == "cut" else pack_action(s, Action(a.kind, tuple(map(f, a.cards))))

    out = dict(state)
    for name in ("deck", "stock", "laid"):
        out[name] = pk(state[name])
    out["hands"] = [pk(h) for h in state["hands"]]
    out["piles"] = [pk(p) for p in state["piles"]]
    out["plays"] = [[s, f(c)] for s, c in state["plays"]]
    if state["last"] is not None:
        out["last"] = [state["last"][0], [[s, f(c)] for s, c in state["last"][1]]]
    out["covers"] = [[s, pk(cs)] for s, cs in state["covers"]]
    out["boast"] = [[pk(cs), w] for cs, w in state["boast"]]
    out["actions"] = [act(a) for a in state["actions"]]
    if state["forced"] is not None:
        out["forced"] = f(state["forced"])
    return out


def suit_class(rules: Rules) -> Callable[[Card], int]:
    """The suit class a lead asks to follow: the preset's own table (its trumps are one class)."""
    table = table_for(rules.preset, trump_suit(rules.preset, rules.options))
    return lambda c: int(table.cls[c])


def voids(rules: Rules) -> Voids:
    """kozel-nn: a trump lead shows a hand of trumps only (RULES.md 4b); the laid boast
    holds no trump (RULES.md 4b step 2: the boaster lays non-trumps)."""
    return Voids(TRUMPS if settings_of(rules).nn else None, {"laid": {TRUMPS}})
