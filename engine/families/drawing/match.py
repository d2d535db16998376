"""A match: a series of deals with dealer rotation, scoring and the end of the match.

``Match`` is the engine's main public object. Chance is explicit: every deal's deck (and
the ``kozel-4`` shown trump card) is derived from ``(seed, deal number)`` or given by a deal
log, and recorded in ``match.history``; a match replays exactly from that log.
"""

from __future__ import annotations

from typing import Any

from engine.actions import Action
from engine.codec import pack_cards, unpack_cards
from engine.dealing import DealRecord, DeckSource, first_dealer, shuffled_deck
from engine.errors import IllegalAction
from engine.events import DealEnded, DealStarted, Event, MatchEnded, SideOut
from engine.families.drawing.deal import DrawingDeal, settings_of
from engine.families.drawing.rules import Play
from engine.families.drawing.view import observe_drawing
from engine.observation import Observation
from engine.presets import Rules, make_rules

# RULES.md 1: the losing mark of the penalty games.
PENALTY_LIMIT = 12
# RULES.md 3: the winning mark of kozel-60.
SIXTY = 60


class Match:
    """A whole match of one preset between ``rules.players`` seats."""

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
        self.decks = decks  # None: from the seed (no lambda: a compiled one does not deep-copy)
        self.scores = [0] * rules.sides
        self.out = [False] * rules.sides
        self.eggs = False  # a 60:60 "eggs_double" doubling waits for the next deal
        self.finished = False
        self.winners: tuple[int, ...] = ()
        self.history: list[DealRecord] = []
        self.deal_no = 0
        self.next_leader: int | None = None
        self.dealer = first_dealer(rules.players, seed) if dealer is None else dealer
        self.deal: DrawingDeal
        self.start_events: list[Event] = []
        if first_deal:
            self.start_events = self._new_deal()

    @classmethod
    def new(
        cls,
        preset: Any,
        players: Any,
        options: Any = None,
        seed: int | str = 0,
        dealer: int | None = None,
    ) -> Match:
        """Validate the preset and options and deal the first deal. (Untyped: whatever a
        caller hands in gets ``make_rules``' answer, not a compiled function's TypeError.)"""
        return cls(make_rules(preset, players, options), seed=seed, dealer=dealer)

    # --- seats and sides ------------------------------------------------------------------

    @property
    def active_seats(self) -> tuple[int, ...]:
        if not any(self.out):
            return tuple(range(self.rules.players))  # the usual: no side is out
        return tuple(s for s in range(self.rules.players) if not self.out[self.rules.side_of(s)])

    def _next_active(self, seat: int) -> int:
        seats = self.active_seats
        for i in range(1, self.rules.players + 1):
            s = (seat + i) % self.rules.players
            if s in seats:
                return s
        return seat

    # --- deals ---------------------------------------------------------------------------

    def _new_deal(self) -> list[Event]:
        self.deal_no += 1
        seats = self.active_seats
        if self.dealer not in seats:
            self.dealer = self._next_active(self.dealer)
        if self.decks is None:
            deck, trump_card = shuffled_deck(self.rules, self.seed, self.deal_no)
        else:
            deck, trump_card = self.decks(self.deal_no, self.dealer)
        self.deal = DrawingDeal.deal(self.rules, seats, self.dealer, deck, trump_card, self.next_leader)
        self.history.append(DealRecord(self.dealer, list(deck), trump_card))
        d = self.deal
        return [DealStarted(self.deal_no, self.dealer, d.trump, d.trump_card, d.leader)]

    # --- the state machine ---------------------------------------------------------------

    def to_act(self) -> tuple[int, ...]:
        """The seats that may act now (usually one; more while a declaration is open)."""
        return () if self.finished else self.deal.to_act()

    def legal_actions(self, seat: int) -> list[Action]:
        """The seat's legal actions in a stable order (empty when it may not act)."""
        if self.finished or seat not in self.deal.seats:
            return []  # also a seat that is out, or no seat at all (-1 must not index a hand)
        return self.deal.legal_actions(seat)

    def check(self, seat: int, action: Action) -> str | None:
        """The reason code why ``action`` is illegal now, or None."""
        if self.finished:
            return "match_over"
        if not 0 <= seat < self.rules.players or seat not in self.deal.seats:
            return "no_such_seat"
        return self.deal.check(seat, action)

    def apply(self, seat: int, action: Action) -> list[Event]:
        """Apply one action; return its public events. Illegal: ``IllegalAction``, no change."""
        deal = self.deal
        if self.finished or not 0 <= seat < self.rules.players or seat not in deal.seats:
            reason = "match_over" if self.finished else "no_such_seat"
            raise IllegalAction(reason, f"{action} by seat {seat}: {reason.replace('_', ' ')}")
        events = deal.apply(seat, action)  # checks the action itself
        self.history[-1].actions.append((seat, action))
        if deal.finished:
            events.extend(self._end_deal())
        return events

    @property
    def turn(self) -> tuple[int, int]:
        """(deal number, actions so far in the deal): names the current moment of play."""
        return self.deal_no, self.deal.counter

    # --- scoring -------------------------------------------------------------------------

    def _end_deal(self) -> list[Event]:
        rules = self.rules
        d = self.deal
        points = d.points()
        tricks = list(d.tricks)
        sides = [s for s in range(rules.sides) if not self.out[s]]
        if rules.scoring == "penalty":
            scored, outcome, doubled = self._score_penalty(sides, points, tricks)
        elif rules.scoring == "sixty":
            scored, outcome, doubled = points, "normal", False
        else:
            single = sum(1 for p in points if p >= SIXTY) == 1
            scored, outcome, doubled = points, "normal" if single else "void", False
        if rules.scoring == "halves":
            self.scores = list(points)
        else:
            self.scores = [a + b for a, b in zip(self.scores, scored, strict=True)]
        events: list[Event] = []
        ended = DealEnded(
            self.deal_no,
            tuple(points),
            tuple(tricks),
            tuple(scored),
            tuple(self.scores),
            outcome,
            doubled,
        )
        events.append(ended)
        self.history[-1].result = {
            "points": points,
            "tricks": tricks,
            "score": list(self.scores),
            "outcome": outcome,
        }
        if rules.scoring == "penalty":
            events.extend(self._penalty_end(sides))
        elif rules.scoring == "sixty":
            self._sixty_end()
        else:
            self._halves_end()
        if self.finished:
            events.append(MatchEnded(self.winners, tuple(self.scores)))
            return events
        if settings_of(rules).next_leader == "last_trick":
            self.next_leader = d.last_winner  # RULES.md 2
        self.dealer = self._next_active(self.dealer)
        events.extend(self._new_deal())
        return events

    def _score_penalty(
        self, sides: list[int], points: list[int], tricks: list[int]
    ) -> tuple[list[int], str, bool]:
        """RULES.md 1 (and 2): the table of penalties for one deal."""
        rules = self.rules
        tie = settings_of(rules).tie
        scored = [0] * rules.sides
        doubled = self.eggs
        factor = 2 if doubled else 1
        best = max(points[s] for s in sides)
        leaders = [s for s in sides if points[s] == best]
        if len(sides) == 2 and len(leaders) == 2:
            # 60:60
            if tie == "both_two":
                for s in sides:
                    scored[s] = 2 * factor
                self.eggs = False
                return scored, "tie", doubled
            if tie == "eggs_double":
                self.eggs = True  # eggs never stack (RULES.md 0)
            return scored, "eggs", False
        three = len(sides) == 3
        save = 21 if three else 31
        for s in sides:
            if s in leaders:
                # RULES.md 1 [decision]: tied leaders among three each take 2.
                scored[s] = 2 * factor if len(leaders) > 1 else 0
            elif points[s] >= save:
                scored[s] = 2 * factor
            elif tricks[s] > 0:
                scored[s] = 4 * factor
            else:
                scored[s] = 6 * factor
        self.eggs = False
        return scored, "normal", doubled

    def _penalty_end(self, sides: list[int]) -> list[Event]:
        """RULES.md 1: 12 puts a side out; the last side left (or the lowest) wins."""
        rules = self.rules
        events: list[Event] = []
        gone = [s for s in sides if self.scores[s] >= PENALTY_LIMIT]
        for s in gone:
            self.out[s] = True
            events.append(SideOut(s, rules.side_seats(s)))
        remaining = [s for s in sides if not self.out[s]]
        if not gone:
            return events
        if rules.players == 3 and len(remaining) >= 2:
            return events  # RULES.md 1: the two left play on head to head
        if len(remaining) == 1:
            winning = remaining
        elif not remaining:
            low = min(self.scores[s] for s in gone)
            winning = [s for s in gone if self.scores[s] == low]
        else:
            winning = remaining
        self.finished = True
        self.winners = tuple(seat for s in winning for seat in rules.side_seats(s))
        return events

    def _sixty_end(self) -> None:
        """RULES.md 3 draw: first to 60; several: the highest; an exact tie plays on."""
        reached = [s for s in range(self.rules.sides) if self.scores[s] >= SIXTY]
        if not reached:
            return
        top = max(self.scores[s] for s in reached)
        best = [s for s in reached if self.scores[s] == top]
        if len(best) == 1:
            self.finished = True
            self.winners = (best[0],)

    def _halves_end(self) -> None:
        """RULES.md 3 halves: 60 or more wins; 60:60 or nobody at 60 voids and restarts."""
        best = [s for s in range(self.rules.sides) if self.scores[s] >= SIXTY]
        if len(best) == 1:
            self.finished = True
            self.winners = (best[0],)

    # --- storage -------------------------------------------------------------------------

    def to_state(self) -> dict[str, Any]:
        """The match as compact JSON-safe data, without the logs of earlier deals.

        Decks are not stored: they follow from (seed, deal number) unless a log gave them.
        """
        return {
            "seed": self.seed,
            "dealer": self.dealer,
            "deal_no": self.deal_no,
            "scores": self.scores,
            "out": self.out,
            "eggs": self.eggs,
            "finished": self.finished,
            "winners": list(self.winners),
            "next_leader": self.next_leader,
            "deal": deal_state(self.deal),
        }

    @classmethod
    def from_state(cls, rules: Rules, state: dict[str, Any]) -> Match:
        """The inverse of ``to_state``; ``history`` then holds only the current deal."""
        m = _unfilled(rules, state["seed"], state["dealer"], None)
        m.deal_no = state["deal_no"]
        m.scores = list(state["scores"])
        m.out = list(state["out"])
        m.eggs = state["eggs"]
        m.finished = state["finished"]
        m.winners = tuple(state["winners"])
        m.next_leader = state["next_leader"]
        m.deal = load_deal(rules, state["deal"])
        m.history = [DealRecord(m.deal.dealer, list(m.deal.deck), None)]
        return m

    # --- views ---------------------------------------------------------------------------

    def observe(self, seat: int | None = None) -> Observation:
        return observe_drawing(self, seat)

    def token_secret(self) -> str:
        """What keys a hand's fingerprint in a button: the match seed (hidden), and the
        trick's declaration (cards that went back to their owners after a Moscow or a pull
        make old buttons of the same trick stale)."""
        return f"{self.seed}|{self.deal.declared}"

    def audit(self) -> str | None:
        """A broken invariant of the current deal, or None: every card in exactly one place."""
        if sorted(self.deal.all_cards()) != sorted(self.deal.deck):
            return f"deal {self.deal_no}: a card is missing or doubled"
        return None

    # --- copies: a compiled class is made through its __init__ (no bare __new__ to fill) ----

    def _fields(self) -> dict[str, Any]:
        """The fields past ``__init__``'s arguments (``test_a_matchs_copy_holds_every_field``)."""
        return {
            "scores": self.scores,
            "out": self.out,
            "eggs": self.eggs,
            "finished": self.finished,
            "winners": self.winners,
            "history": self.history,
            "deal_no": self.deal_no,
            "next_leader": self.next_leader,
            "start_events": self.start_events,
            "deal": self.deal,
        }

    def __reduce__(self) -> tuple[Any, ...]:
        """``copy.deepcopy`` and pickle (``dataclasses.asdict`` of a room that holds one)."""
        return _unfilled, (self.rules, self.seed, self.dealer, self.decks), self._fields()

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)

    def copy(self) -> Match:
        m = _unfilled(self.rules, self.seed, self.dealer, self.decks)
        m.__setstate__(self._fields())
        m.scores = self.scores[:]
        m.out = self.out[:]
        last = self.history[-1]
        m.history = [
            *self.history[:-1],
            DealRecord(last.dealer, last.deck, last.trump_card, last.actions[:], last.result),
        ]
        m.deal = self.deal.copy()
        return m


def _unfilled(rules: Rules, seed: int | str, dealer: int, decks: DeckSource | None) -> Match:
    """A match without its deal, for ``copy`` and ``__reduce__`` to fill."""
    return Match(rules, seed, dealer, decks, first_deal=False)


# --- the deal as stored: compact JSON-safe data and back (cards packed with engine.codec) ----


def _plays_out(ps: list[Play] | tuple[Play, ...]) -> list[list[Any]]:
    return [[seat, kind, pack_cards(cards)] for seat, kind, cards in ps]


def _plays_in(ps: list[list[Any]]) -> list[Play]:
    return [Play(seat, kind, tuple(unpack_cards(cards))) for seat, kind, cards in ps]


def deal_state(d: DrawingDeal) -> dict[str, Any]:
    """The whole deal as compact JSON-safe data (``engine.codec`` card strings)."""
    return {
        "seats": list(d.seats),
        "dealer": d.dealer,
        "deck": pack_cards(d.deck),
        "hands": [pack_cards(h) for h in d.hands],
        "stock": pack_cards(d.stock),
        "trump": d.trump,
        "trump_card": d.trump_card,
        "public": d.trump_public,
        "piles": [pack_cards(p) for p in d.piles],
        "tricks": d.tricks,
        "leader": d.leader,
        "to_move": d.to_move,
        "plays": _plays_out(d.plays),
        "win_seat": d.win_seat,
        "win_cards": pack_cards(d.win_cards),
        "declared": d.declared,
        "counter": d.counter,
        "trick_no": d.trick_no,
        "last_trick": None if d.last_trick is None else [d.last_trick[0], _plays_out(d.last_trick[1])],
        "last_winner": getattr(d, "last_winner", None),
        "finished": d.finished,
        "reserve": pack_cards(d.reserve),
        "half": d.half,
        "first_leader": d.first_leader,
    }


def restore(d: DrawingDeal, state: dict[str, Any]) -> None:
    """Everything ``deal_state`` wrote, back onto ``d`` (its rules already set)."""
    d.seats = tuple(state["seats"])
    d.dealer = state["dealer"]
    d.deck = tuple(unpack_cards(state["deck"]))
    d.hands = [unpack_cards(h) for h in state["hands"]]
    d.stock = unpack_cards(state["stock"])
    d.trump = state["trump"]
    d.trump_card = state["trump_card"]
    d.trump_public = state["public"]
    d.piles = [unpack_cards(p) for p in state["piles"]]
    d.tricks = list(state["tricks"])
    d.leader = state["leader"]
    d.to_move = state["to_move"]
    d.plays = _plays_in(state["plays"])
    d.win_seat = state["win_seat"]
    d.win_cards = tuple(unpack_cards(state["win_cards"]))
    d.declared = state["declared"]
    d.counter = state["counter"]
    d.trick_no = state["trick_no"]
    last = state["last_trick"]
    d.last_trick = None if last is None else (last[0], tuple(_plays_in(last[1])))
    if state["last_winner"] is not None:
        d.last_winner = state["last_winner"]
    d.finished = state["finished"]
    d.reserve = unpack_cards(state["reserve"])
    d.half = state["half"]
    d.first_leader = state["first_leader"]


def load_deal(rules: Rules, state: dict[str, Any]) -> DrawingDeal:
    """The inverse of ``deal_state``."""
    d = DrawingDeal.loading(rules)
    restore(d, state)
    d.derive()
    return d
