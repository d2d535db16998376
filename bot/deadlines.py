"""Deadline transitions: when a room's next move is due, and the due move made.

Pure functions over a room (no Redis). Computer players' choices are made before a
transition (``bot/thinking.py`` may think for a while, off the event loop) and handed in;
the transition checks that the room is still where the choice was made. The timer loop
that finds due rooms and commits these is ``bot/timers.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.changes import Change, Now, Reason, Refused
from bot.play import apply
from bot.room import LOBBY, PLAYING, Room
from bot.views import Line
from engine.actions import Action


def schedule(room: Room, now: Now) -> None:
    """Set the room's next deadline: a computer move soon, or the person's time limit; a
    lobby's is the moment it closes if nobody touches it."""
    if room.state == LOBBY:
        room.deadline = now.t + now.idle
        return
    if room.state != PLAYING or room.match is None:
        room.deadline = None
        return
    match = room.load_match()
    turn = "{}.{}".format(*match.turn)
    if turn != room.turn_key:
        room.turn_key = turn
        room.turn_started = now.t
    acting = match.to_act()
    mover_seat = room.seats[acting[0]]
    if mover_seat is not None and mover_seat.computer:
        room.deadline = now.t + now.bot_delay
        return
    off_turn = [s for s in acting[1:] if (st := room.seats[s]) is not None and st.computer]
    if off_turn and room.asked != turn:
        room.deadline = now.t + now.bot_delay
        return
    assert room.turn_started is not None
    room.deadline = room.turn_started + now.turn_seconds


@dataclass(frozen=True)
class Due:
    """What a due deadline asks for, decided on the room at ``version``: computer players
    who may act out of turn are asked first (``ask``), then the seat on move plays
    (``seat`` and its ``action``; None: a person whose time is not up yet)."""

    version: int
    ask: tuple[int, ...]  # off-turn computer seats to ask (their choices below)
    seat: int | None  # the seat on move, when it is to be played now
    timed_out: bool  # a person's time ran out


def due(room: Room | None, now: Now) -> Due:
    """What is due in ``room`` now, or Refused(Reason.NOTHING_DUE | Reason.NOT_DUE)."""
    if room is None or room.state != PLAYING or room.match is None:
        raise Refused(Reason.NOTHING_DUE)
    if room.deadline is None or room.deadline > now.t:
        raise Refused(Reason.NOT_DUE, deadline=room.deadline)
    acting = room.load_match().to_act()
    ask: tuple[int, ...] = ()
    if room.asked != room.turn_key:
        ask = tuple(s for s in acting[1:] if (st := room.seats[s]) is not None and st.computer)
    mover = acting[0]
    st = room.seats[mover]
    assert st is not None
    if st.computer:
        return Due(room.version, ask, mover, False)
    if room.turn_started is not None and now.t < room.turn_started + now.turn_seconds:
        return Due(room.version, ask, None, False)
    return Due(room.version, ask, mover, True)


def make_due(room: Room | None, now: Now, plan: Due, choices: dict[int, Action | None]) -> Change:
    """Carry out ``plan`` with the computer players' ``choices`` (seat -> action; None: not
    now), on the room it was made for (else Refused(Reason.MOVED): decide again)."""
    if room is None or room.version != plan.version or room.match is None:
        raise Refused(Reason.MOVED)
    match = room.load_match()
    room.asked = room.turn_key
    for seat in plan.ask:
        act = choices.get(seat)
        if act is not None:
            return apply(room, match, seat, act)
    if plan.seat is None:
        return Change(room)
    st = room.seats[plan.seat]
    assert st is not None
    lines: list[Line] = []
    if plan.timed_out:
        st.missed += 1
        lines.append(Line("timeout", {"name": st.name, "seat": plan.seat}))
        if st.missed >= now.missed_to_bot:
            st.auto = True
            lines.append(Line("handed_to_bot", {"name": st.name, "seat": plan.seat}))
    act = choices.get(plan.seat)
    if act is None:
        act = match.legal_actions(plan.seat)[0]
    change = apply(room, match, plan.seat, act)
    change.lines[:0] = lines
    return change


def bot_seed(room: Room, seat: int) -> str:
    """A computer player's choice is a function of the moment: any worker makes the same."""
    return f"{room.id}:{room.gen}:{room.turn_key}:{seat}"
