"""The permanent-trump family's rules as data (RULES.md 4): its events, constants and the
trump table of a preset and suit (``Table``). ``engine.families.trump.match.TrumpMatch`` plays them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from engine.cards import (
    ACE,
    CLUBS,
    DIAMONDS,
    HEARTS,
    KOZEL_STRENGTH,
    QUEEN,
    SPADES,
    Card,
    make,
)
from engine.events import Event
from engine.presets import Rules, TrumpSettings, make_rules, trump_ladder


class TrumpPlay(NamedTuple):
    """One card played to a trick."""

    seat: int
    card: Card


# RULES.md 4a, 4c: eyes to 12, the first team there wins; 4b: penalties to 12, it loses.
LIMIT = 12
# RULES.md 4a: a hand of 13 card points or less may ask for a redeal.
REDEAL_POINTS = 13
# RULES.md 4b: the third redeal in a row costs the dealer's team 2.
REDEALS_IN_A_ROW = 3
TRUMPS = 4  # the "suit" of a trump card: trumps are their own suit (RULES.md 4)
QUEEN_CLUBS = make(QUEEN, CLUBS)
ACE_DIAMONDS = make(ACE, DIAMONDS)
QUEENS = tuple(make(QUEEN, s) for s in (CLUBS, SPADES, HEARTS, DIAMONDS))


# --- events (public only: never a hand, a face-down card or the deck order) --------------


@dataclass(frozen=True, slots=True)
class Shuffled(Event):
    """kozel-nn: the dealer shuffled; ``cutter`` (right of the dealer) is to cut."""

    deal_no: int
    dealer: int
    cutter: int


@dataclass(frozen=True, slots=True)
class DeckCut(Event):
    seat: int
    count: int  # the top ``count`` cards went under the deck


@dataclass(frozen=True, slots=True)
class RedealAsked(Event):
    seat: int
    side: int
    in_a_row: int  # redeals asked for in this deal so far, this one included


@dataclass(frozen=True, slots=True)
class RedealPenalty(Event):
    """kozel-nn: the third redeal in a row; the dealer's team takes ``penalty``."""

    side: int
    penalty: int


@dataclass(frozen=True, slots=True)
class BoastChosen(Event):
    """kozel-nn: on a redeal after a boast the boast team chose ``reboast`` or ``keep``."""

    seat: int
    choice: str


@dataclass(frozen=True, slots=True)
class BoastGiven(Event):
    """kozel-nn boast: ``seat`` was given ``count`` cards (in pairs; which is private)."""

    seat: int
    count: int


@dataclass(frozen=True, slots=True)
class Laid(Event):
    """The boaster laid ``count`` non-trumps face down (which: hidden until revealed)."""

    seat: int
    count: int


@dataclass(frozen=True, slots=True)
class Covered(Event):
    seat: int
    cards: tuple[Card, ...]  # face up, one on each of the boaster's cards


@dataclass(frozen=True, slots=True)
class BoastRevealed(Event):
    seat: int
    cards: tuple[Card, ...]  # the boaster's cards, turned over


@dataclass(frozen=True, slots=True)
class PileWon(Event):
    seat: int
    side: int
    cards: tuple[Card, ...]
    points: int


@dataclass(frozen=True, slots=True)
class BoastVoid(Event):
    """A player holds more than the share: the boast is made again (not a redeal)."""

    seats: tuple[int, ...]
    share: int


@dataclass(frozen=True, slots=True)
class QueenCaught(Event):
    """The 6♣ (kocherga: 7♣) of ``seat`` met the Q♣ of ``victim`` (other team)."""

    seat: int
    victim: int


@dataclass(frozen=True, slots=True)
class Lyusya(Event):
    """A team took every trick (RULES.md 4a): ``mode`` "match" or "reset"."""

    side: int
    mode: str


# --- the trump lists --------------------------------------------------------------------


def trump_suit(preset: str, options: Any) -> int:
    """The suit whose plain cards are trumps: hvalenyi ♦, nn ♣, kocherga per option."""
    return settings_of(make_rules(preset, 4, options)).suit


def trump_order(preset: str, suit: int) -> tuple[Card, ...]:
    """RULES.md 4a-4c: the trumps, high -> low, over the 36 cards (filter by the deck)."""
    return trump_ladder(preset, suit)


def settings_of(rules: Rules) -> TrumpSettings:
    settings = rules.settings
    assert isinstance(settings, TrumpSettings), rules.preset
    return settings


class Table:
    """Per preset and trump suit: each card's suit class and strength."""

    __slots__ = ("order", "suit", "cls", "strength", "top")

    def __init__(self, order: tuple[Card, ...], suit: int) -> None:
        self.order = order
        self.suit = suit
        self.top = self.order[0]  # the catcher: 6♣ (kocherga 7♣)
        n = len(self.order)
        rank = {c: n - i for i, c in enumerate(self.order)}
        self.cls = tuple(TRUMPS if c in rank else c // 9 for c in range(36))
        # trumps 100+ (higher is stronger), plain cards their Kozel order 0..8
        self.strength = tuple(100 + rank[c] if c in rank else KOZEL_STRENGTH[c] for c in range(36))

    def key(self, card: Card, led_cls: int) -> int:
        """Trick strength: trumps, then the led suit; other plain cards cannot win."""
        if self.cls[card] == TRUMPS or self.cls[card] == led_cls:
            return self.strength[card]
        return -1

    def winner(self, plays: Sequence[TrumpPlay]) -> int:
        led = self.cls[plays[0][1]]
        return max(plays, key=lambda p: self.key(p[1], led))[0]


_TABLES: dict[tuple[str, int], Table] = {}


def table_for(preset: str, suit: int) -> Table:
    t = _TABLES.get((preset, suit))
    if t is None:
        t = _TABLES[(preset, suit)] = Table(trump_ladder(preset, suit), suit)
    return t


def catch(plays: Sequence[TrumpPlay], top: Card) -> tuple[int, int] | None:
    """The 6♣ (7♣) and the Q♣ in this trick from different teams: (catcher, victim)."""
    catcher = victim = -1
    for s, c in plays:
        if c == top:
            catcher = s
        elif c == QUEEN_CLUBS:
            victim = s
    if catcher < 0 or victim < 0 or catcher % 2 == victim % 2:
        return None
    return catcher, victim


class DealScore(NamedTuple):
    """What a deal played to its last card scores (``score_deal``)."""

    scored: list[int]  # per team: eyes (4a, 4c) or penalties (4b)
    outcome: str  # "normal" | "eggs" | "lyusya"
    doubled: bool  # the pending eggs bonus (or doubling) was taken
    eggs: bool  # an eggs bonus (or doubling) waits for the next deal
    sweep: int | None  # the team of a Lyusya
    match_winner: int | None  # a Lyusya in "match": that team wins the match


def score_deal(
    nn: bool, lyusya: str | None, points: list[int], tricks: list[int], scores: list[int], eggs: bool
) -> DealScore:
    """RULES.md 4a-4c: the eyes or penalties of a deal with every card played."""
    scored = [0, 0]
    if nn:
        if points[0] == points[1]:
            # 60:60: the next deal's penalties are doubled (no stacking)
            return DealScore(scored, "eggs", False, True, None, None)
        loser = 0 if points[0] < points[1] else 1
        p = points[loser]
        scored[loser] = (6 if p == 0 else 4 if p <= 30 else 2) * (2 if eggs else 1)
        return DealScore(scored, "normal", eggs, False, None, None)
    sweep = next((s for s in (0, 1) if tricks[1 - s] == 0), None)
    if sweep is not None:
        if lyusya == "match":
            return DealScore(scored, "lyusya", False, eggs, sweep, sweep)
        # "reset": the other team's eyes go back to 0; the sweeping team scores 4
        # [decision] the sweeping team is the deal's winner: it takes a pending eggs bonus
        scored[sweep] = 4 + (2 if eggs else 0)
        scored[1 - sweep] = -scores[1 - sweep]
        return DealScore(scored, "lyusya", eggs, False, sweep, None)
    if points[0] == points[1]:
        # 60:60: the next deal's winner gets 2 more (no stacking)
        return DealScore(scored, "eggs", False, True, None, None)
    winner = 0 if points[0] > points[1] else 1
    scored[winner] = (4 if points[winner] >= 91 else 2) + (2 if eggs else 0)
    return DealScore(scored, "normal", eggs, False, None, None)
