"""What a transition of a room returns, and how it says no.

Transitions (``bot/lobby.py``, ``bot/queue.py``, ``bot/play.py``, ``bot/deadlines.py``) are
pure: a room (or None) in, a ``Change`` out, or ``Refused``. They never touch Redis; the
service commits a change with one compare-and-set (``record``, a match that ended, rides in
it) and then carries out its ``after`` effects, in order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from bot.room import Room
from bot.views import Line


@dataclass(frozen=True)
class Seated:
    """After the write: the room joins the person's own list of rooms (``rooms_of``)."""

    user: str


@dataclass(frozen=True)
class Unseated:
    """After the write: the room leaves the person's own list of rooms."""

    user: str


Effect = Seated | Unseated


@dataclass
class Change:
    """A room to write, the lines to show, and what to do once it is written.

    What it produced travels in it: the lines (the events, worded by adapters), and once
    ``bot/settle.py`` made it whole, the room's ``results`` (the last deal's and the
    match's end) and its next ``deadline``; the room written is the one it describes.
    The service, after a committed write: carries out ``after`` in order, finishes the
    person statistics of ``record`` (if any), then tells its listeners (the lines)."""

    room: Room
    lines: list[Line] = field(default_factory=list)
    after: list[Effect] = field(default_factory=list)
    record: dict[str, Any] | None = None  # a match that ended: written with the room
    ended: dict[str, Any] | None = None  # a match that ended: for the chat's history
    results: dict[str, Any] = field(default_factory=dict)  # the room's, as settled
    deadline: float | None = None  # the room's next deadline, as settled


class Reason(StrEnum):
    """Why the service says no: adapters word each one through the catalogs (a test checks
    every one has words). The engine's own refusals (``must_follow_suit``...) pass through
    as its codes."""

    ALREADY_ASKED = "already_asked"
    ALREADY_SEATED = "already_seated"
    ALREADY_SIGNED = "already_signed"
    ALREADY_STARTED = "already_started"
    ALREADY_WAITING = "already_waiting"
    BAD_COUNT = "bad_count"
    BAD_LEVEL = "bad_level"
    BAD_OPTION = "bad_option"
    BAD_PRESET = "bad_preset"
    BAD_ROUNDS = "bad_rounds"
    BAD_SEAT = "bad_seat"
    BAD_SIZE = "bad_size"
    BAD_TOKEN = "bad_token"
    BUSY = "busy"
    DECLARATION_CLOSED = "declaration_closed"
    FOREIGN_TOKEN = "foreign_token"
    GAME_OVER = "game_over"
    KICK_SELF = "kick_self"
    MOVED = "moved"
    NO_BOT = "no_bot"
    NO_QUEUE = "no_queue"
    NO_ROOM = "no_room"
    NO_TOURNAMENT = "no_tournament"
    NO_VOTE = "no_vote"
    NOT_ALLOWED = "not_allowed"
    NOT_AWAY = "not_away"
    NOT_DUE = "not_due"
    NOT_FINISHED = "not_finished"
    NOT_SEATED = "not_seated"
    NOT_SIGNED = "not_signed"
    NOT_STARTED = "not_started"
    NOT_WAITING = "not_waiting"
    NOT_YOUR_SEAT = "not_your_seat"
    NOTHING_DUE = "nothing_due"
    QUEUE_FULL = "queue_full"
    ROOM_EXISTS = "room_exists"
    SEAT_FREE = "seat_free"
    STALE = "stale"
    STORE_FULL = "store_full"
    TABLE_FULL = "table_full"
    TOO_MANY_SEATED = "too_many_seated"
    TOO_MANY_LOBBIES = "too_many_lobbies"
    TOO_MANY_HINTS = "too_many_hints"
    TOO_FEW = "too_few"
    TOURNAMENT_EXISTS = "tournament_exists"


# refusals that never reach a person: a timer loop's own business
INTERNAL = frozenset({Reason.MOVED, Reason.NOT_DUE, Reason.NOTHING_DUE})


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
    idle: float = 6 * 3600.0  # a lobby nobody touches this long closes


@dataclass
class Outcome:
    """What a service call did: ``ok`` or a ``reason`` code adapters turn into a message.

    ``repeat``: the update was already applied (a platform's redelivery) or the same person
    pressed the same move again after it was made: ``ok``, nothing changed, answer quietly.
    """

    ok: bool
    reason: str | None = None
    room: Room | None = None
    lines: list[Line] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)
    repeat: bool = False


Transition = Callable[[Room | None], Change | None]
