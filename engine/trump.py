"""Permanent-trump Kozel: ``kozel-hvalenyi``, ``kozel-nn``, ``kozel-kocherga`` (RULES.md 4).

One class, ``TrumpMatch``, keeps the contract of docs/families.md for the three presets;
the rules it plays (events, the trump table) are in ``engine.trump_rules``, its computer
player in ``engine.trump_bot`` and its observation in ``engine.trump_view``.
Every card is dealt; a fixed list of trumps (``trump_order``) ranks above the plain suits;
players must follow suit (trumps are their own suit). A match holds the state of the current
*dealing* (one record of ``history``: a deal, a redeal, or a boast made again) and the match
score. Cards are ints (``engine.cards``); a deck's index 0 is its top card.

Phases of a dealing: ``"cut"`` (kozel-nn: the player right of the dealer cuts), ``"boast"``
(kozel-nn from the second deal: the "trousers"), ``"redeal"`` (kozel-nn: the boast team
chooses ``reboast`` or ``keep``) and ``"play"``.
"""

from __future__ import annotations

from typing import Any

from engine.actions import Action
from engine.cards import (
    ACE,
    DIAMONDS,
    QUEEN,
    Card,
    make,
)
from engine.errors import IllegalAction
from engine.events import DealEnded, DealStarted, Event, MatchEnded, Played, TrickWon
from engine.match import DealRecord, DeckSource, first_dealer, shuffled_deck
from engine.observe import Observation
from engine.presets import Rules
from engine.trump_bot import rules_choice
from engine.trump_rules import (
    ACE_DIAMONDS,
    LIMIT,
    QUEENS,
    REDEAL_POINTS,
    REDEALS_IN_A_ROW,
    TRUMPS,
    BoastChosen,
    BoastGiven,
    BoastRevealed,
    BoastVoid,
    Covered,
    DeckCut,
    Laid,
    Lyusya,
    PileWon,
    QueenCaught,
    RedealAsked,
    RedealPenalty,
    Shuffled,
    Table,
    TrumpPlay,
    catch,
    points_of,
    score_deal,
    settings_of,
    table_for,
    trump_order,
    trump_suit,
)
from engine.trump_state import restore, state_of
from engine.trump_view import observe_trump

# the family's names, where they were before its rules and computer player had modules of
# their own (engine.trump_rules, engine.trump_bot)
__all__ = [
    "LIMIT",
    "REDEAL_POINTS",
    "REDEALS_IN_A_ROW",
    "TRUMPS",
    "BoastChosen",
    "BoastGiven",
    "BoastRevealed",
    "BoastVoid",
    "Covered",
    "DeckCut",
    "Laid",
    "Lyusya",
    "PileWon",
    "QueenCaught",
    "RedealAsked",
    "RedealPenalty",
    "Shuffled",
    "Table",
    "TrumpMatch",
    "TrumpPlay",
    "rules_choice",
    "settings_of",
    "table_for",
    "trump_order",
    "trump_suit",
]

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
        self.moment = 0  # Observation.moment: rises with every trick, dealing, phase
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
        self.plays: list[TrumpPlay] = []
        self.last_trick: tuple[int, tuple[TrumpPlay, ...]] | None = None
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
            plays = [TrumpPlay(self.boaster, card)] + [TrumpPlay(s, cs[i]) for s, cs in self.covers]
            winner = self.table.winner(plays)
            cards = tuple(c for _s, c in plays)
            piles.append((cards, winner))
            self.piles[winner % 2].extend(cards)
            self.tricks[winner % 2] += 1
            events.append(PileWon(winner, winner % 2, cards, points_of(cards)))
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
        best = max(range(len(piles)), key=lambda i: (points_of(piles[i][0]), -i))
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
            held = {c for s in (seat, (seat + 2) % 4) for c in self.hands[s] if c in QUEENS}
            return held <= {make(QUEEN, DIAMONDS)}
        return points_of(self.hands[seat]) <= REDEAL_POINTS

    def to_act(self) -> tuple[int, ...]:
        """[0] is the seat on move; later seats may ask for a redeal (clockwise order)."""
        if self.finished:
            return ()
        mover = self.to_move
        if not self._before_first_card():
            return (mover,)
        extra = tuple(s for s in ((mover + i) % 4 for i in range(1, 4)) if self._may_redeal(s))
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
            ok = [c for c in hand if cls[c] == TRUMPS or c % 9 != ACE or self.opened >> (c // 9) & 1]
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
            return self._why_card(seat, cards)
        return "bad_lay" if action.kind == "lay" else "bad_cover"

    def _why_card(self, seat: int, cards: tuple[Card, ...]) -> str:
        if len(cards) != 1:
            return "one_card"
        if not self.plays:
            return "no_trump_lead" if self.forced is None else "must_lead_ace_of_diamonds"
        led = self.table.cls[self.plays[0][1]]
        if any(self.table.cls[c] == led for c in self.hands[seat]):
            return "must_follow_suit"
        return "ace_rule"

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
        self.plays.append(TrumpPlay(seat, card))
        self.played += 1
        self.forced = None
        events: list[Event] = [Played(seat, card)]
        caught = catch(self.plays, self.table.top)
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

    # --- scoring ----------------------------------------------------------------------

    def _score_deal(self) -> list[Event]:
        """Every card played: eyes (4a, 4c) or penalties (4b)."""
        points = [points_of(p) for p in self.piles]
        r = score_deal(self.nn, self.lyusya, points, self.tricks, self.scores, self.eggs)
        self.eggs = r.eggs
        events: list[Event] = []
        if r.sweep is not None:
            assert self.lyusya is not None
            events.append(Lyusya(r.sweep, self.lyusya))
        return events + self._end_deal(points, r.scored, r.outcome, r.doubled, r.match_winner)

    def _end_deal(
        self,
        points: list[int] | None,
        scored: list[int],
        outcome: str,
        doubled: bool,
        match_winner: int | None = None,
    ) -> list[Event]:
        """Record the deal, add ``scored``, end the match or deal the next deal."""
        self.scores = [a + b for a, b in zip(self.scores, scored, strict=True)]
        shown = points if points is not None else [points_of(p) for p in self.piles]
        events: list[Event] = [
            DealEnded(
                self.deal_no,
                tuple(shown),
                tuple(self.tricks),
                tuple(scored),
                tuple(self.scores),
                outcome,
                doubled,
            )
        ]
        self.history[-1].result = {
            "points": points,
            "tricks": list(self.tricks),
            "score": list(self.scores),
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

    def observe(self, seat: int | None = None) -> Observation:
        return observe_trump(self, seat)

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
        if sorted(self.all_cards()) != sorted(self.deck) or sorted(self.deck) != sorted(self.rules.deck):
            return f"dealing {self.dealing}: a card is missing or doubled"
        return None

    # --- storage ----------------------------------------------------------------------

    def to_state(self) -> dict[str, Any]:
        """The match as compact JSON-safe data (cards packed with ``engine.codec``)."""
        return state_of(self)

    @classmethod
    def from_state(cls, rules: Rules, state: dict[str, Any]) -> TrumpMatch:
        """The inverse of ``to_state``; ``history`` then holds only the current dealing."""
        m = cls.__new__(cls)
        m.rules = rules
        m.seed = state["seed"]
        m.decks = lambda no, _dealer: shuffled_deck(rules, m.seed, no)
        m._setup_rules()
        restore(m, state)
        return m

    def copy(self) -> TrumpMatch:
        m = TrumpMatch.__new__(TrumpMatch)
        m.__dict__.update(self.__dict__)
        m.scores = self.scores[:]
        last = self.history[-1]
        m.history = [
            *self.history[:-1],
            DealRecord(last.dealer, last.deck, last.trump_card, last.actions[:], last.result),
        ]
        m.hands = [h[:] for h in self.hands]
        m.piles = [p[:] for p in self.piles]
        m.tricks = self.tricks[:]
        m.plays = self.plays[:]
        m.stock = self.stock[:]
        m.covers = self.covers[:]
        m.boast_piles = self.boast_piles[:]
        m.start_events = self.start_events[:]
        return m
