"""The drawing family's rules as data (RULES.md 1-3): its settings (``settings_of``), what
beats what, the combinations, kozel-60's trick strength. ``engine.families.drawing.deal.DrawingDeal``
plays them."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations, permutations
from operator import itemgetter
from typing import Any, NamedTuple

from engine.actions import ONE_CARD
from engine.cards import ACE, JACK, KOZEL_STRENGTH, SHOKHA, TEN, Card
from engine.presets import DrawingSettings, Rules


class Play(NamedTuple):
    """A play on the table."""

    seat: int
    kind: str  # "lead", "beat", "throw", "play"
    cards: tuple[Card, ...]


# The one-card plays on the table by kind, seat and card, made once and shared (plays are
# immutable values, as the one-card actions are).
ONE_CARD_PLAYS: dict[str, tuple[tuple[Play, ...], ...]] = {
    k: tuple(tuple(Play(s, k, (c,)) for c in range(36)) for s in range(6))
    for k in ("lead", "play", "beat", "throw")
}


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


def beats_all(table: tuple[int, ...], cards: tuple[Card, ...], target: tuple[Card, ...]) -> bool:
    """Do ``cards`` beat ``target`` one to one in some pairing (RULES.md 1)? ``table``: the
    deal's ``beaters``."""
    if len(cards) != len(target):
        return False
    if len(cards) == 1:
        return bool(table[target[0]] >> cards[0] & 1)
    if len(cards) == 2:
        (b0, b1), (c0, c1) = cards, target
        return bool(table[c0] >> b0 & table[c1] >> b1 & 1 or table[c0] >> b1 & table[c1] >> b0 & 1)
    hand_mask = 0
    for b in cards:
        hand_mask |= 1 << b
    if not all(table[c] & hand_mask for c in target):
        return False
    return any(
        all(table[c] >> b & 1 for b, c in zip(perm, target, strict=True)) for perm in permutations(cards)
    )


def beating_sets(
    table: tuple[int, ...], hand: list[Card], target: tuple[Card, ...]
) -> list[tuple[Card, ...]]:
    """The sets of ``len(target)`` cards of ``hand`` (sorted) that beat ``target`` one to one
    (RULES.md 1), in ``combinations`` order. ``table``: the deal's ``beaters``."""
    need = 0  # each card of a beat beats a card on the table: only those are tried
    for w in target:
        need |= table[w]
    able: list[Card] = []
    for c in hand:
        if need >> c & 1:
            able.append(c)
    out: list[tuple[Card, ...]] = []
    if len(target) == 2:  # the two pairings tried here (the commonest beat of several cards)
        t0, t1 = table[target[0]], table[target[1]]
        for b0, b1 in combinations(able, 2):
            if t0 >> b0 & t1 >> b1 & 1 or t0 >> b1 & t1 >> b0 & 1:
                out.append((b0, b1))
        return out
    for cs in combinations(able, len(target)):
        if beats_all(table, cs, target):
            out.append(cs)
    return out


def combination_of(cards: Sequence[Card], shokha: bool) -> str | None:
    """``"moscow"``, ``"molodka"`` or None for four cards (RULES.md 1; ``shokha``: the 6S
    stands in for any card)."""
    if len(cards) != 4:
        return None
    real = 0
    for c in cards:
        real |= 1 << c
    if shokha:
        real &= ~SHOKHA_BIT
    if not real & ~ACES_TENS and real & ACES:
        return "moscow"
    if not real & ~SUIT_MASKS[(real.bit_length() - 1) // 9]:
        return "molodka"
    return None


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


__all__ = ["ONE_CARD"]
SHOKHA_BIT = 1 << SHOKHA
ACES = sum(1 << c for c in range(36) if c % 9 == ACE)
ACES_TENS = ACES | sum(1 << c for c in range(36) if c % 9 == TEN)
SUIT_MASKS = tuple(sum(1 << c for c in range(36) if c // 9 == suit) for suit in range(4))
ANY_SUIT = 4  # the shokha's "suit" in a lead: it joins any suit (RULES.md 1)
SUIT_OF = tuple(c // 9 for c in range(36))
WILD_SUIT_OF = tuple(ANY_SUIT if c == SHOKHA else c // 9 for c in range(36))  # with the shokha
# A sorted hand's leads of two cards or more by the suits of its cards (each card alone leads
# too, before them): the positions of each lead, by size then position (so by size then
# cards), as (size, getter of the cards' tuple). Kept per pattern of suits, as one number.
_LEAD_SHAPES: dict[int, list[tuple[int, Any]]] = {}


def lead_shapes(hand: list[Card], suit_of: tuple[int, ...]) -> list[tuple[int, Any]]:
    """The leads of two cards or more of a sorted ``hand`` whose cards have the suits
    ``suit_of`` gives (``SUIT_OF``, or ``WILD_SUIT_OF`` with the shokha: ``ANY_SUIT``)."""
    pattern = 1
    for c in hand:  # a loop, not a tuple of a generator: this runs for every lead
        pattern = pattern * 8 + suit_of[c]
    shapes = _LEAD_SHAPES.get(pattern)
    if shapes is None:
        suits = [suit_of[c] for c in hand]
        shapes = []
        for k in range(2, len(suits) + 1):
            for pos in combinations(range(len(suits)), k):
                of = {suits[i] for i in pos}
                if len(of - {ANY_SUIT}) <= 1 and (ANY_SUIT not in of or k <= 4):
                    shapes.append((k, itemgetter(*pos)))
        _LEAD_SHAPES[pattern] = shapes
    return shapes
