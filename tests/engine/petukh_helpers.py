"""Hand-built Petukh deals for scenario tests (deal-log format, or a state with records)."""

from __future__ import annotations

from typing import Any

from engine.actions import Action, parse_action
from engine.cards import parse_card
from engine.codec import pack_cards
from engine.events import Event
from engine.families.petukh.match import PetukhMatch
from engine.log import replay
from engine.presets import make_rules
from tests.engine.helpers import build_deck


def c(text: str) -> int:
    return parse_card(text)


def petukh_log(
    preset: str,
    players: int,
    dealer: int,
    hands: dict[int, str],
    after: list[str] | None = None,
    options: dict[str, Any] | None = None,
    actions: list[tuple[int, str]] | None = None,
) -> dict[str, Any]:
    """A one-deal log: ``hands`` dealt clockwise from the dealer's left, then ``after``
    (trump "turn": the face-up trump first, then the stock top-down), then the rest."""
    deck = build_deck(preset, players, dealer, {s: h.split() for s, h in hands.items()}, after, options)
    acts = []
    for seat, text in actions or []:
        kind, *cards = text.split()
        acts.append({"seat": seat, kind: cards})
    return {
        "preset": preset,
        "players": players,
        "options": options or {},
        "seed": 1,
        "deals": [{"dealer": dealer, "deck": deck, "actions": acts}],
    }


def deal(
    preset: str,
    players: int,
    dealer: int,
    hands: dict[int, str],
    after: list[str] | None = None,
    options: dict[str, Any] | None = None,
    records: list[int] | None = None,
    skips: list[int] | None = None,
) -> PetukhMatch:
    """The first deal of a match, optionally with the records (and skips) before it."""
    if records is None and skips is None:
        match, _summary = replay(petukh_log(preset, players, dealer, hands, after, options))
        assert isinstance(match, PetukhMatch)
        return match
    rules = make_rules(preset, players, options)
    deck = build_deck(preset, players, dealer, {s: h.split() for s, h in hands.items()}, after, options)
    start = 25 if preset == "petukh-25" else int(rules.options["start"])
    state = {
        "seed": 1,
        "dealer": dealer,
        "deal_no": 1,
        "records": records or [start] * players,
        "skips": skips or [2 if preset == "petukh-25" else 0] * players,
        "deck": pack_cards(parse_card(x) for x in deck),
        "actions": [],
    }
    return PetukhMatch.from_state(rules, state)


def act(match: PetukhMatch, seat: int, text: str) -> list[Event]:
    return match.apply(seat, parse_action(text))


def keep_all(match: PetukhMatch) -> list[Event]:
    """Everybody keeps his cards (and the dealer leaves the trump) until play starts."""
    events: list[Event] = []
    while match.deal.phase != "play" and not match.finished:
        events += match.apply(match.to_act()[0], Action("keep"))
    return events


def play(match: PetukhMatch, script: str) -> list[Event]:
    """``"1:AC 0:7C | 0:KD 1:8D"``: tricks of ``seat:card`` plays (``seat:skip`` too)."""
    events: list[Event] = []
    for trick in script.split("|"):
        for move in trick.split():
            seat, what = move.split(":")
            text = what if what in ("skip", "finish") else f"play {what}"
            assert match.to_act() == (int(seat),), (move, match.to_act())
            events += match.apply(int(seat), parse_action(text))
    return events


def kinds(events: list[Event]) -> list[str]:
    return [e.name for e in events]
