"""The rules families by name, and matches made through them (DESIGN.md: engine).

``rules.family`` (``engine.presets``) names one: ``drawing`` (RULES.md 1-3), ``trump``
(RULES.md 4) and ``petukh`` (RULES.md 5); each family's ``family.py`` fills in its
``engine.family.Family`` record. ``new_match`` and ``match_from_state`` pick the match class
from it; the computer players (``engine.players``) ask it for the rest. A new family is one
more package under ``engine/families/`` and one more entry here.
"""

from __future__ import annotations

from typing import Any

from engine.dealing import DeckSource
from engine.families.drawing.family import FAMILY as DRAWING
from engine.families.petukh.family import FAMILY as PETUKH
from engine.families.trump.family import FAMILY as TRUMP
from engine.family import Family
from engine.game import Game
from engine.presets import PRESETS, Rules

FAMILIES: dict[str, Family] = {f.name: f for f in (DRAWING, TRUMP, PETUKH)}
assert {spec.family for spec in PRESETS.values()} <= set(FAMILIES)


def family_of(rules: Rules | str) -> Family:
    """The family of ``rules`` (or of the preset so named)."""
    return FAMILIES[PRESETS[rules].family if isinstance(rules, str) else rules.family]


def new_match(
    rules: Rules, seed: int | str = 0, dealer: int | None = None, decks: DeckSource | None = None
) -> Game:
    """Deal the first deal of a match of ``rules`` (decks from the seed unless given)."""
    return family_of(rules).match(rules, seed=seed, dealer=dealer, decks=decks)


def match_from_state(rules: Rules, state: dict[str, Any]) -> Game:
    return family_of(rules).match.from_state(rules, state)
