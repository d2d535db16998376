"""The drawing family's compact playout form (``kozel``, ``kozel-4``, ``kozel-60``; RULES.md 1-3).

One determinized deal as plain ints and small lists, built only from ``game.to_state()`` and
``game.rules`` (``engine.players.playout``): the hands, the stock, the trick on the table, the card
points and tricks per side. An action is one int (``engine.families.drawing.compact_table``: its
kind and the bit mask of its cards). ``legal`` gives every legal move of a seat as the
engine's ``legal_actions`` does (a property test compares them step by step:
``tests/engine/test_compact_drawing.py``); ``finish`` plays the deal out with a quick player
that plays as the family's rules player (``engine.families.drawing.bot``), out-of-turn declarations
included, without building any observation or event.
"""

from __future__ import annotations

import random
from itertools import combinations

from engine.actions import Action
from engine.cards import JACK, POINTS, SHOKHA, Card
from engine.families.drawing.compact_table import (
    BEAT,
    CARDS,
    DECLARE,
    KIND_OF,
    LEAD,
    PLAY,
    SHIFT,
    THROW,
    Play,
    Table,
    cards_of,
    encode,
    mask_of,
    table_for,
)
from engine.families.drawing.match import Match
from engine.game import Game

# the playouts' quick player: "rules" (the rules player's choices), "random" (uniform over
# the legal moves) or "mixed" (the rules player's choice, a random one with odds MIXED);
# bench/strength.py --quick measures one against the other (kozel 4p, seeds 0-199, first
# deals, at 100 ms' worth of playouts: rules 59.4% of the card points at 1,300 playouts,
# random 54.7% at 850; mixed 59.9% at 900 on seeds 0-49 only, against 56.8% for rules there)
QUICK = "rules"
MIXED = 0.3


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
        "piles",
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
    piles: list[list[Card]]  # as built (for ``relabel``: not kept up to date in play)

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
        c.piles = self.piles
        return c

    def relabel(self, f: list[Card]) -> DrawingCompact:
        """The same moment with every card ``x`` replaced by ``f[x]``: a determinization
        (``engine.players.sampler.Sampler.draw``) without building its ``Game``; the card points
        are counted again from the relabelled piles (face-down throws lie there)."""
        c = self.copy()
        c.hands = [[f[x] for x in h] for h in self.hands]
        c.stock = [f[x] for x in self.stock]
        c.reserve = [f[x] for x in self.reserve]
        c.piles = [[f[x] for x in p] for p in self.piles]
        c.points = [sum(POINTS[x] for x in p) for p in c.piles]
        c.plays = [(s, k, tuple(f[x] for x in cs)) for s, k, cs in self.plays]
        c.win_cards = tuple(f[x] for x in self.win_cards)
        return c

    # --- the Compact protocol (engine.players.playout) -------------------------------------------

    def code(self, action: Action) -> int | None:
        return encode(action) if not self.finished else None

    def play(self, code: int) -> None:
        self.apply(self.to_move, code)

    def finish(self, rng: random.Random) -> float:
        if QUICK == "random":
            return self.finish_random(rng)
        if QUICK == "mixed":
            while not self.finished:
                if rng.random() < MIXED:
                    self.apply(self.to_move, rng.choice(self.legal(self.to_move)))
                else:
                    self.quick_step()
            return self.value()
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
        points = 0
        for p in self.plays:
            for c in p[2]:
                points += POINTS[c]
        self._end_trick(self.win_seat, points)

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

    # --- the quick player: the rules player's choices (engine.families.drawing.bot) -------------------

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
            # as in kozel-60 (engine.families.drawing.bot ``_single``)
            return (min(hand, key=t.key60.__getitem__),)
        if t.bot_shokha and SHOKHA in hand and not t.shokha:
            # the rules player counts on the preset's default shokha: it leads the 6S with
            # the most points it may (here: its spades)
            return tuple(sorted(c for c in hand if c // 9 == SHOKHA // 9))
        if t.shokha and SHOKHA in hand:
            return self._shokha_lead(hand)
        return (min(hand, key=t.key.__getitem__),)

    def _shokha_lead(self, hand: list[Card]) -> tuple[Card, ...]:
        """The shokha's lead, unbeatable: the most points home with it (no combination:
        declared)."""
        best: list[Card] = []
        score = (-1, 0)
        for suit in range(4):
            cards = [c for c in hand if c // 9 == suit and c != SHOKHA][:3]
            if cards and (sum(POINTS[c] for c in cards), len(cards)) > score:
                score, best = (sum(POINTS[c] for c in cards), len(cards)), cards
        return tuple(sorted((*best, SHOKHA)))

    def _answer(self, seat: int, hand: list[Card]) -> tuple[int, tuple[Card, ...]]:
        """Beat cheaply, throw low, points onto the own side's trick: (kind, cards)."""
        t = self.t
        win = self.win_cards
        k = len(win)
        if self._mine(seat, self.win_seat):
            if k == 1:
                return THROW, (min(hand, key=t.dkey.__getitem__),)
            return THROW, tuple(sorted(hand, key=t.dkey.__getitem__)[:k])
        if k == 1:
            return self._answer_one(hand, win[0])
        cost = t.cost
        throw = sorted(hand, key=t.key.__getitem__)[:k]
        best = self._cheapest_beat(hand, win)
        if best is not None:
            beat_cost = sum(cost[c] for c in best)
            on_table = sum(POINTS[c] for p in self.plays if p[1] != THROW for c in p[2])
            gain = on_table + sum(POINTS[c] for c in best)
            if gain >= 10 or beat_cost <= sum(cost[c] for c in throw) + 20:
                return BEAT, best
        return THROW, tuple(throw)

    def _answer_one(self, hand: list[Card], win: Card) -> tuple[int, tuple[Card, ...]]:
        """``_answer`` to one card on the other side's trick (the common case, kept short)."""
        t = self.t
        key = t.key.__getitem__
        throw = min(hand, key=key)
        beats = t.beaters[win]
        able = [c for c in hand if beats >> c & 1]
        if able:
            best = min(able, key=key)
            gain = POINTS[best]
            for p in self.plays:
                if p[1] != THROW:
                    for c in p[2]:
                        gain += POINTS[c]
            cost = t.cost
            if gain >= 10 or cost[best] <= cost[throw] + 20:
                return BEAT, (best,)
        return THROW, (throw,)

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


def build(game: Game, seat: int) -> DrawingCompact | None:
    """The compact form of ``game``'s current deal for ``seat`` (None once it is over), read
    from the deal itself (``DrawingDeal``'s typed fields), never from its stored form."""
    if not isinstance(game, Match) or game.finished:
        return None
    d = game.deal
    if d.finished:
        return None
    c = DrawingCompact.__new__(DrawingCompact)
    c.t = table_for(game.rules, d.seats, d.trump, d.dealer, d.first_leader)
    c.seat = seat
    c.hands = [list(h) for h in d.hands]
    c.stock = list(d.stock)
    c.reserve = list(d.reserve)
    c.piles = [list(p) for p in d.piles]
    c.points = [sum(POINTS[x] for x in p) for p in c.piles]
    c.tricks = list(d.tricks)
    c.leader = d.leader
    c.to_move = d.to_move
    c.plays = [(s, KIND_OF[k], tuple(cs)) for s, k, cs in d.plays]
    c.win_seat = d.win_seat
    c.win_cards = tuple(d.win_cards)
    c.declared = d.declared
    c.finished = False
    last: int | None = getattr(d, "last_winner", None)
    c.last_winner = last if last is not None else d.first_leader
    return c
