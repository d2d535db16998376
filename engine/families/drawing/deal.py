"""The drawing Kozel family: ``kozel``, ``kozel-4``, ``kozel-60`` (RULES.md 1-3).

One deal is a ``DrawingDeal``: a mutable, cheaply copied state machine. Cards are ints
(``engine.cards``); the stock is a list whose *last* element is the next card drawn.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from engine.actions import TWO_CARDS, Action
from engine.cards import SHOKHA, Card, deck_points
from engine.errors import IllegalAction
from engine.events import (
    BEATEN_ONE,
    LED_ONE,
    PLAYED_ONE,
    THROWN_BY_COUNT,
    Beaten,
    CardsDrawn,
    CardsReturned,
    Declared,
    Event,
    Led,
    SecondHalfDealt,
    TrickWon,
    TrumpCardTaken,
)
from engine.families.drawing.declare import open_declarations, pull_cards
from engine.families.drawing.rules import (
    ONE_CARD,
    ONE_CARD_PLAYS,
    SUIT_OF,
    WILD_SUIT_OF,
    Play,
    beaters,
    beating_sets,
    beats_all,
    combination_of,
    lead_shapes,
    settings_of,
    strength60,
)
from engine.presets import DrawingSettings, Rules

__all__ = ["DrawingDeal", "Play", "beaters", "settings_of", "strength60"]

_new_action = tuple.__new__  # an Action of a (kind, cards) pair, without a call through Python
_new_play = tuple.__new__  # a Play of (seat, kind, cards), the same way
# no declaration open (RULES.md 1-2: mid-trick without the pull, and never in kozel-60);
# shared, never changed
_NO_DECLARATIONS: dict[int, Action] = {}
_LEAD, _PLAY, _BEAT, _THROW = (ONE_CARD[k] for k in ("lead", "play", "beat", "throw"))
_LEAD2, _BEAT2, _THROW2 = (TWO_CARDS[k] for k in ("lead", "beat", "throw"))


# derived, never stored: ``_beat`` the trump's beaters table, ``_next`` the seat after each
# seat, ``_side`` each seat's side, ``_order`` the seats in play clockwise from each seat in
# play, ``_pulls`` each seat's pull on this trick (``trick_pulls``),
# ``_legal`` the legal actions asked for so far
_SLOT_NAMES = (
    "rules settings seats dealer hands stock trump trump_card trump_public piles tricks leader"
    " to_move plays win_seat win_cards declared counter trick_no last_trick last_winner"
    " finished reserve half first_leader deck _decls _beat _next _side _order _pulls _legal"
)
_SLOTS = tuple(_SLOT_NAMES.split())
Seats = tuple[int, ...]
# a draw of whole rounds by (seats from the winner, rounds, cards left), made once and shared
_ROUNDS_DRAWN: dict[tuple[tuple[int, ...], int, int], CardsDrawn] = {}
# (players, partnership, seats in play) -> (``_next``, ``_side``, ``_order``)
_SEAT_TABLES: dict[tuple[int, bool, Seats], tuple[Seats, Seats, tuple[Seats, ...]]] = {}


class DrawingDeal:
    """One deal of a drawing Kozel preset."""

    __slots__ = _SLOTS

    rules: Rules
    settings: DrawingSettings  # the preset's rules (RULES.md 1-3)
    seats: tuple[int, ...]
    dealer: int
    hands: list[list[Card]]
    stock: list[Card]
    trump: int
    trump_card: Card | None
    trump_public: bool
    piles: list[list[Card]]
    tricks: list[int]
    leader: int
    to_move: int
    plays: list[Play]
    win_seat: int
    win_cards: tuple[Card, ...]
    declared: str | None
    counter: int
    trick_no: int
    last_trick: tuple[int, tuple[Play, ...]] | None
    last_winner: int
    finished: bool
    reserve: list[Card]
    half: int
    first_leader: int
    deck: tuple[Card, ...]
    _decls: dict[int, Action] | None
    _beat: tuple[int, ...]
    _next: tuple[int, ...]
    _side: tuple[int, ...]
    _order: tuple[tuple[int, ...], ...]
    _pulls: tuple[tuple[Card, ...] | None, ...] | None
    _legal: dict[int, list[Action]]

    # --- set-up -------------------------------------------------------------------------

    @classmethod
    def deal(
        cls,
        rules: Rules,
        seats: tuple[int, ...],
        dealer: int,
        deck: list[Card],
        trump_card: Card | None = None,
        leader: int | None = None,
    ) -> DrawingDeal:
        """Deal ``deck`` (top card first) one card at a time clockwise from the dealer's left.

        ``trump_card`` is the card shown from the stock (``kozel-4`` only). ``leader`` is the
        first leader when the preset does not make it the dealer's left.
        """
        d = DrawingDeal()
        d.rules = rules
        d.settings = settings_of(rules)
        d.seats = seats
        d.dealer = dealer
        d.deck = tuple(deck)
        n = len(seats)
        d.hands = [[] for _ in range(rules.players)]
        d.piles = [[] for _ in range(rules.sides)]
        d.tricks = [0] * rules.sides
        d.plays = []
        d.declared = d.last_trick = d._decls = None
        d.counter = d.trick_no = d.half = 0
        d.finished = False
        d.reserve = []
        d._legal = {}
        d._derive_seats()
        left = d.next_seat(dealer)
        hand = rules.hand_size
        dealt = list(deck[: hand * n])
        if rules.trump_mode == "halves":
            d.reserve = list(deck[hand * n :])
            d.stock = []
            # RULES.md 3 halves: the last card dealt (the 4th of the dealer's left) is trump.
            d.trump_card = dealt[-n] if n else None
        else:
            rest = list(deck[hand * n :])
            if rules.trump_mode == "turn":
                # RULES.md 1, 3: the card after the deal is turned, put under the stock.
                d.trump_card = rest[0]
                d.stock = [rest[0], *reversed(rest[1:])]
            else:
                # RULES.md 2: a card shown from the middle of the stock stays where it was.
                if trump_card is None or trump_card not in rest:
                    raise ValueError("kozel-4 needs trump_card: a card of the stock")
                d.trump_card = trump_card
                d.stock = list(reversed(rest))
        d.trump_public = True  # RULES.md 1-3: the trump card is seen in every deal
        assert d.trump_card is not None
        d.trump = d.trump_card // 9
        d._beat = beaters(d.trump, d.settings.shokha)
        start = seats.index(left)
        for i in range(n):  # one card at a time: the i-th seat from the left gets every n-th card
            d.hands[seats[(start + i) % n]] = dealt[i::n]
        d.first_leader = left if leader is None or leader not in seats else leader
        d.last_winner = d.first_leader
        d._start_trick(d.first_leader)
        return d

    def copy(self) -> DrawingDeal:
        # each field by name (the lists copied): a compiled class has no __slots__ to loop
        # over (``test_a_deals_copy_holds_every_field``)
        d = DrawingDeal()
        d.rules = self.rules
        d.settings = self.settings
        d.seats = self.seats
        d.dealer = self.dealer
        d.trump = self.trump
        d.trump_card = self.trump_card
        d.trump_public = self.trump_public
        d.leader = self.leader
        d.to_move = self.to_move
        d.win_seat = self.win_seat
        d.win_cards = self.win_cards
        d.declared = self.declared
        d.counter = self.counter
        d.trick_no = self.trick_no
        d.last_trick = self.last_trick
        d.last_winner = self.last_winner
        d.finished = self.finished
        d.half = self.half
        d.first_leader = self.first_leader
        d.deck = self.deck
        d._decls = self._decls
        d._beat = self._beat
        d._next = self._next
        d._side = self._side
        d._order = self._order
        d._pulls = self._pulls
        d.hands = [h[:] for h in self.hands]
        d.stock = self.stock[:]
        d.piles = [p[:] for p in self.piles]
        d.tricks = self.tricks[:]
        d.plays = self.plays[:]
        d.reserve = self.reserve[:]
        d._legal = {}
        return d

    @classmethod
    def loading(cls, rules: Rules) -> DrawingDeal:
        """An empty deal of ``rules`` for a stored one to fill in (then ``derive``)."""
        d = DrawingDeal()
        d.rules, d.settings = rules, settings_of(rules)
        return d

    def derive(self) -> None:
        """The fields derived from the stored ones, once a stored deal is loaded."""
        self._decls = None
        self._pulls = None
        self._legal = {}
        self._derive_seats()
        self._beat = beaters(self.trump, self.settings.shokha)

    def _derive_seats(self) -> None:
        key = (self.rules.players, self.rules.partnership, self.seats)
        known = _SEAT_TABLES.get(key)
        if known is None:
            players = self.rules.players
            seats = self.seats
            nexts = tuple(self.next_seat(s) for s in range(players))
            sides = tuple(self.rules.side_of(s) for s in range(players))
            at = {s: i for i, s in enumerate(seats)}
            orders = tuple(seats[at[s] :] + seats[: at[s]] if s in at else () for s in range(players))
            known = _SEAT_TABLES[key] = (nexts, sides, orders)
        self._next, self._side, self._order = known

    # --- helpers ------------------------------------------------------------------------

    def next_seat(self, seat: int) -> int:
        seats = self.seats
        return seats[(seats.index(seat) + 1) % len(seats)] if seat in seats else seats[0]

    def side_of(self, seat: int) -> int:
        return self._side[seat]

    def _start_trick(self, leader: int) -> None:
        self.leader = leader
        self.to_move = leader
        self.plays = []
        self.win_seat = leader
        self.win_cards = ()
        self.declared = None
        self._pulls = None

    def beats(self, b: Card, c: Card) -> bool:
        """Does card ``b`` beat card ``c`` (RULES.md 1: same suit higher, trump, shokha)?"""
        return bool(self._beat[c] >> b & 1)

    def beats_set(self, cards: tuple[Card, ...], target: tuple[Card, ...]) -> bool:
        """RULES.md 1: one-to-one, any pairing that works counts."""
        return beats_all(self._beat, cards, target)

    def is_lead(self, cards: tuple[Card, ...]) -> bool:
        """1-4 cards of one suit; the shokha may stand in for any suit (RULES.md 1)."""
        shokha = self.settings.shokha
        suits = {c // 9 for c in cards if not (shokha and c == SHOKHA)}
        return len(suits) <= 1

    def combination(self, cards: Sequence[Card]) -> str | None:
        """``"moscow"``, ``"molodka"`` or None for four cards (RULES.md 1)."""
        return combination_of(cards, self.settings.shokha)

    def trick_pulls(self) -> tuple[tuple[Card, ...] | None, ...]:
        """Each seat's ``pull_cards`` on this trick, found once a trick: a seat's cards in its
        hand and on the trick stay the same four through a trick (a declaration gives the
        table's cards back to their owners; the draw comes after)."""
        pulls = self._pulls
        if pulls is None:
            pulls = self._pulls = tuple(pull_cards(self, s) for s in range(self.rules.players))
        return pulls

    # --- the state machine ----------------------------------------------------------------

    def declarations(self) -> dict[int, Action]:
        """The declarations open now, per seat (computed once per state; ``apply`` sets none
        where none can be open)."""
        decls = self._decls
        if decls is None:
            decls = self._decls = open_declarations(self)
        return decls

    def to_act(self) -> tuple[int, ...]:
        """The seats that may act now: the one to move, plus any out-of-turn declarer."""
        if self.finished:
            return ()
        decls = self._decls
        if decls is None:
            decls = self.declarations()
        if not decls:
            return (self.to_move,)
        return (self.to_move, *(s for s in decls if s != self.to_move))

    def legal_actions(self, seat: int) -> list[Action]:
        """Every legal action of ``seat``, in a stable order (moves first, then declarations)."""
        if self.finished:
            return []
        known = self._legal.get(seat)  # as ``remembered``, inline: the hottest path of a playout
        if known is not None:
            return known[:]
        hand = self.hands[seat].copy()
        hand.sort()
        out = self._moves(hand) if seat == self.to_move else []
        decls = self._decls
        decl = (self.declarations() if decls is None else decls).get(seat)
        if decl is not None:
            out.append(decl)
        self._legal[seat] = out
        return out[:]

    def _moves(self, hand: list[Card]) -> list[Action]:
        """The mover's moves (``hand`` sorted): a lead, or a beat or a throw of the trick's
        count (RULES.md 1), or kozel-60's one card."""
        # loops, not comprehensions, on this hot path: a comprehension is a call in Python 3.11
        out: list[Action] = []
        if not self.rules.multi:
            one = _PLAY if self.plays else _LEAD
            for c in hand:
                out.append(one[c])
            return out
        if not self.plays:
            return self._leads(hand)
        win, table = self.win_cards, self._beat
        if len(win) == 1:
            beaten = table[win[0]]
            throws: list[Action] = []
            for c in hand:
                if beaten >> c & 1:
                    out.append(_BEAT[c])
                throws.append(_THROW[c])
            out += throws
            return out
        if len(win) == 2:  # the commonest of several cards: the moves are made already
            for cs in beating_sets(table, hand, win):
                out.append(_BEAT2[cs])
            for cs in combinations(hand, 2):
                out.append(_THROW2[cs])
            return out
        for cs in beating_sets(table, hand, win):
            out.append(_new_action(Action, ("beat", cs)))
        for cs in combinations(hand, len(win)):
            out.append(_new_action(Action, ("throw", cs)))
        return out

    def _leads(self, hand: list[Card]) -> list[Action]:
        """1-4 cards of one suit, the shokha joining any suit (RULES.md 1), sorted by size
        then cards; a combination is a declaration, not a plain lead."""
        suit_of = WILD_SUIT_OF if self.settings.shokha else SUIT_OF
        combos = self.settings.combos
        out: list[Action] = []
        for c in hand:
            out.append(_LEAD[c])  # every card alone leads
        for k, pick in lead_shapes(hand, suit_of):
            cards = pick(hand)
            if k == 2:
                out.append(_LEAD2[cards])
            elif not (k == 4 and combos and self.combination(cards)):
                out.append(_new_action(Action, ("lead", cards)))
        return out

    def check(self, seat: int, act: Action) -> str | None:
        """Why ``act`` is illegal for ``seat`` now (a reason code), or None if it is legal."""
        if self.finished:
            return "deal_over"
        kind, cards = act
        hand = self.hands[seat] if 0 <= seat < len(self.hands) else []
        if kind == "declare":
            return self._check_declare(seat, cards)
        if seat != self.to_move:
            return "not_your_turn"
        if not cards or any(c not in hand for c in cards):
            return "not_in_hand"
        if len(set(cards)) != len(cards):
            return "duplicate_card"  # else apply would fail half-way in hand.remove
        if not self.rules.multi:
            if kind != ("play" if self.plays else "lead"):
                return "wrong_action"
            return None if len(cards) == 1 else "wrong_count"
        return self._check_multi(kind, cards)

    def _check_declare(self, seat: int, cards: tuple[Card, ...]) -> str | None:
        decl = self.declarations().get(seat)
        if decl is not None:
            return None if decl.cards == cards else "not_a_combination"
        if self.settings.combos or self.settings.pull:
            return "declaration_closed"
        return "unknown_action"

    def _check_multi(self, kind: str, cards: tuple[Card, ...]) -> str | None:
        """``check`` of a move of the multi-card rules: a lead, or an answer to the trick."""
        if not self.plays:
            if kind != "lead":
                return "wrong_action"
            if len(cards) > 4:
                return "wrong_count"
            if self.settings.combos and self.combination(cards):
                # RULES.md 1: the leader's combination is his lead, but it is a declaration
                # (a Moscow may still come over a Molodka): one spelling, as legal_actions.
                return "must_declare"
            return None if self.is_lead(cards) else "mixed_suits"
        if kind not in ("beat", "throw"):
            return "wrong_action"
        if len(cards) != len(self.win_cards):
            return "wrong_count"
        if kind == "beat" and not self.beats_set(cards, self.win_cards):
            return "cannot_beat"
        return None

    def apply(self, seat: int, act: Action) -> list[Event]:
        """Apply a legal action; raise ``IllegalAction`` (changing nothing) otherwise."""
        if act not in self._legal.get(seat, ()):  # listed: legal, no check needed
            reason = self.check(seat, act)
            if reason is not None:
                raise IllegalAction(reason, f"{act} by seat {seat}: {reason.replace('_', ' ')}")
        kind, cards = act
        self.counter += 1
        self._legal = {}
        if kind == "declare":
            self._decls = None
            events: list[Event] = []
            self._declare(seat, cards, events)
            return events
        hand = self.hands[seat]
        for c in cards:
            hand.remove(c)
        one = len(cards) == 1  # its play and its event are shared ones
        self.plays.append(
            ONE_CARD_PLAYS[kind][seat][cards[0]] if one else _new_play(Play, (seat, kind, cards))
        )
        event: Event
        if kind == "lead":
            self.win_seat, self.win_cards = seat, cards
            if not self.rules.multi:
                event = PLAYED_ONE[seat][cards[0]]
            else:
                event = LED_ONE[seat][cards[0]] if one else Led(seat, cards)
        elif kind == "play":
            if self._single_wins(cards[0]):
                self.win_seat, self.win_cards = seat, cards
            event = PLAYED_ONE[seat][cards[0]]
        elif kind == "beat":
            self.win_seat, self.win_cards = seat, cards
            event = BEATEN_ONE[seat][cards[0]] if one else Beaten(seat, cards)
        else:
            event = THROWN_BY_COUNT[seat][len(cards)]
        events = [event]
        nxt = self._next[seat]
        settings = self.settings
        if nxt == self.leader:
            self._decls = None if settings.combos or settings.pull else _NO_DECLARATIONS
            self._finish_trick(events)
        else:
            self.to_move = nxt
            # mid-trick only a pull, or a Moscow over a Molodka just declared, may come
            self._decls = None if settings.pull else _NO_DECLARATIONS
        return events

    def _single_wins(self, card: Card) -> bool:
        """kozel-60: does ``card`` beat the current winning card (RULES.md 3)?"""
        return self.strength60(card) > self.strength60(self.win_cards[0])

    def strength60(self, card: Card) -> int:
        return strength60(card, self.trump, self.plays[0][2][0])

    def _declare(self, seat: int, cards: tuple[Card, ...], events: list[Event]) -> None:
        combo = "pull" if self.settings.pull else self.combination(cards) or "molodka"
        returned = sorted({s for s, _k, _c in self.plays})
        for s, _kind, played in self.plays:
            self.hands[s].extend(played)
        if returned:
            events.append(CardsReturned(tuple(returned)))
        self._start_trick(seat)
        for c in cards:
            self.hands[seat].remove(c)
        self.plays = [Play(seat, "lead", cards)]
        self.win_cards = cards
        self.declared = combo
        self.to_move = self.next_seat(seat)
        events.append(Declared(seat, combo, cards))

    def _finish_trick(self, events: list[Event]) -> None:
        winner = self.win_seat
        side = self._side[winner]
        pile = self.piles[side]
        face_up: list[Card] = []
        face_down = 0
        for _s, kind, cards in self.plays:
            pile.extend(cards)
            if kind == "throw":
                face_down += len(cards)
            else:
                face_up.extend(cards)
        self.tricks[side] += 1
        self.trick_no += 1
        self.last_trick = (winner, tuple(self.plays))
        self.last_winner = winner
        events.append(TrickWon(winner, side, tuple(face_up), face_down))
        self._draw(winner, events)
        if not self.stock and not any(map(self.hands.__getitem__, self.seats)):
            if self.reserve:
                self._deal_second_half(events)
                return
            self.finished = True
            self.plays = []
            return
        self._start_trick(winner)

    def _draw(self, winner: int, events: list[Event]) -> None:
        """RULES.md 1: winner first, clockwise, one card at a time, up to the hand size."""
        stock = self.stock
        if not stock:
            return
        size = self.rules.hand_size
        order = self._order[winner]
        hands = self.hands
        k = size - len(hands[winner])
        if k > 0 and k * len(order) <= len(stock):
            for s in order:
                if len(hands[s]) != size - k:
                    break
            else:
                # each seat played the trick's k cards and the stock has them all: k rounds
                self._draw_rounds(order, k, events)
                return
        counts = [0] * len(order)
        progress = True
        while stock and progress:
            progress = False
            for i, s in enumerate(order):
                if stock and len(hands[s]) < size:
                    card = stock.pop()
                    hands[s].append(card)
                    counts[i] += 1
                    progress = True
                    if not stock and card == self.trump_card and self.rules.trump_mode == "turn":
                        events.append(TrumpCardTaken(s, card))
        events.append(CardsDrawn(order, tuple(counts), len(stock)))

    def _draw_rounds(self, order: tuple[int, ...], k: int, events: list[Event]) -> None:
        stock, hands = self.stock, self.hands
        for _ in range(k):
            for s in order:
                hands[s].append(stock.pop())
        last = order[-1]
        if not stock and hands[last][-1] == self.trump_card and self.rules.trump_mode == "turn":
            events.append(TrumpCardTaken(last, hands[last][-1]))
        key = (order, k, len(stock))
        drawn = _ROUNDS_DRAWN.get(key)
        if drawn is None:
            drawn = _ROUNDS_DRAWN[key] = CardsDrawn(order, (k,) * len(order), len(stock))
        events.append(drawn)

    def _deal_second_half(self, events: list[Event]) -> None:
        """RULES.md 3 halves: deal the second half the same way; same trump, same leader."""
        n = len(self.seats)
        left = self.next_seat(self.dealer)
        start = self.seats.index(left)
        for i, card in enumerate(self.reserve):
            self.hands[self.seats[(start + i) % n]].append(card)
        self.reserve = []
        self.half = 1
        events.append(SecondHalfDealt(self.first_leader))
        self._start_trick(self.first_leader)

    # --- results and views --------------------------------------------------------------

    def points(self) -> list[int]:
        return [deck_points(pile) for pile in self.piles]

    def all_cards(self) -> list[Card]:
        """Every card of the deal wherever it lies (for the invariant checks)."""
        out: list[Card] = []
        for h in self.hands:
            out.extend(h)
        out.extend(self.stock)
        out.extend(self.reserve)
        for p in self.piles:
            out.extend(p)
        for _s, _k, cards in self.plays:
            out.extend(cards)
        return out
