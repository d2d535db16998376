"""One interface over the three rules families (DESIGN.md: engine).

``new_match`` and ``match_from_state`` pick the family's match class from ``rules.family``
in the registry of ``engine.registry``: ``drawing`` (``engine.families.drawing.match.Match``, RULES.md 1-3),
``trump`` (``engine.families.trump.match.TrumpMatch``, RULES.md 4) and ``petukh``
(``engine.families.petukh.match.PetukhMatch``, RULES.md 5). Everything outside
the engine (the service, the CLI, simulations) goes through ``Game``.
"""

from __future__ import annotations

from typing import Any, Protocol

from engine.actions import Action
from engine.dealing import DealRecord, DeckSource
from engine.events import Event
from engine.observation import Observation
from engine.presets import Rules
from engine.registry import FAMILIES


class Game(Protocol):
    """A match of any family: the state machine the service and the CLI drive."""

    rules: Rules
    seed: int | str
    deal_no: int  # the deal being played (a redeal keeps the number)
    dealer: int
    scores: list[int]  # per side
    finished: bool
    winners: tuple[int, ...]  # seats
    history: list[DealRecord]  # one record per dealing of the cards (redeals too)
    start_events: list[Event]

    def to_act(self) -> tuple[int, ...]: ...
    def legal_actions(self, seat: int) -> list[Action]: ...
    def check(self, seat: int, action: Action) -> str | None: ...
    def apply(self, seat: int, action: Action) -> list[Event]: ...
    @property
    def turn(self) -> tuple[int, int]: ...
    def observe(self, seat: int | None) -> Observation: ...
    def token_secret(self) -> str: ...
    def audit(self) -> str | None: ...
    def to_state(self) -> dict[str, Any]: ...
    def copy(self) -> Game: ...


def _family(rules: Rules) -> Any:
    return FAMILIES[rules.family].match


def new_match(
    rules: Rules, seed: int | str = 0, dealer: int | None = None, decks: DeckSource | None = None
) -> Game:
    """Deal the first deal of a match of ``rules`` (decks from the seed unless given)."""
    game: Game = _family(rules)(rules, seed=seed, dealer=dealer, decks=decks)
    return game


def match_from_state(rules: Rules, state: dict[str, Any]) -> Game:
    game: Game = _family(rules).from_state(rules, state)
    return game
