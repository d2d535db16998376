"""What a change tells the table, kept in the room's own record: the last deal's result and
how the match (or the table) ended, each with the generation of the match it belongs to.

Written with the move that produced it, in the same compare-and-set (``bot/settle.py``): a
painter that fails or restarts draws the same result from the room, whichever worker
draws it and however late. Platform data holds only what a platform did with it (a chart
posted as a photo).
"""

from __future__ import annotations

from typing import Any

from bot.room import Room
from bot.views import Line

# a deal's result (Kozel: eyes and penalties; Petukh: tricks and records)
DEAL_END_KEYS = ("deal_ended", "deal_scored")
# what an ended match's result names besides its score
ENDING_EXTRA = ("rooster_chosen", "eliminated")


def told(room: Room, lines: list[Line]) -> dict[str, Any]:
    """The room's results after ``lines``: ``deal`` (``gen``, ``key``, ``params``) and
    ``end`` (``gen`` and ``params``, ``extra`` lines; or ``cancelled``, ``abandoned``,
    ``expired``), each replaced by a newer one. An elimination starts the next match in
    the same change: what ended belongs to the generation before. Each result told gets
    the next ``seq`` (and ``seq`` is the last one): a platform that posts results as
    messages of their own knows which it has not posted yet."""
    out = dict(room.results)
    restarted = any(ln.key == "eliminated" for ln in lines)
    for ln in lines:
        found = _result(room, ln, lines, restarted)
        if found is not None:
            name, entry = found
            out["seq"] = entry["seq"] = out.get("seq", 0) + 1
            out[name] = entry
    return out


def _result(room: Room, ln: Line, lines: list[Line], restarted: bool) -> tuple[str, dict[str, Any]] | None:
    """What ``ln`` tells the table, under its name in the results; None if nothing."""
    if ln.key in DEAL_END_KEYS:
        return "deal", {"gen": room.gen - restarted, "key": ln.key, "params": ln.params}
    if ln.key == "match_ended":
        extra = [{"key": x.key, "params": x.params} for x in lines if x.key in ENDING_EXTRA]
        return "end", {"gen": room.gen - restarted, "params": ln.params, "extra": extra}
    if ln.key in ("cancelled", "abandoned"):
        return "end", {"gen": room.gen, ln.key: True, "params": ln.params}
    if ln.key == "lobby_expired":
        return "end", {"gen": room.gen, "expired": True}
    return None
