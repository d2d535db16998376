"""The drawing family's rules as data (RULES.md 1-3): its settings (``settings_of``), what
beats what, kozel-60's trick strength. ``engine.drawing.DrawingDeal`` plays them."""

from __future__ import annotations

from engine.cards import JACK, KOZEL_STRENGTH, SHOKHA, Card
from engine.presets import DrawingSettings, Rules

# A play on the table: (seat, kind, cards). kind: "lead", "beat", "throw", "play".
Play = tuple[int, str, tuple[Card, ...]]


def settings_of(rules: Rules) -> DrawingSettings:
    """The drawing preset's rules (``engine.presets`` builds them from its options)."""
    settings = rules.settings
    assert isinstance(settings, DrawingSettings), rules.preset
    return settings


def _beats(b: Card, c: Card, trump: int, shokha: bool) -> bool:
    """Does card ``b`` beat card ``c`` (RULES.md 1: same suit higher, trump, shokha)?"""
    if shokha:
        if b == SHOKHA:
            return True
        if c == SHOKHA:
            return False
    sb = b // 9
    if sb == c // 9:
        return KOZEL_STRENGTH[b] > KOZEL_STRENGTH[c]
    return sb == trump


_BEATERS: dict[tuple[int, bool], tuple[int, ...]] = {}


def beaters(trump: int, shokha: bool) -> tuple[int, ...]:
    """Per card, the bitmask of the cards that beat it (built once per trump and option)."""
    table = _BEATERS.get((trump, shokha))
    if table is None:
        table = tuple(sum(1 << b for b in range(36) if _beats(b, c, trump, shokha)) for c in range(36))
        _BEATERS[(trump, shokha)] = table
    return table


def strength60(card: Card, trump: int, led: Card) -> int:
    """kozel-60 trick strength (RULES.md 3): jacks > trumps > the led suit > the rest.

    J♣ > J♠ > J♥ > J♦ over every trump; a led jack is a trump lead.
    """
    if card % 9 == JACK:
        return 100 - card // 9
    suit = card // 9
    if suit == trump:
        return 50 + KOZEL_STRENGTH[card]
    led_suit = trump if led % 9 == JACK else led // 9
    return 10 + KOZEL_STRENGTH[card] if suit == led_suit else 0
