"""The Petukh family: ``petukh`` and ``petukh-25`` (RULES.md 5, 5a).

Each player is his own side and his score is his **record**, counting down from the start
value; the first to bring it to exactly 0 wins. A deal runs in three phases: ``exchange``
(in turn from the dealer's left: discard and draw, keep, or pass), ``swap`` (the dealer may
take the face-up trump) and ``play`` (five tricks of one card each).

The match is ``PetukhMatch`` (the contract of docs/families.md: deals in sequence, the
records, the end, storage); one deal's phases, tricks and legality are a ``PetukhDeal``
(``engine.families.petukh.deal``), as drawing's ``Match`` holds a ``DrawingDeal``. The rules, as
data and pure functions, are in ``engine.families.petukh.rules`` and its computer player in
``engine.families.petukh.bot``. Cards are
ints (``engine.cards``); rank order is the index order 6 7 8 9 10 J Q K A (RULES.md 5
[decision]). The stock is a list whose element 0 is the next card drawn.

Decisions this module takes where RULES.md is silent are marked **[decision]**.
"""

from __future__ import annotations

from typing import Any

from engine.actions import Action
from engine.cards import CARD_TEXT, Card
from engine.codec import pack_action, pack_cards, unpack_action, unpack_cards
from engine.dealing import DealRecord, DeckSource, first_dealer, shuffled_deck
from engine.errors import IllegalAction
from engine.events import Event, MatchEnded
from engine.families.petukh.deal import PetukhDeal
from engine.families.petukh.rules import (
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
    best_boys,
    boys_value,
    deal_change,
    settings_of,
    trick_winner,
)
from engine.families.petukh.view import observe_petukh
from engine.observation import Observation
from engine.presets import Rules

# the family's names, where they were before its rules and computer player had modules of
# their own (engine.families.petukh.rules, engine.families.petukh.bot)
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
    "settings_of",
    "trick_winner",
]

# --- the match -----------------------------------------------------------------------------


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
    deal: PetukhDeal  # the current deal

    def __init__(
        self,
        rules: Rules,
        seed: int | str = 0,
        dealer: int | None = None,
        decks: DeckSource | None = None,
        *,
        first_deal: bool = True,
    ) -> None:
        """Deal the first deal, unless ``first_deal`` is False: then the caller sets the deal
        (``_unfilled``: a compiled class is made through its ``__init__``)."""
        self.rules = rules
        self.seed = seed
        self.cfg = settings_of(rules)
        self.decks = decks  # None: from the seed (no lambda: a compiled one does not deep-copy)
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
        if first_deal:
            self.start_events = self._new_deal()

    def _new_deal(self, deck: list[Card] | None = None) -> list[Event]:
        self.deal_no += 1
        if deck is None:
            if self.decks is None:
                deck = list(shuffled_deck(self.rules, self.seed, self.deal_no)[0])
            else:
                deck = list(self.decks(self.deal_no, self.dealer)[0])
        self.history.append(DealRecord(self.dealer, list(deck), None))
        self.start_records = list(self.scores)
        self.start_skips = list(self.skips_left)
        self.deal = PetukhDeal(self.rules, self.deal_no, self.dealer, deck, self.scores, self.skips_left)
        return self.deal.start()

    # --- the state machine --------------------------------------------------------------

    def to_act(self) -> tuple[int, ...]:
        return () if self.finished else (self.deal.to_move,)

    def legal_actions(self, seat: int) -> list[Action]:
        if self.finished:
            return []
        return self.deal.legal_actions(seat)

    def check(self, seat: int, action: Action) -> str | None:
        if self.finished:
            return "match_over"
        if not 0 <= seat < self.rules.players:
            return "no_such_seat"
        return self.deal.check(seat, action)

    def apply(self, seat: int, action: Action) -> list[Event]:
        reason = self.check(seat, action)
        if reason is not None:
            raise IllegalAction(reason, f"{action} by seat {seat}: {reason.replace('_', ' ')}")
        self.history[-1].actions.append((seat, action))
        d = self.deal
        d.counter += 1
        events = d.apply(seat, action)
        if d.end is not None:
            self._end_deal(events, d.finisher)
        return events

    # --- scoring ------------------------------------------------------------------------

    def _end_deal(self, events: list[Event], finisher: int | None = None) -> None:
        d = self.deal
        cfg = self.cfg
        n = self.rules.players
        before = list(self.scores)
        changes = [0] * n
        overshoot: list[int] = []
        if finisher is None:
            for s in range(n):
                if d.passed[s]:
                    continue  # RULES.md 5: no tricks, no penalty
                combo = d.boys.get(s, (None, ()))[0]
                changes[s] = deal_change(cfg, before[s], d.tricks[s], combo, d.bonus[s])
                new = before[s] + changes[s]
                if new < 0:
                    new = cfg.start  # RULES.md 5: overshoot
                    overshoot.append(s)
                self.scores[s] = new
        else:
            # [decision] boys finish: the deal is not scored; the finisher's record goes to 0.
            changes[finisher] = -before[finisher]
            self.scores[finisher] = 0
        passed = tuple(s for s in range(n) if d.passed[s])
        result: dict[str, Any] = {
            "tricks": list(d.tricks),
            "changes": changes,
            "score": list(self.scores),
            "overshoot": overshoot,
            "passed": list(passed),
            "boys": [[s, d.boys[s][0]] for s in sorted(d.boys)],
        }
        if finisher is not None:
            result["finish"] = finisher
        self.history[-1].result = result
        events.append(
            DealScored(
                self.deal_no,
                tuple(d.tricks),
                tuple(changes),
                tuple(self.scores),
                tuple(overshoot),
                passed,
                self._boys_counted(finisher),
                tuple(d.bonus),
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
        d = self.deal
        out = []
        for s in sorted(d.boys):
            combo, jacks = d.boys[s]
            took, none = boys_value(combo, self.cfg)
            value = took if d.tricks[s] else none
            if value is not None and not d.passed[s]:
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
        return self.deal_no, self.deal.counter

    def token_secret(self) -> str:
        return f"{self.seed}|{self.deal_no}|{self.deal.phase}"

    def audit(self) -> str | None:
        if sorted(self.deal.all_cards()) != sorted(self.rules.deck):
            return f"deal {self.deal_no}: a card is missing or doubled"
        if sorted(self.deal.deck) != sorted(self.rules.deck):
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
        m = _unfilled(rules, state["seed"], state["dealer"], None)
        m.scores = list(state["records"])
        m.skips_left = list(state["skips"])
        m.deal_no = state["deal_no"] - 1
        m._new_deal(unpack_cards(state["deck"]))
        for text in state["actions"]:
            m.apply(*unpack_action(text))
        return m

    # --- copies: a compiled class is made through its __init__ (no bare __new__ to fill) ----

    def _fields(self) -> dict[str, Any]:
        """The fields past ``__init__``'s arguments (``test_a_matchs_copy_holds_every_field``)."""
        return {
            "scores": self.scores,
            "skips_left": self.skips_left,
            "finished": self.finished,
            "winners": self.winners,
            "roosters": self.roosters,
            "debts": self.debts,
            "history": self.history,
            "deal_no": self.deal_no,
            "start_events": self.start_events,
            "start_records": self.start_records,
            "start_skips": self.start_skips,
            "deal": self.deal,
        }

    def __reduce__(self) -> tuple[Any, ...]:
        """``copy.deepcopy`` and pickle (``dataclasses.asdict`` of a room that holds one)."""
        return _unfilled, (self.rules, self.seed, self.dealer, self.decks), self._fields()

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)

    def copy(self) -> PetukhMatch:
        m = _unfilled(self.rules, self.seed, self.dealer, self.decks)
        m.__setstate__(self._fields())
        m.scores = self.scores[:]
        m.skips_left = self.skips_left[:]
        m.deal = self.deal.copy(m.skips_left)
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


def _unfilled(rules: Rules, seed: int | str, dealer: int, decks: DeckSource | None) -> PetukhMatch:
    """A match without its deal, for ``from_state``, ``copy`` and ``__reduce__`` to fill."""
    return PetukhMatch(rules, seed, dealer, decks, first_deal=False)
