"""The drawing family's compact playout form (``kozel``, ``kozel-4``, ``kozel-60``; RULES.md 1-3).

One determinized deal as plain ints and small lists, built only from ``game.to_state()`` and
``game.rules`` (``engine.playout``): the hands, the stock, the trick on the table, the card
points and tricks per side. An action is one int, ``kind << 36 | cards``: the bit mask of its
cards and its kind (``KINDS``). ``legal`` gives every legal move of a seat as the engine's
``legal_actions`` does (a property test compares them step by step:
``tests/engine/test_compact_drawing.py``); ``finish`` plays the deal out with a quick player
that plays as the family's rules player (``engine.drawing_bot``), out-of-turn declarations
included, without building any observation or event.
"""

from __future__ import annotations

import random
from itertools import combinations, permutations
from typing import Any

from engine.actions import Action
from engine.cards import ACE, JACK, KOZEL_STRENGTH, POINTS, SHOKHA, TEN, Card
from engine.codec import unpack_cards
from engine.game import Game
from engine.presets import Rules, default_rules

LEAD, PLAY, BEAT, THROW, DECLARE = range(5)
KINDS = ("lead", "play", "beat", "throw", "declare")
_KIND_OF = {k: i for i, k in enumerate(KINDS)}
SHIFT = 36
CARDS = (1 << SHIFT) - 1
# the playouts' quick player: "rules" (the rules player's choices) or "random" (uniform over
# the legal moves); bench/strength.py --quick measures one against the other
QUICK = "rules"
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
    kind = _KIND_OF.get(action.kind)
    return None if kind is None else kind << SHIFT | mask_of(action.cards)


def decode(code: int) -> Action:
    return Action(KINDS[code >> SHIFT], cards_of(code & CARDS))


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
        n = len(seats)
        self.nxt = [seats[(seats.index(s) + 1) % n] if s in seats else seats[0] for s in range(rules.players)]
        self.side = [rules.side_of(s) for s in range(rules.players)]
        self.partnership = rules.partnership
        self.trump = trump
        self.multi = rules.multi
        self.shokha = rules.shokha
        self.combos = rules.combos
        self.pull = rules.pull
        self.size = rules.hand_size
        self.dealer = dealer
        # the rules player reads the shokha from the preset's defaults (engine.drawing_bot)
        self.bot_shokha = default_rules(rules.preset, rules.players).shokha
        self.first_leader = first
        self.beaters = [sum(1 << b for b in range(36) if self._beats(b, c)) for c in range(36)]
        # the rules player's prices (engine.drawing_bot): what a card costs to give up
        self.cost = [self._cost(c) for c in range(36)]
        self.cost60 = [self._cost60(c) for c in range(36)]
        # what a card is worth thrown onto the own side's trick
        self.dump = [POINTS[c] * 3 - (100 if c // 9 == trump or c == SHOKHA else 0) for c in range(36)]
        # the drawing order after a trick, per winner (RULES.md 1: the winner first)
        self.order = [
            seats[seats.index(s) :] + seats[: seats.index(s)] if s in seats else seats
            for s in range(rules.players)
        ]
        # the prices with the card as the tie-break (the rules player takes the lowest card)
        self.key = [self.cost[c] << 6 | c for c in range(36)]
        self.key60 = [self.cost60[c] << 6 | c for c in range(36)]
        # kozel-60 strengths per led suit (a led jack leads trumps)
        self.dkey = [-self.dump[c] << 6 | c for c in range(36)]
        # for combinations: the suit a card counts for (none: the shokha), an ace or a ten
        joker = [self.shokha and c == SHOKHA for c in range(36)]
        self.suit_bit = [0 if joker[c] else 1 << c // 9 for c in range(36)]
        self.ace_ten = [joker[c] or c % 9 in (ACE, TEN) for c in range(36)]
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


class DrawingCompact:
    """One deal of a drawing preset, every hand known, seen from the searching ``seat``."""

    __slots__ = (
        "t",
        "seat",
        "hands",
        "stock",
        "reserve",
        "points",
        "tricks",
        "leader",
        "to_move",
        "plays",
        "win_seat",
        "win_cards",
        "declared",
        "finished",
        "last_winner",
    )

    t: Table
    seat: int
    hands: list[list[Card]]
    stock: list[Card]
    reserve: list[Card]
    points: list[int]
    tricks: list[int]
    leader: int
    to_move: int
    plays: list[Play]
    win_seat: int
    win_cards: tuple[Card, ...]
    declared: str | None
    finished: bool
    last_winner: int

    def copy(self) -> DrawingCompact:
        c = DrawingCompact.__new__(DrawingCompact)
        c.t = self.t
        c.seat = self.seat
        c.hands = [h[:] for h in self.hands]
        c.stock = self.stock[:]
        c.reserve = self.reserve[:]
        c.points = self.points[:]
        c.tricks = self.tricks[:]
        c.leader = self.leader
        c.to_move = self.to_move
        c.plays = self.plays[:]
        c.win_seat = self.win_seat
        c.win_cards = self.win_cards
        c.declared = self.declared
        c.finished = self.finished
        c.last_winner = self.last_winner
        return c

    # --- the Compact protocol (engine.playout) -------------------------------------------

    def code(self, action: Action) -> int | None:
        return encode(action) if not self.finished else None

    def play(self, code: int) -> None:
        self.apply(self.to_move, code)

    def finish(self, rng: random.Random) -> float:
        if QUICK == "random":
            return self.finish_random(rng)
        while self.plays and not self.finished:
            self.quick_step()
        if not self.t.multi:
            self._finish_single()
        while not self.finished:
            self.quick_step()
        return self.value()

    def finish_random(self, rng: random.Random) -> float:
        """The deal played out by uniformly random movers (measured against ``finish``)."""
        while not self.finished:
            self.apply(self.to_move, rng.choice(self.legal(self.to_move)))
        return self.value()

    def value(self) -> float:
        """The searching seat's side's share of the card points (``search.deal_value``)."""
        total = sum(self.points)
        side = self.t.side[self.seat]
        if total <= 0:
            return self.tricks[side] / max(1, sum(self.tricks))
        return self.points[side] / total

    # --- declarations (RULES.md 1 Moscow and Molodka, RULES.md 2 pull) -------------------

    def declarations(self) -> dict[int, tuple[Card, ...]]:
        """The declarations open now, per seat, as ``DrawingDeal.declarations``."""
        t = self.t
        if self.finished or not (t.combos or t.pull):
            return {}
        plays = self.plays
        molodka = self.declared == "molodka" and len(plays) == 1
        if plays and not t.pull and not molodka:
            return {}
        out: dict[int, tuple[Card, ...]] = {}
        if t.combos and (not plays or molodka):
            for s in t.seats:
                hand = self.hands[s]
                if len(hand) == 4:
                    combo = t.combination(hand)
                    if (combo is not None and not plays) or combo == "moscow":
                        out[s] = tuple(sorted(hand))
        if t.pull and self.declared != "pull":
            self._pulls(out)
        return out

    def _pulls(self, out: dict[int, tuple[Card, ...]]) -> None:
        """RULES.md 2: four cards of one suit in the hand and on the table (not the leader
        before his lead: he just leads them)."""
        plays = self.plays
        for s in self.t.seats:
            if s in out:
                continue
            own = self.hands[s]
            if plays:
                for p in plays:
                    if p[0] == s:
                        own = own + list(p[2])
            elif s == self.leader:
                continue
            if len(own) < 4:
                continue
            suit = own[0] // 9
            for c in own:
                if c // 9 != suit:
                    break
            else:
                out[s] = tuple(sorted(own)[:4])

    def to_act(self) -> tuple[int, ...]:
        if self.finished:
            return ()
        return (self.to_move, *(s for s in self.declarations() if s != self.to_move))

    # --- legal moves ----------------------------------------------------------------------

    def legal(self, seat: int) -> list[int]:
        """Every legal move of ``seat`` as codes (moves first, then its declaration)."""
        if self.finished:
            return []
        out: list[int] = []
        hand = sorted(self.hands[seat])
        if seat == self.to_move:
            if not self.t.multi:
                kind = (PLAY if self.plays else LEAD) << SHIFT
                out = [kind | 1 << c for c in hand]
            elif not self.plays:
                out = [LEAD << SHIFT | mask_of(cs) for cs in self._leads(hand)]
            else:
                win = self.win_cards
                need = 0
                for w in win:
                    need |= self.t.beaters[w]
                able = [c for c in hand if need >> c & 1]
                beat = BEAT << SHIFT
                out = [beat | mask_of(cs) for cs in combinations(able, len(win)) if self.t.beats_set(cs, win)]
                out.extend(THROW << SHIFT | mask_of(cs) for cs in combinations(hand, len(win)))
        decl = self.declarations().get(seat)
        if decl is not None:
            out.append(DECLARE << SHIFT | mask_of(decl))
        return out

    def _leads(self, hand: list[Card]) -> list[tuple[Card, ...]]:
        """1-4 cards of one suit, the shokha joining any suit; no combination (a declaration)."""
        t = self.t
        shokha = t.shokha and SHOKHA in hand
        by_suit: dict[int, list[Card]] = {}
        for c in hand:
            if not (shokha and c == SHOKHA):
                by_suit.setdefault(c // 9, []).append(c)
        found: set[tuple[Card, ...]] = {(SHOKHA,)} if shokha else set()
        for cards in by_suit.values():
            for k in range(1, len(cards) + 1):
                for sub in combinations(cards, k):
                    found.add(sub)
                    if shokha and k < 4:
                        found.add(tuple(sorted((*sub, SHOKHA))))
        return [c for c in found if not (t.combos and len(c) == 4 and t.combination(c))]

    # --- the state machine ------------------------------------------------------------------

    def apply(self, seat: int, code: int) -> None:
        """``seat`` plays the legal move ``code``."""
        kind = code >> SHIFT
        cards = cards_of(code & CARDS)
        if kind == DECLARE:
            self._declare(seat, cards)
            return
        hand = self.hands[seat]
        for c in cards:
            hand.remove(c)
        self._put(seat, kind, cards)

    def _put(self, seat: int, kind: int, cards: tuple[Card, ...]) -> None:
        """The cards (out of the hand already) go to the trick; the trick ends if all played."""
        plays = self.plays
        if kind in (LEAD, BEAT):
            self.win_seat, self.win_cards = seat, cards
        elif kind == PLAY:
            t = self.t
            led = plays[0][2][0]
            if t.strength60(cards[0], led) > t.strength60(self.win_cards[0], led):
                self.win_seat, self.win_cards = seat, cards
        plays.append((seat, kind, cards))
        nxt = self.t.nxt[seat]
        if nxt == self.leader:
            self._finish_trick()
        else:
            self.to_move = nxt

    def _declare(self, seat: int, cards: tuple[Card, ...]) -> None:
        t = self.t
        combo = "pull" if t.pull else (t.combination(cards) or "molodka")
        for s, _kind, played in self.plays:
            self.hands[s].extend(played)
        hand = self.hands[seat]
        for c in cards:
            hand.remove(c)
        self.leader = self.win_seat = seat
        self.plays = [(seat, LEAD, cards)]
        self.win_cards = cards
        self.declared = combo
        self.to_move = t.nxt[seat]

    def _finish_trick(self) -> None:
        self._end_trick(self.win_seat, sum(POINTS[c] for p in self.plays for c in p[2]))

    def _end_trick(self, winner: int, points: int) -> None:
        """The trick's ``points`` to the winner's side, the drawing, the next trick or the end."""
        t = self.t
        side = t.side[winner]
        self.points[side] += points
        self.tricks[side] += 1
        self.last_winner = winner
        hands = self.hands
        stock = self.stock
        if stock:
            order = t.order[winner]
            size = t.size
            progress = True
            while stock and progress:
                progress = False
                for s in order:
                    if stock and len(hands[s]) < size:
                        hands[s].append(stock.pop())
                        progress = True
        if not any(hands[s] for s in t.seats):
            if self.reserve:
                self._second_half()
                winner = t.first_leader
            else:
                self.finished = True
                self.plays = []
                return
        self.leader = self.to_move = self.win_seat = winner
        self.plays = []
        self.win_cards = ()
        self.declared = None

    def _second_half(self) -> None:
        """RULES.md 3 halves: the second half dealt as the first; same trump and leader."""
        t = self.t
        seats = t.seats
        n = len(seats)
        start = seats.index(t.nxt[t.dealer] if t.dealer in seats else seats[0])
        for i, card in enumerate(self.reserve):
            self.hands[seats[(start + i) % n]].append(card)
        self.reserve = []

    # --- the quick player: the rules player's choices (engine.drawing_bot) -------------------

    def quick_step(self) -> None:
        """One action of the quick player (``quick_choice``)."""
        seat, kind, cards = self.quick_choice()
        if kind == DECLARE:
            self._declare(seat, cards)
            return
        hand = self.hands[seat]
        for c in cards:
            hand.remove(c)
        self._put(seat, kind, cards)

    def quick_choice(self) -> tuple[int, int, tuple[Card, ...]]:
        """(seat, kind, cards): who acts and how, as ``engine.simulate.step`` lets rules
        players act: out-of-turn declarers first, then the seat on move."""
        t = self.t
        mover = self.to_move
        if t.combos or t.pull:
            decls = self._open_declarations()
            if decls:
                for s, cards in decls.items():
                    if s != mover and self._declares_out_of_turn(s):
                        return s, DECLARE, cards
                mine = decls.get(mover)
                if mine is not None:
                    return mover, DECLARE, mine
        hand = self.hands[mover]
        if not t.multi:
            return mover, PLAY if self.plays else LEAD, (self._single(hand),)
        if self.plays:
            kind, cards = self._answer(mover, hand)
            return mover, kind, cards
        return mover, LEAD, self._lead(hand)

    def _open_declarations(self) -> dict[int, tuple[Card, ...]]:
        """``declarations``, skipped cheaply where none can be open."""
        if self.plays and not self.t.pull and not (self.declared == "molodka" and len(self.plays) == 1):
            return {}
        return self.declarations()

    def _declares_out_of_turn(self, seat: int) -> bool:
        if self.declared == "molodka" or not self.plays:
            return True
        return not self._mine(seat, self.win_seat)

    def _mine(self, seat: int, other: int) -> bool:
        return other % 2 == seat % 2 if self.t.partnership else other == seat

    def _lead(self, hand: list[Card]) -> tuple[Card, ...]:
        t = self.t
        joker = t.shokha and SHOKHA in hand and len(hand) > 1  # it joins any card
        if len({c // 9 for c in hand}) == len(hand) and not joker:
            # one card of each suit: every lead is one card, which the rules player leads
            # as in kozel-60 (engine.drawing_bot ``_single``)
            return (min(hand, key=t.key60.__getitem__),)
        if t.bot_shokha and SHOKHA in hand and not t.shokha:
            # the rules player counts on the preset's default shokha: it leads the 6S with
            # the most points it may (here: its spades)
            return tuple(sorted(c for c in hand if c // 9 == SHOKHA // 9))
        if t.shokha and SHOKHA in hand:
            # an unbeatable lead: the most points home with it (no combination: declared)
            best: list[Card] = []
            score = (-1, 0)
            for suit in range(4):
                cards = [c for c in hand if c // 9 == suit and c != SHOKHA][:3]
                if cards and (sum(POINTS[c] for c in cards), len(cards)) > score:
                    score, best = (sum(POINTS[c] for c in cards), len(cards)), cards
            return tuple(sorted((*best, SHOKHA)))
        return (min(hand, key=t.key.__getitem__),)

    def _answer(self, seat: int, hand: list[Card]) -> tuple[int, tuple[Card, ...]]:
        """Beat cheaply, throw low, points onto the own side's trick: (kind, cards)."""
        t = self.t
        win = self.win_cards
        k = len(win)
        if self._mine(seat, self.win_seat):
            if k == 1:
                return THROW, (min(hand, key=t.dkey.__getitem__),)
            return THROW, tuple(sorted(hand, key=t.dkey.__getitem__)[:k])
        cost = t.cost
        throw = [min(hand, key=t.key.__getitem__)] if k == 1 else sorted(hand, key=t.key.__getitem__)[:k]
        best = self._cheapest_beat(hand, win)
        if best is not None:
            beat_cost = sum(cost[c] for c in best)
            on_table = sum(POINTS[c] for p in self.plays if p[1] != THROW for c in p[2])
            gain = on_table + sum(POINTS[c] for c in best)
            if gain >= 10 or beat_cost <= sum(cost[c] for c in throw) + 20:
                return BEAT, best
        return THROW, tuple(throw)

    def _cheapest_beat(self, hand: list[Card], win: tuple[Card, ...]) -> tuple[Card, ...] | None:
        t = self.t
        table = t.beaters
        cost = t.cost
        if len(win) == 1:
            beats = table[win[0]]
            able = [c for c in hand if beats >> c & 1]
            return (min(able, key=t.key.__getitem__),) if able else None
        need = 0
        for w in win:
            need |= table[w]
        able = sorted(c for c in hand if need >> c & 1)
        found = None
        price = 1 << 30
        for cs in combinations(able, len(win)):
            p = sum(cost[c] for c in cs)
            if p < price and t.beats_set(cs, win):
                found, price = cs, p
        return found

    def _finish_single(self) -> None:
        """kozel-60 from the start of a trick to the deal's end: ``_single``'s choices, one
        trick at a time in one loop (the hot path of its playouts)."""
        t = self.t
        hands = self.hands
        key = t.key60.__getitem__
        nxt = t.nxt
        trump = t.trump
        while not self.finished:
            leader = self.leader
            hand = hands[leader]
            card = min(hand, key=key)
            hand.remove(card)
            row = t.s60[trump if card % 9 == JACK else card // 9]
            top = row[card]
            winner = leader
            points = POINTS[card]
            s = nxt[leader]
            while s != leader:
                hand = hands[s]
                choice = min(hand, key=key)
                able = [c for c in hand if row[c] > top]
                if able:
                    best = min(able, key=key)
                    if points + POINTS[best] >= 10 or (best // 9 != trump and best % 9 != JACK):
                        choice = best
                hand.remove(choice)
                points += POINTS[choice]
                if row[choice] > top:
                    top = row[choice]
                    winner = s
                s = nxt[s]
            self._end_trick(winner, points)

    def _single(self, hand: list[Card]) -> Card:
        """kozel-60: one card a trick, no duty to follow."""
        t = self.t
        cost = t.cost60
        cheapest = min(hand, key=lambda c: (cost[c], c))
        if not self.plays:
            return cheapest
        led = self.plays[0][2][0]
        top = t.strength60(self.win_cards[0], led)
        winners = [c for c in hand if t.strength60(c, led) > top]
        if winners:
            best = min(winners, key=lambda c: (cost[c], c))
            on_table = sum(POINTS[p[2][0]] for p in self.plays)
            if on_table + POINTS[best] >= 10 or (best // 9 != t.trump and best % 9 != JACK):
                return best
        return cheapest


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


def _plays(ps: list[list[Any]]) -> list[Play]:
    return [(s, _KIND_OF[k], tuple(unpack_cards(cs))) for s, k, cs in ps]


def build(game: Game, seat: int) -> DrawingCompact | None:
    """The compact form of ``game``'s current deal for ``seat`` (None once it is over)."""
    rules = game.rules
    if rules.family != "drawing" or game.finished:
        return None
    d = game.to_state()["deal"]
    if d["finished"]:
        return None
    seats = tuple(d["seats"])
    c = DrawingCompact.__new__(DrawingCompact)
    c.t = table_for(rules, seats, d["trump"], d["dealer"], d["first_leader"])
    c.seat = seat
    c.hands = [unpack_cards(h) for h in d["hands"]]
    c.stock = unpack_cards(d["stock"])
    c.reserve = unpack_cards(d["reserve"])
    c.points = [sum(POINTS[x] for x in unpack_cards(p)) for p in d["piles"]]
    c.tricks = list(d["tricks"])
    c.leader = d["leader"]
    c.to_move = d["to_move"]
    c.plays = _plays(d["plays"])
    c.win_seat = d["win_seat"]
    c.win_cards = tuple(unpack_cards(d["win_cards"]))
    c.declared = d["declared"]
    c.finished = False
    c.last_winner = d["last_winner"] if d["last_winner"] is not None else d["first_leader"]
    return c
