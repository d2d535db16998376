"""A transition's change made whole before it is written: what it produced travels in the
change itself, and the room written is the one it describes.

``settle`` is pure, like the transitions it completes (``bot/lobby.py``, ``bot/play.py``
...): the room's recent events (the change's lines), its results (``bot/results.py``: the
last deal's, the match's end), its next deadline and the moment it changed; the record of
a match that ended is dated. The service writes ``change.room`` as it is, in one
compare-and-set, and hands the change on.
"""

from __future__ import annotations

from bot import deadlines
from bot.changes import Change, Now
from bot.play import MAX_LINES
from bot.results import told


def settle(change: Change, now: Now) -> Change:
    """``change`` with its room's events, results, deadline and time set (in the change
    too: ``results``, ``deadline``)."""
    room = change.room
    room.updated = now.t
    if change.lines:
        room.events = [{"key": ln.key, "params": ln.params} for ln in change.lines][-MAX_LINES:]
        room.results = told(room, change.lines)
    deadlines.schedule(room, now)
    change.results, change.deadline = room.results, room.deadline
    if change.record is not None:
        change.record["date"] = now.t
    return change
