"""Playing most of a match in a moment: the engine plays the room's match up to the last
action of the deal (or of the match) and the room is stored as it is then; the last action
is left to the test, through a platform, so everything that follows a deal's or a match's
end happens as in play (the way tests/service/test_stats.py keeps its tests fast)."""

from __future__ import annotations

from bot.service import GameService
from engine.registry import match_from_state


async def fast_forward(
    svc: GameService, room_id: str, *, match_end: bool = True, progress: list[list[int]] | None = None
) -> None:
    """Up to the last action of the match (``match_end``) or of the current deal. The
    score after each deal, for the match's chart, is ``progress`` (the engine's deals here
    are not the service's, which keeps it)."""
    room = await svc.room(room_id)
    assert room is not None
    match = room.load_match()
    deal = match.turn[0]
    while True:
        seat = match.to_act()[0]
        action = match.legal_actions(seat)[0]
        trial = match_from_state(match.rules, match.to_state())
        trial.apply(seat, action)
        if trial.finished or (not match_end and trial.turn[0] != deal):
            break
        match.apply(seat, action)
    room.keep_match(match)
    if progress is not None:
        room.progress = progress
    written = await svc.store.cas(room, None, 60, 0, 0.0)
    assert written.version == room.version + 1
