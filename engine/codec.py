"""Compact text forms for storage: one character per card, a few per action.

Used by the service to keep rooms small in Redis. Cards map to the characters
``chr(48 + card)`` (``0``..``S``), which are JSON-safe and never need escaping.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.actions import ACTION_KINDS, Action
from engine.cards import Card

_KIND_CODE = {kind: spec.code for kind, spec in ACTION_KINDS.items()}
_CODE_KIND = {code: kind for kind, code in _KIND_CODE.items()}


_CHARS = tuple(chr(48 + c) for c in range(36))
_CARDS = {ch: c for c, ch in enumerate(_CHARS)}


def pack_cards(cards: Iterable[Card]) -> str:
    return "".join(map(_CHARS.__getitem__, cards))


def unpack_cards(text: str) -> list[Card]:
    return list(map(_CARDS.__getitem__, text))


def pack_action(seat: int, action: Action) -> str:
    """``(1, throw 7H 8C)`` -> ``"1t..."``: seat digit, kind letter, cards."""
    return f"{seat}{_KIND_CODE[action.kind]}{pack_cards(action.cards)}"


def unpack_action(text: str) -> tuple[int, Action]:
    return int(text[0]), Action(_CODE_KIND[text[1]], tuple(unpack_cards(text[2:])))
