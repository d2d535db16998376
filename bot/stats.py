"""Series scores and statistics: a finished match as a record, the counters it adds, and
the chat's series and leaderboard read back.

The record and the chat's counters are written by the same script that writes the room's
end (``bot/store.py``): a match is never counted twice nor lost. A person's counters over
every chat live under the person's own key: they are added right after, once each, and a
to-do entry written with the room keeps them from being lost if the worker dies between.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.ratings import MIN_MATCHES, MU, SIGMA, ordinal, ranks, rate, rated
from bot.room import Room
from bot.store import MatchRecord


def record_of(room: Room) -> dict[str, Any] | None:
    """The stats record of the room's finished match (None: cancelled or none). The
    service adds its date when it writes it."""
    if room.match is None or not room.result or room.result.get("cancelled"):
        return None
    rules = room.rules
    people = {s.user: s.name for s in room.seats if s is not None and s.user}
    sides = [[member(room, seat) for seat in rules.side_seats(side)] for side in range(rules.sides)]
    winners_seats = room.result["winners"]
    winning_sides = sorted({rules.side_of(s) for s in winners_seats})
    lineup, order = lineup_of(room.preset, sides)
    # each side's place (1 best), in the order of "members": for the ratings
    places = ranks(
        {"winning_sides": winning_sides, "score": room.result["score"]},
        lower_is_better=rules.scoring in ("penalty", "record"),
    )
    return {
        # the room's creation time too: a room that expired and was made again starts
        # again at generation 1, and its matches are new ones
        "id": f"{room.id}#{room.gen}#{room.created:.3f}",
        "preset": room.preset,
        "sides": [
            [room.seats[s].name for s in rules.side_seats(side)]  # type: ignore[union-attr]
            for side in range(rules.sides)
        ],
        "members": sides,
        "score": room.result["score"],
        "winners": [m for s in winners_seats if (m := member(room, s))],
        "winning_sides": [order.index(s) for s in winning_sides],
        "lineup": lineup,
        "people": people,
        "places": places,
        # a match a player gave up (issue 33.7): his name; the others' sides won it
        **({"abandoned": room.result["abandoned"]} if room.result.get("abandoned") else {}),
    }


# the positions of the chat's keys in the store's compare-and-set script
_SERIES, _PLAYERS, _NAMES, _RATINGS = 6, 7, 8, 10


def match_record(
    chat: str, record: dict[str, Any], chat_ratings: Ratings, overall: dict[str, tuple[float, float]]
) -> MatchRecord:
    """What writing ``record`` adds: the chat's counters and ratings (``chat_ratings`` as
    read, its version checked by the write), each person's counters and overall rating (a
    move of ``overall``, each person's rating as read)."""
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
    sides = record["members"]
    new_chat = rate(sides, record["places"], chat_ratings.values)
    for name, (mu, sigma) in new_chat.items():
        played = chat_ratings.played.get(name, 0) + 1
        ops.append(["s", _RATINGS, name, f"{mu:.4f}:{sigma:.4f}:{played}"])
    new_overall = rate(sides, record["places"], overall)
    moved: dict[str, dict[str, Any]] = {}
    winners = {rated(m) for m in record["winners"]}
    for name, (mu, sigma) in new_overall.items():
        before = overall.get(name, (MU, SIGMA))[0]
        moved[name] = {"mu": mu - before, "sigma": sigma, "won": name in winners}
        if name.startswith("bot:"):  # a level's own counters, overall
            people[name] = {"played": 1, **({"won": 1} if name in winners else {})}
    return MatchRecord(record["id"], chat, record, ops, people, moved, chat_ratings.version)


@dataclass(frozen=True)
class Ratings:
    """A chat's ratings as read: (mu, sigma) and matches rated, per rated name."""

    version: int
    values: dict[str, tuple[float, float]]
    played: dict[str, int]

    @classmethod
    def parse(cls, raw: dict[str, str]) -> Ratings:
        values, played = {}, {}
        version = int(raw.pop("_v", 0) or 0)
        for name, text in raw.items():
            mu, sigma, n = text.split(":")
            values[name] = (float(mu), float(sigma))
            played[name] = int(n)
        return cls(version, values, played)


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
        result.append(
            {
                "preset": preset,
                "sides": [[names.get(m, "🤖" if m.startswith("bot") else m) for m in side] for side in sides],
                "wins": [entry["wins"].get(i, 0) for i in range(len(sides))],
                "played": entry["played"],
            }
        )
    result.sort(key=lambda e: -e["played"])
    return result


def leaderboard_rows(
    counters: dict[str, int], names: dict[str, str], ratings: Ratings | None = None, computers: bool = False
) -> list[dict[str, Any]]:
    """People of the chat (and the computer levels that played there) by rating: the ranked
    ones (``MIN_MATCHES`` played) first, by a cautious rating, then the rest by wins."""
    people: dict[str, dict[str, Any]] = {}
    for key, value in counters.items():
        user, _, what = key.rpartition("|")
        people.setdefault(
            user, {"user": user, "name": names.get(user, user), "played": 0, "won": 0, "computer": False}
        )[what] = value
    values = ratings.values if ratings is not None else {}
    if ratings is not None and computers:
        for name, n in ratings.played.items():
            if name.startswith("bot:"):
                people[name] = {
                    "user": name,
                    "name": name.split(":", 1)[1],
                    "played": n,
                    "won": None,
                    "computer": True,
                }
    rows = list(people.values())
    for r in rows:
        r["rate"] = r["won"] / r["played"] if r["played"] and r["won"] is not None else None
        mu_sigma = values.get(r["user"])
        r["rating"] = None if mu_sigma is None else round(ordinal(*mu_sigma), 1)
        r["ranked"] = r["rating"] is not None and r["played"] >= MIN_MATCHES
    rows.sort(
        key=lambda r: (
            not r["ranked"],
            -(r["rating"] or 0.0) if r["ranked"] else 0.0,
            -(r["won"] or 0),
            r["name"],
        )
    )
    return rows


def profile_of(raw: dict[str, float], chat_rating: tuple[float, float] | None) -> dict[str, Any]:
    played, won = int(raw.get("played", 0)), int(raw.get("won", 0))
    games = {k.split(":", 1)[1]: int(v) for k, v in raw.items() if k.startswith("played:")}
    mu, sigma = raw.get("mu"), raw.get("sigma")
    return {
        "played": played,
        "won": won,
        "rate": won / played if played else 0.0,
        "rating": None if mu is None or sigma is None else round(ordinal(mu, sigma), 1),
        "chat_rating": None if chat_rating is None else round(ordinal(*chat_rating), 1),
        "favourite": max(sorted(games), key=lambda g: games[g]) if games else None,
        "best_streak": int(raw.get("best_streak", 0)),
        "streak": int(raw.get("streak", 0)),
    }
