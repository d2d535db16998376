"""Hand-built deals for scenario tests, written in the deal-log format."""

from __future__ import annotations

from typing import Any

from engine.cards import CARD_TEXT, parse_card
from engine.families.drawing.match import Match
from engine.log import replay
from engine.presets import make_rules


def build_deck(
    preset: str,
    players: int,
    dealer: int,
    hands: dict[int, list[str]],
    after: list[str] | None = None,
    options: dict[str, Any] | None = None,
    seats: list[int] | None = None,
) -> list[str]:
    """A whole deck, top card first, that deals ``hands`` (every listed seat's cards in
    order, one card at a time clockwise from the dealer's left), then ``after`` (for
    ``kozel``/``kozel-60``: the face-up trump first, then the stock top-down), then every
    other card of the preset's deck in card order."""
    rules = make_rules(preset, players, options)
    seats = seats or list(range(players))
    n = len(seats)
    left = seats[(seats.index(dealer) + 1) % n]
    order = [seats[(seats.index(left) + i) % n] for i in range(n)]
    size = len(next(iter(hands.values())))
    deck: list[str] = []
    for i in range(size):
        for seat in order:
            deck.append(hands[seat][i])
    deck.extend(after or [])
    used = {parse_card(c) for c in deck}
    if len(used) != len(deck):
        raise ValueError("a card is used twice")
    deck.extend(CARD_TEXT[c] for c in rules.deck if c not in used)
    return deck


def run(log: dict[str, Any]) -> tuple[Match, dict[str, Any]]:
    """Replay a log (see docs/deal-log.md): the match and the printed summary."""
    return replay(log)
