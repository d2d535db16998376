"""The rules families, registered by name: each one's match class and computer player.

``rules.family`` (``engine.presets``) names one: ``drawing`` (``engine.families.drawing.match.Match``,
RULES.md 1-3), ``trump`` (``engine.families.trump.match.TrumpMatch``, RULES.md 4) and ``petukh``
(``engine.families.petukh.match.PetukhMatch``, RULES.md 5). ``engine.game`` makes matches through it and
``engine.players.bots.RulesBot`` plays through it; a new family is one more entry here.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, NamedTuple

from engine.actions import Action
from engine.families.drawing import bot as drawing_bot
from engine.families.drawing.match import Match
from engine.families.petukh import bot as petukh_bot
from engine.families.petukh import match as petukh
from engine.families.trump import bot as trump_bot
from engine.families.trump import match as trump
from engine.observation import Observation
from engine.presets import PRESETS, Family

Choose = Callable[[Observation, list[Action], random.Random, bool], "Action | None"]


class RulesFamily(NamedTuple):
    name: Family
    # the match class: ``cls(rules, seed=, dealer=, decks=)`` and ``cls.from_state(rules, state)``
    match: Any
    rules_choice: Choose  # the family's rules-based computer player


FAMILIES: dict[str, RulesFamily] = {
    f.name: f
    for f in (
        RulesFamily("drawing", Match, drawing_bot.rules_choice),
        RulesFamily("trump", trump.TrumpMatch, trump_bot.rules_choice),
        RulesFamily("petukh", petukh.PetukhMatch, petukh_bot.rules_choice),
    )
}
assert {spec.family for spec in PRESETS.values()} <= set(FAMILIES)


def family_of(preset: str) -> RulesFamily:
    return FAMILIES[PRESETS[preset].family]
