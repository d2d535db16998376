"""Permanent-trump Kozel: ``kozel-hvalenyi``, ``kozel-nn``, ``kozel-kocherga`` (RULES.md 4).

One class, ``TrumpMatch``, keeps the contract of docs/families.md for the three presets.
Every card is dealt; a fixed list of trumps (``trump_order``) ranks above the plain suits;
players must follow suit (trumps are their own suit). A match holds the state of the current
*dealing* (one record of ``history``: a deal, a redeal, or a boast made again) and the match
score. Cards are ints (``engine.cards``); a deck's index 0 is its top card.

Phases of a dealing: ``"cut"`` (kozel-nn: the player right of the dealer cuts), ``"boast"``
(kozel-nn from the second deal: the "trousers"), ``"redeal"`` (kozel-nn: the boast team
chooses ``reboast`` or ``keep``) and ``"play"``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.actions import Action
from engine.cards import (
    ACE,
    CARD_TEXT,
    CLUBS,
    DIAMONDS,
    HEARTS,
    KOZEL_STRENGTH,
    POINTS,
    QUEEN,
    SPADES,
    Card,
    make,
    parse_card,
)
from engine.codec import pack_action, pack_cards, unpack_action, unpack_cards
from engine.errors import IllegalAction
from engine.events import DealEnded, DealStarted, Event, MatchEnded, Played, TrickWon
from engine.match import DealRecord, DeckSource, first_dealer, shuffled_deck
from engine.observe import Observation, SeenPlay, visible_to_act
from engine.presets import Rules, TrumpSettings, default_rules, make_rules, trump_ladder

# RULES.md 4a, 4c: eyes to 12, the first team there wins; 4b: penalties to 12, it loses.
LIMIT = 12
# RULES.md 4a: a hand of 13 card points or less may ask for a redeal.
REDEAL_POINTS = 13
# RULES.md 4b: the third redeal in a row costs the dealer's team 2.
REDEALS_IN_A_ROW = 3
TRUMPS = 4  # the "suit" of a trump card: trumps are their own suit (RULES.md 4)
QUEEN_CLUBS = make(QUEEN, CLUBS)
ACE_DIAMONDS = make(ACE, DIAMONDS)
_QUEENS = tuple(make(QUEEN, s) for s in (CLUBS, SPADES, HEARTS, DIAMONDS))


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

    def winner(self, plays: list[tuple[int, Card]] | tuple[tuple[int, Card], ...]) -> int:
        led = self.cls[plays[0][1]]
        return max(plays, key=lambda p: self.key(p[1], led))[0]


_TABLES: dict[tuple[str, int], Table] = {}


def table_for(preset: str, suit: int) -> Table:
    t = _TABLES.get((preset, suit))
    if t is None:
        t = _TABLES[(preset, suit)] = Table(trump_ladder(preset, suit), suit)
    return t


def _points(cards: Any) -> int:
    return sum(POINTS[c] for c in cards)


# --- the match ----------------------------------------------------------------------------


class TrumpMatch:
    """A match of one permanent-trump preset (4 players, teams 0+2 and 1+3)."""

    def __init__(
        self,
        rules: Rules,
        seed: int | str = 0,
        dealer: int | None = None,
        decks: DeckSource | None = None,
    ) -> None:
        self.rules = rules
        self.seed = seed
        self.decks: DeckSource = decks or (lambda no, _dealer: shuffled_deck(rules, seed, no))
        self._setup_rules()
        self.scores = [0, 0]
        self.finished = False
        self.winners: tuple[int, ...] = ()
        self.history: list[DealRecord] = []
        self.deal_no = 1
        self.dealer = first_dealer(rules.players, seed) if dealer is None else dealer
        self.dealing = 0  # dealings so far (== len(history) in a live match)
        self.eggs = False  # 60:60 waits: hvalenyi/kocherga +2 eyes, nn doubled penalties
        self.redeals = 0  # redeals asked for in a row in this deal
        self.moment = 0  # trick_no of observations: rises with every trick, dealing, phase
        # the boast of this deal: its piles (cards, winner) and its leader; kept on "keep"
        self.boast_piles: list[tuple[tuple[Card, ...], int]] = []
        self.boast_leader: int | None = None
        self.start_events: list[Event] = []
        self.start_events = self._new_dealing(keep=False)

    def _setup_rules(self) -> None:
        cfg = settings_of(self.rules)
        self.nn = cfg.nn
        self.table = table_for(self.rules.preset, cfg.suit)
        self.ace_rule = cfg.ace_rule  # RULES.md 4a: always; 4c: option; 4b: none
        self.lyusya: str | None = cfg.lyusya

    # --- dealing ----------------------------------------------------------------------

    def _reset_dealing(self) -> None:
        self.hands: list[list[Card]] = [[], [], [], []]
        self.piles: list[list[Card]] = [[], []]
        self.tricks = [0, 0]
        self.plays: list[tuple[int, Card]] = []
        self.last_trick: tuple[int, tuple[tuple[int, Card], ...]] | None = None
        self.opened = 0  # bitmask of the plain suits led in this deal (the ace rule)
        self.counter = 0  # actions in this dealing
        self.played = 0  # cards played to tricks in this dealing
        self.forced: Card | None = None  # nn first deal: the A♦ must be led
        self.stock: list[Card] = []
        self.boaster = -1
        self.laid: tuple[Card, ...] = ()
        self.covers: list[tuple[int, tuple[Card, ...]]] = []
        self.chooser = -1
        self.leader = 0
        self.to_move = 0
        self.phase = "play"

    def _new_dealing(self, keep: bool) -> list[Event]:
        """A new record of ``history``: shuffle (and, nn, wait for the cut) or deal."""
        self.dealing += 1
        deck, _ = self.decks(self.dealing, self.dealer)
        self.deck = tuple(deck)
        self.history.append(DealRecord(self.dealer, list(deck), None))
        self._reset_dealing()
        self.moment += 1
        if keep:
            # RULES.md 4b step 7: the boast tricks stay where they are
            kept: set[Card] = set()
            for cards, winner in self.boast_piles:
                self.piles[winner % 2].extend(cards)
                self.tricks[winner % 2] += 1
                kept.update(cards)
            self.stock = [c for c in deck if c not in kept]
        else:
            self.boast_piles = []
            self.boast_leader = None
            self.stock = list(deck)
        if self.nn:
            # RULES.md 4b: before each deal the player right of the dealer cuts
            self.phase = "cut"
            self.leader = self.to_move = self.cutter
            return [Shuffled(self.deal_no, self.dealer, self.cutter)]
        self._deal_all()
        return self._start_play((self.dealer + 1) % 4)

    @property
    def cutter(self) -> int:
        return (self.dealer + 3) % 4

    def _deal_all(self) -> None:
        """One card at a time clockwise from the dealer's left, skipping full hands."""
        hands = self.hands
        share = (len(self.stock) + sum(len(h) for h in hands)) // 4
        seat = (self.dealer + 1) % 4
        for card in self.stock:
            while len(hands[seat]) >= share:
                seat = (seat + 1) % 4
            hands[seat].append(card)
            seat = (seat + 1) % 4
        self.stock = []

    def _start_play(self, leader: int) -> list[Event]:
        self.phase = "play"
        self.leader = self.to_move = leader
        self.plays = []
        return [DealStarted(self.deal_no, self.dealer, self.table.suit, None, leader)]

    # --- the boast (RULES.md 4b) -------------------------------------------------------

    def _give_pairs(self, seat: int, need: int) -> int:
        """Give ``seat`` the bottom and the top card until he holds ``need`` non-trumps."""
        cls = self.table.cls
        hand = self.hands[seat]
        given = 0
        while sum(1 for c in hand if cls[c] != TRUMPS) < need and len(self.stock) >= 2:
            hand.append(self.stock.pop())
            hand.append(self.stock.pop(0))
            given += 2
        return given

    def _start_boast(self) -> list[Event]:
        self.phase = "boast"
        self.boaster = (self.dealer + 1) % 4
        given = self._give_pairs(self.boaster, 1)
        self.leader = self.to_move = self.boaster
        return [BoastGiven(self.boaster, given)]

    def _next_cover(self, seat: int, events: list[Event]) -> None:
        self.moment += 1
        if seat == self.boaster:
            events.extend(self._resolve_boast())
            return
        given = self._give_pairs(seat, len(self.laid))
        events.append(BoastGiven(seat, given))
        self.to_move = seat

    def _resolve_boast(self) -> list[Event]:
        """Steps 4-6: turn the boaster's cards, take the piles, deal the rest, lead."""
        events: list[Event] = [BoastRevealed(self.boaster, self.laid)]
        piles: list[tuple[tuple[Card, ...], int]] = []
        for i, card in enumerate(self.laid):
            # the i-th card a player covered with lies on the i-th pile (the boaster's cards
            # in card order)
            plays = [(self.boaster, card)] + [(s, cs[i]) for s, cs in self.covers]
            winner = self.table.winner(plays)
            cards = tuple(c for _s, c in plays)
            piles.append((cards, winner))
            self.piles[winner % 2].extend(cards)
            self.tricks[winner % 2] += 1
            events.append(PileWon(winner, winner % 2, cards, _points(cards)))
        self.laid = ()
        self.covers = []
        self.boast_piles = piles
        share = (len(self.deck) - 4 * len(piles)) // 4
        over = tuple(s for s in range(4) if len(self.hands[s]) > share)
        if over:
            # step 5: the boast is void and made again: a new dealing, not a redeal
            events.append(BoastVoid(over, share))
            self.boast_piles = []
            events.extend(self._new_dealing(keep=False))
            return events
        self._deal_all()
        # step 6: the winner of the pile with the most points leads (ties: earlier pile)
        best = max(range(len(piles)), key=lambda i: (_points(piles[i][0]), -i))
        self.boast_leader = piles[best][1]
        self.moment += 1
        events.extend(self._start_play(self.boast_leader))
        return events

    # --- who acts ---------------------------------------------------------------------

    def _before_first_card(self) -> bool:
        return self.phase == "play" and self.played == 0

    def _may_redeal(self, seat: int) -> bool:
        if not self._before_first_card():
            return False
        if self.nn:
            # RULES.md 4b: a team with no queen, or only the Q♦ (either of its players,
            # the A♦ holder too, before he leads it)
            held = {c for s in (seat, (seat + 2) % 4) for c in self.hands[s] if c in _QUEENS}
            return held <= {make(QUEEN, DIAMONDS)}
        return _points(self.hands[seat]) <= REDEAL_POINTS

    def to_act(self) -> tuple[int, ...]:
        """[0] is the seat on move; later seats may ask for a redeal (clockwise order)."""
        if self.finished:
            return ()
        mover = self.to_move
        if not self._before_first_card():
            return (mover,)
        extra = tuple(
            s for s in ((mover + i) % 4 for i in range(1, 4)) if self._may_redeal(s)
        )
        return (mover, *extra)

    def _plays_for(self, seat: int) -> list[Card]:
        """The cards ``seat`` may play now (the seat on move in the play phase)."""
        hand = sorted(self.hands[seat])
        cls = self.table.cls
        if not self.plays:
            if self.forced is not None:
                return [self.forced]  # RULES.md 4b: the first card of the match is the A♦
            if self.nn:
                plain = [c for c in hand if cls[c] != TRUMPS]
                return plain or hand  # RULES.md 4b: no trump lead while holding a non-trump
            return hand
        led = cls[self.plays[0][1]]
        follow = [c for c in hand if cls[c] == led]
        if follow:
            return follow
        if self.ace_rule:
            # RULES.md 4a: no throwing the ace of a suit not yet led (trumps are cutting)
            ok = [
                c for c in hand
                if cls[c] == TRUMPS or c % 9 != ACE or self.opened >> (c // 9) & 1
            ]
            return ok or hand  # [decision] only such aces: he may play one
        return hand

    def legal_actions(self, seat: int) -> list[Action]:
        """The seat's legal actions in a stable order (empty when it may not act)."""
        if self.finished or not 0 <= seat < 4:
            return []
        phase = self.phase
        if seat != self.to_move:
            if phase == "play" and self._may_redeal(seat):
                return [Action("redeal")]
            return []
        if phase == "play":
            out = [Action("play", (c,)) for c in self._plays_for(seat)]
            if self._may_redeal(seat):
                out.append(Action("redeal"))
            return out
        if phase == "cut":
            return [Action("cut", (n,)) for n in range(1, len(self.stock))]
        if phase == "redeal":
            return [Action("reboast"), Action("keep")]
        # the boast
        cls = self.table.cls
        plain = sorted(c for c in self.hands[seat] if cls[c] != TRUMPS)
        if seat == self.boaster:
            out = [Action("lay", (c,)) for c in plain]
            if len(plain) == 2:  # both cards of the last pair were non-trumps
                out.append(Action("lay", tuple(plain)))
            return out
        # step 3: "one on each of the boaster's cards (a button each)": a card at a time, the
        # first on the first pile, the next on the next
        return [Action("cover", (c,)) for c in plain]

    def check(self, seat: int, action: Action) -> str | None:
        """The reason code why ``action`` is illegal now, or None."""
        if self.finished:
            return "match_over"
        if not isinstance(seat, int) or not 0 <= seat < 4:
            return "no_such_seat"
        legal = self.legal_actions(seat)
        if action in legal:
            return None
        if seat not in self.to_act():
            return "not_your_turn"
        kinds = {a.kind for a in legal}
        if action.kind not in kinds:
            return "redeal_not_allowed" if action.kind == "redeal" else "wrong_action"
        cards = action.cards
        if action.kind == "cut":
            return "bad_cut"
        if any(not isinstance(c, int) or c not in self.hands[seat] for c in cards):
            return "not_in_hand"
        if action.kind == "play":
            if len(cards) != 1:
                return "one_card"
            if self.forced is not None and not self.plays:
                return "must_lead_ace_of_diamonds"
            if not self.plays:
                return "no_trump_lead"
            led = self.table.cls[self.plays[0][1]]
            if any(self.table.cls[c] == led for c in self.hands[seat]):
                return "must_follow_suit"
            return "ace_rule"
        if action.kind == "lay":
            return "bad_lay"
        return "bad_cover"

    @property
    def turn(self) -> tuple[int, int]:
        """(dealing number, actions so far in this dealing)."""
        return self.dealing, self.counter

    # --- applying actions -------------------------------------------------------------

    def apply(self, seat: int, action: Action) -> list[Event]:
        """Apply one action; return its public events. Illegal: ``IllegalAction``, no change."""
        reason = self.check(seat, action)
        if reason is not None:
            raise IllegalAction(reason, f"{action} by seat {seat}: {reason.replace('_', ' ')}")
        self.history[-1].actions.append((seat, action))
        self.counter += 1
        kind = action.kind
        if kind == "play":
            return self._play(seat, action.cards[0])
        if kind == "redeal":
            return self._redeal(seat)
        if kind == "cut":
            return self._cut(seat, action.cards[0])
        if kind == "lay":
            self.laid = action.cards
            for c in action.cards:
                self.hands[seat].remove(c)
            events: list[Event] = [Laid(seat, len(action.cards))]
            self._next_cover((seat + 1) % 4, events)
            return events
        if kind == "cover":
            if self.covers and self.covers[-1][0] == seat:
                self.covers[-1] = (seat, self.covers[-1][1] + action.cards)
            else:
                self.covers.append((seat, action.cards))
            self.hands[seat].remove(action.cards[0])
            events = [Covered(seat, action.cards)]
            if len(self.covers[-1][1]) == len(self.laid):
                self._next_cover((seat + 1) % 4, events)
            return events
        # reboast / keep
        events = [BoastChosen(seat, kind)]
        events.extend(self._new_dealing(keep=kind == "keep"))
        return events

    def _cut(self, seat: int, n: int) -> list[Event]:
        self.stock = self.stock[n:] + self.stock[:n]
        events: list[Event] = [DeckCut(seat, n)]
        self.moment += 1
        if self.boast_piles:
            # RULES.md 4b step 7 "keep": deal only the cards left; the boast leader leads
            self._deal_all()
            assert self.boast_leader is not None
            events.extend(self._start_play(self.boast_leader))
        elif self.deal_no == 1:
            # RULES.md 4b: the first deal of a match (and its redeals) is led by the A♦
            self._deal_all()
            holder = next(s for s in range(4) if ACE_DIAMONDS in self.hands[s])
            events.extend(self._start_play(holder))
            self.forced = ACE_DIAMONDS
        else:
            events.extend(self._start_boast())
        return events

    def _redeal(self, seat: int) -> list[Event]:
        self.redeals += 1
        events: list[Event] = [RedealAsked(seat, seat % 2, self.redeals)]
        if self.nn and self.redeals >= REDEALS_IN_A_ROW:
            # RULES.md 4b: the dealer's team takes 2 (not doubled); the next player deals
            side = self.dealer % 2
            events.append(RedealPenalty(side, 2))
            scored = [0, 0]
            scored[side] = 2
            events.extend(self._end_deal(None, scored, "redeals", False))
            return events
        if self.nn and self.boast_piles:
            # RULES.md 4b step 7: the team that won the boast chooses
            # [decision] the boast leader chooses for his team
            assert self.boast_leader is not None
            self.phase = "redeal"
            self.chooser = self.leader = self.to_move = self.boast_leader
            self.moment += 1
            return events
        # [decision] hvalenyi/kocherga: the same dealer deals again, no limit, eggs stay
        events.extend(self._new_dealing(keep=False))
        return events

    def _play(self, seat: int, card: Card) -> list[Event]:
        t = self.table
        self.hands[seat].remove(card)
        if not self.plays and t.cls[card] != TRUMPS:
            self.opened |= 1 << (card // 9)
        self.plays.append((seat, card))
        self.played += 1
        self.forced = None
        events: list[Event] = [Played(seat, card)]
        caught = self._catch()
        if caught is not None:
            catcher, victim = caught
            last = not self.hands[self.plays[0][0]]
            sweep = self.lyusya is not None and last and self.tricks[1 - catcher % 2] == 0
            if not sweep:
                # [decision] in the last trick a sweep beats the catch: the trick goes on
                events.append(QueenCaught(catcher, victim))
                scored = [0, 0]
                if self.nn:
                    # RULES.md 4b: the team whose Q♣ was caught takes 4 (8 after eggs)
                    doubled = self.eggs
                    scored[victim % 2] = 8 if doubled else 4
                else:
                    # RULES.md 4a/4c: the catching team scores 4 eyes, takes the eggs bonus
                    doubled = self.eggs
                    scored[catcher % 2] = 4 + (2 if doubled else 0)
                self.eggs = False
                events.extend(self._end_deal(None, scored, "caught", doubled))
                return events
        if len(self.plays) < 4:
            self.to_move = (seat + 1) % 4
            return events
        winner = t.winner(self.plays)
        side = winner % 2
        cards = tuple(c for _s, c in self.plays)
        self.piles[side].extend(cards)
        self.tricks[side] += 1
        self.last_trick = (winner, tuple(self.plays))
        self.plays = []
        self.moment += 1
        events.append(TrickWon(winner, side, cards, 0))
        if self.hands[winner]:
            self.leader = self.to_move = winner
            return events
        events.extend(self._score_deal())
        return events

    def _catch(self) -> tuple[int, int] | None:
        """The 6♣ (7♣) and the Q♣ in this trick from different teams: (catcher, victim)."""
        top = self.table.top
        catcher = victim = -1
        for s, c in self.plays:
            if c == top:
                catcher = s
            elif c == QUEEN_CLUBS:
                victim = s
        if catcher < 0 or victim < 0 or catcher % 2 == victim % 2:
            return None
        return catcher, victim

    # --- scoring ----------------------------------------------------------------------

    def _score_deal(self) -> list[Event]:
        """Every card played: eyes (4a, 4c) or penalties (4b)."""
        points = [_points(p) for p in self.piles]
        scored = [0, 0]
        events: list[Event] = []
        doubled = False
        if self.nn:
            if points[0] == points[1]:
                self.eggs = True  # 60:60: the next deal's penalties are doubled (no stacking)
                return self._end_deal(points, scored, "eggs", False)
            loser = 0 if points[0] < points[1] else 1
            p = points[loser]
            penalty = 6 if p == 0 else 4 if p <= 30 else 2
            doubled = self.eggs
            scored[loser] = penalty * (2 if doubled else 1)
            self.eggs = False
            return self._end_deal(points, scored, "normal", doubled)
        sweep = next((s for s in (0, 1) if self.tricks[1 - s] == 0), None)
        if sweep is not None:
            assert self.lyusya is not None
            events.append(Lyusya(sweep, self.lyusya))
            if self.lyusya == "match":
                return events + self._end_deal(points, scored, "lyusya", False, sweep)
            # "reset": the other team's eyes go back to 0; the sweeping team scores 4
            # [decision] the sweeping team is the deal's winner: it takes a pending eggs bonus
            doubled = self.eggs
            scored[sweep] = 4 + (2 if doubled else 0)
            scored[1 - sweep] = -self.scores[1 - sweep]
            self.eggs = False
            return events + self._end_deal(points, scored, "lyusya", doubled)
        if points[0] == points[1]:
            self.eggs = True  # 60:60: the next deal's winner gets 2 more (no stacking)
            return self._end_deal(points, scored, "eggs", False)
        winner = 0 if points[0] > points[1] else 1
        doubled = self.eggs
        scored[winner] = (4 if points[winner] >= 91 else 2) + (2 if doubled else 0)
        self.eggs = False
        return self._end_deal(points, scored, "normal", doubled)

    def _end_deal(
        self, points: list[int] | None, scored: list[int], outcome: str, doubled: bool,
        match_winner: int | None = None,
    ) -> list[Event]:
        """Record the deal, add ``scored``, end the match or deal the next deal."""
        self.scores = [a + b for a, b in zip(self.scores, scored, strict=True)]
        shown = points if points is not None else [_points(p) for p in self.piles]
        events: list[Event] = [DealEnded(
            self.deal_no, tuple(shown), tuple(self.tricks), tuple(scored), tuple(self.scores),
            outcome, doubled,
        )]
        self.history[-1].result = {
            "points": points, "tricks": list(self.tricks), "score": list(self.scores),
            "outcome": outcome,
        }
        if match_winner is None:
            reached = [s for s in (0, 1) if self.scores[s] >= LIMIT]
            if reached:
                # eyes: the team at 12 wins; nn penalties: the team at 12 loses
                match_winner = 1 - reached[0] if self.nn else reached[0]
        if match_winner is not None:
            self.finished = True
            self.winners = (match_winner, match_winner + 2)
            events.append(MatchEnded(self.winners, tuple(self.scores)))
            return events
        self.deal_no += 1
        self.dealer = (self.dealer + 1) % 4
        self.redeals = 0
        events.extend(self._new_dealing(keep=False))
        return events

    # --- views ------------------------------------------------------------------------

    def _seen_plays(self, viewer: int | None) -> tuple[SeenPlay, ...]:
        if self.phase == "boast" and self.laid:
            k = len(self.laid)
            out: list[SeenPlay] = [
                (self.boaster, "lay", self.laid if viewer == self.boaster else None, k)
            ]
            out.extend((s, "cover", cs, len(cs)) for s, cs in self.covers)
            return tuple(out)
        return tuple((s, "play", (c,), 1) for s, c in self.plays)

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {
            "redeals": self.redeals,
            "opened": [s for s in "CSHD" if self.opened >> "CSHD".index(s) & 1],
            "played": [CARD_TEXT[c] for c in self._played_cards()],
        }
        if self.nn:
            boast: dict[str, Any] | None = None
            if self.phase == "boast":
                boast = {"boaster": self.boaster, "laid": len(self.laid)}
            elif self.boast_piles:
                boast = {
                    "boaster": (self.dealer + 1) % 4,
                    "piles": [
                        {"cards": [CARD_TEXT[c] for c in cs], "winner": w, "points": _points(cs)}
                        for cs, w in self.boast_piles
                    ],
                    "leader": self.boast_leader,
                    "team": None if self.boast_leader is None else self.boast_leader % 2,
                }
            info["boast"] = boast
        return info

    def _played_cards(self) -> list[Card]:
        """The cards played to tricks in this dealing, in order (public: face up)."""
        out: list[Card] = []
        boast = {c for cs, _w in self.boast_piles for c in cs}
        for pile in self.piles:
            out.extend(c for c in pile if c not in boast)
        out.extend(c for _s, c in self.plays)
        return out

    def observe(self, seat: int | None = None) -> Observation:
        acting = self.to_act()
        last = None
        if self.last_trick is not None:
            w, ps = self.last_trick
            last = (w, tuple((s, "play", (c,), 1) for s, c in ps))
        win_seat = self.leader
        win_cards: tuple[Card, ...] = ()
        if self.phase == "play" and self.plays:
            win_seat = self.table.winner(self.plays)
            win_cards = (next(c for s, c in self.plays if s == win_seat),)
        return Observation(
            preset=self.rules.preset,
            players=4,
            partnership=True,
            seat=seat,
            deal_no=self.deal_no,
            dealer=self.dealer,
            seats=(0, 1, 2, 3),
            trump=self.table.suit,
            trump_card=None,
            stock=len(self.stock),
            hand=tuple(sorted(self.hands[seat])) if seat is not None else (),
            hand_sizes=tuple(len(h) for h in self.hands),
            leader=self.leader,
            to_move=acting[0] if acting else -1,
            to_act=visible_to_act(acting, seat),
            trick=self._seen_plays(seat),
            win_seat=win_seat,
            win_cards=win_cards,
            declared=None,
            tricks=tuple(self.tricks),
            pile_sizes=tuple(len(p) for p in self.piles),
            last_trick=last,
            trick_no=self.moment,
            counter=self.counter,
            scores=tuple(self.scores),
            out=(False, False),
            eggs=self.eggs,
            finished=self.finished,
            winners=self.winners,
            phase=self.phase,
            info=self._info(),
        )

    def token_secret(self) -> str:
        """The match seed (hidden) and the dealing: buttons of an old dealing go stale."""
        return f"{self.seed}|{self.dealing}"

    def all_cards(self) -> list[Card]:
        out: list[Card] = list(self.stock)
        for h in self.hands:
            out.extend(h)
        for p in self.piles:
            out.extend(p)
        out.extend(c for _s, c in self.plays)
        out.extend(self.laid)
        for _s, cs in self.covers:
            out.extend(cs)
        return out

    def audit(self) -> str | None:
        """A broken invariant, or None: every card of the deck in exactly one place."""
        if sorted(self.all_cards()) != sorted(self.deck) or sorted(self.deck) != sorted(
            self.rules.deck
        ):
            return f"dealing {self.dealing}: a card is missing or doubled"
        return None

    # --- storage ----------------------------------------------------------------------

    def to_state(self) -> dict[str, Any]:
        """The match as compact JSON-safe data (cards packed with ``engine.codec``)."""
        return {
            "seed": self.seed, "dealer": self.dealer, "deal_no": self.deal_no,
            "dealing": self.dealing, "scores": self.scores, "finished": self.finished,
            "winners": list(self.winners), "eggs": self.eggs, "redeals": self.redeals,
            "moment": self.moment, "deck": pack_cards(self.deck),
            "actions": [pack_action(s, a) for s, a in self.history[-1].actions],
            "stock": pack_cards(self.stock), "hands": [pack_cards(h) for h in self.hands],
            "piles": [pack_cards(p) for p in self.piles], "tricks": self.tricks,
            "plays": [[s, c] for s, c in self.plays],
            "last": None if self.last_trick is None else [
                self.last_trick[0], [[s, c] for s, c in self.last_trick[1]]],
            "opened": self.opened, "counter": self.counter, "played": self.played,
            "forced": self.forced, "boaster": self.boaster, "laid": pack_cards(self.laid),
            "covers": [[s, pack_cards(cs)] for s, cs in self.covers],
            "chooser": self.chooser, "leader": self.leader, "to_move": self.to_move,
            "phase": self.phase,
            "boast": [[pack_cards(cs), w] for cs, w in self.boast_piles],
            "boast_leader": self.boast_leader,
        }

    @classmethod
    def from_state(cls, rules: Rules, state: dict[str, Any]) -> TrumpMatch:
        """The inverse of ``to_state``; ``history`` then holds only the current dealing."""
        m = cls.__new__(cls)
        m.rules = rules
        m.seed = state["seed"]
        m.decks = lambda no, _dealer: shuffled_deck(rules, m.seed, no)
        m._setup_rules()
        m.dealer = state["dealer"]
        m.deal_no = state["deal_no"]
        m.dealing = state["dealing"]
        m.scores = list(state["scores"])
        m.finished = state["finished"]
        m.winners = tuple(state["winners"])
        m.eggs = state["eggs"]
        m.redeals = state["redeals"]
        m.moment = state["moment"]
        m.deck = tuple(unpack_cards(state["deck"]))
        m.history = [DealRecord(m.dealer, list(m.deck), None,
                                [unpack_action(a) for a in state["actions"]])]
        m.stock = unpack_cards(state["stock"])
        m.hands = [unpack_cards(h) for h in state["hands"]]
        m.piles = [unpack_cards(p) for p in state["piles"]]
        m.tricks = list(state["tricks"])
        m.plays = [(s, c) for s, c in state["plays"]]
        last = state["last"]
        m.last_trick = None if last is None else (last[0], tuple((s, c) for s, c in last[1]))
        m.opened = state["opened"]
        m.counter = state["counter"]
        m.played = state["played"]
        m.forced = state["forced"]
        m.boaster = state["boaster"]
        m.laid = tuple(unpack_cards(state["laid"]))
        m.covers = [(s, tuple(unpack_cards(cs))) for s, cs in state["covers"]]
        m.chooser = state["chooser"]
        m.leader = state["leader"]
        m.to_move = state["to_move"]
        m.phase = state["phase"]
        m.boast_piles = [(tuple(unpack_cards(cs)), w) for cs, w in state["boast"]]
        m.boast_leader = state["boast_leader"]
        m.start_events = []
        return m

    def copy(self) -> TrumpMatch:
        m = TrumpMatch.__new__(TrumpMatch)
        m.__dict__.update(self.__dict__)
        m.scores = self.scores[:]
        last = self.history[-1]
        m.history = [*self.history[:-1], DealRecord(last.dealer, last.deck, last.trump_card,
                                                    last.actions[:], last.result)]
        m.hands = [h[:] for h in self.hands]
        m.piles = [p[:] for p in self.piles]
        m.tricks = self.tricks[:]
        m.plays = self.plays[:]
        m.stock = self.stock[:]
        m.covers = self.covers[:]
        m.boast_piles = self.boast_piles[:]
        m.start_events = self.start_events[:]
        return m


# --- the computer player (engine.bots.RulesBot) ----------------------------------------


def _cost(t: Table, card: Card) -> int:
    """How dear a card is to give up: trumps by strength, then points, then rank."""
    if t.cls[card] == TRUMPS:
        return 60 + t.strength[card] + POINTS[card] * 2
    return POINTS[card] * 3 + KOZEL_STRENGTH[card]


def rules_choice(
    obs: Observation, legal: list[Action], rng: random.Random, on_move: bool
) -> Action | None:
    """A sensible player: win tricks cheaply, save high trumps, smear points onto a partner's
    trick, catch the Q♣, ask for redeals with weak hands, boast with high cards."""
    if not legal:
        return None
    seat = obs.seat if obs.seat is not None else 0
    t = table_for(obs.preset, obs.trump)
    kinds = {a.kind for a in legal}
    if "redeal" in kinds and _want_redeal(obs, t, seat):
        return Action("redeal")
    if not on_move:
        return None
    kind = legal[0].kind
    if kind == "cut":
        return rng.choice(legal)
    if kind in ("reboast", "keep"):
        boast = obs.info.get("boast") or {}
        mine = sum(p["points"] for p in boast.get("piles", []) if p["winner"] % 2 == seat % 2)
        theirs = sum(p["points"] for p in boast.get("piles", []) if p["winner"] % 2 != seat % 2)
        return Action("keep") if mine >= theirs else Action("reboast")
    if kind == "lay":
        # face down, the others cover blind: lay strong cards (two when both are)
        def lay_score(a: Action) -> tuple[int, int]:
            strong = all(KOZEL_STRENGTH[c] >= 7 for c in a.cards)
            return (1 if strong and len(a.cards) == 2 else 0, max(KOZEL_STRENGTH[c] for c in a.cards))
        return max((a for a in legal if a.kind == "lay"), key=lay_score)
    if kind == "cover":
        partner_boasts = obs.info.get("boast", {}) and obs.info["boast"].get("boaster") == (
            seat + 2) % 4
        if partner_boasts:
            return max(legal, key=lambda a: sum(POINTS[c] for c in a.cards))
        return min(legal, key=lambda a: sum(_cost(t, c) for c in a.cards))
    plays = [a for a in legal if a.kind == "play"]
    if not plays:
        return legal[0]
    return _choose_card(obs, t, seat, [a.cards[0] for a in plays])


def _want_redeal(obs: Observation, t: Table, seat: int) -> bool:
    hand = obs.hand
    if settings_of(default_rules(obs.preset, obs.players)).nn:
        if obs.info.get("redeals", 0) == REDEALS_IN_A_ROW - 1:
            return obs.dealer % 2 != seat % 2  # the third costs the dealer's team 2
        return True
    trumps = sum(1 for c in hand if t.cls[c] == TRUMPS)
    return trumps < 4 and t.top not in hand


def _choose_card(obs: Observation, t: Table, seat: int, cards: list[Card]) -> Action:
    if len(cards) == 1:
        return Action("play", (cards[0],))
    played = {parse_card(x) for x in obs.info.get("played", [])}
    hand = set(obs.hand)
    gone = played | hand
    trick = [(s, cs[0]) for s, _k, cs, _n in obs.trick if cs]
    top, queen = t.top, QUEEN_CLUBS

    def higher_trumps_out(card: Card) -> int:
        return sum(1 for c in t.order if t.strength[c] > t.strength[card] and c not in gone)

    def play(card: Card) -> Action:
        return Action("play", (card,))

    # catch the other team's Q♣ with the 6♣/7♣
    if top in cards and any(c == queen and s % 2 != seat % 2 for s, c in trick):
        return play(top)
    # keep the Q♣ away from the 6♣/7♣ while it is out
    risky = {queen} if top not in gone else set()

    def cost(card: Card) -> int:
        return _cost(t, card) + (200 if card in risky else 0)

    if not trick:
        return play(_lead(t, cards, gone, cost, higher_trumps_out))
    led = t.cls[trick[0][1]]
    win_seat = t.winner(trick)
    win_card = next(c for s, c in trick if s == win_seat)
    on_table = sum(POINTS[c] for _s, c in trick)
    last = len(trick) == 3
    winners = [c for c in cards if t.key(c, led) > t.key(win_card, led)]
    if win_seat % 2 == seat % 2:
        safe = last or (t.cls[win_card] == TRUMPS and higher_trumps_out(win_card) == 0)
        if safe:
            # smear: the most points that are not dear trumps
            return play(max(cards, key=lambda c: POINTS[c] * 3 - (
                60 + t.strength[c] if t.cls[c] == TRUMPS else 0) - (200 if c in risky else 0)))
        return play(min(cards, key=cost))
    if winners:
        if last:
            best = min(winners, key=cost)
        else:
            # not last: prefer a winner nobody left can beat
            sure = [c for c in winners if t.cls[c] == TRUMPS and higher_trumps_out(c) == 0]
            plain_sure = [c for c in winners if t.cls[c] != TRUMPS and t.cls[c] == led
                          and led != TRUMPS and KOZEL_STRENGTH[c] >= 7]
            pool = sure or plain_sure or winners
            best = min(pool, key=cost)
        gain = on_table + POINTS[best]
        if gain >= 4 or t.cls[best] != TRUMPS or cost(best) < 110 or last and gain > 0:
            return play(best)
    return play(min(cards, key=cost))


def _lead(
    t: Table, cards: list[Card], gone: set[Card], cost: Callable[[Card], int],
    higher_trumps_out: Callable[[Card], int],
) -> Card:
    trumps = [c for c in cards if t.cls[c] == TRUMPS]
    plain = [c for c in cards if t.cls[c] != TRUMPS]
    # a plain master card (nothing higher of its suit is out) brings its points home
    masters = [
        c for c in plain
        if all(KOZEL_STRENGTH[o] <= KOZEL_STRENGTH[c] for o in range(36)
               if t.cls[o] == t.cls[c] and o not in gone)
    ]
    if masters:
        return max(masters, key=lambda c: POINTS[c])
    top_trumps = [c for c in trumps if higher_trumps_out(c) == 0]
    if top_trumps and len(trumps) >= 3:
        return max(top_trumps, key=lambda c: t.strength[c])
    if plain:
        return min(plain, key=cost)
    return min(trumps, key=cost)
