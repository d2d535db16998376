"""The Petukh family's compact playout form (``engine.players.playout``; RULES.md 5, 5a).

One determinized deal of ``petukh`` or ``petukh-25``: hands as bit masks over the 36 card
ints, the stock, the trick as (seat, card) pairs (card -1: a skip), tricks, boys and the
spade ace's bonus per seat. It is built from ``game.to_state()`` (the deal's deck and
actions: dealt again and replayed) and ``game.rules`` and plays what
``engine.families.petukh.match.PetukhMatch`` plays: the exchange (keep, pass, discard and draw; seats
without a choice passed over), the dealer's trump swap, and the tricks with the preset's
answering order (``follow``, ``beat``, ``beat_or_trump``), the trump ace lead, skips
(petukh-25), boys declared with the first jack, boys finish, the spade ace. Codes: a card's
int, ``SKIP``, ``FINISH``, ``KEEP``, ``PASS``, ``SWAP`` + card, ``EXCHANGE`` | discards.

Its value is ``engine.players.search.deal_value``'s for Petukh: the seat's chance to win the match
from every seat's record after the deal (``engine.families.petukh.odds``; overshoot sets one back).

The quick player (``finish``) is the family's rules player (``engine.families.petukh.bot``) on masks:
change weak cards, pass a hopeless hand, take tricks while they bring the record towards
0, else duck; boys finish when it may.

``tests/engine/test_compact_petukh.py`` plays random deals both ways and compares them.
"""

from __future__ import annotations

import random
from itertools import combinations

from engine.actions import Action
from engine.cards import ACE, JACK, make
from engine.families.petukh.match import PetukhMatch
from engine.families.petukh.odds import win_chance
from engine.families.petukh.rules import (
    FINISH_RECORD,
    HAND,
    LOW_RECORD,
    SPADE_ACE,
    STANDARD_BOYS,
    THIRTY_BOYS,
    best_boys,
    deal_change,
    settings_of,
)
from engine.game import Game
from engine.presets import PetukhSettings

SKIP = 36
FINISH = 37
KEEP = 38
PASS = 39
SWAP = 64  # + the card given for the face-up trump
EXCHANGE = 1 << 40  # | the mask of the cards discarded
EXCHANGE_PHASE, SWAP_PHASE, PLAY_PHASE = 0, 1, 2
# the playouts' quick player: "rules" (engine.families.petukh.bot's choices) or "random" (uniform over
# the legal moves), measured one against the other at the same time a move
QUICK = "rules"
SUIT_MASK = tuple(0x1FF << (9 * s) for s in range(4))
JACKS = sum(1 << make(JACK, s) for s in range(4))
# per suit and rank: the cards of that suit ranked above it (rank -1: the whole suit)
ABOVE = tuple(tuple(SUIT_MASK[s] & ~((1 << (9 * s + r + 1)) - 1) for r in range(-1, 9)) for s in range(4))


def cards_of(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _strength(card: int, trump: int) -> float:
    """petukh_bot._strength: a rough chance that the card takes a trick."""
    r = card % 9
    if card // 9 == trump:
        return 0.45 + 0.07 * r
    return {8: 0.75, 7: 0.4, 6: 0.15}.get(r, 0.0)


class PetukhCompact:
    """One deal in trick play (``engine.players.playout.Compact``)."""

    __slots__ = (
        "cfg",
        "turn",
        "start",
        "codes",
        "n",
        "phase",
        "dealer",
        "stock",
        "stock_pos",
        "face_up",
        "exchange_open",
        "trump",
        "seat",
        "records",
        "skips",
        "passed",
        "hands",
        "plays",
        "led",
        "led_top",
        "trump_top",
        "win_seat",
        "win_key",
        "tricks",
        "boys",
        "jack_played",
        "bonus",
        "done",
        "leader",
        "to_move",
        "last_winner",
        "finisher",
        "value",
    )

    cfg: PetukhSettings
    turn: bool  # RULES.md 5: the top card of the stock is turned (else the dealer's last)
    start: tuple[list[int], list[int], int, list[int]]  # records, skips, dealer, deck
    codes: list[int]  # the deal's actions as built (for ``relabel``)
    n: int
    phase: int
    dealer: int
    stock: tuple[int, ...]
    stock_pos: int  # cards drawn from the stock
    face_up: int  # -1: none (taken, or the dealer's last card is trump)
    exchange_open: bool
    trump: int
    seat: int
    records: list[int]  # before the deal
    skips: list[int]
    passed: list[bool]
    hands: list[int]
    plays: list[tuple[int, int]]
    led: int
    led_top: int
    trump_top: int
    win_seat: int
    win_key: int
    tricks: list[int]
    boys: list[str | None]
    jack_played: list[bool]
    bonus: list[int]
    done: int
    leader: int
    to_move: int
    last_winner: int
    finisher: int
    value: float | None

    def copy(self) -> PetukhCompact:
        m = PetukhCompact.__new__(PetukhCompact)
        # each field by name (the lists copied): a compiled class has no __slots__ to loop over
        m.cfg, m.turn, m.start, m.codes = self.cfg, self.turn, self.start, self.codes
        m.n, m.phase, m.dealer, m.stock = self.n, self.phase, self.dealer, self.stock
        m.stock_pos, m.face_up, m.exchange_open, m.trump = (
            self.stock_pos,
            self.face_up,
            self.exchange_open,
            self.trump,
        )
        m.seat, m.records, m.passed, m.led = self.seat, self.records, self.passed, self.led
        m.led_top, m.trump_top, m.win_seat, m.win_key = (
            self.led_top,
            self.trump_top,
            self.win_seat,
            self.win_key,
        )
        m.done, m.leader, m.to_move, m.last_winner = self.done, self.leader, self.to_move, self.last_winner
        m.finisher, m.value = self.finisher, self.value
        m.skips = self.skips[:]
        m.hands = self.hands[:]
        m.plays = self.plays[:]
        m.tricks = self.tricks[:]
        m.boys = self.boys[:]
        m.jack_played = self.jack_played[:]
        m.bonus = self.bonus[:]
        return m

    def relabel(self, f: list[int]) -> PetukhCompact | None:
        """The deal with every card ``x`` replaced by ``f[x]`` (``engine.players.sampler.Sampler.draw``),
        dealt again from the relabelled deck and its actions replayed, each checked as the
        engine's replay checks it (a seat that did not follow suit or trump had none, ...);
        None when one breaks (``engine.players.playout.Relabels``)."""
        records, skips, dealer, deck = self.start
        m = dealt(self.cfg, self.turn, (records, skips, dealer, [f[c] for c in deck]), self.seat)
        codes = [_relabelled(code, f) for code in self.codes]
        for code in codes:
            if code < SKIP and not m.card_mask() >> code & 1:
                return None  # a card the relabelled hand could not have played
            m.play(code)
        m.codes = codes
        return m

    def code(self, action: Action) -> int | None:
        kind, cards = action.kind, action.cards
        if kind == "play":
            return cards[0]
        if kind == "exchange":
            return EXCHANGE | sum(1 << c for c in cards)
        if kind == "swap":
            return SWAP + cards[0]
        return CODES.get(kind)

    # --- legal moves ---------------------------------------------------------------------

    def card_mask(self) -> int:
        """The cards the seat on move may play (``PetukhMatch._playable``)."""
        hand = self.hands[self.to_move]
        trump = self.trump
        if not self.plays:
            ace = 1 << make(ACE, trump)
            if self.cfg.lead_trump_ace and hand & ace:
                return ace
            return hand
        led = self.led
        suited = hand & SUIT_MASK[led]
        trumps = hand & SUIT_MASK[trump]
        answer = self.cfg.answer
        if answer != "follow":
            higher = suited & ABOVE[led][self.led_top + 1]
            if higher:
                return higher
        if answer == "beat_or_trump" and led != trump and trumps:
            return trumps
        if suited:
            return suited
        if trumps and answer == "beat":
            return trumps & ABOVE[trump][self.trump_top + 1] or trumps
        return trumps or hand

    def may_finish(self, seat: int) -> bool:
        return (
            self.cfg.boys_finish
            and self.records[seat] <= FINISH_RECORD
            and (self.hands[seat] & JACKS).bit_count() >= 2
        )

    def legal(self) -> list[int]:
        """The codes of the seat on move, in the engine's order (cards, skip, finish)."""
        if self.phase == EXCHANGE_PHASE:
            return self._exchange_codes(self.to_move)
        if self.phase == SWAP_PHASE:
            swaps = [SWAP + c for c in cards_of(self.hands[self.dealer])]
            return swaps if self.cfg.swap == "must" else [KEEP, *swaps]
        out = cards_of(self.card_mask())
        s = self.to_move
        if self.plays and self.skips[s] > 0:
            out.append(SKIP)
        if self.may_finish(s):
            out.append(FINISH)
        return out

    # --- playing -------------------------------------------------------------------------

    def play(self, code: int) -> None:
        s = self.to_move
        if self.phase != PLAY_PHASE:
            self._exchange(s, code)
            return
        if code == FINISH:
            self.finisher = s
            self._end()
            return
        if code == SKIP:
            self.skips[s] -= 1
            self.plays.append((s, -1))
        else:
            self._card(s, code)
        nxt = self._next_in_play(s)
        if nxt != self.leader:
            self.to_move = nxt
            return
        self._end_trick()

    def _card(self, s: int, card: int) -> None:
        bit = 1 << card
        hand = self.hands[s]
        if bit & JACKS and self.cfg.boys and not self.jack_played[s]:
            # RULES.md 5 [decision]: boys are declared with the first jack played
            self.jack_played[s] = True
            self.boys[s] = boys_of(hand & JACKS, self.trump, self.cfg)
        self.hands[s] = hand & ~bit
        suit, rank = card // 9, card % 9
        if not self.plays:
            self.led = suit
            self.led_top = self.trump_top = -1
            self.win_seat, self.win_key = s, -1
        if suit == self.led and rank > self.led_top:
            self.led_top = rank
        if suit == self.trump and rank > self.trump_top:
            self.trump_top = rank
        key = 20 + rank if suit == self.trump else 10 + rank if suit == self.led else 0
        if key > self.win_key:
            self.win_seat, self.win_key = s, key
        self.plays.append((s, card))

    def _next_in_play(self, seat: int) -> int:
        n = self.n
        for i in range(1, n + 1):
            s = (seat + i) % n
            if not self.passed[s]:
                return s
        return seat

    def _end_trick(self) -> None:
        winner = self.win_seat
        self.tricks[winner] += 1
        if self.cfg.spade_ace:
            owner = next((p for p, c in self.plays if c == SPADE_ACE), -1)
            if owner >= 0:
                self.bonus[owner] += -5 if owner == winner else 5
        self.last_winner = winner
        self.plays = []
        self.done += 1
        if self.done == HAND:
            self._end()
            return
        self.leader = self.to_move = winner

    def after(self, seat: int) -> int:
        """The seat's record after the deal (``PetukhMatch._end_deal``)."""
        before = self.records[seat]
        if self.finisher >= 0:
            return 0 if seat == self.finisher else before
        if self.passed[seat]:
            return before
        new = before + deal_change(self.cfg, before, self.tricks[seat], self.boys[seat], self.bonus[seat])
        return self.cfg.start if new < 0 else new

    def _end(self) -> None:
        """``engine.players.search.deal_value`` of the DealScored for the searching seat."""
        self.value = win_chance([self.after(s) for s in range(self.n)], self.seat, self.cfg)
        self.to_move = -1

    def finish(self, rng: random.Random) -> float:
        rules = QUICK == "rules"
        while self.value is None:
            self.play(self.choose() if rules else rng.choice(self.legal()))
        return self.value

    # --- the quick player (engine.families.petukh.bot on masks) -------------------------------------

    def _target(self, me: int) -> int:
        """Tricks that bring the record to exactly 0: the record less the boys."""
        cfg = self.cfg
        combo = self.boys[me] if self.jack_played[me] else None
        if combo is None and cfg.boys and not self.jack_played[me]:
            combo = boys_of(self.hands[me] & JACKS, self.trump, cfg)
        took = 0
        if combo is not None:
            table = THIRTY_BOYS if cfg.boys_table == "thirty" else STANDARD_BOYS
            took = table[combo][0] if combo in table else -cfg.crooked
        return self.records[me] + took

    def choose(self) -> int:
        me = self.to_move
        if self.phase == EXCHANGE_PHASE:
            return self._exchange_choice(me)
        if self.phase == SWAP_PHASE:
            return self._swap_choice(me)
        if self.may_finish(me):
            return FINISH
        cards = cards_of(self.card_mask())
        trump = self.trump
        want = self.tricks[me] < self._target(me)
        if not self.plays:
            if len(cards) == 1:
                return cards[0]

            def lead_key(c: int) -> tuple[float, int]:
                return _strength(c, trump), c % 9

            return max(cards, key=lead_key) if want else min(cards, key=lead_key)

        def rank(c: int) -> tuple[int, int]:
            return (1 if c // 9 == trump else 0, c % 9)

        led, win_key = self.led, self.win_key
        winners: list[int] = []
        losers: list[int] = []
        for c in cards:
            suit = c // 9
            key = 20 + c % 9 if suit == trump else 10 + c % 9 if suit == led else 0
            (winners if key > win_key else losers).append(c)
        if want:
            return min(winners or cards, key=rank)
        if losers:
            return max(losers, key=rank)
        if self.skips[me] > 0:
            return SKIP
        return min(cards, key=rank)

    # --- the exchange and the swap (PetukhMatch._exchange_turn and after) -----------------

    def _can_pass(self, seat: int) -> bool:
        others_in = any(not self.passed[o] for o in range(self.n) if o != seat)
        return self.cfg.may_pass and others_in

    def _draws(self, seat: int) -> int:
        """How many cards the seat may exchange (0: none)."""
        if not self.exchange_open:
            return 0
        return min(HAND, len(self.stock) - self.stock_pos, self.hands[seat].bit_count())

    def _exchange_codes(self, seat: int) -> list[int]:
        out = [KEEP]
        if self.records[seat] <= LOW_RECORD:
            return out
        if self._can_pass(seat):
            out.append(PASS)
        hand = cards_of(self.hands[seat])
        for size in range(1, self._draws(seat) + 1):
            out.extend(EXCHANGE | sum(1 << c for c in combo) for combo in combinations(hand, size))
        return out

    def _has_choice(self, seat: int) -> bool:
        if self.records[seat] <= LOW_RECORD:
            return False
        return self._can_pass(seat) or self._draws(seat) > 0

    def _exchange_turn(self, seat: int) -> None:
        """The exchange to ``seat`` or the next seat up to the dealer with a choice."""
        while True:
            if self._has_choice(seat):
                self.to_move = seat
                return
            if seat == self.dealer:
                break
            seat = (seat + 1) % self.n
        self._after_exchange()

    def _after_exchange(self) -> None:
        d = self.dealer
        if (
            self.face_up >= 0
            and self.cfg.swap != "never"
            and self.exchange_open
            and not self.passed[d]
            and self.records[d] > LOW_RECORD
        ):
            self.phase = SWAP_PHASE
            self.to_move = d
            return
        self._start_play()

    def _start_play(self) -> None:
        self.phase = PLAY_PHASE
        self.leader = self.to_move = self._next_in_play(self.dealer)

    def _exchange(self, s: int, code: int) -> None:
        if self.phase == SWAP_PHASE:
            if code != KEEP:
                self.hands[s] = self.hands[s] & ~(1 << (code - SWAP)) | 1 << self.face_up
                self.face_up = -1
            self._start_play()
            return
        if code == PASS:
            self.passed[s] = True
            self.hands[s] = 0
        elif code != KEEP:
            gone = code & ~EXCHANGE
            k = gone.bit_count()
            drawn = sum(1 << c for c in self.stock[self.stock_pos : self.stock_pos + k])
            self.stock_pos += k
            self.hands[s] = self.hands[s] & ~gone | drawn
        if s == self.dealer:
            self._after_exchange()
        else:
            self._exchange_turn((s + 1) % self.n)

    def _exchange_choice(self, me: int) -> int:
        """petukh_bot._exchange_choice: change weak cards, pass a hopeless hand."""
        trump = self.trump
        hand = cards_of(self.hands[me])
        expected = sum(_strength(c, trump) for c in hand)
        cap = self.cfg.cap
        fined = cap is None or self.records[me] <= cap
        weak = sorted(
            (c for c in hand if _keep_value(c, trump) < 0.35), key=lambda c: (_keep_value(c, trump), c)
        )
        low = self.records[me] <= LOW_RECORD
        draws = 0 if low else self._draws(me)
        can_pass = not low and self._can_pass(me)
        if can_pass and fined and expected < 0.5 and (not draws or len(weak) >= 4):
            return PASS
        while weak:
            if len(weak) <= draws:
                return EXCHANGE | sum(1 << c for c in weak)
            weak.pop()  # the stock is short: change the weakest cards only
        if can_pass and fined and expected < 0.4:
            return PASS
        return KEEP

    def _swap_choice(self, me: int) -> int:
        trump = self.trump
        worst = min(cards_of(self.hands[me]), key=lambda c: (_keep_value(c, trump), c))
        if _keep_value(self.face_up, trump) > _keep_value(worst, trump) or self.cfg.swap == "must":
            return SWAP + worst
        return KEEP


CODES = {"skip": SKIP, "finish": FINISH, "keep": KEEP, "pass": PASS}


def _keep_value(card: int, trump: int) -> float:
    v = _strength(card, trump)
    if card % 9 == JACK:
        v += 0.5  # boys
    return v


_BOYS: dict[tuple[int, int, str, int], str | None] = {}


def boys_of(jacks: int, trump: int, cfg: PetukhSettings) -> str | None:
    """``best_boys`` of a mask of jacks (cached)."""
    key = (jacks, trump, cfg.boys_table, cfg.crooked)
    if key not in _BOYS:
        _BOYS[key] = best_boys(cards_of(jacks), trump, cfg.boys_table, cfg.crooked)
    return _BOYS[key]


def _relabelled(code: int, f: list[int]) -> int:
    if code & EXCHANGE:
        return EXCHANGE | sum(1 << f[c] for c in cards_of(code & ~EXCHANGE))
    if code >= SWAP:
        return SWAP + f[code - SWAP]
    return f[code] if code < SKIP else code


def dealt(
    cfg: PetukhSettings, turn: bool, start: tuple[list[int], list[int], int, list[int]], seat: int
) -> PetukhCompact:
    """A deal dealt as ``PetukhMatch._new_deal`` deals it: ``start`` is the records and
    skips before it, the dealer and the deck."""
    records, skips, dealer, deck = start
    m = PetukhCompact.__new__(PetukhCompact)
    m.cfg = cfg
    m.turn = turn
    m.start = start
    m.codes = []
    m.n = n = len(records)
    m.seat = seat
    m.records = records
    m.skips = skips[:]
    m.passed = [False] * n
    m.dealer = dealer
    left = (dealer + 1) % n
    hands = [0] * n
    k = HAND * n
    for i in range(k):
        hands[(left + i) % n] |= 1 << deck[i]
    m.hands = hands
    trump_card = deck[k] if turn else deck[k - 1]
    m.trump = trump_card // 9
    m.face_up = trump_card if turn else -1
    m.stock = tuple(deck[k + 1 :] if turn else deck[k:])
    m.stock_pos = 0
    m.plays = []
    m.tricks = [0] * n
    m.boys = [None] * n
    m.jack_played = [False] * n
    m.bonus = [0] * n
    m.done = 0
    m.last_winner = m.finisher = -1
    m.value = None
    m.led = m.led_top = m.trump_top = m.win_seat = m.win_key = m.leader = 0
    # RULES.md 5: nobody exchanges or swaps when a record is 1 (nor with 6 players)
    m.exchange_open = cfg.exchange and 1 not in records
    m.phase = EXCHANGE_PHASE
    m._exchange_turn(left)
    return m


def from_match(match: PetukhMatch, seat: int) -> PetukhCompact:
    """The compact form of a Petukh match's current deal (its typed fields: the records and
    skips at the deal's start, its dealing record): dealt again, its actions replayed."""
    rec = match.history[-1]
    start = (list(match.start_records), list(match.start_skips), rec.dealer, list(rec.deck))
    m = dealt(settings_of(match.rules), match.rules.trump_mode == "turn", start, seat)
    codes = []
    for _seat, action in rec.actions:
        code = m.code(action)
        assert code is not None
        m.play(code)
        codes.append(code)
    m.codes = codes
    return m


def build(game: Game, seat: int) -> PetukhCompact | None:
    """``Family.compact``: the deal of ``game`` for ``seat`` (None once the match ended)."""
    acting = game.to_act()
    if not acting or not isinstance(game, PetukhMatch):
        return None
    m = from_match(game, seat)
    return m if m.value is None and m.to_move == acting[0] else None
