"""Queue transitions (RULES.md 5 ``elimination``): people wait for a seat at a full table,
and free seats go to them first come first seated.

Pure functions: a room in, a ``Change`` out (or ``Refused``). The seat an elimination
hands over at a match's end is ``bot/play.py`` ``eliminate``.
"""

from __future__ import annotations

from bot.changes import Change, Reason, Refused, Seated
from bot.room import LOBBY, Room, Seat, User
from bot.views import Line

MAX_QUEUE = 12  # people waiting for a seat in one room


def wait(room: Room | None, user: User) -> Change:
    """Join the room's queue for a seat (RULES.md 5 ``elimination``)."""
    if room is None:
        raise Refused(Reason.NO_ROOM)
    if not room.options.get("elimination"):
        raise Refused(Reason.NO_QUEUE)
    if room.seat_of(user.id) is not None:
        raise Refused(Reason.ALREADY_SEATED)
    if any(q["user"] == user.id for q in room.queue):
        raise Refused(Reason.ALREADY_WAITING)
    if room.state == LOBBY and not room.full:
        raise Refused(Reason.SEAT_FREE)
    if len(room.queue) >= MAX_QUEUE:
        raise Refused(Reason.QUEUE_FULL)
    room.queue.append({"user": user.id, "name": user.name})
    return Change(room, [Line("queued", {"name": user.name, "place": len(room.queue)})])


def unwait(room: Room | None, user: User) -> Change:
    if room is None:
        raise Refused(Reason.NO_ROOM)
    kept = [q for q in room.queue if q["user"] != user.id]
    if len(kept) == len(room.queue):
        raise Refused(Reason.NOT_WAITING)
    room.queue = kept
    return Change(room, [Line("unqueued", {"name": user.name})])


def seat_waiting(change: Change) -> None:
    """Free lobby seats go to the people waiting in the queue, first come first seated."""
    room = change.room
    for at, seat in enumerate(room.seats):
        while seat is None and room.queue:
            comer = room.queue.pop(0)
            if room.seat_of(comer["user"]) is not None:
                continue
            seat = room.seats[at] = Seat(comer["user"], comer["name"])
            change.after.append(Seated(comer["user"]))
