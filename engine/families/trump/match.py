"""Permanent-trump Kozel: ``kozel-hvalenyi``, ``kozel-nn``, ``kozel-kocherga`` (RULES.md 4).

``TrumpMatch`` keeps the contract of docs/families.md for the three presets: the match
(dealings in sequence, the score, the end, storage); one dealing's cards, phases and
legality are a ``TrumpDeal`` (``engine.families.trump.deal``), as drawing's ``Match`` holds a
``DrawingDeal``. The rules (events, the trump table) are in ``engine.families.trump.rules``, the
computer player in ``engine.families.trump.bot`` and the observation in ``engine.families.trump.view``;
the match's stored form is at the end of this module (``state_of``, ``restore``).
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
from engine.cards import Card
from engine.codec import pack_action, pack_cards, unpack_action, unpack_cards
from engine.dealing import DealRecord, DeckSource, first_dealer, shuffled_deck
from engine.errors import IllegalAction
from engine.events import DealEnded, Event, MatchEnded
from engine.families.trump.deal import TrumpDeal
from engine.families.trump.rules import (
    LIMIT,
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
    score_deal,
    settings_of,
    table_for,
    trump_order,
    trump_suit,
)
from engine.families.trump.view import observe_trump
from engine.observation import Observation
from engine.presets import Rules

# the family's names, where they were before its rules and computer player had modules of
# their own (engine.families.trump.rules, engine.families.trump.bot)
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
    "settings_of",
    "table_for",
    "trump_order",
    "trump_suit",
]

# --- the match ----------------------------------------------------------------------------


class TrumpMatch:
    """A match of one permanent-trump preset (4 players, teams 0+2 and 1+3)."""

    deal: TrumpDeal  # the current dealing

    def __init__(
        self,
        rules: Rules,
        seed: int | str = 0,
        dealer: int | None = None,
        decks: DeckSource | None = None,
        *,
        first_deal: bool = True,
    ) -> None:
        """Deal the first dealing, unless ``first_deal`` is False: then the caller sets the
        deal (``_unfilled``: a compiled class is made through its ``__init__``)."""
        self.rules = rules
        self.seed = seed
        self.decks = decks  # None: from the seed (no lambda: a compiled one does not deep-copy)
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
        self.start_events: list[Event] = []
        if first_deal:
            self.start_events = self._dealing(keep=False, moment=0, boast=[], boast_leader=None)

    def _setup_rules(self) -> None:
        cfg = settings_of(self.rules)
        self.nn = cfg.nn
        self.table = table_for(self.rules.preset, cfg.suit)
        self.ace_rule = cfg.ace_rule  # RULES.md 4a: always; 4c: option; 4b: none
        self.lyusya: str | None = cfg.lyusya

    @property
    def moment(self) -> int:
        """Observation.moment: rises with every trick, dealing, phase."""
        return self.deal.moment

    # --- dealings ---------------------------------------------------------------------

    def _new_dealing(self, keep: bool) -> list[Event]:
        """The next record of ``history`` (``keep``: the boast tricks stay, RULES.md 4b)."""
        d = self.deal
        return self._dealing(keep, d.moment, d.boast_piles, d.boast_leader)

    def _dealing(
        self, keep: bool, moment: int, boast: list[tuple[tuple[Card, ...], int]], boast_leader: int | None
    ) -> list[Event]:
        self.dealing += 1
        if self.decks is None:
            deck, _ = shuffled_deck(self.rules, self.seed, self.dealing)
        else:
            deck, _ = self.decks(self.dealing, self.dealer)
        self.history.append(DealRecord(self.dealer, list(deck), None))
        self.deal = self._make_deal(tuple(deck), moment + 1, boast, boast_leader)
        return self.deal.start(keep)

    def _make_deal(
        self,
        deck: tuple[Card, ...],
        moment: int,
        boast: list[tuple[tuple[Card, ...], int]],
        boast_leader: int | None,
    ) -> TrumpDeal:
        return TrumpDeal(
            self.table,
            self.nn,
            self.ace_rule,
            self.lyusya,
            self.deal_no,
            self.dealer,
            deck,
            moment,
            list(boast),
            boast_leader,
        )

    # --- the state machine ------------------------------------------------------------

    def to_act(self) -> tuple[int, ...]:
        """[0] is the seat on move; later seats may ask for a redeal (clockwise order)."""
        return () if self.finished else self.deal.to_act()

    def legal_actions(self, seat: int) -> list[Action]:
        """The seat's legal actions in a stable order (empty when it may not act)."""
        if self.finished or not 0 <= seat < 4:
            return []
        return self.deal.legal_actions(seat)

    def check(self, seat: int, action: Action) -> str | None:
        """The reason code why ``action`` is illegal now, or None."""
        if self.finished:
            return "match_over"
        if not isinstance(seat, int) or not 0 <= seat < 4:
            return "no_such_seat"
        return self.deal.check(seat, action)

    @property
    def turn(self) -> tuple[int, int]:
        """(dealing number, actions so far in this dealing)."""
        return self.dealing, self.deal.counter

    def apply(self, seat: int, action: Action) -> list[Event]:
        """Apply one action; return its public events. Illegal: ``IllegalAction``, no change."""
        reason = self.check(seat, action)
        if reason is not None:
            raise IllegalAction(reason, f"{action} by seat {seat}: {reason.replace('_', ' ')}")
        self.history[-1].actions.append((seat, action))
        d = self.deal
        d.counter += 1
        kind = action.kind
        if kind == "redeal":
            return self._redeal(seat)
        if kind in ("reboast", "keep"):
            events: list[Event] = [BoastChosen(seat, kind)]
            events.extend(self._new_dealing(keep=kind == "keep"))
            return events
        events = d.apply(seat, action, self.deal_no == 1)
        if d.end == "caught":
            assert d.caught is not None
            events.extend(self._caught(*d.caught))
        elif d.end == "played":
            events.extend(self._score_deal())
        elif d.end == "void":
            events.extend(self._new_dealing(keep=False))
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
        if self.nn and self.deal.boast_piles:
            # RULES.md 4b step 7: the team that won the boast chooses
            self.deal.await_choice()
            return events
        # [decision] hvalenyi/kocherga: the same dealer deals again, no limit, eggs stay
        events.extend(self._new_dealing(keep=False))
        return events

    # --- scoring ----------------------------------------------------------------------

    def _caught(self, catcher: int, victim: int) -> list[Event]:
        scored = [0, 0]
        doubled = self.eggs
        if self.nn:
            # RULES.md 4b: the team whose Q♣ was caught takes 4 (8 after eggs)
            scored[victim % 2] = 8 if doubled else 4
        else:
            # RULES.md 4a/4c: the catching team scores 4 eyes, takes the eggs bonus
            scored[catcher % 2] = 4 + (2 if doubled else 0)
        self.eggs = False
        return self._end_deal(None, scored, "caught", doubled)

    def _score_deal(self) -> list[Event]:
        """Every card played: eyes (4a, 4c) or penalties (4b)."""
        points = self.deal.points()
        r = score_deal(self.nn, self.lyusya, points, self.deal.tricks, self.scores, self.eggs)
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
        tricks = self.deal.tricks
        self.scores = [a + b for a, b in zip(self.scores, scored, strict=True)]
        shown = points if points is not None else self.deal.points()
        events: list[Event] = [
            DealEnded(
                self.deal_no,
                tuple(shown),
                tuple(tricks),
                tuple(scored),
                tuple(self.scores),
                outcome,
                doubled,
            )
        ]
        self.history[-1].result = {
            "points": points,
            "tricks": list(tricks),
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

    def audit(self) -> str | None:
        """A broken invariant, or None: every card of the deck in exactly one place."""
        deck = self.deal.deck
        if sorted(self.deal.all_cards()) != sorted(deck) or sorted(deck) != sorted(self.rules.deck):
            return f"dealing {self.dealing}: a card is missing or doubled"
        return None

    # --- storage ----------------------------------------------------------------------

    def to_state(self) -> dict[str, Any]:
        """The match as compact JSON-safe data (cards packed with ``engine.codec``)."""
        return state_of(self)

    @classmethod
    def from_state(cls, rules: Rules, state: dict[str, Any]) -> TrumpMatch:
        """The inverse of ``to_state``; ``history`` then holds only the current dealing."""
        m = _unfilled(rules, state["seed"], state["dealer"], None)
        restore(m, state)
        return m

    # --- copies: a compiled class is made through its __init__ (no bare __new__ to fill) ----

    def _fields(self) -> dict[str, Any]:
        """The fields past ``__init__``'s arguments and the rules' settings
        (``test_a_matchs_copy_holds_every_field``)."""
        return {
            "scores": self.scores,
            "finished": self.finished,
            "winners": self.winners,
            "history": self.history,
            "deal_no": self.deal_no,
            "dealing": self.dealing,
            "eggs": self.eggs,
            "redeals": self.redeals,
            "start_events": self.start_events,
            "deal": self.deal,
        }

    def __reduce__(self) -> tuple[Any, ...]:
        """``copy.deepcopy`` and pickle (``dataclasses.asdict`` of a room that holds one)."""
        return _unfilled, (self.rules, self.seed, self.dealer, self.decks), self._fields()

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)

    def copy(self) -> TrumpMatch:
        m = _unfilled(self.rules, self.seed, self.dealer, self.decks)
        m.__setstate__(self._fields())
        m.scores = self.scores[:]
        last = self.history[-1]
        m.history = [
            *self.history[:-1],
            DealRecord(last.dealer, last.deck, last.trump_card, last.actions[:], last.result),
        ]
        m.deal = self.deal.copy()
        m.start_events = self.start_events[:]
        return m


def _unfilled(rules: Rules, seed: int | str, dealer: int, decks: DeckSource | None) -> TrumpMatch:
    """A match without its dealing, for ``from_state``, ``copy`` and ``__reduce__`` to fill."""
    return TrumpMatch(rules, seed, dealer, decks, first_deal=False)


# --- the match as stored: compact JSON-safe data and back (cards packed with engine.codec) ---


def state_of(m: TrumpMatch) -> dict[str, Any]:
    """The match as compact JSON-safe data (cards packed with ``engine.codec``)."""
    d = m.deal
    return {
        "seed": m.seed,
        "dealer": m.dealer,
        "deal_no": m.deal_no,
        "dealing": m.dealing,
        "scores": m.scores,
        "finished": m.finished,
        "winners": list(m.winners),
        "eggs": m.eggs,
        "redeals": m.redeals,
        "moment": d.moment,
        "deck": pack_cards(d.deck),
        "actions": [pack_action(s, a) for s, a in m.history[-1].actions],
        "stock": pack_cards(d.stock),
        "hands": [pack_cards(h) for h in d.hands],
        "piles": [pack_cards(p) for p in d.piles],
        "tricks": d.tricks,
        "plays": [[s, c] for s, c in d.plays],
        "last": None if d.last_trick is None else [d.last_trick[0], [[s, c] for s, c in d.last_trick[1]]],
        "opened": d.opened,
        "counter": d.counter,
        "played": d.played,
        "forced": d.forced,
        "boaster": d.boaster,
        "laid": pack_cards(d.laid),
        "covers": [[s, pack_cards(cs)] for s, cs in d.covers],
        "chooser": d.chooser,
        "leader": d.leader,
        "to_move": d.to_move,
        "phase": d.phase,
        "boast": [[pack_cards(cs), w] for cs, w in d.boast_piles],
        "boast_leader": d.boast_leader,
    }


def restore(m: TrumpMatch, state: dict[str, Any]) -> None:
    """Everything ``state_of`` wrote, back onto ``m`` (its rules already set up)."""
    m.dealer = state["dealer"]
    m.deal_no = state["deal_no"]
    m.dealing = state["dealing"]
    m.scores = list(state["scores"])
    m.finished = state["finished"]
    m.winners = tuple(state["winners"])
    m.eggs = state["eggs"]
    m.redeals = state["redeals"]
    deck = tuple(unpack_cards(state["deck"]))
    m.history = [DealRecord(m.dealer, list(deck), None, [unpack_action(a) for a in state["actions"]])]
    boast = [(tuple(unpack_cards(cs)), w) for cs, w in state["boast"]]
    m.deal = d = m._make_deal(deck, state["moment"], boast, state["boast_leader"])
    d.stock = unpack_cards(state["stock"])
    d.hands = [unpack_cards(h) for h in state["hands"]]
    d.piles = [unpack_cards(p) for p in state["piles"]]
    d.tricks = list(state["tricks"])
    d.plays = [TrumpPlay(s, c) for s, c in state["plays"]]
    last = state["last"]
    d.last_trick = None if last is None else (last[0], tuple(TrumpPlay(s, c) for s, c in last[1]))
    d.opened = state["opened"]
    d.counter = state["counter"]
    d.played = state["played"]
    d.forced = state["forced"]
    d.boaster = state["boaster"]
    d.laid = tuple(unpack_cards(state["laid"]))
    d.covers = [(s, tuple(unpack_cards(cs))) for s, cs in state["covers"]]
    d.chooser = state["chooser"]
    d.leader = state["leader"]
    d.to_move = state["to_move"]
    d.phase = state["phase"]
    m.start_events = []
