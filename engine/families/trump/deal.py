"""One dealing of permanent-trump Kozel (RULES.md 4): ``TrumpDeal``.

A dealing is one record of a ``TrumpMatch``'s ``history``: a deal, a redeal, or a boast
made again. It holds the cards (the stock, the hands, the piles, the trick), its phases
(``"cut"``, ``"boast"``, ``"redeal"``, ``"play"``) and what is legal in them; the match
(``engine.families.trump.match``) holds the score and starts the next dealing. When an action ends the
dealing, ``end`` says how: ``"caught"`` (a queen of clubs caught, ``caught`` names who),
``"played"`` (every card played) or ``"void"`` (the boast is made again).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from engine.actions import ONE_CARD, Action, remembered
from engine.cards import ACE, DIAMONDS, QUEEN, Card, deck_points, make
from engine.events import DealStarted, Event, Played, TrickWon
from engine.families.trump.rules import (
    ACE_DIAMONDS,
    QUEENS,
    REDEAL_POINTS,
    TRUMPS,
    BoastGiven,
    BoastRevealed,
    BoastVoid,
    Covered,
    DeckCut,
    Laid,
    PileWon,
    QueenCaught,
    Shuffled,
    Table,
    TrumpPlay,
    catch,
)

_PLAY, _LAY, _COVER = ONE_CARD["play"], ONE_CARD["lay"], ONE_CARD["cover"]
_REDEAL = Action("redeal")
Ending = Literal["caught", "played", "void"]
Pile = tuple[tuple[Card, ...], int]  # a boast pile: its cards and the seat that won it


@dataclass
class TrumpDeal:
    """One dealing: its cards, phases and legality (RULES.md 4)."""

    table: Table
    nn: bool  # RULES.md 4b's game
    ace_rule: bool  # RULES.md 4a: always; 4c: option; 4b: none
    lyusya: str | None
    deal_no: int
    dealer: int
    deck: tuple[Card, ...]
    moment: int  # Observation.moment: rises with every trick, dealing, phase (over the match)
    # the boast of this deal: its piles and its leader; kept on "keep" into the next dealing
    boast_piles: list[Pile] = field(default_factory=list)
    boast_leader: int | None = None
    hands: list[list[Card]] = field(default_factory=lambda: [[], [], [], []])
    piles: list[list[Card]] = field(default_factory=lambda: [[], []])
    tricks: list[int] = field(default_factory=lambda: [0, 0])
    plays: list[TrumpPlay] = field(default_factory=list)
    last_trick: tuple[int, tuple[TrumpPlay, ...]] | None = None
    opened: int = 0  # bitmask of the plain suits led in this deal (the ace rule)
    counter: int = 0  # actions in this dealing
    played: int = 0  # cards played to tricks in this dealing
    forced: Card | None = None  # nn first deal: the A♦ must be led
    stock: list[Card] = field(default_factory=list)
    boaster: int = -1
    laid: tuple[Card, ...] = ()
    covers: list[tuple[int, tuple[Card, ...]]] = field(default_factory=list)
    chooser: int = -1
    leader: int = 0
    to_move: int = 0
    phase: str = "play"
    end: Ending | None = None  # set by the action that ended the dealing
    caught: tuple[int, int] | None = None  # (catcher, victim) when ``end`` is "caught"
    # the legal actions asked for in this state, per seat (cleared by every action)
    _legal: dict[int, list[Action]] = field(default_factory=dict, repr=False, compare=False)

    # --- dealing ----------------------------------------------------------------------

    def start(self, keep: bool) -> list[Event]:
        """Shuffled (nn: wait for the cut) or dealt; ``keep``: the boast tricks stay."""
        if keep:
            # RULES.md 4b step 7: the boast tricks stay where they are
            kept: set[Card] = set()
            for cards, winner in self.boast_piles:
                self.piles[winner % 2].extend(cards)
                self.tricks[winner % 2] += 1
                kept.update(cards)
            self.stock = [c for c in self.deck if c not in kept]
        else:
            self.boast_piles = []
            self.boast_leader = None
            self.stock = list(self.deck)
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
        piles: list[Pile] = []
        for i, card in enumerate(self.laid):
            # the i-th card a player covered with lies on the i-th pile (the boaster's cards
            # in card order)
            plays = [TrumpPlay(self.boaster, card)] + [TrumpPlay(s, cs[i]) for s, cs in self.covers]
            winner = self.table.winner(plays)
            cards = tuple(c for _s, c in plays)
            piles.append((cards, winner))
            self.piles[winner % 2].extend(cards)
            self.tricks[winner % 2] += 1
            events.append(PileWon(winner, winner % 2, cards, deck_points(cards)))
        self.laid = ()
        self.covers = []
        self.boast_piles = piles
        share = (len(self.deck) - 4 * len(piles)) // 4
        over = tuple(s for s in range(4) if len(self.hands[s]) > share)
        if over:
            # step 5: the boast is void and made again: a new dealing, not a redeal
            events.append(BoastVoid(over, share))
            self.boast_piles = []
            self.end = "void"
            return events
        self._deal_all()
        # step 6: the winner of the pile with the most points leads (ties: earlier pile)
        best = max(range(len(piles)), key=lambda i: (deck_points(piles[i][0]), -i))
        self.boast_leader = piles[best][1]
        self.moment += 1
        events.extend(self._start_play(self.boast_leader))
        return events

    def await_choice(self) -> None:
        """RULES.md 4b step 7: a redeal after a boast; the team that won it chooses.
        [decision] the boast leader chooses for his team."""
        assert self.boast_leader is not None
        self.phase = "redeal"
        self.chooser = self.leader = self.to_move = self.boast_leader
        self.moment += 1
        self._legal = {}

    # --- who acts ---------------------------------------------------------------------

    def _before_first_card(self) -> bool:
        return self.phase == "play" and self.played == 0

    def may_redeal(self, seat: int) -> bool:
        if not self._before_first_card():
            return False
        if self.nn:
            # RULES.md 4b: a team with no queen, or only the Q♦ (either of its players,
            # the A♦ holder too, before he leads it)
            held = {c for s in (seat, (seat + 2) % 4) for c in self.hands[s] if c in QUEENS}
            return held <= {make(QUEEN, DIAMONDS)}
        return deck_points(self.hands[seat]) <= REDEAL_POINTS

    def to_act(self) -> tuple[int, ...]:
        """[0] is the seat on move; later seats may ask for a redeal (clockwise order)."""
        mover = self.to_move
        if not self._before_first_card():
            return (mover,)
        extra = tuple(s for s in ((mover + i) % 4 for i in range(1, 4)) if self.may_redeal(s))
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
        return remembered(self._legal, seat, self._legal_now)

    def _legal_now(self, seat: int) -> list[Action]:
        phase = self.phase
        if seat != self.to_move:
            if phase == "play" and self.may_redeal(seat):
                return [_REDEAL]
            return []
        if phase == "play":
            out = [_PLAY[c] for c in self._plays_for(seat)]
            if self.may_redeal(seat):
                out.append(_REDEAL)
            return out
        if phase == "cut":
            return [Action("cut", (n,)) for n in range(1, len(self.stock))]
        if phase == "redeal":
            return [Action("reboast"), Action("keep")]
        # the boast
        cls = self.table.cls
        plain = sorted(c for c in self.hands[seat] if cls[c] != TRUMPS)
        if seat == self.boaster:
            out = [_LAY[c] for c in plain]
            if len(plain) == 2:  # both cards of the last pair were non-trumps
                out.append(Action("lay", tuple(plain)))
            return out
        # step 3: "one on each of the boaster's cards (a button each)": a card at a time, the
        # first on the first pile, the next on the next
        return [_COVER[c] for c in plain]

    def check(self, seat: int, action: Action) -> str | None:
        """The reason code why ``action`` is illegal now, or None."""
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

    # --- applying actions -------------------------------------------------------------

    def apply(self, seat: int, action: Action, first_deal: bool) -> list[Event]:
        """A legal ``play``, ``cut``, ``lay`` or ``cover`` (the match counts and logs it).
        ``first_deal``: the match's first deal (RULES.md 4b: led by the A♦)."""
        self._legal = {}
        kind = action.kind
        if kind == "play":
            return self._play(seat, action.cards[0])
        if kind == "cut":
            return self._cut(seat, action.cards[0], first_deal)
        if kind == "lay":
            self.laid = action.cards
            for c in action.cards:
                self.hands[seat].remove(c)
            events: list[Event] = [Laid(seat, len(action.cards))]
            self._next_cover((seat + 1) % 4, events)
            return events
        # cover
        if self.covers and self.covers[-1][0] == seat:
            self.covers[-1] = (seat, self.covers[-1][1] + action.cards)
        else:
            self.covers.append((seat, action.cards))
        self.hands[seat].remove(action.cards[0])
        events = [Covered(seat, action.cards)]
        if len(self.covers[-1][1]) == len(self.laid):
            self._next_cover((seat + 1) % 4, events)
        return events

    def _cut(self, seat: int, n: int, first_deal: bool) -> list[Event]:
        self.stock = self.stock[n:] + self.stock[:n]
        events: list[Event] = [DeckCut(seat, n)]
        self.moment += 1
        if self.boast_piles:
            # RULES.md 4b step 7 "keep": deal only the cards left; the boast leader leads
            self._deal_all()
            assert self.boast_leader is not None
            events.extend(self._start_play(self.boast_leader))
        elif first_deal:
            # RULES.md 4b: the first deal of a match (and its redeals) is led by the A♦
            self._deal_all()
            holder = next(s for s in range(4) if ACE_DIAMONDS in self.hands[s])
            events.extend(self._start_play(holder))
            self.forced = ACE_DIAMONDS
        else:
            events.extend(self._start_boast())
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
                self.end, self.caught = "caught", caught
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
        self.end = "played"
        return events

    # --- views ------------------------------------------------------------------------

    def points(self) -> list[int]:
        return [deck_points(p) for p in self.piles]

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

    def copy(self) -> TrumpDeal:
        # each field by name (the lists copied): a compiled class has no __dict__ to update
        # (``test_a_trump_deals_copy_holds_every_field``)
        return TrumpDeal(
            self.table,
            self.nn,
            self.ace_rule,
            self.lyusya,
            self.deal_no,
            self.dealer,
            self.deck,
            self.moment,
            boast_piles=self.boast_piles[:],
            boast_leader=self.boast_leader,
            hands=[h[:] for h in self.hands],
            piles=[p[:] for p in self.piles],
            tricks=self.tricks[:],
            plays=self.plays[:],
            last_trick=self.last_trick,
            opened=self.opened,
            counter=self.counter,
            played=self.played,
            forced=self.forced,
            stock=self.stock[:],
            boaster=self.boaster,
            laid=self.laid,
            covers=self.covers[:],
            chooser=self.chooser,
            leader=self.leader,
            to_move=self.to_move,
            phase=self.phase,
            end=self.end,
            caught=self.caught,
        )
