"""Computer players. They see only ``observe(match, seat)`` and the seat's legal actions.

``choose`` returns an action, or ``None`` for "not now" when the seat may act only out of
turn (a declaration it may skip).
"""

from __future__ import annotations

import random
from typing import Protocol

from engine.actions import Action
from engine.observation import Observation
from engine.registry import family_of


class Bot(Protocol):
    name: str
    # False for players that need no view of the table (skips building one)
    needs_observation: bool

    def choose(
        self, obs: Observation | None, legal: list[Action], rng: random.Random, on_move: bool
    ) -> Action | None: ...


class RandomBot:
    """Uniform over legal actions (and, out of turn, over "declare" and "not now")."""

    name = "random"
    needs_observation = False

    def choose(
        self, obs: Observation | None, legal: list[Action], rng: random.Random, on_move: bool
    ) -> Action | None:
        if not legal:
            return None
        if not on_move:
            options: list[Action | None] = [*legal, None]
            return rng.choice(options)
        return rng.choice(legal)


class RulesBot:
    """Sensible play, each family's own (``engine.registry``): cheap beats, low throws, points
    onto its own side's trick, combinations; Petukh's records."""

    name = "rules"
    needs_observation = True

    def choose(
        self, obs: Observation | None, legal: list[Action], rng: random.Random, on_move: bool
    ) -> Action | None:
        if not legal or obs is None:
            return None
        return family_of(obs.preset).rules_choice(obs, legal, rng, on_move)


class EasyBot:
    """The ``easy`` level: the rules player, who now and then plays any legal move."""

    name = "easy"
    needs_observation = True
    MISTAKES = 0.3  # the share of its moves made at random

    def choose(
        self, obs: Observation | None, legal: list[Action], rng: random.Random, on_move: bool
    ) -> Action | None:
        if legal and on_move and rng.random() < self.MISTAKES:
            return rng.choice(legal)
        return RulesBot().choose(obs, legal, rng, on_move)
