"""A tournament in a chat (issue 36.3): sign-up, Swiss rounds, standings, the winner.

Pure transitions over the tournament's record (no Redis; ``bot/tournaments.py`` commits
them with a compare-and-set), and the room transition that opens one of its tables.

[decision] Swiss, not knock-out: every person plays every round (a knock-out sends half
the chat home after the first table, and with tables of three or four and computer players
filling seats its brackets do not halve cleanly); a given number of rounds. A table's
people on the winning side score a point; card points (Petukh: tricks) break ties. The
tables of a round play one after another at the chat's one table (a chat, a forum topic
or a Discord channel has one room: ``bot/room.py``).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from bot.changes import Change, Reason, Refused, Repeat, Seated
from bot.pairing import Standing, by_standing, pair
from bot.play import begin
from bot.room import FINISHED, Room, Seat, User
from bot.views import Line
from engine.presets import PRESETS

SIGNUP, PLAYING, OVER, CANCELLED = "signup", "playing", "over", "cancelled"
MIN_PEOPLE = 3  # fewer is a table, not a tournament
MAX_PEOPLE = 24  # a sign-up message stays readable; a round of six tables at most
MAX_ROUNDS = 7
DEFAULT_ROUNDS = 3
WAITING, ON, DONE = "waiting", "playing", "done"


@dataclass
class Entrant:
    user: str
    name: str
    points: int = 0
    cards: int = 0
    out: bool = False  # left, or a computer player held his seat at a table's end
    met: list[str] = field(default_factory=list)


@dataclass
class Table:
    people: list[str]
    state: str = WAITING
    gen: int = 0  # the room's match generation once it is dealt
    # user -> [points, card points] once it ended; "cancelled": nobody scored
    scores: dict[str, list[int]] = field(default_factory=dict)
    cancelled: bool = False


@dataclass
class Tournament:
    id: str
    room: str  # the chat's room, where its tables play one after another
    platform: str
    chat: str
    thread: str | None
    preset: str
    size: int
    rounds: int
    lang: str
    creator: str
    bot_names: list[str] = field(default_factory=list)
    state: str = SIGNUP
    entrants: list[Entrant] = field(default_factory=list)
    round: int = 0  # 1.. once started
    tables: list[Table] = field(default_factory=list)  # the current round's
    table: int = 0  # the one playing (or next to play) of ``tables``
    created: float = 0.0
    winners: list[str] = field(default_factory=list)
    version: int = 0  # the store's, not in the document

    def to_json(self) -> str:
        d = asdict(self)
        d.pop("version")
        return json.dumps(d, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | bytes, version: int) -> Tournament:
        d = json.loads(text)
        d["entrants"] = [Entrant(**e) for e in d["entrants"]]
        d["tables"] = [Table(**t) for t in d["tables"]]
        return cls(**d, version=version)

    def entrant(self, user_id: str) -> Entrant | None:
        return next((e for e in self.entrants if e.user == user_id), None)

    def marker(self, table: int | None = None) -> str:
        """What a table's room carries: this tournament, round and table."""
        return f"{self.id}:{self.round}:{self.table if table is None else table}"

    @property
    def current(self) -> Table | None:
        return self.tables[self.table] if self.state == PLAYING and self.table < len(self.tables) else None


def checked(t: Tournament | None, tid: str) -> Tournament:
    """The chat's tournament a button means: another (an old sign-up's button) is stale."""
    if t is None:
        raise Refused(Reason.NO_TOURNAMENT)
    if t.id != tid:
        raise Refused(Reason.STALE)
    return t


def open_(
    old: Tournament | None,
    tid: str,
    room_id: str,
    where: tuple[str, str, str | None],
    user: User,
    preset: str,
    rounds: int | None,
    lang: str,
    bot_names: list[str],
    now: float,
) -> Tournament:
    if preset not in PRESETS:
        raise Refused(Reason.BAD_PRESET, message=preset)
    rounds = DEFAULT_ROUNDS if rounds is None else rounds
    if not 1 <= rounds <= MAX_ROUNDS:
        raise Refused(Reason.BAD_ROUNDS, allowed=[1, MAX_ROUNDS])
    if old is not None and old.state in (SIGNUP, PLAYING):
        raise Refused(Reason.TOURNAMENT_EXISTS)
    platform, chat, thread = where
    return Tournament(
        tid,
        room_id,
        platform,
        chat,
        thread,
        preset,
        max(PRESETS[preset].players),
        rounds,
        lang,
        user.id,
        bot_names=bot_names[:12],
        entrants=[Entrant(user.id, user.name)],
        created=now,
    )


def join(t: Tournament, user: User) -> Tournament:
    if t.state != SIGNUP:
        raise Refused(Reason.ALREADY_STARTED if t.state == PLAYING else Reason.NO_TOURNAMENT)
    if t.entrant(user.id) is not None:
        raise Refused(Reason.ALREADY_SIGNED)
    if len(t.entrants) >= MAX_PEOPLE:
        raise Refused(Reason.TABLE_FULL)
    t.entrants.append(Entrant(user.id, user.name))
    return t


def leave(t: Tournament, user: User) -> Tournament:
    """Before the start: off the list. Once started: out (computer players take his seats
    from now on, and he scores nothing further)."""
    e = t.entrant(user.id)
    if e is None or e.out:
        raise Refused(Reason.NOT_SIGNED)
    if t.state == SIGNUP:
        t.entrants.remove(e)
        if not t.entrants:
            t.state = CANCELLED
        elif t.creator == user.id:
            t.creator = t.entrants[0].user
        return t
    if t.state != PLAYING:
        raise Refused(Reason.NO_TOURNAMENT)
    e.out = True
    return t


def start(t: Tournament, user: User, is_admin: bool) -> Tournament:
    if t.state != SIGNUP:
        raise Refused(Reason.ALREADY_STARTED if t.state == PLAYING else Reason.NO_TOURNAMENT)
    if t.creator != user.id and not is_admin:
        raise Refused(Reason.NOT_ALLOWED)
    if len(t.entrants) < MIN_PEOPLE:
        raise Refused(Reason.TOO_FEW, needed=MIN_PEOPLE, signed=len(t.entrants))
    t.state = PLAYING
    next_round(t)
    return t


def cancel(t: Tournament, user: User, is_admin: bool) -> Tournament:
    if t.state not in (SIGNUP, PLAYING):
        raise Refused(Reason.NO_TOURNAMENT)
    if t.creator != user.id and not is_admin:
        raise Refused(Reason.NOT_ALLOWED)
    t.state = CANCELLED
    return t


def standings_of(t: Tournament) -> list[Standing]:
    return [Standing(e.user, e.points, e.cards, frozenset(e.met)) for e in t.entrants if not e.out]


def next_round(t: Tournament) -> None:
    """Pair the next round, or end the tournament after its last (or with nobody left)."""
    active = standings_of(t)
    if t.round >= t.rounds or not active:
        finish(t)
        return
    t.round += 1
    t.table = 0
    t.tables = [Table(people) for people in pair(active, t.size)]


def finish(t: Tournament) -> None:
    t.state = OVER
    t.tables, t.table = [], 0
    ranked = [t.entrant(s.user) for s in by_standing(standings_of(t) or _everyone(t))]
    top = ranked[0] if ranked else None
    t.winners = [e.user for e in ranked if e and top and (e.points, e.cards) == (top.points, top.cards)]


def _everyone(t: Tournament) -> list[Standing]:
    return [Standing(e.user, e.points, e.cards) for e in t.entrants]


def table_opened(t: Tournament, marker: str, gen: int) -> Tournament:
    table = t.current
    if table is None or t.marker() != marker or table.state != WAITING:
        raise Repeat
    table.state, table.gen = ON, gen
    return t


def table_ended(t: Tournament, marker: str, room: Room | None) -> Tournament:
    """Score the current table from its room's end (None: its room is gone, or holds
    another game: nobody scores); then the next table (or round)."""
    table = t.current
    if table is None or t.marker() != marker or table.state != ON:
        raise Repeat
    if room is not None and room.gen != table.gen:
        raise Repeat
    table.state = DONE
    scores = score_table(room) if room is not None else None
    table.cancelled = scores is None
    for user in table.people:
        e = t.entrant(user)
        assert e is not None
        e.met = sorted({*e.met, *(u for u in table.people if u != user)})
        got = (scores or {}).get(user)
        if got is None or e.out:
            e.out = e.out or (scores is not None and got is None)
            continue
        e.points += got[0]
        e.cards += got[1]
        table.scores[user] = list(got)
    t.table += 1
    if t.table >= len(t.tables):
        next_round(t)
    return t


def score_table(room: Room) -> dict[str, tuple[int, int]] | None:
    """Each person's (points, card points) from the room's ended match: a point for a
    seat on a winning side. A person whose seat a computer player held at the end is not
    in it (he timed out: he scores nothing further). None: the match was cancelled."""
    result = room.result or {}
    if "winners" not in result:
        return None
    rules = room.rules
    winning = {rules.side_of(s) for s in result["winners"]}
    out: dict[str, tuple[int, int]] = {}
    for seat, st in enumerate(room.seats):
        if st is None or st.user is None or st.auto:
            continue
        side = rules.side_of(seat)
        cards = room.points[side] if side < len(room.points) else 0
        out[st.user] = (int(side in winning), cards)
    return out


def open_table(
    room: Room | None, t: Tournament, secret: str, seed: int | None = None, now: float = 0.0
) -> Change:
    """The room transition dealing the tournament's current table at the chat's room: its
    people first, computer players (named in the chat's language) in the seats left. A
    room still busy with another game waits (``Refused(room_exists)``: tried again)."""
    table = t.current
    assert table is not None
    marker = t.marker()
    if room is not None and room.tournament == marker:
        raise Repeat  # dealt already (a worker died before the tournament knew)
    if room is not None and room.state != FINISHED:
        raise Refused(Reason.ROOM_EXISTS)
    names = {e.user: e.name for e in t.entrants}
    out = {e.user for e in t.entrants if e.out}
    # one who left meanwhile: a computer player has his seat from the start (he scores nothing)
    seats: list[Seat | None] = [Seat(u, names[u], auto=u in out) for u in table.people]
    free = [n for n in t.bot_names if n not in names.values()]
    for i in range(t.size - len(seats)):
        seats.append(Seat(None, free[i] if i < len(free) else f"Bot {i + 1}", bot="normal"))
    new = Room(
        id=t.room,
        platform=t.platform,
        chat=t.chat,
        thread=t.thread,
        preset=t.preset,
        options={},
        size=t.size,
        seats=seats,
        creator=t.creator,
        gen=(room.gen + 1) if room else 1,
        lang=t.lang,
        secret=secret,
        tournament=marker,
        created=now,  # (a match's id: two tournaments' tables are two matches)
    )
    new.version = room.version if room else 0
    lines = begin(new, seed)
    return Change(new, lines, after=[Seated(u) for u in table.people])


def hand_over(room: Room | None, marker: str, user_id: str) -> Change:
    """A person who left the tournament: the computer player takes his seat at its table."""
    if room is None or room.tournament != marker or room.state == FINISHED:
        raise Refused(Reason.NOTHING_DUE)
    seat = room.seat_of(user_id)
    st = room.seats[seat] if seat is not None else None
    if st is None or st.auto:
        raise Refused(Reason.NOTHING_DUE)
    st.auto = True
    return Change(room, [Line("handed_to_bot", {"name": st.name, "seat": seat})])


def rows(t: Tournament) -> list[dict[str, Any]]:
    """The standings as a view: place, name, points, card points, out, playing now."""
    playing = set(t.current.people) if t.current is not None and t.current.state == ON else set()
    order = by_standing([Standing(e.user, e.points, e.cards) for e in t.entrants])
    out = []
    for place, s in enumerate(order, 1):
        e = t.entrant(s.user)
        assert e is not None
        out.append(
            {
                "place": place,
                "name": e.name,
                "points": e.points,
                "cards": e.cards,
                "out": e.out,
                "playing": e.user in playing,
                "user": e.user,
            }
        )
    return out
