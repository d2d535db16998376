"""The permanent-trump family's compact playout form (``engine.players.playout``; RULES.md 4, 4a-4c).

One determinized deal of ``kozel-hvalenyi``, ``kozel-nn`` or ``kozel-kocherga`` in trick
play: hands as bit masks over the 36 card ints, the trick as (seat, card) pairs, the teams'
card points and tricks. It is built from ``game.to_state()`` and ``game.rules`` only and
plays what ``engine.families.trump.match.TrumpMatch`` plays in that phase: follow suit (trumps are their
own suit), the ace rule, kozel-nn's no trump lead while holding a non-trump and its A♦
first lead, the catch of the Q♣ by the 6♣ (7♣) that ends the deal (a Lyusya in the last
trick beats it). Redeals are not modelled (``code`` gives None for one); the cut, the
boast and its redeal choice are not covered (``build`` gives None there).

The quick player (``finish``) is the family's rules player (``engine.families.trump.bot``) on masks:
catch the Q♣, lead masters, win tricks cheaply, smear points onto a partner's safe trick.
It knows which cards are still out (not who holds them), as a player counting cards does.

``tests/engine/test_compact_trump.py`` plays random deals both ways and compares them.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from engine.actions import Action
from engine.cards import ACE, KOZEL_STRENGTH, POINTS, Card
from engine.families.trump.deal import TrumpDeal
from engine.families.trump.match import TrumpMatch
from engine.families.trump.rules import QUEEN_CLUBS, TRUMPS, settings_of, table_for
from engine.family import CATCH
from engine.game import Game

QC_BIT = 1 << QUEEN_CLUBS
ALL = (1 << 36) - 1
# the playouts' quick player: "rules" (engine.families.trump.bot's choices) or "random" (uniform over
# the legal cards), measured one against the other at the same time a move
QUICK = "rules"


class Tables:
    """Per preset and trump suit: each card's class, strength, cost and masks."""

    __slots__ = ("cls", "strength", "costs", "smears", "higher", "class_mask", "trump_mask", "top", "forbid")

    def __init__(self, preset: str, suit: int) -> None:
        t = table_for(preset, suit)
        self.cls = t.cls
        self.strength = t.strength
        self.top = t.top
        # trump_bot._cost: how dear a card is to give up; [1]: the Q♣ while the 6♣ (7♣) is out
        cost = [
            60 + t.strength[c] + POINTS[c] * 2 if t.cls[c] == TRUMPS else POINTS[c] * 3 + KOZEL_STRENGTH[c]
            for c in range(36)
        ]
        # what smearing a card onto a partner's safe trick is worth
        smear = [POINTS[c] * 3 - (60 + t.strength[c] if t.cls[c] == TRUMPS else 0) for c in range(36)]
        risky_cost, risky_smear = cost[:], smear[:]
        risky_cost[QUEEN_CLUBS] += 200
        risky_smear[QUEEN_CLUBS] -= 200
        self.costs = (tuple(cost), tuple(risky_cost))
        self.smears = (tuple(smear), tuple(risky_smear))
        self.class_mask = [0] * 5
        for c in range(36):
            self.class_mask[t.cls[c]] |= 1 << c
        self.trump_mask = self.class_mask[TRUMPS]
        # the cards of the same class that beat each card
        self.higher = tuple(
            sum(1 << o for o in range(36) if t.cls[o] == t.cls[c] and t.strength[o] > t.strength[c])
            for c in range(36)
        )
        # the ace rule: per mask of opened suits, the plain aces that may not be thrown
        aces = [(s, s * 9 + ACE) for s in range(4) if t.cls[s * 9 + ACE] != TRUMPS]
        self.forbid = tuple(sum(1 << a for s, a in aces if not opened >> s & 1) for opened in range(16))


_TABLES: dict[tuple[str, int], Tables] = {}


def tables_for(preset: str, suit: int) -> Tables:
    found = _TABLES.get((preset, suit))
    if found is None:
        found = _TABLES[(preset, suit)] = Tables(preset, suit)
    return found


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


# per suit and 9-bit chunk of a mask: its cards
_CHUNKS = tuple(tuple(tuple(9 * s + b for b in _bits(m)) for m in range(512)) for s in range(4))


def cards_of(mask: int) -> list[int]:
    """The cards of a mask, low to high (the engine's sorted order)."""
    c = _CHUNKS
    return [*c[0][mask & 511], *c[1][mask >> 9 & 511], *c[2][mask >> 18 & 511], *c[3][mask >> 27]]


class TrumpCompact:
    """One deal in trick play (``engine.players.playout.Compact``)."""

    __slots__ = (
        "t",
        "nn",
        "ace_rule",
        "lyusya",
        "seat",
        "side",
        "hands",
        "plays",
        "led",
        "win_seat",
        "win_key",
        "trick_points",
        "points",
        "tricks",
        "opened",
        "forced",
        "to_move",
        "last_winner",
        "value",
        "piles",
        "ghosts",
    )

    t: Tables
    nn: bool
    ace_rule: bool
    lyusya: bool
    seat: int
    side: int
    hands: list[int]
    plays: list[tuple[int, int]]
    led: int
    win_seat: int
    win_key: int
    trick_points: int
    points: list[int]
    tricks: list[int]
    opened: int
    forced: int
    to_move: int
    last_winner: int
    value: float | None
    piles: list[list[int]]  # as built (for ``relabel``: not kept up to date in play)
    # cards in no hand that the rules player still counts as out: the boast's piles (it
    # counts only the cards played to tricks) and the cards the deck leaves out
    ghosts: int

    def copy(self) -> TrumpCompact:
        m = TrumpCompact.__new__(TrumpCompact)
        # each field by name: a loop over __slots__ (getattr, setattr) cost a tenth of a search
        m.t, m.nn, m.ace_rule, m.lyusya = self.t, self.nn, self.ace_rule, self.lyusya
        m.seat, m.side, m.led, m.win_seat, m.win_key = (
            self.seat,
            self.side,
            self.led,
            self.win_seat,
            self.win_key,
        )
        m.trick_points, m.opened, m.forced, m.to_move = (
            self.trick_points,
            self.opened,
            self.forced,
            self.to_move,
        )
        m.last_winner, m.value, m.piles, m.ghosts = self.last_winner, self.value, self.piles, self.ghosts
        m.hands = self.hands[:]
        m.plays = self.plays[:]
        m.points = self.points[:]
        m.tricks = self.tricks[:]
        return m

    def relabel(self, f: list[int]) -> TrumpCompact:
        """The same moment with every card ``x`` replaced by ``f[x]``: a determinization
        (``engine.players.sampler.Sampler.draw``) without building its ``Game``
        (``engine.players.playout.Relabels``)."""
        m = self.copy()
        m.hands = [sum(1 << f[c] for c in cards_of(h)) for h in self.hands]
        m.plays = [(s, f[c]) for s, c in self.plays]
        m.piles = [[f[c] for c in p] for p in self.piles]
        m.points = [sum(POINTS[c] for c in p) for p in m.piles]
        if self.forced >= 0:
            m.forced = f[self.forced]
        if any(f[c] != c for _s, c in self.plays):  # (cards on the table are seen: never)
            plays, m.plays = m.plays, []
            for s, c in plays:
                m.to_move = s
                m.hands[s] |= 1 << c
                m.play(c)
        return m

    def code(self, action: Action) -> int | None:
        return action.cards[0] if action.kind == "play" else None

    def legal(self) -> list[int]:
        """The cards the seat on move may play (``TrumpMatch._plays_for``)."""
        return cards_of(self.legal_mask())

    def legal_mask(self) -> int:
        hand = self.hands[self.to_move]
        if not self.plays:
            if self.forced >= 0:
                return 1 << self.forced
            if self.nn:
                return hand & ~self.t.trump_mask or hand
            return hand
        follow = hand & self.t.class_mask[self.led]
        if follow:
            return follow
        if self.ace_rule:
            return hand & ~self.t.forbid[self.opened] or hand
        return hand

    def play(self, code: int) -> None:
        t = self.t
        s = self.to_move
        self.hands[s] &= ~(1 << code)
        plays = self.plays
        cls = t.cls[code]
        if not plays:
            self.led = cls
            if cls != TRUMPS:
                self.opened |= 1 << (code // 9)
            self.win_seat, self.win_key = s, t.strength[code]
            self.trick_points = 0
        elif cls == TRUMPS or cls == self.led:
            key = t.strength[code]
            if key > self.win_key:
                self.win_seat, self.win_key = s, key
        plays.append((s, code))
        self.trick_points += POINTS[code]
        self.forced = -1
        if (code == t.top or code == QUEEN_CLUBS) and self._caught():
            return
        if len(plays) < 4:
            self.to_move = (s + 1) % 4
            return
        winner = self.win_seat
        side = winner % 2
        self.points[side] += self.trick_points
        self.tricks[side] += 1
        self.last_winner = winner
        self.plays = []
        if self.hands[winner]:
            self.to_move = winner
            return
        self._end()

    def _caught(self) -> bool:
        """The 6♣ (7♣) and the other team's Q♣ in this trick end the deal (RULES.md 4a)."""
        catcher = victim = -1
        for s, c in self.plays:
            if c == self.t.top:
                catcher = s
            elif c == QUEEN_CLUBS:
                victim = s
        if catcher < 0 or victim < 0 or catcher % 2 == victim % 2:
            return False
        last = not self.hands[self.plays[0][0]]
        if self.lyusya and last and self.tricks[1 - catcher % 2] == 0:
            return False  # a sweep beats the catch in the last trick
        self.value = CATCH if catcher % 2 == self.side else 1.0 - CATCH
        self.to_move = -1
        return True

    def _end(self) -> None:
        """``engine.players.search.deal_value`` of the DealEnded: the side's card points share."""
        total = self.points[0] + self.points[1]
        if total <= 0:
            self.value = self.tricks[self.side] / max(1, self.tricks[0] + self.tricks[1])
        else:
            self.value = self.points[self.side] / total
        self.to_move = -1

    def finish(self, rng: random.Random) -> float:
        rules = QUICK == "rules"
        while self.value is None:
            mask = self.legal_mask()
            if not mask & (mask - 1):
                self.play(mask.bit_length() - 1)
            elif rules:
                self.play(self.choose(cards_of(mask)))
            else:
                self.play(rng.choice(cards_of(mask)))
        return self.value

    def likelihood(self, history: list[tuple[int, int]], miss: float) -> float:
        """How well the quick player explains the other seats' plays of this deal so far if
        this determinization were the truth: ``history`` is the deal's plays, (seat, card),
        from its first lead; each play of theirs that the quick player would not have made
        (it had a choice) multiplies the weight by ``miss`` (``engine.players.playout.Weighs``)."""
        weight = 1.0
        for _ in range(self.misses(history, {})):
            weight *= miss
        return weight

    def misses(self, history: list[tuple[int, int]], known: dict[int, int]) -> int:
        """The other seats' plays of ``history`` that the quick player would not have made
        in this determinization. A seat's choices hang only on its own hand and on what
        everyone saw, so its count is kept in ``known`` under its hand (``hand << 2 | seat``,
        one dict per search move, its ``history`` fixed) and replayed only for hands not
        met before."""
        hands = self.hands
        keys = [hands[s] << 2 | s for s in range(4)]
        total = 0
        todo = 0
        for s in range(4):
            if s != self.seat:
                count = known.get(keys[s])
                if count is None:
                    todo |= 1 << s
                else:
                    total += count
        if not todo:
            return total
        counts = [0, 0, 0, 0]
        m = self.copy()
        hands = m.hands
        for s, c in history:
            hands[s] |= 1 << c
        m.plays = []
        m.opened = 0
        m.forced = -1
        for n, (s, c) in enumerate(history):
            m.to_move = s
            if todo >> s & 1 and not (n == 0 and self.nn):  # (kozel-nn's A♦ lead: forced)
                mask = m.legal_mask()
                if mask & (mask - 1) and m.choose(cards_of(mask)) != c:
                    counts[s] += 1
            m.play(c)
        for s in range(4):
            if todo >> s & 1:
                known[keys[s]] = counts[s]
                total += counts[s]
        return total

    # --- the quick player (engine.families.trump.bot on masks) --------------------------------------

    def choose(self, cards: list[int]) -> int:
        t = self.t
        s = self.to_move
        hands = self.hands
        out = (hands[0] | hands[1] | hands[2] | hands[3] | self.ghosts) & ~hands[s]
        risky = out >> t.top & 1
        cost = t.costs[risky].__getitem__
        plays = self.plays
        if not plays:
            return self._lead(cards, out, cost)
        if t.top in cards and any(c == QUEEN_CLUBS and p % 2 != s % 2 for p, c in plays):
            return t.top
        higher = t.higher
        last = len(plays) == 3
        if self.win_seat % 2 == s % 2:
            win_card = next(c for p, c in plays if p == self.win_seat)
            if last or (t.cls[win_card] == TRUMPS and not out & higher[win_card]):
                return max(cards, key=t.smears[risky].__getitem__)
            return min(cards, key=cost)
        return self._answer_opponent(cards, out, cost, last)

    def _answer_opponent(self, cards: list[int], out: int, cost: Callable[[int], int], last: bool) -> int:
        """The quick player's answer to a trick an opponent holds: take it when worth it,
        else the cheapest card."""
        t = self.t
        led, strength, cls = self.led, t.strength, t.cls
        win_key = self.win_key
        winners = [c for c in cards if (cls[c] == TRUMPS or cls[c] == led) and strength[c] > win_key]
        if winners:
            best = self._best_winner(winners, out, cost, last)
            gain = self.trick_points + POINTS[best]
            if gain >= 4 or cls[best] != TRUMPS or cost(best) < 110 or last and gain > 0:
                return best
        return min(cards, key=cost)

    def _best_winner(self, winners: list[int], out: int, cost: Callable[[int], int], last: bool) -> int:
        if last:
            return min(winners, key=cost)
        t = self.t
        sure = [c for c in winners if t.cls[c] == TRUMPS and not out & t.higher[c]]
        if not sure and self.led != TRUMPS:
            sure = [c for c in winners if t.cls[c] == self.led and KOZEL_STRENGTH[c] >= 7]
        return min(sure or winners, key=cost)

    def _lead(self, cards: list[int], out: int, cost: Callable[[int], int]) -> int:
        t = self.t
        cls, higher = t.cls, t.higher
        trumps = [c for c in cards if cls[c] == TRUMPS]
        plain = [c for c in cards if cls[c] != TRUMPS]
        masters = [c for c in plain if not out & higher[c]]
        if masters:
            return max(masters, key=POINTS.__getitem__)
        if len(trumps) >= 3:
            top = [c for c in trumps if not out & higher[c]]
            if top:
                return max(top, key=t.strength.__getitem__)
        return min(plain or trumps, key=cost)


def _mask(cards: list[Card]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def from_deal(preset: str, settings: Any, d: TrumpDeal, seat: int) -> TrumpCompact | None:
    """The compact form of a deal in trick play (``TrumpDeal``'s typed fields); None outside it."""
    if d.phase != "play":
        return None
    m = TrumpCompact.__new__(TrumpCompact)
    m.t = tables_for(preset, settings.suit)
    m.nn = settings.nn
    m.ace_rule = settings.ace_rule
    m.lyusya = settings.lyusya is not None
    m.seat = seat
    m.side = seat % 2
    m.hands = [_mask(h) for h in d.hands]
    m.piles = [list(p) for p in d.piles]
    boast = {c for cards, _w in d.boast_piles for c in cards}
    seen = {c for p in m.piles for c in p if c not in boast} | {c for _s, c in d.plays}
    m.ghosts = ALL & ~sum(m.hands) & ~sum(1 << c for c in seen)
    m.points = [sum(POINTS[c] for c in p) for p in m.piles]
    m.tricks = list(d.tricks)
    m.opened = d.opened
    m.forced = -1 if d.forced is None else d.forced
    m.to_move = d.to_move
    m.last_winner = -1
    m.value = None
    m.plays = []
    m.led = m.win_seat = m.win_key = m.trick_points = 0
    for s, c in d.plays:
        # the trick so far, replayed onto the compact form's running winner
        m.to_move = s
        m.hands[s] |= 1 << c
        m.play(c)
    if m.to_move != d.to_move:
        return None
    return m


def build(game: Game, seat: int) -> TrumpCompact | None:
    """``Family.compact``: the deal of ``game`` for ``seat``, or None outside trick play."""
    if not isinstance(game, TrumpMatch) or game.finished:
        return None
    return from_deal(game.rules.preset, settings_of(game.rules), game.deal, seat)
