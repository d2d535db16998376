"""The search's samples keep what the table was shown (issue 15, ``engine.players.sampler``).

``Sampler`` decides which cards a seat knows (``known_cards``) and keeps those in place;
``test_search.py`` checks the samples against that same ``known``. Here what was shown is
read again, apart from the sampler, from the events the whole table was told (``Story``):
the turned trump and, by counting the public draws, who drew it; the cards played face up,
and those a declaration sent back to a hand; kozel-nn's trousers; Petukh's boys and the
trump the dealer took. Every sample, from several seeds, must agree with that story.

Two stories are about what the seat does not see: a turned trump its drawer may have
thrown face down is as hidden as any throw (RULES.md 1), and the boaster's face-down
cards are non-trumps, though nobody else knows which (RULES.md 4b).
"""

from __future__ import annotations

import random

import pytest

from engine.actions import Action
from engine.cards import CARD_TEXT, Card, parse_card
from engine.codec import unpack_cards
from engine.events import (
    Beaten,
    CardsDrawn,
    CardsReturned,
    DealEnded,
    DealStarted,
    Declared,
    Event,
    Led,
    Played,
    Thrown,
    TrickWon,
    TrumpCardTaken,
)
from engine.families.petukh.rules import BoysDeclared, Exchanged, Passed, TrumpSwapped
from engine.families.trump.rules import BoastChosen, BoastRevealed, BoastVoid, Covered, PileWon, Shuffled
from engine.game import Game
from engine.players.bots import RulesBot
from engine.players.sampler import Sampler, trail_of
from engine.presets import SEARCH_TABLES, Rules, make_rules
from engine.registry import new_match

SAMPLES = 3  # samples per seat and moment, each from its own seed

# RULES.md 4b: kozel-nn's trumps, high to low
NN_TRUMPS = frozenset(
    parse_card(t)
    for t in ("6C", "QC", "QS", "QH", "QD", "JC", "JS", "JH", "JD", "AC", "10C", "KC", "9C", "8C", "7C")
)


class Story:
    """What every seat was told in the current deal, read from the events alone."""

    def __init__(self, game: Game) -> None:
        self.rules: Rules = game.rules
        self.deal_no = -1
        self.trump_card: Card | None = None
        self.taken: TrumpCardTaken | None = None
        self.drawn_by: dict[Card, int] = {}  # public cards drawn from the stock, by whom
        self.returned = 0  # cards a declaration sent back to their owners (this match)
        self.piles: dict[Card, int] = {}  # RULES.md 4b: the boast piles' cards, by their side
        self._reset()
        self.hear(game.start_events, game)

    def _reset(self, keep_piles: bool = False) -> None:
        # shown face up and now in no hand: on the table, in a trick taken, in a boast pile
        self.out: set[Card] = set()
        # shown, and in this seat's hand for sure
        self.held: dict[Card, int] = {}
        # shown in this seat's hand, which has since put cards face down: in no other hand
        self.held_or_hidden: dict[Card, int] = {}
        # public cards in the stock, by index from the bottom (the last one drawn)
        self.under: dict[Card, int] = {}
        self.table: dict[Card, int] = {}  # the face-up cards of the trick under way, by owner
        self.covers: dict[Card, int] = {}  # RULES.md 4b: cards on the boaster's, by who laid them
        if not keep_piles:
            self.piles = {}

    def hear(self, events: list[Event], game: Game) -> None:
        for event in events:
            self._hear(event, game)

    def _hear(self, event: Event, game: Game) -> None:
        match event:
            case DealStarted(deal_no=deal_no, trump_card=card, dealer=dealer):
                if deal_no != self.deal_no:
                    self.deal_no = deal_no
                    self._reset(keep_piles=True)  # kozel-nn: the boast came before
                    self.trump_card = card
                    self.taken = None
                    if card is not None:
                        self._trump_shown(card, dealer, game)
            case (
                Led(seat=seat, cards=cards)
                | Beaten(seat=seat, cards=cards)
                | Declared(seat=seat, cards=cards)
            ):
                self._face_up(seat, cards)
            case Played(seat=seat, card=card):
                self._face_up(seat, (card,))
            case Thrown(seat=seat) | Passed(seat=seat):
                self._hides(seat)
            case Exchanged(seat=seat, count=count) if count:
                self._hides(seat)
            case TrickWon():
                self.table.clear()
            case CardsReturned(seats=seats):
                for card, owner in list(self.table.items()):
                    if owner in seats:
                        del self.table[card]
                        self.out.discard(card)
                        self.held[card] = owner
                        self.returned += 1
            case CardsDrawn(seats=seats, counts=counts, stock=left):
                self._drawn(seats, counts, left)
            case TrumpCardTaken():
                self.taken = event
            case TrumpSwapped(seat=seat, card=card):
                self.out.discard(card)
                self.held[card] = seat
            case BoysDeclared(seat=seat, cards=cards):
                for card in cards:
                    self.held[card] = seat
            case Covered(seat=seat, cards=cards):
                self._face_up(seat, cards)
                self.covers.update(dict.fromkeys(cards, seat))
            case BoastRevealed(seat=seat, cards=cards):
                self._face_up(seat, cards)
            case PileWon(side=side, cards=cards):
                self.piles.update(dict.fromkeys(cards, side))
                self.covers.clear()
                self.table.clear()
            case DealEnded() | BoastVoid():
                self._reset()  # the deal is over, or a void boast is made again (RULES.md 4b step 5)
            case Shuffled():
                self._reset(keep_piles=True)  # RULES.md 4b step 7 "keep": the boast tricks stay
            case BoastChosen(choice="reboast"):
                self._reset()  # RULES.md 4b step 7: the boast tricks go back into the deck

    def _trump_shown(self, card: Card, dealer: int, game: Game) -> None:
        """Where the trump card was shown: in the stock (drawing family: RULES.md 1, 3 under it,
        2 where it was), beside it (Petukh, RULES.md 5) or in the dealer's hand (5a)."""
        if self.rules.family == "drawing":
            # everybody saw where it was put; the stock's list ends with its top
            self.under[card] = unpack_cards(game.to_state()["deal"]["stock"]).index(card)
        elif self.rules.trump_mode == "last":
            self.held[card] = dealer
        else:
            self.out.add(card)

    def _face_up(self, seat: int, cards: tuple[Card, ...]) -> None:
        for card in cards:
            self.out.add(card)
            self.table[card] = seat
            for known in (self.held, self.held_or_hidden, self.under):
                known.pop(card, None)

    def _hides(self, seat: int) -> None:
        """``seat`` put cards face down: any shown card of his hand may be among them."""
        for card, owner in list(self.held.items()):
            if owner == seat:
                del self.held[card]
                self.held_or_hidden[card] = seat

    def _drawn(self, seats: tuple[int, ...], counts: tuple[int, ...], left: int) -> None:
        """RULES.md 1: one card at a time, clockwise from the trick's winner, from the top."""
        rounds = range(max(counts, default=0))
        order = [s for r in rounds for s, n in zip(seats, counts, strict=True) if n > r]
        before = left + sum(counts)
        for card, index in list(self.under.items()):
            if index >= left:
                del self.under[card]
                # the drawer's; the sampler counts it his or face down from the first
                # moment he may have thrown it (it counts the trail's cards, not the draws)
                self.held_or_hidden[card] = self.drawn_by[card] = order[before - 1 - index]


def step(game: Game, story: Story, rng: random.Random) -> tuple[int, Action]:
    """One action by the rules player of the seat on move, told to the story."""
    seat = game.to_act()[0]
    legal = game.legal_actions(seat)
    action = RulesBot().choose(game.observe(seat), legal, rng, True) or legal[0]
    story.hear(game.apply(seat, action), game)
    return seat, action


def samples(game: Game, seat: int) -> list[Game]:
    sampler = Sampler(game, seat)
    return [sampler.sample(random.Random(k)) for k in range(SAMPLES)]


def keeps_the_story(story: Story, sample: Game, seat: int) -> None:
    """``sample`` (drawn for ``seat``) agrees with everything the table was told: no card
    shown face up in a hand, each shown card in its hand, the public cards of the stock where
    they lie, the trousers' cards on the boaster's cards and in their piles."""
    hands = [set(sample.observe(s).hand) for s in range(story.rules.players)]

    def name(card: Card) -> str:
        return f"{CARD_TEXT[card]} (seat {seat}'s sample)"

    for card in story.out:
        holders = [s for s, h in enumerate(hands) if card in h]
        assert not holders, f"{name(card)}: shown face up, yet in seat {holders}'s hand"
    for card, owner in story.held.items():
        assert card in hands[owner], f"{name(card)}: not in seat {owner}'s hand"
    for card, owner in story.held_or_hidden.items():
        others = [s for s, h in enumerate(hands) if card in h and s != owner]
        assert not others, f"{name(card)}: seat {owner}'s, yet in seat {others}'s hand"
    state = sample.to_state()
    if story.rules.family == "drawing":
        stock = unpack_cards(state["deal"]["stock"])
        for card, index in story.under.items():
            assert stock[index] == card, f"{name(card)}: not at {index} from the stock's bottom"
        shown = story.out | story.held.keys() | story.held_or_hidden.keys()
        assert not shown & set(stock), f"seat {seat}'s sample: a card shown out of the stock is in it"
    if story.rules.family == "trump":
        covers = {c: s for s, cs in state["covers"] for c in unpack_cards(cs)}
        for card, owner in story.covers.items():
            assert covers.get(card) == owner, f"{name(card)}: not on the boaster's card from seat {owner}"
        piles = [set(unpack_cards(p)) for p in state["piles"]]
        for card, side in story.piles.items():
            assert card in piles[side], f"{name(card)}: not in side {side}'s pile"


def check_every_seat(game: Game, story: Story) -> None:
    for seat in range(story.rules.players):
        for sample in samples(game, seat):
            keeps_the_story(story, sample, seat)


# --- the trump card (the drawing family) ----------------------------------------------------


@pytest.mark.parametrize(
    ("preset", "players"),
    [("kozel", 2), ("kozel", 3), ("kozel", 4), ("kozel-60", 2), ("kozel-4", 4)],
    ids=["r1-kozel-2p", "r1-kozel-3p", "r1-kozel-4p", "r3-kozel-60-2p", "r2-kozel-4-4p"],
)
def test_r1_r2_r3_the_trump_card_lies_where_the_table_saw_it(preset: str, players: int) -> None:
    """RULES.md 1, 3: the turned card lies face up under the stock and is drawn last;
    RULES.md 2: kozel-4's shown card stays in the stock where it was. Through a deal, in
    every sample for every seat: the card is at its place in the stock until drawn, then in
    the hand of the seat that drew it (the draws are public) or, once that seat may have
    thrown it face down, among the face-down cards: in no other seat's hand; in no hand
    once played face up."""
    rules = make_rules(preset, players, {})
    game = new_match(rules, seed=5)
    story = Story(game)
    trump = story.trump_card
    assert trump is not None
    if rules.trump_mode == "turn":
        assert story.under == {trump: 0}  # under the stock
    rng = random.Random(5)
    while game.deal_no == 1 and not game.finished:
        check_every_seat(game, story)
        step(game, story, rng)
    assert trump in story.drawn_by, "the deal ended before the trump card was drawn"
    if story.taken is not None:
        assert (story.taken.seat, story.taken.card) == (story.drawn_by[trump], trump)


# --- kozel-nn's trousers (RULES.md 4b) -----------------------------------------------------


def to_a_boast(seeds: range) -> tuple[Game, Story, random.Random, tuple[int, Action]]:
    """The first kozel-nn match (of ``seeds``) whose rules players make a boast from the
    second deal on, just after the boaster laid his cards; and the lay."""
    rules = make_rules("kozel-nn", 4, {})
    for seed in seeds:
        game = new_match(rules, seed=seed)
        story = Story(game)
        rng = random.Random(seed)
        while not game.finished and game.deal_no < 3:
            seat, action = step(game, story, rng)
            if action.kind == "lay" and game.deal_no >= 2:
                return game, story, rng, (seat, action)
    pytest.fail(f"no boast from the second deal on in seeds {seeds}")


def test_r4b_the_trousers_lie_where_the_table_saw_them() -> None:
    """RULES.md 4b (the boast, "trousers", from the second deal on): the others lay their
    non-trumps face up on the boaster's, his are turned over, each pile goes to the side
    that won it. From the lay to two tricks after the boast, in every sample for every
    seat: each cover lies on the boaster's cards, each pile's cards in its side's pile, none
    of them in any hand; the boaster's own samples keep the cards he laid."""
    game, story, rng, (boaster, lay) = to_a_boast(range(20))
    covered = piled = False
    plays = 0
    while plays < 8 and not game.finished:
        check_every_seat(game, story)
        if game.to_state()["laid"]:
            for sample in samples(game, boaster):
                assert unpack_cards(sample.to_state()["laid"]) == list(lay.cards)
        covered |= bool(story.covers)
        piled |= bool(story.piles)
        _seat, action = step(game, story, rng)
        plays += action.kind == "play"
    assert covered and piled


def test_r4b_the_boasters_face_down_cards_are_non_trumps_in_every_sample() -> None:
    """RULES.md 4b step 2: the boaster lays non-trumps. The others have not seen which, but
    that much they know: in their samples the laid cards are non-trumps."""
    game, _story, _rng, (boaster, _lay) = to_a_boast(range(20))
    for seat in range(4):
        if seat != boaster:
            for sample in samples(game, seat):
                laid = unpack_cards(sample.to_state()["laid"])
                assert not NN_TRUMPS & set(laid), f"seat {seat}'s sample: the boaster laid a trump"


# --- cards played face up -----------------------------------------------------------------


@pytest.mark.parametrize(("preset", "players"), SEARCH_TABLES, ids=[f"{p}-{n}p" for p, n in SEARCH_TABLES])
def test_a_card_played_face_up_is_in_no_hand_of_any_sample(preset: str, players: int) -> None:
    """Cards led, beaten with, declared (RULES.md 1, 2) and played (3, 4, 5) lie face up, in
    the trick under way and then in the taker's pile. Through a deal, in every sample for
    the seat on move, none of them is in any hand (nor anything else the table saw moves)."""
    game = new_match(make_rules(preset, players, {}), seed=3)
    story = Story(game)
    rng = random.Random(3)
    played = 0
    while game.deal_no == 1 and not game.finished:
        seat = game.to_act()[0]
        for sample in samples(game, seat):
            keeps_the_story(story, sample, seat)
        played = max(played, len(story.out))
        step(game, story, rng)
    assert played >= 2 * players


def test_r2_cards_a_pull_sends_back_stay_in_their_owners_hands() -> None:
    """RULES.md 2 (pull): the cards on the table go back to their owners, and the trick
    starts again from the puller. The cards played face up were seen going back: in every
    sample for every seat they are in their owners' hands until played again (or, once the
    owner threw cards face down, in no other hand)."""
    rules = make_rules("kozel-4", 4, {})
    for seed in range(20):
        game = new_match(rules, seed=seed)
        story = Story(game)
        rng = random.Random(seed)
        checked = False
        while game.deal_no == 1 and not game.finished:
            if story.returned:
                check_every_seat(game, story)
                checked = True
            step(game, story, rng)
        if checked:
            return
    pytest.fail("no pull sent cards back in 20 seeds")


# --- cards shown in a hand (Petukh) ------------------------------------------------------


def test_r5_shown_boys_and_the_taken_trump_stay_in_their_hands() -> None:
    """RULES.md 5: the dealer may take the face-up trump for one of his cards (face down);
    boys are shown to the table when their first jack is played. In every sample for every
    seat, the trump is in the dealer's hand and each shown jack in its owner's hand until
    played."""
    rules = make_rules("petukh", 4, {})
    swapped = boys = False
    for seed in range(30):
        game = new_match(rules, seed=seed)
        story = Story(game)
        rng = random.Random(seed)
        while game.deal_no == 1 and not game.finished:
            trump_held = story.trump_card in story.held
            jacks_held = any(c != story.trump_card for c in story.held)
            if trump_held or jacks_held:
                check_every_seat(game, story)
            swapped |= trump_held
            boys |= jacks_held
            step(game, story, rng)
        if swapped and boys:
            return
    pytest.fail(f"in 30 seeds: the dealer took the trump {swapped}, boys shown and held {boys}")


# --- what a face-down throw hides ---------------------------------------------------------


def thrown_or_kept(preset: str, players: int, seeds: range) -> tuple[Game, Game, int, Card]:
    """A deal where a seat threw face down a card the table had seen in his hand (the
    turned trump he drew, a card a declaration sent back) while keeping another card
    ``x``, and the same deal where it threw ``x`` and kept that card (every other action
    the same); the thrower and the card."""
    rules = make_rules(preset, players, {})
    for seed in seeds:
        game = new_match(rules, seed=seed)
        story = Story(game)
        rng = random.Random(seed)
        while game.deal_no == 1 and not game.finished:
            mover = game.to_act()[0]
            before = set(game.observe(mover).hand)
            seen = {c for c, o in (story.held | story.held_or_hidden).items() if o == mover}
            seat, action = step(game, story, rng)
            shown = sorted(seen & set(action.cards))
            if action.kind == "throw" and shown and before - set(action.cards):
                card, x = shown[0], min(before - set(action.cards))
                other = new_match(rules, seed=seed)
                for s, act in trail_of(game):
                    if act == action and s == seat:
                        act = Action("throw", tuple(sorted(x if c == card else c for c in act.cards)))
                    other.apply(s, act)
                return game, other, seat, card
    pytest.fail(f"no card seen in a hand thrown face down in {preset}, seeds {seeds}")


def _as_hidden_as_any_throw(threw: Game, kept: Game, thrower: int, card: Card) -> None:
    for viewer in range(threw.rules.players):
        if viewer == thrower:
            continue
        if threw.observe(viewer) != kept.observe(viewer):
            pytest.fail("the two deals look different to another seat")
        one, two = samples(threw, viewer), samples(kept, viewer)
        assert [card in s.observe(thrower).hand for s in one] == [
            card in s.observe(thrower).hand for s in two
        ]


def test_r1_a_turned_trump_thrown_face_down_is_as_hidden_as_any_throw() -> None:
    """RULES.md 1 (throwing: nobody else sees thrown cards, ever): once the seat that drew
    the turned trump has thrown cards face down, the other cannot tell whether the trump
    was among them. Two deals that differ only in that give it the same view, and so the
    same samples: the trump in the thrower's hand in both or in neither."""
    threw, kept, thrower, card = thrown_or_kept("kozel", 2, range(60))
    assert card == Story(new_match(threw.rules, seed=threw.seed)).trump_card
    _as_hidden_as_any_throw(threw, kept, thrower, card)


@pytest.mark.parametrize(("preset", "players"), [("kozel", 4), ("kozel", 3), ("kozel-4", 4)])
def test_r1_r2_a_hidden_turned_trump_lies_in_its_drawers_hand_or_throws(preset: str, players: int) -> None:
    """RULES.md 1, 2: where a throw may have hidden the turned trump, the table still saw
    who drew it and where each throw went: in every sample for every other seat it lies in
    the drawer's hand or in one of his throws, never in another seat's throw or hand."""
    threw, _kept, thrower, card = thrown_or_kept(preset, players, range(60))
    assert card == Story(new_match(threw.rules, seed=threw.seed)).trump_card
    throws = {c for s, act in trail_of(threw) if s == thrower and act.kind == "throw" for c in act.cards}
    hand = set(threw.observe(thrower).hand)
    for viewer in range(players):
        if viewer == thrower:
            continue
        sampler = Sampler(threw, viewer)
        for k in range(20):
            f = sampler.draw(random.Random(k))
            where = f.index(card)  # the real card whose place the trump takes in this sample
            assert where in hand | throws, f"seat {viewer}'s sample {k}: the trump went to {CARD_TEXT[where]}"
