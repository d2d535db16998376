"""The drawing family's compact form: its action codes and the tables of one deal.

An action is one int, ``kind << 36 | cards``: the bit mask of its cards and its kind
(``KINDS``). A ``Table`` holds what does not change in a deal (seats, trump, the beating
table, the rules player's prices), built once per deal for all of a search's samples.
Used by ``engine.families.drawing.compact``.
"""

from __future__ import annotations

from itertools import permutations
from typing import Any

from engine.actions import Action
from engine.cards import ACE, JACK, KOZEL_STRENGTH, POINTS, SHOKHA, TEN, Card
from engine.families.drawing.rules import settings_of
from engine.presets import Rules, default_rules

LEAD, PLAY, BEAT, THROW, DECLARE = range(5)
KINDS = ("lead", "play", "beat", "throw", "declare")
KIND_OF = {k: i for i, k in enumerate(KINDS)}
SHIFT = 36
CARDS = (1 << SHIFT) - 1
# a play on the table: (seat, kind, cards)
Play = tuple[int, int, tuple[Card, ...]]


def mask_of(cards: tuple[Card, ...] | list[Card]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of(mask: int) -> tuple[Card, ...]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return tuple(out)


def encode(action: Action) -> int | None:
    kind = KIND_OF.get(action.kind)
    return None if kind is None else kind << SHIFT | mask_of(action.cards)


def decode(code: int) -> Action:
    return Action(KINDS[code >> SHIFT], cards_of(code & CARDS))


def _next_seats(seats: tuple[int, ...], players: int) -> list[int]:
    """The seat in play after each seat (a seat out of play: the first in play)."""
    n = len(seats)
    return [seats[(seats.index(s) + 1) % n] if s in seats else seats[0] for s in range(players)]


def _draw_orders(seats: tuple[int, ...], players: int) -> list[tuple[int, ...]]:
    """The seats in play clockwise from each seat (a seat out of play: all of them)."""
    return [
        seats[seats.index(s) :] + seats[: seats.index(s)] if s in seats else seats for s in range(players)
    ]


def _dumps(trump: int) -> list[int]:
    """What each card is worth thrown onto the own side's trick."""
    return [POINTS[c] * 3 - (100 if c // 9 == trump or c == SHOKHA else 0) for c in range(36)]


def _combination_bits(shokha: bool) -> tuple[list[int], list[bool]]:
    """For combinations, per card: the bit of the suit it counts for (0: the shokha) and
    whether it counts as an ace or a ten."""
    joker = [shokha and c == SHOKHA for c in range(36)]
    return [0 if joker[c] else 1 << c // 9 for c in range(36)], [
        joker[c] or c % 9 in (ACE, TEN) for c in range(36)
    ]


class Table:
    """What does not change in a deal: the seats, the trump, the card orders and costs."""

    __slots__ = (
        "players",
        "seats",
        "nxt",
        "side",
        "partnership",
        "trump",
        "multi",
        "shokha",
        "combos",
        "pull",
        "size",
        "beaters",
        "cost",
        "cost60",
        "dump",
        "dealer",
        "first_leader",
        "order",
        "key",
        "key60",
        "s60",
        "dkey",
        "suit_bit",
        "ace_ten",
        "bot_shokha",
    )

    def __init__(self, rules: Rules, seats: tuple[int, ...], trump: int, dealer: int, first: int) -> None:
        self.players = rules.players
        self.seats = seats
        self.nxt = _next_seats(seats, rules.players)
        self.side = [rules.side_of(s) for s in range(rules.players)]
        self.partnership = rules.partnership
        self.trump = trump
        self.multi = rules.multi
        settings = settings_of(rules)
        self.shokha = settings.shokha
        self.combos = settings.combos
        self.pull = settings.pull
        self.size = rules.hand_size
        self.dealer = dealer
        # the rules player reads the shokha from the preset's defaults (engine.families.drawing.bot)
        self.bot_shokha = settings_of(default_rules(rules.preset, rules.players)).shokha
        self.first_leader = first
        self.beaters = [sum(1 << b for b in range(36) if self._beats(b, c)) for c in range(36)]
        # the rules player's prices (engine.families.drawing.bot): what a card costs to give up
        self.cost = [self._cost(c) for c in range(36)]
        self.cost60 = [self._cost60(c) for c in range(36)]
        # what a card is worth thrown onto the own side's trick
        self.dump = _dumps(trump)
        # the drawing order after a trick, per winner (RULES.md 1: the winner first)
        self.order = _draw_orders(seats, rules.players)
        # the prices with the card as the tie-break (the rules player takes the lowest card)
        self.key = [self.cost[c] << 6 | c for c in range(36)]
        self.key60 = [self.cost60[c] << 6 | c for c in range(36)]
        # kozel-60 strengths per led suit (a led jack leads trumps)
        self.dkey = [-self.dump[c] << 6 | c for c in range(36)]
        # for combinations: the suit a card counts for (none: the shokha), an ace or a ten
        self.suit_bit, self.ace_ten = _combination_bits(self.shokha)
        self.s60 = [[self.strength60(c, led * 9) for c in range(36)] for led in range(4)]

    def _beats(self, b: Card, c: Card) -> bool:
        """RULES.md 1: same suit higher, a trump over a non-trump, the shokha over all."""
        if self.shokha:
            if b == SHOKHA:
                return True
            if c == SHOKHA:
                return False
        if b // 9 == c // 9:
            return KOZEL_STRENGTH[b] > KOZEL_STRENGTH[c]
        return b // 9 == self.trump

    def _cost(self, card: Card) -> int:
        c = POINTS[card] * 3 + KOZEL_STRENGTH[card]
        if card == SHOKHA and self.bot_shokha:
            return c + 200
        return c + 60 if card // 9 == self.trump else c

    def _cost60(self, card: Card) -> int:
        c = POINTS[card] * 3 + KOZEL_STRENGTH[card]
        if card % 9 == JACK:
            return c + 100 - card // 9
        return c + 50 if card // 9 == self.trump else c

    def strength60(self, card: Card, led: Card) -> int:
        """RULES.md 3: the jacks over the trumps over the led suit; a led jack leads trumps."""
        if card % 9 == JACK:
            return 100 - card // 9
        suit = card // 9
        if suit == self.trump:
            return 50 + KOZEL_STRENGTH[card]
        led_suit = self.trump if led % 9 == JACK else led // 9
        return 10 + KOZEL_STRENGTH[card] if suit == led_suit else 0

    def combination(self, cards: tuple[Card, ...] | list[Card]) -> str | None:
        """RULES.md 1: "moscow", "molodka" or None for four cards."""
        if len(cards) != 4:
            return None
        a, b, c, d = cards
        at = self.ace_ten
        if not (at[a] and at[b] and at[c] and at[d]):
            bits = self.suit_bit
            suits = bits[a] | bits[b] | bits[c] | bits[d]
            return "molodka" if suits & (suits - 1) == 0 else None
        real = [c for c in cards if not (self.shokha and c == SHOKHA)]
        ranks = {c % 9 for c in real}
        if ranks <= {ACE, TEN} and ACE in ranks:
            return "moscow"
        if len({c // 9 for c in real}) == 1:
            return "molodka"
        return None

    def beats_set(self, cards: tuple[Card, ...], target: tuple[Card, ...]) -> bool:
        """One-to-one, any pairing that works counts (RULES.md 1)."""
        table = self.beaters
        if len(cards) == 1:
            return bool(table[target[0]] >> cards[0] & 1)
        return any(
            all(table[c] >> b & 1 for b, c in zip(p, target, strict=True)) for p in permutations(cards)
        )


_TABLES: dict[tuple[Any, ...], Table] = {}


def table_for(rules: Rules, seats: tuple[int, ...], trump: int, dealer: int, first: int) -> Table:
    """The deal's ``Table``, built once (a search builds thousands of samples of one deal)."""
    key = (rules, seats, trump, dealer, first)
    table = _TABLES.get(key)
    if table is None:
        if len(_TABLES) > 256:
            _TABLES.clear()
        table = _TABLES[key] = Table(rules, seats, trump, dealer, first)
    return table
