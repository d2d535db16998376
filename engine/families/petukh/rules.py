"""The Petukh family's rules as data and pure functions (RULES.md 5, 5a): its events, the
boys tables, what a deal does to a record, who takes a trick, and what may answer a trick.
``engine.families.petukh.match.PetukhMatch`` plays them; decisions are marked **[decision]**.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from engine.cards import ACE, SPADES, Card, make
from engine.events import Event
from engine.presets import Answer, PetukhSettings, Rules


class Play(NamedTuple):
    """One seat's play to a trick: ``kind`` "play" with one card, or "skip" with none."""

    seat: int
    kind: str
    cards: tuple[Card, ...]


HAND = 5  # RULES.md 5: five cards each, five tricks a deal
SPADE_ACE: Card = make(ACE, SPADES)
# RULES.md 5: the record at which a player may neither exchange, nor pass, nor swap.
LOW_RECORD = 2
# RULES.md 5: boys finish is open to a record of 5 or less.
FINISH_RECORD = 5

# RULES.md 5, the boys tables: combination -> (took a trick, took no trick).
STANDARD_BOYS: dict[str, tuple[int, int | None]] = {
    "four": (-15, -10),
    "coloured": (-10, -5),
    "pair": (-5, 0),
}
# [decision] three jacks in the thirty table cost +15 without a trick, as coloured and four.
THIRTY_BOYS: dict[str, tuple[int, int | None]] = {
    "four": (-15, 15),
    "three": (-12, 15),
    "coloured": (-10, 15),
    "pair": (-5, 10),
}


# --- events --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Exchanged(Event):
    """A player discarded ``count`` cards face down and drew as many (which: private)."""

    seat: int
    count: int


@dataclass(frozen=True, slots=True)
class Kept(Event):
    """A player kept his cards in the exchange."""

    seat: int


@dataclass(frozen=True, slots=True)
class Passed(Event):
    """A player laid down his hand and sits the deal out (RULES.md 5)."""

    seat: int


@dataclass(frozen=True, slots=True)
class TrumpSwapped(Event):
    """The dealer took the face-up trump ``card`` for one of his cards (face down)."""

    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class TrumpLeft(Event):
    """The dealer did not take the face-up trump; nobody may (RULES.md 5)."""

    seat: int


@dataclass(frozen=True, slots=True)
class PlayStarted(Event):
    """The exchange is over: ``leader`` leads; ``seats`` play the deal (who did not pass)."""

    leader: int
    seats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class BoysDeclared(Event):
    """A player played his first jack holding others: his jacks are shown (RULES.md 5)."""

    seat: int
    cards: tuple[Card, ...]
    combination: str  # "pair" | "coloured" | "three" | "four" | "crooked"


@dataclass(frozen=True, slots=True)
class Skipped(Event):
    """``petukh-25``: a player played no card to this trick (RULES.md 5a)."""

    seat: int
    skips_left: int


@dataclass(frozen=True, slots=True)
class BoysFinish(Event):
    """A player with a record of 5 or less showed his jacks and won the match."""

    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class DealScored(Event):
    """The end of a deal: tricks, the change of each record, the records after it."""

    deal_no: int
    tricks: tuple[int, ...]
    changes: tuple[int, ...]  # what the deal did to each record (before overshoot)
    records: tuple[int, ...]
    overshoot: tuple[int, ...]  # seats set back to the start record
    passed: tuple[int, ...]
    # what made up each change (the adapters' deal lines), beside the tricks' -1 each:
    # (seat, combination, the jacks' suit letters, what the boys did) for boys that counted,
    boys: tuple[tuple[int, str, str, int], ...] = ()
    bonus: tuple[int, ...] = ()  # the spade ace's -5 / +5 per seat
    finisher: int | None = None  # boys finish: this seat's record went to 0, nothing scored


@dataclass(frozen=True, slots=True)
class RoosterChosen(Event):
    """The end of the match: the rooster(s), in the elimination order, and the debts."""

    seats: tuple[int, ...]
    debts: tuple[tuple[int, int, int], ...]  # (loser, winner, points) each


# --- the preset's settings ------------------------------------------------------------------


def settings_of(rules: Rules) -> PetukhSettings:
    """The Petukh preset's rules (``engine.presets`` builds them from its options)."""
    settings = rules.settings
    assert isinstance(settings, PetukhSettings), rules.preset
    return settings


def best_boys(jacks: list[Card], trump: int, table: str, crooked: int) -> str | None:
    """RULES.md 5: the best combination of the jacks a player holds (None: nothing).

    [decision] Standard table: three jacks count as the best pair among them (a trump jack
    makes it coloured). Thirty table: any two jacks are a pair, so ``crooked_boys`` does
    not apply there.
    """
    n = len(jacks)
    if n < 2:
        return None
    if n == 4:
        return "four"
    has_trump = any(j // 9 == trump for j in jacks)
    if table == "thirty":
        if n == 3:
            return "three"
        return "coloured" if has_trump else "pair"
    if has_trump:
        return "coloured"
    colours = [j // 9 // 2 for j in jacks]  # clubs+spades black, hearts+diamonds red
    if len(set(colours)) < len(colours):
        return "pair"
    return "crooked" if crooked else None


def boys_value(combination: str | None, s: PetukhSettings) -> tuple[int, int | None]:
    """(change with a trick, change with no trick or None when it counts as no boys)."""
    if combination is None:
        return 0, None
    if combination == "crooked":
        # [decision] crooked boys count only with a trick (the no-trick column has no row).
        return -s.crooked, None
    table = THIRTY_BOYS if s.boys_table == "thirty" else STANDARD_BOYS
    return table[combination]


def deal_change(s: PetukhSettings, record: int, tricks: int, combination: str | None, bonus: int) -> int:
    """RULES.md 5: what one deal does to a record (before overshoot)."""
    took, none = boys_value(combination, s)
    if tricks:
        change = -tricks + took
    elif none is not None:
        change = none  # the no-trick column replaces the +5
    else:
        change = 5 if s.cap is None or record <= s.cap else 0
    return change + bonus


def trick_winner(plays: Sequence[Play], trump: int) -> int:
    """Highest trump wins, else the highest card of the led suit (RULES.md 5)."""
    led = plays[0][2][0] // 9
    best_seat, best_key = -1, -1
    for seat, _kind, cards in plays:
        if not cards:
            continue
        c = cards[0]
        suit = c // 9
        key = 20 + c % 9 if suit == trump else 10 + c % 9 if suit == led else 0
        if key > best_key:
            best_seat, best_key = seat, key
    return best_seat


# --- answering a trick (RULES.md 5, 5a; ``PetukhSettings.answer``) ---------------------------


def _above(cards: Sequence[Card], table: Sequence[Card], suit: int) -> list[Card]:
    """The cards higher than every card of ``suit`` on the table (all when it has none)."""
    top = max((c % 9 for c in table if c // 9 == suit), default=-1)
    return [c for c in cards if c % 9 > top]


def answers(plays: Sequence[Play], hand: Sequence[Card], trump: int, answer: Answer) -> list[Card]:
    """The cards of ``hand`` that may answer the trick ``plays`` (its leader played a card)."""
    led_suit = plays[0].cards[0] // 9
    table = [c for p in plays for c in p.cards]
    suited = [c for c in hand if c // 9 == led_suit]
    trumps = [c for c in hand if c // 9 == trump]
    if answer != "follow":
        higher = _above(suited, table, led_suit)
        if higher:
            return higher
    if answer == "beat_or_trump" and led_suit != trump and trumps:
        return trumps  # RULES.md 5a: a trump, even holding lower cards of the led suit
    if suited:
        return suited
    if trumps and answer == "beat":
        return _above(trumps, table, trump) or trumps
    return trumps or list(hand)


def why_not_answer(
    plays: Sequence[Play], hand: Sequence[Card], trump: int, answer: Answer, card: Card
) -> str:
    """The reason code for ``card`` of ``hand``, not among ``answers``."""
    led_suit = plays[0].cards[0] // 9
    has_suit = any(c // 9 == led_suit for c in hand)
    has_trump = any(c // 9 == trump for c in hand)
    ruff = led_suit != trump and card // 9 != trump
    if has_trump and ruff and answers(plays, hand, trump, answer)[0] // 9 == trump:
        # RULES.md 5a: no higher card of the suit (or none of it at all): a trump
        return "must_trump_no_higher" if has_suit else "must_trump"
    if has_suit:
        return "must_follow_suit" if card // 9 != led_suit else "must_beat"
    if has_trump:
        return "must_trump" if card // 9 != trump else "must_overtrump"
    return "illegal_action"
