"""Series scores and statistics: a finished match as a record, the counters it adds, and
the chat's series and leaderboard read back.

The record and the chat's counters are written by the same script that writes the room's
end (``bot/store.py``): a match is never counted twice nor lost. A person's counters over
every chat live under the person's own key: they are added right after, once each, and a
to-do entry written with the room keeps them from being lost if the worker dies between.
"""

from __future__ import annotations

import time
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
        "id": room.match_id,
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
_SERIES, _PLAYERS, _NAMES, _RATINGS, _SEASON = 6, 7, 8, 10, 11


def with_people(record: dict[str, Any]) -> bool:
    """Whether the match counts for ratings (issue 36.5): two people or more at the table.
    One person against computer players alone goes to the table by computer level."""
    return len(record["people"]) >= 2


def season_of(t: float) -> str:
    """The season (calendar month, UTC) of a moment: ``2026-12``."""
    return time.strftime("%Y-%m", time.gmtime(t))


def match_record(
    chat: str,
    record: dict[str, Any],
    chat_ratings: Ratings,
    overall: dict[str, tuple[float, float]],
    season: Ratings | None = None,
) -> MatchRecord:
    """What writing ``record`` adds: the chat's counters and ratings (``chat_ratings`` as
    read, its version checked by the write), each person's counters and overall rating (a
    move of ``overall``, each person's rating as read), and the month's ratings
    (``season`` as read with the chat's, under the same version). Ratings move only in a
    match with two people or more."""
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
    rated_winners = {rated(m) for m in record["winners"]}
    for name in {rated(m) for side in record["members"] for m in side if m.startswith("bot:")}:
        # a level's own counters, overall
        people[name] = {"played": 1, **({"won": 1} if name in rated_winners else {})}
    month = ""
    moved: dict[str, dict[str, Any]] = {}
    if with_people(record):
        ops += _rating_ops(_RATINGS, record, chat_ratings)
        if season is not None:
            month = season_of(record["date"])
            ops += _rating_ops(_SEASON, record, season)
            ops += [["i", _SEASON, f"{u}|won", 1] for u in record["people"] if u in winners]
        moved = _moved(record, overall, rated_winners)
    return MatchRecord(record["id"], chat, record, ops, people, moved, chat_ratings.version, month)


def _rating_ops(key: int, record: dict[str, Any], before: Ratings) -> list[list[Any]]:
    out: list[list[Any]] = []
    for name, (mu, sigma) in rate(record["members"], record["places"], before.values).items():
        played = before.played.get(name, 0) + 1
        out.append(["s", key, name, f"{mu:.4f}:{sigma:.4f}:{played}"])
    return out


def _moved(
    record: dict[str, Any], overall: dict[str, tuple[float, float]], winners: set[str]
) -> dict[str, dict[str, Any]]:
    """Each rated name's overall move: (mu change, new sigma, won)."""
    moved: dict[str, dict[str, Any]] = {}
    for name, (mu, sigma) in rate(record["members"], record["places"], overall).items():
        before = overall.get(name, (MU, SIGMA))[0]
        moved[name] = {"mu": mu - before, "sigma": sigma, "won": name in winners}
    return moved


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
            if "|" in name:  # a season's win counters beside its ratings
                continue
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


def lineups(counters: dict[str, int]) -> list[dict[str, Any]]:
    """The series counters read back: each line-up's preset, sides (members), matches and
    wins per side."""
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
        wins = [entry["wins"].get(i, 0) for i in range(len(sides))]
        result.append({"preset": preset, "sides": sides, "wins": wins, "played": entry["played"]})
    return result


def series_rows(counters: dict[str, int], names: dict[str, str]) -> list[dict[str, Any]]:
    """Matches between the same line-ups: names and wins per side, most played first."""
    result = [
        {
            **entry,
            "sides": [
                [names.get(m, "🤖" if m.startswith("bot") else m) for m in side] for side in entry["sides"]
            ],
        }
        for entry in lineups(counters)
    ]
    result.sort(key=lambda e: -e["played"])
    return result


def _people_of(entry: dict[str, Any]) -> list[tuple[str, int]]:
    """The people of a line-up with their sides."""
    return [
        (m, i) for i, side in enumerate(entry["sides"]) for m in side if not m.startswith("bot") and m != "?"
    ]


def with_people_counters(counters: dict[str, int]) -> dict[str, int]:
    """Matches played and won per person (``<user>|played``, ``<user>|won``), counting only
    line-ups of two people or more (issue 36.5): every match the chat has recorded, since
    the series keep line-ups."""
    out: dict[str, int] = {}
    for entry in lineups(counters):
        people = _people_of(entry)
        if len(people) < 2:
            continue
        for user, side in people:
            out[f"{user}|played"] = out.get(f"{user}|played", 0) + entry["played"]
            out[f"{user}|won"] = out.get(f"{user}|won", 0) + entry["wins"][side]
    return out


# a line-up's computer level: its hardest computer player (the old names read as today's)
LEVEL_ORDER = ("easy", "normal", "hard")
LEVEL_OF = {"random": "easy", "rules": "normal"}


def level_of(members: list[str]) -> str:
    levels = [LEVEL_OF.get(m.split(":")[1], m.split(":")[1]) for m in members if m.startswith("bot:")]
    known = [lv for lv in levels if lv in LEVEL_ORDER]
    return max(known, key=LEVEL_ORDER.index) if known else "normal"


def vs_computers_rows(counters: dict[str, int], names: dict[str, str]) -> list[dict[str, Any]]:
    """The table against computer players (issue 36.5): each person who played computer
    players alone, per level (a line-up's hardest), with matches, wins and win rate; most
    played first."""
    people: dict[str, dict[str, dict[str, Any]]] = {}
    for entry in lineups(counters):
        mine = _people_of(entry)
        if len(mine) != 1:
            continue
        user, side = mine[0]
        level = level_of([m for s in entry["sides"] for m in s])
        row = people.setdefault(user, {}).setdefault(level, {"played": 0, "won": 0})
        row["played"] += entry["played"]
        row["won"] += entry["wins"][side]
    rows = []
    for user, levels in people.items():
        for row in levels.values():
            row["rate"] = row["won"] / row["played"] if row["played"] else 0.0
        ordered = {lv: levels[lv] for lv in LEVEL_ORDER if lv in levels}
        total = sum(r["played"] for r in ordered.values())
        rows.append({"user": user, "name": names.get(user, user), "levels": ordered, "played": total})
    rows.sort(key=lambda r: (-r["played"], r["name"]))
    return rows


def season_counters(raw: dict[str, str]) -> dict[str, int]:
    """A season's hash as the leaderboard's counters: its people's matches and wins."""
    out: dict[str, int] = {}
    for name, value in raw.items():
        if name.endswith("|won"):
            out[name] = int(value)
        elif not name.startswith(("bot:", "_")):
            out[f"{name}|played"] = int(value.rsplit(":", 1)[1])
    return out


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
