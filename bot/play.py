"""Play transitions: a match begins, a person moves, a match ends (the moves made when a
deadline is due: ``bot/deadlines.py``).

Pure functions over a room (no Redis): the service commits what they return.
"""

from __future__ import annotations

import hashlib
import random
from base64 import b64encode

from bot.changes import Change, Now, Reason, Refused, Repeat, Seated, Unseated
from bot.history import ended_match
from bot.room import FINISHED, PLAYING, Room, Seat
from bot.stats import record_of
from bot.tokens import Token, TokenError, bare, cards_of, hand_fingerprint, moment, parse_token
from bot.views import Line, event_lines, token_secret
from engine.actions import Action
from engine.codec import pack_action
from engine.errors import IllegalAction
from engine.game import Game
from engine.observation import observe
from engine.registry import new_match

MAX_LINES = 6  # event lines kept for the table
LOG_CHARS = 2000  # packed actions a room keeps at most (older dealings are dropped first)
MAX_PROGRESS = 120  # deals of a match's score kept for its chart


def begin(room: Room, seed: int | str | None) -> list[Line]:
    """Deal the first deal of a new match at the room's seats."""
    room.players = room.size
    if seed is None:
        seed = random.SystemRandom().randrange(1 << 62)
    match = new_match(room.rules, seed=seed)
    room.keep_match(match)
    room.log = [""]
    room.progress, room.last_progress = [], []
    room.points = []
    room.state = PLAYING
    room.result = None
    room.asked = None
    room.turn_key = None
    room.vote = None
    return event_lines(room, match.start_events)


# --- a person's move ------------------------------------------------------------------------


def token_mark(token: str) -> str:
    """A short mark of a move token: the seat remembers the last one it played."""
    return b64encode(hashlib.blake2s(token.encode(), digest_size=4).digest()).decode()[:6]


def check_token(token: str, room_id: str | None) -> Token:
    """The token of a move button, or Refused (a forged button, or one of another room)."""
    try:
        tok = parse_token(token)
    except TokenError:
        raise Refused(Reason.BAD_TOKEN) from None
    if room_id is not None and tok.room != room_id:
        raise Refused(Reason.FOREIGN_TOKEN)
    if not plausible_room(tok.room):
        raise Refused(Reason.BAD_TOKEN)
    return tok


def act(room: Room | None, user_id: str, tok: Token, mark: str) -> Change:
    """A person's move from a button (``mark``: the token's ``token_mark``). The same
    button pressed again after its move was made is a ``Repeat``."""
    if room is None:
        raise Refused(Reason.NO_ROOM)
    seat = room.seat_of(user_id)
    try:
        return _act(room, seat, tok, mark)
    except Refused:
        st = room.seats[seat] if seat is not None else None
        if st is not None and st.done == mark:
            raise Repeat() from None
        raise


def _act(room: Room, seat: int | None, tok: Token, mark: str) -> Change:
    if room.state != PLAYING or room.match is None:
        raise Refused(Reason.GAME_OVER if room.state == FINISHED else Reason.NOT_STARTED)
    if seat is None:
        raise Refused(Reason.NOT_YOUR_SEAT)
    if tok.gen != room.gen:  # another match: not worth loading this one
        raise Refused(Reason.STALE)
    match = room.load_match()
    obs = observe(match, seat)
    if tok.moment != moment(room.gen, match.deal_no, obs.moment):
        raise Refused(Reason.STALE)
    s = room.seats[seat]
    assert s is not None
    if tok.kind == "declare":
        action = next((a for a in match.legal_actions(seat) if a.kind == "declare"), None)
        if action is None:
            raise Refused(Reason.DECLARATION_CLOSED)
    elif tok.kind == "cut":
        action = Action("cut", (tok.mask,))
    elif bare(tok.kind):
        action = Action(tok.kind)
    else:
        if tok.hand != hand_fingerprint(room.id, room.gen, seat, obs.hand, token_secret(match)):
            raise Refused(Reason.STALE)
        cards = cards_of(tok.mask, obs.hand)
        if cards is None:
            raise Refused(Reason.BAD_TOKEN)
        action = Action(tok.kind, cards)
    comeback = s.auto or s.missed
    change = apply(room, match, seat, action)
    s.auto, s.missed = False, 0  # RULES: the owner is back
    s.done = mark
    if comeback:
        change.lines.insert(0, Line("back", {"name": s.name}))
    return change


def come_back(room: Room | None, user_id: str, now: Now) -> Change:
    """A person whose seat a computer player took over (missed turns) takes it back at once,
    before his next move: the computer no longer plays for him, and when it is his turn
    his own time starts now."""
    if room is None:
        raise Refused(Reason.NO_ROOM)
    if room.state != PLAYING or room.match is None:
        raise Refused(Reason.GAME_OVER if room.state == FINISHED else Reason.NOT_STARTED)
    seat = room.seat_of(user_id)
    if seat is None:
        raise Refused(Reason.NOT_YOUR_SEAT)
    s = room.seats[seat]
    assert s is not None
    if not s.auto and not s.missed:
        raise Refused(Reason.NOT_AWAY)
    s.auto, s.missed = False, 0
    if room.load_match().to_act()[0] == seat:
        room.turn_started = now.t
    return Change(room, [Line("back", {"name": s.name})])


def apply(room: Room, match: Game, seat: int, action: Action) -> Change:
    """Apply a legal action of ``seat``; the match's end finishes the room (and with
    ``elimination`` and people waiting, starts the next match at once)."""
    reason = match.check(seat, action)  # first: an illegal action may not even pack
    if reason is not None:
        raise Refused(Reason.STALE if reason in ("not_your_turn", "deal_over") else reason)
    try:
        packed = pack_action(seat, action)
        dealing = match.turn[0]
        events = match.apply(seat, action)
    except IllegalAction as e:
        raise Refused(Reason.STALE if e.code in ("not_your_turn", "deal_over") else e.code) from None
    log_action(room, match, packed, dealing)
    room.keep_match(match)
    change = Change(room, event_lines(room, events))
    for ln in change.lines:  # the score after each deal: the match's chart at its end
        score = ln.params.get("score", ln.params.get("records"))
        if ln.key in ("deal_ended", "deal_scored") and isinstance(score, (list, tuple)):
            room.progress = [*room.progress, list(score)][-MAX_PROGRESS:]
            room.last_progress = []  # the match before's result was told long ago
            add_points(room, ln.params.get("points", ln.params.get("tricks")))
    if match.finished:
        room.state = FINISHED
        room.vote = None
        room.result = {"winners": list(match.winners), "score": list(match.scores)}
        change.record = record_of(room)
        change.ended = ended_match(room, match)
        if room.options.get("elimination") and room.queue:
            eliminate(change, match, None, record=False)
    return change


def add_points(room: Room, points: object) -> None:
    """A deal's card points per side (Petukh: tricks per seat) added to the match's."""
    if isinstance(points, (list, tuple)):
        old = room.points or [0] * len(points)
        room.points = [int(a) + int(b) for a, b in zip(old, points, strict=False)]


def log_action(room: Room, match: Game, packed: str, dealing: int) -> None:
    """Keep the deal log compact: packed actions, one string per dealing of the cards (decks
    follow from the match seed and the dealing's number). A short match keeps all of it; a
    long Petukh match (a hundred deals) keeps its last ``LOG_CHARS`` (a room stays small):
    the cap holds after every move, not only when a new dealing starts."""
    room.log[-1] += packed + ","
    if match.turn[0] != dealing and not match.finished:
        room.log.append("")
    old = 0
    while sum(map(len, room.log)) > LOG_CHARS and old < len(room.log) - 1:
        room.log[old] = ""  # dropped, but still counted: the deal numbers stay right
        old += 1


def eliminate(change: Change, match: Game, now: Now | None, record: bool = True) -> bool:
    """RULES.md 5 ``elimination``: the rooster gives his seat to the first person in the
    queue and a new match starts. [decision] A person who loses his seat this way goes
    to the end of the queue (the table rotates, as "на вылет" is played); a computer
    player simply leaves. False when nobody is waiting (the match just ends)."""
    room = change.room
    roosters: tuple[int, ...] = getattr(match, "roosters", ())
    if not roosters:
        return False
    room.queue = [q for q in room.queue if room.seat_of(q["user"]) is None]
    if not room.queue:
        return False
    if record and change.record is None:
        change.record = record_of(room)
    seat = roosters[0]  # of tied roosters: the first clockwise from the dealer
    comer = room.queue.pop(0)
    old = room.seats[seat]
    if old is not None and old.user:
        room.queue.append({"user": old.user, "name": old.name})
        change.after.append(Unseated(old.user))
    room.seats[seat] = Seat(comer["user"], comer["name"])
    change.after.append(Seated(comer["user"]))
    if old is not None and old.user == room.creator:
        # the table's creator left it: the first person seated takes his rights
        room.creator = next(s.user for s in room.seats if s is not None and s.user)
    change.lines.append(
        Line("eliminated", {"name": old.name if old else "?", "seat": seat, "comer": comer["name"]})
    )
    for s in room.seats:
        if s is not None:
            s.auto, s.missed = False, 0
    room.gen += 1
    seed = int.from_bytes(hashlib.blake2s(f"{match.seed}:{room.gen}".encode(), digest_size=8).digest(), "big")
    ended = room.progress
    change.lines.extend(begin(room, seed))
    room.last_progress = ended  # the ended match's chart, drawn with its result
    return True


def plausible_room(room_id: str) -> bool:
    return 0 < len(room_id) <= 48 and ":" in room_id and "{" not in room_id and "}" not in room_id
