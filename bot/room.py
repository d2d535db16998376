"""A room: one table in one chat (or forum topic / thread), serialised in one place."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from functools import lru_cache
from typing import Any

import orjson

from bot.names import clean_name
from engine.game import Game
from engine.presets import Rules, make_rules, players_allowed
from engine.registry import match_from_state

LOBBY, PLAYING, FINISHED = "lobby", "playing", "finished"


@dataclass(frozen=True)
class User:
    """A platform-qualified user: ``tg:123`` or ``dc:456``, with a display name (cleaned
    for drawing: ``bot/names.py``; never taken for a computer player's)."""

    id: str
    name: str
    lang: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", clean_name(self.name, fallback=self.id.split(":")[-1]))


@dataclass
class Seat:
    user: str | None  # None for a computer player
    name: str
    bot: str | None = None  # computer level for a computer player
    auto: bool = False  # a person's seat handed to a computer player after missed turns
    missed: int = 0
    done: str = ""  # a short mark of the last move token this person played (a double tap)

    @property
    def computer(self) -> bool:
        return self.bot is not None or self.auto

    @property
    def level(self) -> str:
        return self.bot or "normal"


# the store's version, the platform data (a hash of its own) and what is built from the
# document (its rules and match objects)
_NOT_STORED = frozenset({"version", "pdata", "sdata", "built"})


class Built:
    """What a room builds from its document, kept for as long as the document it came from:
    the rules (for the preset, players and options they were made of) and the match object
    (for the state dict it was built from, or that it was stored as). Never serialised."""

    __slots__ = ("match", "options", "rules", "rules_at", "state")

    def __init__(self) -> None:
        self.rules_at: tuple[str, int] | None = None
        self.options: dict[str, Any] | None = None
        self.rules: Rules | None = None
        self.state: dict[str, Any] | None = None
        self.match: Game | None = None


@lru_cache(maxsize=256)
def _rules(preset: str, players: int, options_json: str) -> Rules:
    return make_rules(preset, players, json.loads(options_json))


def room_id_for(platform: str, chat: str, thread: str | None = None) -> str:
    """One room per chat, or per (chat, topic/thread)."""
    return f"{platform}:{chat}" + (f"/{thread}" if thread else "")


@dataclass
class Room:
    id: str
    platform: str
    chat: str
    thread: str | None
    preset: str
    options: dict[str, Any]
    size: int  # seats at the table
    seats: list[Seat | None]
    creator: str
    state: str = LOBBY
    gen: int = 0  # match generation: tokens of an earlier match mean nothing
    players: int = 0  # players in the current match (seats compacted at the start)
    match: dict[str, Any] | None = None
    log: list[str] = field(default_factory=list)  # packed actions, one string per deal
    events: list[dict[str, Any]] = field(default_factory=list)  # recent event lines
    deadline: float | None = None
    turn_key: str | None = None
    turn_started: float | None = None
    asked: str | None = None  # the turn at which off-turn computer players were asked
    lang: str | None = None
    # adapters' records of the room and of each person (user id -> records): kept beside
    # the room in their own hash (bot/store.py), a snapshot as of the room's load
    pdata: dict[str, Any] = field(default_factory=dict)
    sdata: dict[str, dict[str, Any]] = field(default_factory=dict)
    created: float = 0.0
    updated: float = 0.0
    result: dict[str, Any] | None = None
    # people waiting for a seat (Petukh ``elimination``): [{"user": id, "name": name}]
    queue: list[dict[str, str]] = field(default_factory=list)
    bot_level: str = "normal"  # the level of computer players seated without one
    progress: list[list[int]] = field(default_factory=list)  # the score after each deal
    # the match before's, while its result is told (an elimination starts the next at once)
    last_progress: list[list[int]] = field(default_factory=list)
    # the table's own secret (``bot/invites.py``): invitation links and the web table carry
    # it, so knowing a chat's id is not enough to sit down or look; a new table, a new one
    secret: str = ""
    # a player's request to end the match after its first deal (issue 33.7): {"by": user,
    # "name": his name, "yes": [who agreed], "until": when it lapses}; None: none open
    vote: dict[str, Any] | None = None
    # a tournament's table (issue 36.3): "<tournament>:<round>:<table>"; "" for any other
    tournament: str = ""
    # card points per side this match (Petukh: tricks per seat): a tournament's tie-break
    points: list[int] = field(default_factory=list)
    # what the table was told last (``bot/results.py``): ``deal``, the last deal's result,
    # and ``end``, how the match or the table ended; written with the move that told it
    results: dict[str, Any] = field(default_factory=dict)
    version: int = 0  # not stored in the document: the store's compare-and-set version
    built: Built = field(default_factory=Built, init=False, repr=False, compare=False)

    # --- serialisation: the only place a room becomes text ---------------------------------

    def to_json(self) -> str:
        # the same text as json.dumps(asdict(self)) without asdict's deep copy of the match
        # (a millisecond a move); only the seats are dataclasses inside a room
        d = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in _NOT_STORED}
        d["seats"] = [None if s is None else dict(vars(s)) for s in self.seats]
        return orjson.dumps(d).decode()

    @classmethod
    def from_json(cls, text: str | bytes, version: int) -> Room:
        d = orjson.loads(text)
        d.setdefault("queue", [])
        for name in _NOT_STORED:
            d.pop(name, None)  # documents written before platform data had its own hash
        d["seats"] = [None if s is None else Seat(**s) for s in d["seats"]]
        return cls(**d, version=version)

    # --- helpers --------------------------------------------------------------------------

    @property
    def rules(self) -> Rules:
        at = (self.preset, self.players or self.size)
        b = self.built
        if b.rules is not None and b.rules_at == at and b.options is self.options:
            return b.rules
        b.rules = _rules(*at, json.dumps(self.options, sort_keys=True))
        b.rules_at, b.options = at, self.options
        return b.rules

    def load_match(self) -> Game:
        """The match of ``self.match`` (built once per state)."""
        assert self.match is not None
        b = self.built
        if b.match is not None and b.state is self.match:
            return b.match
        # the state it was built from is its state: not encoded again (a move's worth of
        # card packing) until it changes
        b.state, b.match = self.match, match_from_state(self.rules, self.match)
        return b.match

    def keep_match(self, match: Game) -> None:
        """Store ``match`` as the room's state, remembering the object for ``load_match``."""
        self.match = match.to_state()
        self.built.state, self.built.match = self.match, match

    def result_progress(self) -> list[list[int]]:
        """The score by deal of the match whose result is being told: this one once it is
        over, else the one an elimination ended when it started this one."""
        return self.progress if self.state == FINISHED else self.last_progress

    def seat_of(self, user_id: str) -> int | None:
        for i, s in enumerate(self.seats):
            if s is not None and s.user == user_id:
                return i
        return None

    @property
    def match_id(self) -> str:
        """The match being played (or last played) here: the room, its generation and when
        it was made (the statistics' and the history's id of a match)."""
        return f"{self.id}#{self.gen}#{self.created:.3f}"

    def voters(self, asker: str) -> list[str]:
        """Whose agreement ending the match at ``asker``'s request needs: every other person
        who plays his own seat (one a computer plays while he is away is not asked)."""
        return [s.user for s in self.seats if s is not None and s.user and s.user != asker and not s.auto]

    @property
    def occupied(self) -> int:
        return sum(1 for s in self.seats if s is not None)

    @property
    def full(self) -> bool:
        return all(s is not None for s in self.seats)

    def valid_count(self, n: int) -> bool:
        return n in players_allowed(self.preset, self.options)
