"""The service's transitions without Redis (issue 16.3): a room in, a ``Change`` out (with the
effects the service carries out once it is written), or ``Refused`` with a reason code.

These call ``bot/lobby.py``, ``bot/queue.py``, ``bot/play.py`` and ``bot/deadlines.py`` directly, the way the
service's one write path does, on rooms built in memory.
"""

from __future__ import annotations

import pytest

from bot import deadlines, lobby, play, queue
from bot.changes import Now, Reason, Refused, Repeat, Seated, Unseated
from bot.room import FINISHED, LOBBY, PLAYING, Room, User
from bot.views import hand_view
from engine.families.drawing.rules import settings_of

ANNA = User("tg:1", "Anna")
BORIS = User("tg:2", "Boris")
VERA = User("tg:3", "Vera")
NOW = Now(t=1000.0, turn_seconds=60.0, bot_delay=1.0, missed_to_bot=2, idle=3600.0)


def _lobby(preset: str = "kozel", size: int = 2, options: dict[str, object] | None = None) -> Room:
    from engine.presets import validate_options

    change = lobby.create(
        None, "tg:-100", "tg", "-100", None, ANNA, preset, validate_options(preset, options), size, "en", NOW
    )
    return change.room


def test_a_lobby_opens_with_its_creator_seated_and_lists_the_room_for_him() -> None:
    change = lobby.create(None, "tg:-100", "tg", "-100", None, ANNA, "kozel", {}, 4, "en", NOW)
    assert change.room.state == LOBBY and change.room.seats[0] is not None
    assert change.after == [Seated(ANNA.id)]
    assert [ln.key for ln in change.lines] == ["room_created"]
    with pytest.raises(Refused) as refused:
        lobby.create(change.room, "tg:-100", "tg", "-100", None, BORIS, "kozel", {}, 4, "en", NOW)
    assert refused.value.reason == Reason.ROOM_EXISTS


def test_seats_come_and_go_with_their_after_commit_effects() -> None:
    room = _lobby(size=3)
    joined = lobby.join(room, BORIS, None)
    assert joined.after == [Seated(BORIS.id)] and room.seat_of(BORIS.id) == 1
    with pytest.raises(Refused) as again:
        lobby.join(room, BORIS, None)
    assert again.value.reason == Reason.ALREADY_SEATED
    kicked = lobby.kick(room, ANNA, BORIS.id, is_admin=False)
    assert kicked.after == [Unseated(BORIS.id)] and room.seat_of(BORIS.id) is None
    with pytest.raises(Refused) as self_kick:
        lobby.kick(room, ANNA, ANNA.id, is_admin=False)
    assert self_kick.value.reason == Reason.KICK_SELF
    left = lobby.leave(room, ANNA)  # the last person leaves: the lobby closes
    assert left.after == [Unseated(ANNA.id)] and room.state == FINISHED
    assert [ln.key for ln in left.lines] == ["lobby_closed"]


def test_the_queue_seats_the_first_waiting_person_when_a_seat_frees() -> None:
    """RULES.md 5 ``elimination``: a full table's queue, first come first seated."""
    room = _lobby("petukh", size=3, options={"elimination": True})
    lobby.join(room, BORIS, None)
    with pytest.raises(Refused) as free:
        queue.wait(room, VERA)
    assert free.value.reason == Reason.SEAT_FREE
    lobby.add_bot(room, ANNA, "normal", ["Robot"])
    waited = queue.wait(room, VERA)
    assert [ln.key for ln in waited.lines] == ["queued"] and room.queue[0]["user"] == VERA.id
    freed = lobby.remove_bot(room, ANNA, None)
    assert freed.after == [Seated(VERA.id)] and room.seat_of(VERA.id) == 2 and not room.queue
    with pytest.raises(Refused) as gone:
        queue.unwait(room, VERA)
    assert gone.value.reason == Reason.NOT_WAITING


def test_no_queue_without_elimination() -> None:
    with pytest.raises(Refused) as refused:
        queue.wait(_lobby(), BORIS)
    assert refused.value.reason == Reason.NO_QUEUE


def test_a_move_from_its_token_and_the_same_button_again_is_a_repeat() -> None:
    room = _lobby()
    lobby.join(room, BORIS, None)
    started = lobby.start(room, ANNA, 7, NOW)
    assert room.state == PLAYING and started.lines
    match = room.load_match()
    seat = match.to_act()[0]
    user = room.seats[seat]
    assert user is not None and user.user is not None
    token = hand_view(room, match, seat, NOW.t).choices[0].token
    tok = play.check_token(token, room.id)
    moved = play.act(room, user.user, tok, play.token_mark(token))
    assert moved.room is room and moved.lines and moved.after == []
    with pytest.raises(Repeat):
        play.act(room, user.user, tok, play.token_mark(token))
    with pytest.raises(Refused) as foreign:
        play.check_token(token, "tg:-200")
    assert foreign.value.reason == Reason.FOREIGN_TOKEN


def test_a_computer_players_due_move_is_planned_then_made_on_the_same_room() -> None:
    room = _lobby()
    lobby.add_bot(room, ANNA, "random", [])
    lobby.start(room, ANNA, 3, NOW)
    deadlines.schedule(room, NOW)
    assert room.deadline is not None
    with pytest.raises(Refused) as early:
        deadlines.due(room, NOW)
    assert early.value.reason == Reason.NOT_DUE
    later = Now(room.deadline + 61.0, NOW.turn_seconds, NOW.bot_delay, NOW.missed_to_bot, NOW.idle)
    plan = deadlines.due(room, later)
    assert plan.seat is not None
    room.version += 1  # another worker wrote the room meanwhile: the plan is out of date
    with pytest.raises(Refused) as moved:
        deadlines.make_due(room, later, plan, {})
    assert moved.value.reason == Reason.MOVED
    plan = deadlines.due(room, later)
    change = deadlines.make_due(room, later, plan, {})
    assert change.lines


def test_a_lobby_nobody_touches_closes_by_its_deadline() -> None:
    room = _lobby()
    deadlines.schedule(room, NOW)
    assert room.deadline == NOW.t + NOW.idle
    with pytest.raises(Refused) as early:
        lobby.expire(room, NOW)
    assert early.value.reason == Reason.NOT_DUE
    later = Now(room.deadline, NOW.turn_seconds, NOW.bot_delay, NOW.missed_to_bot, NOW.idle)
    assert [ln.key for ln in lobby.expire(room, later).lines] == ["lobby_expired"]
    assert room.state == FINISHED


def test_what_a_room_builds_is_kept_beside_its_document_and_never_stored() -> None:
    room = _lobby()
    lobby.join(room, BORIS, None)
    lobby.start(room, ANNA, 5, NOW)
    match = room.load_match()
    assert room.load_match() is match  # built once per state
    again = Room.from_json(room.to_json(), room.version)
    assert again == room and again.load_match() is not match
    assert "built" not in room.to_json()

    lobby_room = _lobby()
    assert settings_of(lobby_room.rules).shokha
    lobby.set_option(lobby_room, ANNA, "shokha", False, is_admin=False)
    assert not settings_of(lobby_room.rules).shokha  # new options: the rules are made again
