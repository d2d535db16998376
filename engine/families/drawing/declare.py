"""The drawing family's declarations (RULES.md 1-2): a Moscow or a Molodka, and kozel-4's
pull. ``DrawingDeal.declarations`` keeps them per state; they read the deal through
``Declaring``, what a declaration looks at."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from engine.actions import Action
from engine.cards import SHOKHA, Card
from engine.families.drawing.rules import ACES_TENS, Play
from engine.presets import DrawingSettings


class Declaring(Protocol):
    """What the declarations read of a deal (``DrawingDeal`` is one)."""

    settings: DrawingSettings
    seats: tuple[int, ...]
    hands: list[list[Card]]
    plays: list[Play]
    declared: str | None
    finished: bool
    leader: int

    def combination(self, cards: Sequence[Card]) -> str | None: ...

    def trick_pulls(self) -> tuple[tuple[Card, ...] | None, ...]: ...


def open_declarations(d: Declaring) -> dict[int, Action]:
    """The declarations open now, per seat."""
    decls: dict[int, Action] = {}
    combos, pull = d.settings.combos, d.settings.pull
    if combos and not pull and not d.plays and not d.finished:
        _trick_start_declarations(d, decls)
    elif not d.finished and (combos or pull) and not _closed(d):
        _mid_trick_declarations(d, decls)
    return decls


def _closed(d: Declaring) -> bool:
    """Whether declaring is closed now: mid-trick only a pull or a Moscow over a
    just-declared Molodka may come."""
    return bool(d.plays) and not d.settings.pull and (d.declared, len(d.plays)) != ("molodka", 1)


def _trick_start_declarations(d: Declaring, decls: dict[int, Action]) -> None:
    """The start of a trick: a hand of four that is a combination declares it."""
    hands = d.hands
    wild = SHOKHA if d.settings.shokha else -1
    for s in d.seats:
        hand = hands[s]
        if len(hand) != 4:
            continue
        a, b = hand[0], hand[1]
        if a // 9 != b // 9 and not ACES_TENS >> a & ACES_TENS >> b & 1 and wild not in (a, b):
            continue  # two real cards of two suits, not both aces or tens: neither
        if d.combination(hand) is not None:
            decls[s] = Action("declare", tuple(sorted(hand)))


def _mid_trick_declarations(d: Declaring, decls: dict[int, Action]) -> None:
    """Declarations while a trick may take them: a combination, or a pull."""
    combos, pull, hands = d.settings.combos, d.settings.pull, d.hands
    pulls = d.trick_pulls() if pull and d.declared != "pull" else None  # one pull a trick
    if not combos and not any(pulls or ()):
        return
    for s in d.seats:
        if combos and len(hands[s]) == 4 and _may_declare(d, s):
            decls[s] = Action("declare", tuple(sorted(hands[s])))
        elif pulls is not None and (pulled := pulls[s]) is not None and (d.plays or s != d.leader):
            decls[s] = Action("declare", pulled)  # the leader with four simply leads them


def pull_cards(d: Declaring, seat: int) -> tuple[Card, ...] | None:
    """Four cards of one suit among the seat's hand and its cards on this trick."""
    own = list(d.hands[seat])
    for s, _kind, cards in d.plays:
        if s == seat:
            own.extend(cards)
    if len(own) < 4:
        return None
    by_suit: dict[int, list[Card]] = {}
    for c in own:
        by_suit.setdefault(c // 9, []).append(c)
    for cards_of_suit in by_suit.values():
        if len(cards_of_suit) >= 4:
            return tuple(sorted(cards_of_suit[:4]))
    return None


def _may_declare(d: Declaring, seat: int) -> bool:
    if not d.settings.combos:
        return False
    if d.plays and (d.declared != "molodka" or len(d.plays) != 1):
        return False
    hand = d.hands[seat]
    if len(hand) != 4:
        return False
    combo = d.combination(tuple(hand))
    if not d.plays:
        return combo is not None
    # RULES.md 1: a Moscow over a declared Molodka until the first answer.
    return d.declared == "molodka" and len(d.plays) == 1 and combo == "moscow"
