"""One interface over the three rules families (DESIGN.md: engine): ``Game``.

A match of any family is a ``Game``: ``drawing`` (``engine.families.drawing.match.Match``,
RULES.md 1-3), ``trump`` (``engine.families.trump.match.TrumpMatch``, RULES.md 4) and
``petukh`` (``engine.families.petukh.match.PetukhMatch``, RULES.md 5). ``engine.registry``
makes them (``new_match``, ``match_from_state``). Everything outside the engine (the
service, the CLI, simulations) goes through ``Game``.
"""

from __future__ import annotations

from typing import Any, Protocol

from engine.actions import Action
from engine.dealing import DealRecord
from engine.events import Event
from engine.observation import Observation
from engine.presets import Rules


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
