"""The Petukh family: ``petukh`` and ``petukh-25`` (RULES.md 5, 5a).

Each player is his own side and his score is his **record**, counting down from the start
value; the first to bring it to exactly 0 wins. A deal runs in three phases: ``exchange``
(in turn from the dealer's left: discard and draw, keep, or pass), ``swap`` (the dealer may
take the face-up trump) and ``play`` (five tricks of one card each).

The match is ``PetukhMatch`` (the contract of docs/families.md); the rules it plays, as data
and pure functions, are in ``engine.petukh_rules`` and its computer player in
``engine.petukh_bot``. Cards are
ints (``engine.cards``); rank order is the index order 6 7 8 9 10 J Q K A (RULES.md 5
[decision]). The stock is a list whose element 0 is the next card drawn.

Decisions this module takes where RULES.md is silent are marked **[decision]**.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from engine.actions import Action
from engine.cards import ACE, CARD_TEXT, JACK, Card, make
from engine.codec import pack_action, pack_cards, unpack_action, unpack_cards
from engine.errors import IllegalAction
from engine.events import DealStarted, Event, MatchEnded, Played, TrickWon
from engine.match import DealRecord, DeckSource, first_dealer, shuffled_deck
from engine.observe import Observation
from engine.petukh_bot import rules_choice
from engine.petukh_rules import (
    FINISH_RECORD,
    HAND,
    LOW_RECORD,
    SPADE_ACE,
    STANDARD_BOYS,
    THIRTY_BOYS,
    BoysDeclared,
    BoysFinish,
    DealScored,
    Exchanged,
    Kept,
    Passed,
    Play,
    PlayStarted,
    RoosterChosen,
    Skipped,
    TrumpLeft,
    TrumpSwapped,
    answers,
    best_boys,
    boys_value,
    deal_change,
    settings_of,
    trick_winner,
    why_not_answer,
)
from engine.petukh_view import observe_petukh
from engine.presets import Rules

# the family's names, where they were before its rules and computer player had modules of
# their own (engine.petukh_rules, engine.petukh_bot)
__all__ = [
    "FINISH_RECORD",
    "HAND",
    "LOW_RECORD",
    "SPADE_ACE",
    "STANDARD_BOYS",
    "THIRTY_BOYS",
    "BoysDeclared",
    "BoysFinish",
    "DealScored",
    "Exchanged",
    "Kept",
    "Passed",
    "Play",
    "PetukhMatch",
    "PlayStarted",
    "RoosterChosen",
    "Skipped",
    "TrumpLeft",
    "TrumpSwapped",
    "best_boys",
    "boys_value",
    "deal_change",
    "rules_choice",
    "settings_of",
    "trick_winner",
]

# --- the match -----------------------------------------------------------------------------

_PHASE_KINDS = {
    "exchange": ("exchange", "keep", "pass"),
    "swap": ("swap", "keep"),
    "play": ("play", "skip", "finish"),
}


class PetukhMatch:
    """A whole Petukh match between ``rules.players`` seats."""

    rules: Rules
    seed: int | str
    deal_no: int
    dealer: int
    scores: list[int]
    finished: bool
    winners: tuple[int, ...]
    history: list[DealRecord]
    start_events: list[Event]

    def __init__(
        self,
        rules: Rules,
        seed: int | str = 0,
        dealer: int | None = None,
        decks: DeckSource | None = None,
    ) -> None:
        self.rules = rules
        self.seed = seed
        self.cfg = settings_of(rules)
        self.decks: DeckSource = decks or (lambda no, _d: shuffled_deck(rules, seed, no))
        n = rules.players
        self.scores = [self.cfg.start] * n
        self.skips_left = [self.cfg.skips] * n
        self.finished = False
        self.winners = ()
        self.roosters: tuple[int, ...] = ()
        self.debts: tuple[tuple[int, int, int], ...] = ()
        self.history = []
        self.deal_no = 0
        self.dealer = first_dealer(n, seed) if dealer is None else dealer
        self.start_events = []
        self.start_events = self._new_deal()

    # --- dealing ------------------------------------------------------------------------

    def _new_deal(self, deck: list[Card] | None = None) -> list[Event]:
        rules, cfg = self.rules, self.cfg
        n = rules.players
        self.deal_no += 1
        if deck is None:
            deck = list(self.decks(self.deal_no, self.dealer)[0])
        self.history.append(DealRecord(self.dealer, list(deck), None))
        self.start_records = list(self.scores)
        self.start_skips = list(self.skips_left)
        self.deck = tuple(deck)
        left = (self.dealer + 1) % n
        self.hands: list[list[Card]] = [[] for _ in range(n)]
        dealt = HAND * n
        for i in range(dealt):
            self.hands[(left + i) % n].append(deck[i])
        if rules.trump_mode == "turn":
            # RULES.md 5: the top card of the stock is turned; it is not part of the stock.
            self.trump_card: Card = deck[dealt]
            self.face_up: Card | None = deck[dealt]
            self.stock = list(deck[dealt + 1 :])
        else:
            # RULES.md 5 (6 players), 5a: the dealer's last card is shown and is trump.
            self.trump_card = deck[dealt - 1]
            self.face_up = None
            self.stock = list(deck[dealt:])
        self.trump = self.trump_card // 9
        self.discards: list[Card] = []  # face down: exchanged, swapped and passed cards
        self.passed = [False] * n
        self.piles: list[list[Card]] = [[] for _ in range(n)]
        self.tricks = [0] * n
        self.plays: list[Play] = []
        self.last_trick: tuple[int, tuple[Play, ...]] | None = None
        self.boys: dict[int, tuple[str, tuple[Card, ...]]] = {}
        self.jack_played = [False] * n
        self.bonus = [0] * n  # the spade ace's -5 / +5
        self.done_tricks = 0
        self.counter = 0
        self.moment = 0
        self.leader = left
        self.to_move = left
        # RULES.md 5: nobody exchanges or swaps when a record is 1 (nor with 6 players).
        self.exchange_open = cfg.exchange and 1 not in self.scores
        self.phase = "exchange"
        events: list[Event] = [DealStarted(self.deal_no, self.dealer, self.trump, self.trump_card, left)]
        self._exchange_turn(left, events)
        return events

    # --- who acts -----------------------------------------------------------------------

    def to_act(self) -> tuple[int, ...]:
        return () if self.finished else (self.to_move,)

    def seats_in_play(self) -> tuple[int, ...]:
        return tuple(s for s in range(self.rules.players) if not self.passed[s])

    def _next_in_play(self, seat: int) -> int:
        n = self.rules.players
        for i in range(1, n + 1):
            s = (seat + i) % n
            if not self.passed[s]:
                return s
        return seat

    def _exchange_options(self, seat: int) -> list[Action]:
        acts = [Action("keep")]
        if self.scores[seat] <= LOW_RECORD:
            return acts  # RULES.md 5: plays his own cards
        others_in = any(not self.passed[s] for s in range(self.rules.players) if s != seat)
        if self.cfg.may_pass and others_in:
            acts.append(Action("pass"))
        if self.exchange_open:
            hand = sorted(self.hands[seat])
            # RULES.md 5 [decision]: at most as many cards as the stock still holds.
            for size in range(1, min(HAND, len(self.stock), len(hand)) + 1):
                acts.extend(Action("exchange", combo) for combo in combinations(hand, size))
        return acts

    def _swap_options(self) -> list[Action]:
        acts = [] if self.cfg.swap == "must" else [Action("keep")]
        acts.extend(Action("swap", (c,)) for c in sorted(self.hands[self.dealer]))
        return acts

    def _may_swap(self) -> bool:
        d = self.dealer
        return (
            self.face_up is not None
            and self.cfg.swap != "never"
            and self.exchange_open
            and not self.passed[d]
            and self.scores[d] > LOW_RECORD
        )

    def _exchange_turn(self, seat: int, events: list[Event]) -> None:
        """Give the exchange to ``seat`` or the next seat up to the dealer with a choice.

        [decision] A seat whose only choice is ``keep`` is passed over without a button.
        """
        n = self.rules.players
        while True:
            if len(self._exchange_options(seat)) > 1:
                self.to_move = seat
                return
            if seat == self.dealer:
                break
            seat = (seat + 1) % n
        self._after_exchange(events)

    def _after_exchange(self, events: list[Event]) -> None:
        if self._may_swap():
            self.phase = "swap"
            self.moment += 1
            self.to_move = self.dealer
            return
        self._start_play(events)

    def _start_play(self, events: list[Event]) -> None:
        self.phase = "play"
        self.moment += 1
        # RULES.md 5: the first player left of the dealer who has not passed leads.
        self.leader = self._next_in_play(self.dealer)
        self.to_move = self.leader
        events.append(PlayStarted(self.leader, self.seats_in_play()))

    # --- legal actions ------------------------------------------------------------------

    def legal_actions(self, seat: int) -> list[Action]:
        if self.finished or seat != self.to_move:
            return []
        if self.phase == "exchange":
            return self._exchange_options(seat)
        if self.phase == "swap":
            return self._swap_options()
        return self._play_options(seat)

    def _playable(self, seat: int) -> list[Card]:
        hand = self.hands[seat]
        if not self.plays:
            ace = make(ACE, self.trump)
            if self.cfg.lead_trump_ace and ace in hand:
                return [ace]  # RULES.md 5 lead_trump_ace, 5a
            return sorted(hand)
        return sorted(answers(self.plays, hand, self.trump, self.cfg.answer))

    def _play_options(self, seat: int) -> list[Action]:
        acts = [Action("play", (c,)) for c in self._playable(seat)]
        if self.plays and self.skips_left[seat] > 0:
            acts.append(Action("skip"))  # RULES.md 5a [decision]: the leader may not skip
        if self._may_finish(seat):
            acts.append(Action("finish"))
        return acts

    def _may_finish(self, seat: int) -> bool:
        return (
            self.cfg.boys_finish
            and self.scores[seat] <= FINISH_RECORD
            and sum(1 for c in self.hands[seat] if c % 9 == JACK) >= 2
        )

    def check(self, seat: int, action: Action) -> str | None:
        if self.finished:
            return "match_over"
        if not 0 <= seat < self.rules.players:
            return "no_such_seat"
        if seat != self.to_move:
            return "not_your_turn"
        if action in self.legal_actions(seat):
            return None
        return self._why(seat, action)

    def _why(self, seat: int, action: Action) -> str:
        """The reason code of an illegal action by the seat on move."""
        kind, cards = action.kind, action.cards
        hand = self.hands[seat]
        if kind not in _PHASE_KINDS[self.phase]:
            return "wrong_phase"
        if len(set(cards)) != len(cards) or any(c not in hand for c in cards):
            return "not_in_hand"
        if kind in ("keep", "pass", "skip", "finish") and cards:
            return "no_cards_wanted"
        if kind != "play":
            return self._why_not_now(seat, kind, len(cards))
        if len(cards) != 1:
            return "one_card"
        if not self.plays:
            return "must_lead_trump_ace"
        return why_not_answer(self.plays, hand, self.trump, self.cfg.answer, cards[0])

    def _why_not_now(self, seat: int, kind: str, count: int) -> str:
        """The reason code of an illegal move other than a card played."""
        low = self.scores[seat] <= LOW_RECORD
        if kind == "exchange":
            if low:
                return "record_too_low"
            if not self.exchange_open:
                return "no_exchange"
            return "bad_count" if not 1 <= count <= HAND else "stock_too_small"
        if kind == "pass":
            if not self.cfg.may_pass:
                return "no_passing"
            return "record_too_low" if low else "last_may_not_pass"
        if kind == "skip":
            if not self.cfg.skips:
                return "no_skipping"
            return "leader_may_not_skip" if not self.plays else "no_skips_left"
        return {"keep": "must_swap", "swap": "one_card", "finish": "may_not_finish"}[kind]

    # --- applying -----------------------------------------------------------------------

    def apply(self, seat: int, action: Action) -> list[Event]:
        reason = self.check(seat, action)
        if reason is not None:
            raise IllegalAction(reason, f"{action} by seat {seat}: {reason.replace('_', ' ')}")
        self.history[-1].actions.append((seat, action))
        self.counter += 1
        events: list[Event] = []
        if self.phase == "exchange":
            self._apply_exchange(seat, action, events)
        elif self.phase == "swap":
            if action.kind == "swap":
                card = action.cards[0]
                assert self.face_up is not None
                self.hands[seat].remove(card)
                self.discards.append(card)
                self.hands[seat].append(self.face_up)
                events.append(TrumpSwapped(seat, self.face_up))
                self.face_up = None
            else:
                events.append(TrumpLeft(seat))
            self._start_play(events)
        else:
            self._apply_play(seat, action, events)
        return events

    def _apply_exchange(self, seat: int, action: Action, events: list[Event]) -> None:
        hand = self.hands[seat]
        if action.kind == "exchange":
            k = len(action.cards)
            for c in action.cards:
                hand.remove(c)
            self.discards.extend(action.cards)
            hand.extend(self.stock[:k])
            del self.stock[:k]
            events.append(Exchanged(seat, k))
        elif action.kind == "pass":
            self.passed[seat] = True
            self.discards.extend(hand)
            hand.clear()
            events.append(Passed(seat))
        else:
            events.append(Kept(seat))
        if seat == self.dealer:
            self._after_exchange(events)
        else:
            self._exchange_turn((seat + 1) % self.rules.players, events)

    def _apply_play(self, seat: int, action: Action, events: list[Event]) -> None:
        if action.kind == "finish":
            jacks = tuple(sorted(c for c in self.hands[seat] if c % 9 == JACK))
            events.append(BoysFinish(seat, jacks))
            self._end_deal(events, finisher=seat)
            return
        if action.kind == "skip":
            self.skips_left[seat] -= 1
            self.plays.append(Play(seat, "skip", ()))
            events.append(Skipped(seat, self.skips_left[seat]))
        else:
            card = action.cards[0]
            hand = self.hands[seat]
            if card % 9 == JACK and self.cfg.boys and not self.jack_played[seat]:
                # RULES.md 5 [decision]: boys are declared with the first jack played.
                self.jack_played[seat] = True
                held = sorted(c for c in hand if c % 9 == JACK)
                combo = best_boys(held, self.trump, self.cfg.boys_table, self.cfg.crooked)
                if combo is not None:
                    self.boys[seat] = (combo, tuple(held))
                    events.append(BoysDeclared(seat, tuple(held), combo))
            hand.remove(card)
            self.plays.append(Play(seat, "play", (card,)))
            events.append(Played(seat, card))
        nxt = self._next_in_play(seat)
        if nxt != self.leader:
            self.to_move = nxt
            return
        self._end_trick(events)

    def _end_trick(self, events: list[Event]) -> None:
        winner = trick_winner(self.plays, self.trump)
        cards = tuple(c for _s, _k, cs in self.plays for c in cs)
        self.piles[winner].extend(cards)
        self.tricks[winner] += 1
        if self.cfg.spade_ace and SPADE_ACE in cards:
            # RULES.md 5 spade_ace: -5 for a trick taken with it, +5 to its beaten owner.
            owner = next(s for s, _k, cs in self.plays if SPADE_ACE in cs)
            self.bonus[owner] += -5 if owner == winner else 5
        self.last_trick = (winner, tuple(self.plays))
        self.plays = []
        self.done_tricks += 1
        self.moment += 1
        events.append(TrickWon(winner, winner, cards, 0))
        if self.done_tricks == HAND:
            # [decision] petukh-25: cards kept by skipping are dead when the fifth trick ends.
            self._end_deal(events)
            return
        self.leader = winner
        self.to_move = winner

    # --- scoring ------------------------------------------------------------------------

    def _end_deal(self, events: list[Event], finisher: int | None = None) -> None:
        cfg = self.cfg
        n = self.rules.players
        before = list(self.scores)
        changes = [0] * n
        overshoot: list[int] = []
        if finisher is None:
            for s in range(n):
                if self.passed[s]:
                    continue  # RULES.md 5: no tricks, no penalty
                combo = self.boys.get(s, (None, ()))[0]
                changes[s] = deal_change(cfg, before[s], self.tricks[s], combo, self.bonus[s])
                new = before[s] + changes[s]
                if new < 0:
                    new = cfg.start  # RULES.md 5: overshoot
                    overshoot.append(s)
                self.scores[s] = new
        else:
            # [decision] boys finish: the deal is not scored; the finisher's record goes to 0.
            changes[finisher] = -before[finisher]
            self.scores[finisher] = 0
        passed = tuple(s for s in range(n) if self.passed[s])
        result: dict[str, Any] = {
            "tricks": list(self.tricks),
            "changes": changes,
            "score": list(self.scores),
            "overshoot": overshoot,
            "passed": list(passed),
            "boys": [[s, self.boys[s][0]] for s in sorted(self.boys)],
        }
        if finisher is not None:
            result["finish"] = finisher
        self.history[-1].result = result
        events.append(
            DealScored(
                self.deal_no,
                tuple(self.tricks),
                tuple(changes),
                tuple(self.scores),
                tuple(overshoot),
                passed,
                self._boys_counted(finisher),
                tuple(self.bonus),
                finisher,
            )
        )
        winners = tuple(s for s in range(n) if self.scores[s] == 0)
        if winners:
            self.finished = True
            self.winners = winners
            self.roosters = self.rooster_order()
            losers = [s for s in range(n) if s not in winners]
            self.debts = tuple((lo, w, self.scores[lo]) for lo in losers for w in winners)
            result.update(
                winners=list(winners), roosters=list(self.roosters), debts=[list(d) for d in self.debts]
            )
            events.append(MatchEnded(winners, tuple(self.scores)))
            events.append(RoosterChosen(self.roosters, self.debts))
            return
        self.dealer = (self.dealer + 1) % n
        events.extend(self._new_deal())

    def _boys_counted(self, finisher: int | None) -> tuple[tuple[int, str, str, int], ...]:
        """``DealScored.boys``: each seat's boys that changed its record in this deal (the
        trick column with a trick, else the no-trick column where it has a row)."""
        if finisher is not None:
            return ()
        out = []
        for s in sorted(self.boys):
            combo, jacks = self.boys[s]
            took, none = boys_value(combo, self.cfg)
            value = took if self.tricks[s] else none
            if value is not None and not self.passed[s]:
                out.append((s, combo, "".join(CARD_TEXT[j][-1] for j in jacks), value))
        return tuple(out)

    def rooster_order(self) -> tuple[int, ...]:
        """RULES.md 5: the losers with the most points left; ties clockwise from the seat
        left of the dealer of the last deal (the first of them leaves on elimination).
        [decision] "first clockwise from the dealer" starts at his left, the dealer last."""
        n = self.rules.players
        losers = [s for s in range(n) if self.scores[s] != 0]
        if not losers:
            return ()
        top = max(self.scores[s] for s in losers)
        tied = [s for s in losers if self.scores[s] == top]
        return tuple(sorted(tied, key=lambda s: (s - self.dealer - 1) % n))

    # --- views and storage --------------------------------------------------------------

    @property
    def turn(self) -> tuple[int, int]:
        """(deal number, actions so far): one dealing a deal in Petukh, and unlike
        ``len(history)`` the same after ``from_state``."""
        return self.deal_no, self.counter

    def token_secret(self) -> str:
        return f"{self.seed}|{self.deal_no}|{self.phase}"

    def all_cards(self) -> list[Card]:
        out: list[Card] = [*self.stock, *self.discards]
        if self.face_up is not None:
            out.append(self.face_up)
        for h in self.hands:
            out.extend(h)
        for p in self.piles:
            out.extend(p)
        for _s, _k, cs in self.plays:
            out.extend(cs)
        return out

    def audit(self) -> str | None:
        if sorted(self.all_cards()) != sorted(self.rules.deck):
            return f"deal {self.deal_no}: a card is missing or doubled"
        if sorted(self.deck) != sorted(self.rules.deck):
            return f"deal {self.deal_no}: the deck is not the preset's deck"
        return None

    def observe(self, seat: int | None = None) -> Observation:
        return observe_petukh(self, seat)

    def to_state(self) -> dict[str, Any]:
        """Compact JSON-safe data: the state at the start of the current deal, its deck
        and its actions (``from_state`` deals it again and replays them)."""
        rec = self.history[-1]
        return {
            "seed": self.seed,
            "dealer": rec.dealer,
            "deal_no": self.deal_no,
            "records": self.start_records,
            "skips": self.start_skips,
            "deck": pack_cards(rec.deck),
            "actions": [pack_action(s, a) for s, a in rec.actions],
        }

    @classmethod
    def from_state(cls, rules: Rules, state: dict[str, Any]) -> PetukhMatch:
        m = cls.__new__(cls)
        m.rules = rules
        m.seed = state["seed"]
        m.cfg = settings_of(rules)
        m.decks = lambda no, _d: shuffled_deck(rules, m.seed, no)
        m.scores = list(state["records"])
        m.skips_left = list(state["skips"])
        m.finished = False
        m.winners = ()
        m.roosters = ()
        m.debts = ()
        m.history = []
        m.deal_no = state["deal_no"] - 1
        m.dealer = state["dealer"]
        m.start_events = []
        m._new_deal(unpack_cards(state["deck"]))
        for text in state["actions"]:
            m.apply(*unpack_action(text))
        return m

    def copy(self) -> PetukhMatch:
        m = PetukhMatch.__new__(PetukhMatch)
        m.__dict__.update(self.__dict__)
        m.scores = self.scores[:]
        m.skips_left = self.skips_left[:]
        m.hands = [h[:] for h in self.hands]
        m.stock = self.stock[:]
        m.discards = self.discards[:]
        m.passed = self.passed[:]
        m.piles = [p[:] for p in self.piles]
        m.tricks = self.tricks[:]
        m.plays = self.plays[:]
        m.boys = dict(self.boys)
        m.jack_played = self.jack_played[:]
        m.bonus = self.bonus[:]
        last = self.history[-1]
        m.history = [
            *self.history[:-1],
            DealRecord(
                last.dealer,
                last.deck,
                last.trump_card,
                last.actions[:],
                None if last.result is None else dict(last.result),
            ),
        ]
        return m
