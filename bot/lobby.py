"""Lobby transitions: opening a table, seats, computer players, settings (the queue for a
seat: ``bot/queue.py``).

Pure functions: a room in, a ``Change`` out (or ``Refused``). Start rule [decision]: the
creator may start as soon as the seated players are a valid count for the preset; anyone
may start once every seat is taken.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.changes import Change, Now, Reason, Refused, Seated, Unseated
from bot.history import ended_match
from bot.play import begin, eliminate
from bot.queue import seat_waiting
from bot.room import FINISHED, LOBBY, PLAYING, Room, Seat, User
from bot.stats import record_of
from bot.views import Line
from engine.presets import PRESETS, PresetError, players_allowed, validate_options

# Computer levels: easy (the rules player with mistakes), normal (the rules player), hard
# (search); "rules" is the old name of normal, "random" plays any legal move (tests, bench).
LEVELS = ("easy", "normal", "hard")
BOT_LEVELS = (*LEVELS, "rules", "random")


def lobby_of(room: Room | None) -> Room:
    if room is None or room.state == FINISHED:
        raise Refused(Reason.NO_ROOM)
    if room.state != LOBBY:
        raise Refused(Reason.ALREADY_STARTED)
    return room


def create(
    room: Room | None,
    rid: str,
    platform: str,
    chat: str,
    thread: str | None,
    user: User,
    preset: str,
    options: dict[str, Any],
    size: int,
    lang: str,
    now: Now,
    secret: str = "",
) -> Change:
    """A new lobby in this chat (topic), with the creator seated; ``secret`` the table's own
    (``bot/invites.py``)."""
    if room is not None and room.state != FINISHED:
        raise Refused(Reason.ROOM_EXISTS)
    seats: list[Seat | None] = [None] * size
    seats[0] = Seat(user.id, user.name)
    new = Room(
        id=rid,
        platform=platform,
        chat=chat,
        thread=thread,
        preset=preset,
        options=options,
        size=size,
        seats=seats,
        creator=user.id,
        created=now.t,
        gen=(room.gen + 1) if room else 1,
        lang=lang,
        bot_level=room.bot_level if room else "normal",
        secret=secret,
        # what the old table was told: its message is retired with its match's result
        results=dict(room.results) if room else {},
    )
    new.version = room.version if room else 0
    return Change(new, [Line("room_created", {"name": user.name, "preset": preset})], after=[Seated(user.id)])


def at_level(change: Change, level: str | None) -> Change:
    """A new lobby's computer level, from the chat's house rules (None: as it was)."""
    if level in LEVELS:
        change.room.bot_level = str(level)
    return change


def join(room: Room | None, user: User, seat: int | None) -> Change:
    room = lobby_of(room)
    if room.seat_of(user.id) is not None:
        raise Refused(Reason.ALREADY_SEATED)
    free = [i for i, s in enumerate(room.seats) if s is None]
    if not free:
        raise Refused(Reason.TABLE_FULL)
    at = seat if seat is not None and seat in free else free[0]
    room.seats[at] = Seat(user.id, user.name)
    room.queue = [q for q in room.queue if q["user"] != user.id]
    return Change(room, [Line("joined", {"name": user.name, "seat": at})], after=[Seated(user.id)])


def leave(room: Room | None, user: User) -> Change:
    room = lobby_of(room)
    at = room.seat_of(user.id)
    if at is None:
        raise Refused(Reason.NOT_SEATED)
    room.seats[at] = None
    change = Change(room, after=[Unseated(user.id)])
    seat_waiting(change)
    if room.creator == user.id:
        people = [s.user for s in room.seats if s is not None and s.user]
        if not people:
            room.state = FINISHED  # the last person left: the lobby closes
            change.lines.append(Line("lobby_closed", {"name": user.name}))
            return change
        room.creator = people[0]
    change.lines.append(Line("left", {"name": user.name}))
    return change


def add_bot(
    room: Room | None, user: User, level: str | None, names: Sequence[str], is_admin: bool = False
) -> Change:
    """Seat a computer player: the creator or a chat admin (a seated guest filling the
    table with computers would let anyone start it)."""
    room = lobby_of(room)
    level = level or room.bot_level
    if level not in BOT_LEVELS:
        raise Refused(Reason.BAD_LEVEL, allowed=list(LEVELS))
    if room.creator != user.id and not is_admin:
        raise Refused(Reason.NOT_ALLOWED)
    free = [i for i, s in enumerate(room.seats) if s is None]
    if not free:
        raise Refused(Reason.TABLE_FULL)
    used = {s.name for s in room.seats if s is not None}
    name = next((n for n in names if n not in used), None)
    if name is None:
        n = 1
        while f"Bot {n}" in used:
            n += 1
        name = f"Bot {n}"
    room.seats[free[0]] = Seat(None, name, bot=level)
    return Change(room, [Line("bot_added", {"level": level, "seat": free[0], "name": name})])


def remove_bot(room: Room | None, user: User, seat: int | None, is_admin: bool = False) -> Change:
    room = lobby_of(room)
    if room.creator != user.id and not is_admin:
        raise Refused(Reason.NOT_ALLOWED)
    bots = [i for i, s in enumerate(room.seats) if s is not None and s.bot]
    at = seat if seat in bots else (bots[-1] if bots and seat is None else None)
    if at is None:
        raise Refused(Reason.NO_BOT)
    room.seats[at] = None
    change = Change(room, [Line("bot_removed", {"seat": at})])
    seat_waiting(change)
    return change


def kick(room: Room | None, user: User, target: str | int, is_admin: bool) -> Change:
    """Remove a person (user id) or a seat (index) from the lobby: creator or chat admin."""
    room = lobby_of(room)
    if room.creator != user.id and not is_admin:
        raise Refused(Reason.NOT_ALLOWED)
    at = target if isinstance(target, int) else room.seat_of(target)
    if at is None or not 0 <= at < room.size or room.seats[at] is None:
        raise Refused(Reason.NOT_SEATED)
    gone = room.seats[at]
    assert gone is not None
    if gone.user == user.id:
        raise Refused(Reason.KICK_SELF)
    room.seats[at] = None
    change = Change(
        room, [Line("kicked", {"name": gone.name})], after=[Unseated(gone.user)] if gone.user else []
    )
    seat_waiting(change)
    if gone.user is not None and gone.user == room.creator:
        # an admin removed the creator: his rights pass on, as when he leaves
        people = [s.user for s in room.seats if s is not None and s.user]
        if not people:
            room.state = FINISHED
            change.lines.append(Line("lobby_closed", {"name": gone.name}))
            return change
        room.creator = people[0]
    return change


def set_option(room: Room | None, user: User, name: str, value: Any, is_admin: bool) -> Change:
    room = lobby_of(room)
    if room.creator != user.id and not is_admin:
        raise Refused(Reason.NOT_ALLOWED)
    if name == "bot_level":
        # the table's level for new computer players: the service's, not a rule of the game
        if value not in LEVELS:
            raise Refused(Reason.BAD_LEVEL, allowed=list(LEVELS))
        room.bot_level = str(value)
        return Change(room, [Line("option_set", {"option": name, "value": value})])
    try:
        room.options = validate_options(room.preset, {**room.options, name: value})
    except PresetError as e:
        raise Refused(Reason.BAD_OPTION, message=str(e)) from None
    return Change(room, [Line("option_set", {"option": name, "value": value})])


def set_size(room: Room | None, user: User, size: int, is_admin: bool) -> Change:
    room = lobby_of(room)
    if room.creator != user.id and not is_admin:
        raise Refused(Reason.NOT_ALLOWED)
    if size not in PRESETS[room.preset].players:
        raise Refused(Reason.BAD_SIZE, allowed=list(PRESETS[room.preset].players))
    seated = [s for s in room.seats if s is not None]
    if len(seated) > size:
        raise Refused(Reason.TOO_MANY_SEATED)
    room.seats = [*seated, *([None] * (size - len(seated)))]
    room.size = size
    change = Change(room, [Line("size_set", {"size": size})])
    seat_waiting(change)
    return change


def swap_seats(room: Room | None, user: User, a: int, b: int, is_admin: bool) -> Change:
    """Before the start: the creator or an admin swaps any two seats (teams are seats);
    a seated person may move himself to a free seat."""
    room = lobby_of(room)
    if not (0 <= a < room.size and 0 <= b < room.size) or a == b:
        raise Refused(Reason.BAD_SEAT)
    mine = room.seat_of(user.id)
    if room.creator != user.id and not is_admin:
        if mine is None:
            raise Refused(Reason.NOT_SEATED)
        if mine not in (a, b) or room.seats[b if mine == a else a] is not None:
            raise Refused(Reason.NOT_ALLOWED)
    room.seats[a], room.seats[b] = room.seats[b], room.seats[a]
    return Change(room, [Line("seats_swapped", {"a": a, "b": b})])


def start(room: Room | None, user: User, seed: int | str | None, now: Now, is_admin: bool = False) -> Change:
    """Deal: the creator (or an admin) once the seated count is valid; anyone seated once
    every seat is taken. A passer-by deals nobody's table."""
    room = lobby_of(room)
    n = room.occupied
    allowed = list(players_allowed(room.preset, room.options))
    if n not in allowed:
        raise Refused(Reason.BAD_COUNT, allowed=allowed)
    if room.creator != user.id and not is_admin and not (room.full and room.seat_of(user.id) is not None):
        raise Refused(Reason.NOT_ALLOWED)
    room.seats = [s for s in room.seats if s is not None]
    room.size = n
    return Change(room, begin(room, seed))


def rematch(room: Room | None, user: User, seed: int | str | None, now: Now) -> Change:
    """Another match with the same seats (from a finished room)."""
    if room is None:
        raise Refused(Reason.NO_ROOM)
    if room.state != FINISHED or room.match is None:
        raise Refused(Reason.NOT_FINISHED)
    if room.tournament:
        raise Refused(Reason.NOT_ALLOWED)  # a tournament's table: the tournament deals the next
    if room.seat_of(user.id) is None:
        raise Refused(Reason.NOT_SEATED)
    for s in room.seats:
        if s is not None:
            s.auto, s.missed = False, 0
    change = Change(room)
    # people queued after the match ended: the rooster gives his seat now (the match that
    # ended was recorded when it ended)
    if (
        room.options.get("elimination")
        and room.queue
        and eliminate(change, room.load_match(), now, record=False)
    ):
        return change
    room.gen += 1
    change.lines = begin(room, seed)
    return change


def cancel(room: Room | None, user: User, is_admin: bool, now: Now | None = None) -> Change:
    """End the game. In the lobby and during the first deal: the creator or an admin. Once
    a deal has been played, a player who is losing could wipe the match out: so a player's
    cancel asks the other people at the table to agree (``agree``), unless nobody else plays
    there but computer players (or people away, whose seats computers play); an admin who
    does not play may still end it (moderation). Not agreed, a player may ``give_up``."""
    if room is None or room.state == FINISHED:
        raise Refused(Reason.NO_ROOM)
    seat = room.seat_of(user.id)
    if room.tournament and not is_admin and (seat is None or not played_a_deal(room)):
        # a tournament's table: its opener has no rights over a table of others (he could
        # wipe out their result); its players end it only as any match past a deal
        raise Refused(Reason.NOT_ALLOWED)
    if room.state == PLAYING and played_a_deal(room) and seat is not None:
        others = room.voters(user.id)
        if others:
            return ask_to_end(room, user, others, now)
    elif room.creator != user.id and not is_admin:
        raise Refused(Reason.NOT_ALLOWED)
    return end_cancelled(room, user.name)


def end_cancelled(room: Room, name: str, agreed: bool = False) -> Change:
    room.state = FINISHED
    room.deadline = None
    room.vote = None
    room.result = {"cancelled": True}
    return Change(room, [Line("cancelled", {"name": name, "agreed": agreed})])


VOTE_SECONDS = 180.0  # how long a request to end the match waits for the others


def played_a_deal(room: Room) -> bool:
    """The match has had a deal played to its end (its score may already say who loses)."""
    return bool(room.progress) or (room.match is not None and room.load_match().deal_no > 1)


def ask_to_end(room: Room, user: User, others: list[str], now: Now | None) -> Change:
    vote = open_vote(room, now)
    if vote is not None and vote["by"] != user.id:
        return agree(room, user, now)  # another asked already: asking too is agreeing
    if vote is not None:
        raise Refused(Reason.ALREADY_ASKED)
    until = (now.t if now is not None else room.updated) + VOTE_SECONDS
    room.vote = {"by": user.id, "name": user.name, "yes": [], "until": until}
    return Change(room, [Line("cancel_asked", {"name": user.name, "needed": len(others)})])


def open_vote(room: Room, now: Now | None) -> dict[str, Any] | None:
    vote = room.vote
    if vote is None or (now is not None and float(vote.get("until", 0)) <= now.t):
        return None
    return vote


def agree(room: Room | None, user: User, now: Now | None) -> Change:
    """A player agrees to end the match another asked to end: when everyone asked has, it
    ends, cancelled (no result is recorded)."""
    if room is None or room.state != PLAYING:
        raise Refused(Reason.NO_ROOM if room is None else Reason.GAME_OVER)
    vote = open_vote(room, now)
    if vote is None:
        raise Refused(Reason.NO_VOTE)
    needed = room.voters(vote["by"])
    if user.id not in needed:
        raise Refused(Reason.NOT_YOUR_SEAT if room.seat_of(user.id) is None else Reason.ALREADY_ASKED)
    yes = [u for u in vote["yes"] if u in needed]
    if user.id in yes:
        raise Refused(Reason.ALREADY_ASKED)
    yes.append(user.id)
    if set(yes) >= set(needed):
        change = end_cancelled(room, str(vote["name"]), agreed=True)
        change.lines.insert(0, Line("cancel_agreed", {"name": user.name}))
        return change
    room.vote = {**vote, "yes": yes}
    return Change(room, [Line("cancel_agreed", {"name": user.name})])


def give_up(room: Room | None, user: User) -> Change:
    """A player concedes: the match ends now, lost for his side (recorded so: the others'
    sides win, each with the score it had)."""
    if room is None or room.state != PLAYING or room.match is None:
        raise Refused(Reason.NO_ROOM if room is None else Reason.GAME_OVER)
    seat = room.seat_of(user.id)
    if seat is None:
        raise Refused(Reason.NOT_YOUR_SEAT)
    match = room.load_match()
    rules = room.rules
    mine = rules.side_of(seat)
    winners = [s for s in range(room.players or room.size) if rules.side_of(s) != mine]
    room.state = FINISHED
    room.deadline = None
    room.vote = None
    room.result = {"winners": winners, "score": list(match.scores), "abandoned": user.name}
    change = Change(room, [Line("abandoned", {"name": user.name})])
    change.record = record_of(room)
    change.ended = ended_match(room, match)
    return change


def expire(room: Room | None, now: Now) -> Change:
    """A lobby nobody touched for ``now.idle`` closes: its table says so and loses its
    buttons (the room's key expires a while later)."""
    if room is None or room.state != LOBBY:
        raise Refused(Reason.NOTHING_DUE)
    if room.deadline is None or room.deadline > now.t:
        raise Refused(Reason.NOT_DUE, deadline=room.deadline)
    room.state = FINISHED
    room.result = {"expired": True}
    return Change(room, [Line("lobby_expired", {})])
