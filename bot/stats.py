"""Series scores and statistics: a finished match as a record, the counters it adds, and
the chat's series and leaderboard read back.

The record and the chat's counters are written by the same script that writes the room's
end (``bot/store.py``): a match is never counted twice nor lost. A person's counters over
every chat live under the person's own key: they are added right after, once each, and a
to-do entry written with the room keeps them from being lost if the worker dies between.
"""

from __future__ import annotations

from typing import Any

from bot.room import Room
from bot.store import MatchRecord


def record_of(room: Room) -> dict[str, Any] | None:
    """The stats record of the room's finished match (None: cancelled or none). The
    service adds its date when it writes it."""
    if room.match is None or not room.result or room.result.get("cancelled"):
        return None
    rules = room.rules
    people = {s.user: s.name for s in room.seats if s is not None and s.user}
    sides = [[member(room, seat) for seat in rules.side_seats(side)]
             for side in range(rules.sides)]
    winners_seats = room.result["winners"]
    winning_sides = sorted({rules.side_of(s) for s in winners_seats})
    lineup, order = lineup_of(room.preset, sides)
    return {
        # the room's creation time too: a room that expired and was made again starts
        # again at generation 1, and its matches are new ones
        "id": f"{room.id}#{room.gen}#{room.created:.3f}",
        "preset": room.preset,
        "sides": [[room.seats[s].name for s in rules.side_seats(side)]  # type: ignore[union-attr]
                  for side in range(rules.sides)],
        "members": sides,
        "score": room.result["score"],
        "winners": [m for s in winners_seats if (m := member(room, s))],
        "winning_sides": [order.index(s) for s in winning_sides],
        "lineup": lineup,
        "people": people,
    }


# the positions of the chat's keys in the store's compare-and-set script
_SERIES, _PLAYERS, _NAMES = 6, 7, 8


def match_record(chat: str, record: dict[str, Any]) -> MatchRecord:
    """What writing ``record`` adds: the chat's counters and each person's."""
    ops: list[list[Any]] = []
    lineup = record["lineup"]
    ops.append(["i", _SERIES, f"{lineup}|n", 1])
    for side in record["winning_sides"]:
        ops.append(["i", _SERIES, f"{lineup}|w{side}", 1])
    winners = set(record["winners"])
    people: dict[str, dict[str, int]] = {}
    for user, name in record["people"].items():
        ops.append(["s", _NAMES, user, name])
        ops.append(["i", _PLAYERS, f"{user}|played", 1])
        counters = {"played": 1, f"played:{record['preset']}": 1}
        if user in winners:
            ops.append(["i", _PLAYERS, f"{user}|won", 1])
            counters.update({"won": 1, f"won:{record['preset']}": 1})
        people[user] = counters
    return MatchRecord(record["id"], chat, record, ops, people)


def member(room: Room, seat: int) -> str:
    s = room.seats[seat]
    if s is None:
        return "?"
    return s.user or f"bot:{s.level}:{seat}"


def lineup_of(preset: str, sides: list[list[str]]) -> tuple[str, list[int]]:
    """A canonical line-up key: members sorted in a side, sides sorted."""
    keyed = sorted(range(len(sides)), key=lambda i: "+".join(sorted(sides[i])))
    text = " vs ".join("+".join(sorted(sides[i])) for i in keyed)
    return f"{preset}:{text}", keyed


def series_rows(counters: dict[str, int], names: dict[str, str]) -> list[dict[str, Any]]:
    """Matches between the same line-ups: names and wins per side, most played first."""
    out: dict[str, dict[str, Any]] = {}
    for key, value in counters.items():
        lineup, _, what = key.rpartition("|")
        entry = out.setdefault(lineup, {"lineup": lineup, "played": 0, "wins": {}})
        if what == "n":
            entry["played"] = value
        else:
            entry["wins"][int(what[1:])] = value
    result = []
    for lineup, entry in out.items():
        preset, _, sides_text = lineup.partition(":")
        sides = [side.split("+") for side in sides_text.split(" vs ")]
        result.append({
            "preset": preset,
            "sides": [[names.get(m, "🤖" if m.startswith("bot") else m) for m in side]
                      for side in sides],
            "wins": [entry["wins"].get(i, 0) for i in range(len(sides))],
            "played": entry["played"],
        })
    result.sort(key=lambda e: -e["played"])
    return result


def leaderboard_rows(counters: dict[str, int], names: dict[str, str]) -> list[dict[str, Any]]:
    people: dict[str, dict[str, Any]] = {}
    for key, value in counters.items():
        user, _, what = key.rpartition("|")
        people.setdefault(user, {"user": user, "name": names.get(user, user),
                                 "played": 0, "won": 0})[what] = value
    rows = list(people.values())
    for r in rows:
        r["rate"] = r["won"] / r["played"] if r["played"] else 0.0
    rows.sort(key=lambda r: (-r["won"], -r["rate"], r["name"]))
    return rows
