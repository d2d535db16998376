"""One deal of Petukh (RULES.md 5, 5a): ``PetukhDeal``.

A deal runs in three phases: ``exchange`` (in turn from the dealer's left: discard and
draw, keep, or pass), ``swap`` (the dealer may take the face-up trump) and ``play`` (five
tricks of one card each). The deal holds the cards, the phases and what is legal in them;
the match (``engine.families.petukh.match``) holds the records, scores the deal and deals the next. When an
action ends the deal, ``end`` says how: ``"played"`` (the fifth trick) or ``"finish"`` (a
boys finish by ``finisher``).

Decisions this module takes where RULES.md is silent are marked **[decision]**.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any, Literal

from engine.actions import ONE_CARD, Action, remembered
from engine.cards import ACE, JACK, Card, make
from engine.events import DealStarted, Event, Played, TrickWon
from engine.families.petukh.rules import (
    FINISH_RECORD,
    HAND,
    LOW_RECORD,
    SPADE_ACE,
    BoysDeclared,
    BoysFinish,
    Exchanged,
    Kept,
    Passed,
    Play,
    PlayStarted,
    Skipped,
    TrumpLeft,
    TrumpSwapped,
    answers,
    best_boys,
    settings_of,
    trick_winner,
    why_not_answer,
)
from engine.presets import Rules

_PLAY, _SWAP = ONE_CARD["play"], ONE_CARD["swap"]
_KEEP, _PASS, _SKIP, _FINISH = Action("keep"), Action("pass"), Action("skip"), Action("finish")
_PHASE_KINDS = {
    "exchange": ("exchange", "keep", "pass"),
    "swap": ("swap", "keep"),
    "play": ("play", "skip", "finish"),
}


class PetukhDeal:
    """One deal: the cards, the phases and their legality (RULES.md 5, 5a)."""

    def __init__(
        self,
        rules: Rules,
        deal_no: int,
        dealer: int,
        deck: list[Card],
        records: list[int],
        skips_left: list[int],
    ) -> None:
        """Deal ``deck`` (top card first) from the dealer's left; ``records`` are the
        records at the deal's start, ``skips_left`` the skips each seat has left (RULES.md
        5a: they run on over the deals)."""
        self.rules = rules
        self.cfg = cfg = settings_of(rules)
        n = rules.players
        self.deal_no = deal_no
        self.dealer = dealer
        self.records = tuple(records)
        self.skips_left = skips_left
        self.deck = tuple(deck)
        left = (dealer + 1) % n
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
        self.exchange_open = cfg.exchange and 1 not in self.records
        self.phase = "exchange"
        self.end: Literal["played", "finish"] | None = None
        self.finisher: int | None = None
        self._legal: dict[int, list[Action]] = {}  # the legal actions asked for in this state

    def start(self) -> list[Event]:
        """The deal's first events; the exchange goes to the first seat with a choice."""
        left = (self.dealer + 1) % self.rules.players
        events: list[Event] = [DealStarted(self.deal_no, self.dealer, self.trump, self.trump_card, left)]
        self._exchange_turn(left, events)
        return events

    # --- who acts -----------------------------------------------------------------------

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
        acts = [_KEEP]
        if self.records[seat] <= LOW_RECORD:
            return acts  # RULES.md 5: plays his own cards
        others_in = any(not self.passed[s] for s in range(self.rules.players) if s != seat)
        if self.cfg.may_pass and others_in:
            acts.append(_PASS)
        if self.exchange_open:
            hand = sorted(self.hands[seat])
            # RULES.md 5 [decision]: at most as many cards as the stock still holds.
            for size in range(1, min(HAND, len(self.stock), len(hand)) + 1):
                acts.extend(Action("exchange", combo) for combo in combinations(hand, size))
        return acts

    def _swap_options(self) -> list[Action]:
        acts = [] if self.cfg.swap == "must" else [_KEEP]
        acts.extend(_SWAP[c] for c in sorted(self.hands[self.dealer]))
        return acts

    def _may_swap(self) -> bool:
        d = self.dealer
        return (
            self.face_up is not None
            and self.cfg.swap != "never"
            and self.exchange_open
            and not self.passed[d]
            and self.records[d] > LOW_RECORD
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
        if seat != self.to_move:
            return []
        return remembered(self._legal, seat, self._legal_now)

    def _legal_now(self, seat: int) -> list[Action]:
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
        acts = [_PLAY[c] for c in self._playable(seat)]
        if self.plays and self.skips_left[seat] > 0:
            acts.append(_SKIP)  # RULES.md 5a [decision]: the leader may not skip
        if self._may_finish(seat):
            acts.append(_FINISH)
        return acts

    def _may_finish(self, seat: int) -> bool:
        return (
            self.cfg.boys_finish
            and self.records[seat] <= FINISH_RECORD
            and sum(1 for c in self.hands[seat] if c % 9 == JACK) >= 2
        )

    def check(self, seat: int, action: Action) -> str | None:
        """The reason code why ``action`` is illegal now (the seat exists), or None."""
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
        low = self.records[seat] <= LOW_RECORD
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
        """A legal action (the match checks, counts and logs it)."""
        self._legal = {}
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
            self.end, self.finisher = "finish", seat
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
            self.end = "played"
            return
        self.leader = winner
        self.to_move = winner

    # --- views --------------------------------------------------------------------------

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

    # --- copies: made through __init__ (a compiled class has no bare __new__ nor __dict__),
    # which deals the same deck again; then each field that play changes, by name ---------

    def _dealing(self, skips_left: list[int]) -> tuple[Rules, int, int, list[Card], list[int], list[int]]:
        """``__init__``'s arguments for this deal, its skips running on in ``skips_left``."""
        return self.rules, self.deal_no, self.dealer, list(self.deck), list(self.records), skips_left

    def _fields(self) -> dict[str, Any]:
        """The fields play changes (``test_a_petukh_deals_copy_holds_every_field``)."""
        return {
            "trump_card": self.trump_card,
            "face_up": self.face_up,
            "trump": self.trump,
            "hands": self.hands,
            "stock": self.stock,
            "discards": self.discards,
            "passed": self.passed,
            "piles": self.piles,
            "tricks": self.tricks,
            "plays": self.plays,
            "last_trick": self.last_trick,
            "boys": self.boys,
            "jack_played": self.jack_played,
            "bonus": self.bonus,
            "done_tricks": self.done_tricks,
            "counter": self.counter,
            "moment": self.moment,
            "leader": self.leader,
            "to_move": self.to_move,
            "exchange_open": self.exchange_open,
            "phase": self.phase,
            "end": self.end,
            "finisher": self.finisher,
        }

    def __reduce__(self) -> tuple[Any, ...]:
        """``copy.deepcopy`` and pickle (the match's skips list stays shared in a deep copy)."""
        return PetukhDeal, self._dealing(self.skips_left), self._fields()

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)

    def copy(self, skips_left: list[int]) -> PetukhDeal:
        """A copy whose skips run on in ``skips_left`` (the copied match's)."""
        d = PetukhDeal(*self._dealing(skips_left))
        d.__setstate__(self._fields())
        d.hands = [h[:] for h in self.hands]
        d.stock = self.stock[:]
        d.discards = self.discards[:]
        d.passed = self.passed[:]
        d.piles = [p[:] for p in self.piles]
        d.tricks = self.tricks[:]
        d.plays = self.plays[:]
        d.boys = dict(self.boys)
        d.jack_played = self.jack_played[:]
        d.bonus = self.bonus[:]
        d._legal = {}
        return d
