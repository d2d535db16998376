"""Cards, suits, decks and card points.

A card is a plain ``int`` in the hot path: ``suit * 9 + rank``, with suits in the order
♣ ♠ ♥ ♦ (``C S H D``) and ranks 6 7 8 9 10 J Q K A (indices 0..8). Its text form is
rank + suit letter: ``"6S"``, ``"10H"``, ``"QC"``, ``"AD"``.
"""

from __future__ import annotations

from collections.abc import Iterable

CLUBS, SPADES, HEARTS, DIAMONDS = 0, 1, 2, 3
SUIT_LETTERS = "CSHD"
SUIT_SYMBOLS = "♣♠♥♦"
RANK_NAMES = ("6", "7", "8", "9", "10", "J", "Q", "K", "A")
SIX, SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE = range(9)

Card = int


def make(rank: int, suit: int) -> Card:
    return suit * 9 + rank


ALL_CARDS: tuple[Card, ...] = tuple(range(36))
CARD_TEXT: tuple[str, ...] = tuple(RANK_NAMES[c % 9] + SUIT_LETTERS[c // 9] for c in ALL_CARDS)
_BY_TEXT = {text: c for c, text in enumerate(CARD_TEXT)}

# RULES.md 0: A 11, 10 10, K 4, Q 3, J 2, 9/8/7/6 0.
_RANK_POINTS = (0, 0, 0, 0, 10, 2, 3, 4, 11)
POINTS: tuple[int, ...] = tuple(_RANK_POINTS[c % 9] for c in ALL_CARDS)

# RULES.md 0: Kozel plain order 6 7 8 9 J Q K 10 A (the ten above the king).
_KOZEL_RANK_ORDER = {SIX: 0, SEVEN: 1, EIGHT: 2, NINE: 3, JACK: 4, QUEEN: 5, KING: 6, TEN: 7, ACE: 8}
KOZEL_STRENGTH: tuple[int, ...] = tuple(_KOZEL_RANK_ORDER[c % 9] for c in ALL_CARDS)

SHOKHA: Card = make(SIX, SPADES)


class CardError(ValueError):
    """A card's text form could not be read."""


def parse_card(text: str) -> Card:
    """``"10H"`` -> card. Accepts lower case and the suit symbols ``♣♠♥♦``."""
    if not isinstance(text, str):
        raise CardError(f"not a card: {text!r} (write rank + suit, e.g. 6S 10H QC AD)")
    t = text.strip().upper().replace("\ufe0f", "")
    for sym, letter in zip(SUIT_SYMBOLS, SUIT_LETTERS, strict=True):
        t = t.replace(sym, letter)
    try:
        return _BY_TEXT[t]
    except KeyError:
        raise CardError(f"not a card: {text!r} (write rank + suit, e.g. 6S 10H QC AD)") from None


def parse_cards(texts: Iterable[str]) -> tuple[Card, ...]:
    return tuple(parse_card(t) for t in texts)


def deck_36() -> list[Card]:
    return list(ALL_CARDS)


def deck_32() -> list[Card]:
    """36 cards without the sixes (RULES.md 3, 4c)."""
    return [c for c in ALL_CARDS if c % 9 != SIX]


def deck_30() -> list[Card]:
    """32 cards without 7♣ and 7♠ (RULES.md 3, three players)."""
    dropped = {make(SEVEN, CLUBS), make(SEVEN, SPADES)}
    return [c for c in deck_32() if c not in dropped]


# each card's points as one byte, by card: ``deck_points`` adds them up in C
_POINT_BYTES = bytes(POINTS).ljust(256, b"\0")


def deck_points(cards: Iterable[Card]) -> int:
    """The card points of ``cards`` (the cards as bytes, each turned into its points)."""
    return sum(bytes(cards).translate(_POINT_BYTES))
