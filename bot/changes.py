"""What a transition of a room returns, and how it says no.

Transitions (``bot/lobby.py``, ``bot/play.py``) are pure: a room (or None) in, a ``Change``
out, or ``Refused``. They never touch Redis; the service commits a change with one
compare-and-set and then carries out its ``after`` effects.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bot.room import Room
from bot.views import Line


@dataclass
class Change:
    """A room to write, the lines to show, and what to do once it is written."""

    room: Room
    lines: list[Line] = field(default_factory=list)
    seated: list[str] = field(default_factory=list)  # people now seated (their room index)
    unseated: list[str] = field(default_factory=list)  # people who left their seat
    record: dict[str, Any] | None = None  # a match that ended: for the chat's statistics


class Refused(Exception):
    """The change is not possible: a reason code (adapters word it) and its parameters."""

    def __init__(self, reason: str, **data: Any) -> None:
        super().__init__(reason)
        self.reason = reason
        self.data = data


class Repeat(Exception):
    """The same person's same button again, after it was applied (a double tap): nothing
    to do, and nothing to complain about."""


@dataclass(frozen=True)
class Now:
    """What a transition may know of the world: the time and the service's settings."""

    t: float
    turn_seconds: float
    bot_delay: float
    missed_to_bot: int
