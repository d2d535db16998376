"""RULES.md 4, 4a-4c: the permanent-trump compact playout form (``engine.families.trump.compact``)
plays what the engine plays: random legal deals of every preset and option, stepped through
the ``Game`` API and the compact form side by side (same legal cards, trick winners, points,
tricks and the same value as ``engine.players.search.deal_value`` reads from the engine's events)."""

from __future__ import annotations

import math
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.actions import Action
from engine.codec import pack_cards
from engine.events import DealEnded, Event, TrickWon
from engine.families.trump.compact import TrumpCompact, build
from engine.families.trump.rules import QUEEN_CLUBS, QueenCaught, settings_of, table_for
from engine.family import CATCH
from engine.game import Game
from engine.players.bots import RulesBot
from engine.players.playout import compact_of
from engine.players.sampler import NoSample, Sampler, trail_of
from engine.players.search import deal_value
from engine.presets import make_rules
from engine.registry import match_from_state, new_match

CONFIGS: list[tuple[str, dict[str, Any]]] = [
    *[("kozel-hvalenyi", {"deck": d, "lyusya": ly}) for d in (36, 32) for ly in ("match", "reset")],
    ("kozel-nn", {}),
    *[
        ("kozel-kocherga", {"trump_suit": suit, "ace_rule": ace, "lyusya": ly})
        for suit in ("clubs", "spades", "hearts", "diamonds")
        for ace in (False, True)
        for ly in ("match", "reset")
    ],
]


# a preset with its options, a match seed and the dice of the moves
RANDOM_MATCHES = given(
    config=st.sampled_from(CONFIGS),
    seed=st.integers(min_value=0, max_value=2**31),
    rnd=st.randoms(use_true_random=True),
)


def _to_play(game: Game, rnd: random.Random) -> list[Event]:
    """Random legal actions (redeals too) until a card is to be played."""
    events: list[Event] = []
    while not game.finished and game.to_state()["phase"] != "play":
        seat = game.to_act()[0]
        events = game.apply(seat, rnd.choice(game.legal_actions(seat)))
    return events


def _check_step(game: Game, compact: TrumpCompact, rnd: random.Random) -> tuple[bool, bool]:
    """One card both ways; (the deal ended, it ended in the compact form too)."""
    mover = game.to_act()[0]
    assert compact.to_move == mover
    cards = [a.cards[0] for a in game.legal_actions(mover) if a.kind == "play"]
    assert compact.legal() == cards
    # half the cards by the quick player (its choice must be legal), half at random
    card = compact.choose(cards) if len(cards) > 1 and rnd.random() < 0.5 else rnd.choice(cards)
    assert card in cards
    events = game.apply(mover, Action("play", (card,)))
    compact.play(card)
    ended = next((e for e in events if isinstance(e, DealEnded)), None)
    won = next((e for e in events if isinstance(e, TrickWon)), None)
    if won is not None:
        assert compact.last_winner == won.seat
    if ended is None:
        state = game.to_state()
        assert compact.tricks == state["tricks"]
        assert compact.value is None
        return False, False
    assert list(ended.tricks) == compact.tricks
    assert list(ended.points) == compact.points
    assert compact.value == deal_value(game.rules, events, compact.seat, compact.side)
    return True, compact.value is not None


def play_both(preset: str, options: dict[str, Any], seed: int, rnd: random.Random, deals: int) -> None:
    game = new_match(make_rules(preset, 4, options), seed=seed)
    for _ in range(deals):
        _to_play(game, rnd)
        if game.finished:
            return
        seat = rnd.randrange(4)
        compact = build(game, seat)
        assert compact is not None
        while True:
            if rnd.random() < 0.15:  # built again mid-deal (mid-trick too)
                compact = compact_of(game, seat)
                assert isinstance(compact, TrumpCompact)
            elif rnd.random() < 0.15:
                compact = compact.copy()
            ended, both = _check_step(game, compact, rnd)
            assert ended == both
            if ended:
                break
        if game.finished:
            return


@settings(max_examples=60, derandomize=True, deadline=None)
@RANDOM_MATCHES
def test_rules_4_compact_trump_agrees_with_the_engine(
    config: tuple[str, dict[str, Any]], seed: int, rnd: random.Random
) -> None:
    play_both(config[0], config[1], seed, rnd, deals=3)


def test_rules_4_compact_trump_finish_gives_the_deal_value() -> None:
    for preset, options in CONFIGS:
        game = new_match(make_rules(preset, 4, options), seed=7)
        _to_play(game, random.Random(7))
        compact = build(game, 1)
        assert compact is not None
        value = compact.copy().finish(random.Random(1))
        assert 0.0 <= value <= 1.0
        assert compact.value is None  # the copy played, not the original


def test_rules_4_compact_trump_covers_trick_play_only() -> None:
    game = new_match(make_rules("kozel-nn", 4), seed=3)
    assert game.to_state()["phase"] == "cut"
    assert build(game, 0) is None
    _to_play(game, random.Random(3))
    compact = build(game, 0)
    assert compact is not None
    assert compact.code(Action("redeal")) is None


def _last_trick(preset: str, tricks: list[int]) -> Game:
    """A deal at its last trick: seat 0 leads the 6♣ (7♣), seat 1 holds the Q♣ (RULES.md 4a:
    a sweep beats the catch in the last trick)."""
    rules = make_rules(preset, 4)
    game = new_match(rules, seed=1)
    _to_play(game, random.Random(1))
    state = game.to_state()
    top = table_for(preset, settings_of(rules).suit).top
    others = [c for c in rules.deck if c not in (top, QUEEN_CLUBS)]
    hands = [[top], [QUEEN_CLUBS], [others[0]], [others[1]]]
    state.update(
        hands=[pack_cards(h) for h in hands],
        piles=[pack_cards(others[2:]), ""],
        tricks=tricks,
        plays=[],
        to_move=0,
        leader=0,
        played=len(others) - 2,
        forced=None,
    )
    return match_from_state(rules, state)


def test_rules_4a_compact_trump_sweep_beats_the_catch_in_the_last_trick() -> None:
    n = 8  # tricks before the last one, 36 cards
    for preset in ("kozel-hvalenyi", "kozel-kocherga"):
        last = n if preset == "kozel-hvalenyi" else n - 1
        for tricks in ([last, 0], [last - 1, 1]):
            game = _last_trick(preset, tricks)
            compact = build(game, 0)
            assert compact is not None
            ended = False
            while not ended:
                ended, both = _check_step(game, compact, random.Random(0))
                assert ended == both


def _fields(c: TrumpCompact) -> tuple[Any, ...]:
    return (c.hands, c.plays, c.points, c.tricks, c.to_move, c.opened, c.forced, c.win_seat, c.trick_points)


def test_rules_4_a_relabelled_compact_trump_is_the_samples() -> None:
    """The search relabels the real deal's compact form into a determinization
    (``Sampler.draw``): the same as the compact form of that sample's match."""
    for preset, options in CONFIGS[::3]:
        game = new_match(make_rules(preset, 4, options), seed=5)
        rnd = random.Random(5)
        for step in range(30):
            _to_play(game, rnd)
            if game.finished:
                break
            seat = game.to_act()[0]
            if step % 7 == 3:
                sampler = Sampler(game, seat)
                whole = build(game, seat)
                assert whole is not None
                for _ in range(3):
                    f = sampler.draw(rnd)
                    sample = build(sampler.game_of(f, rnd), seat)
                    assert sample is not None
                    assert _fields(whole.relabel(f)) == _fields(sample)
            game.apply(seat, rnd.choice(game.legal_actions(seat)))


def test_r4a_a_catch_is_worth_four_eyes_to_the_search() -> None:
    """RULES.md 4a/4c: a deal ended by the catch of the Q♣ scores 4 eyes whatever the card
    points until then: a playout ending so is worth CATCH to the catching side, 1 - CATCH to
    the other, through the engine's events and the compact form alike."""
    rnd = random.Random(4)
    for seed in range(200):
        game = new_match(make_rules("kozel-kocherga", 4), seed=seed)
        _to_play(game, rnd)
        compact = build(game, 0)
        assert compact is not None
        while game.to_state()["phase"] == "play" and not game.finished:
            mover = game.to_act()[0]
            cards = [a.cards[0] for a in game.legal_actions(mover) if a.kind == "play"]
            card = QUEEN_CLUBS if QUEEN_CLUBS in cards else rnd.choice(cards)
            events = game.apply(mover, Action("play", (card,)))
            compact.play(card)
            caught = next((e for e in events if isinstance(e, QueenCaught)), None)
            if caught is not None:
                mine = caught.seat % 2 == 0
                assert compact.value == (CATCH if mine else 1 - CATCH)
                assert deal_value(game.rules, events, 0, 0) == compact.value
                assert deal_value(game.rules, events, 1, 1) == 1 - compact.value
                return
            if any(isinstance(e, DealEnded) for e in events):
                break
    raise AssertionError("no catch in 200 random deals")


@settings(max_examples=40, derandomize=True, deadline=None)
@RANDOM_MATCHES
def test_r4_the_quick_player_plays_as_the_rules_player(
    config: tuple[str, dict[str, Any]], seed: int, rnd: random.Random
) -> None:
    """RULES.md 4, 4a-4c: the compact form's quick player chooses the card the rules
    player (``engine.families.trump.bot``) chooses, in every deal of a match: after kozel-nn's boast
    too (the rules player counts the boast's cards as out: it counts only cards played to
    tricks) and with a 32-card deck (the cards the deck leaves out count as out for it)."""
    game = new_match(make_rules(config[0], 4, config[1]), seed=seed)
    bot = RulesBot()
    for _deal in range(3):
        _to_play(game, rnd)
        if game.finished:
            return
        while game.to_state()["phase"] == "play" and not game.finished:
            mover = game.to_act()[0]
            legal = [a for a in game.legal_actions(mover) if a.kind == "play"]
            rules = bot.choose(game.observe(mover), legal, rnd, True)
            assert rules is not None
            compact = build(game, rnd.randrange(4))
            assert compact is not None
            if len(legal) > 1:
                assert compact.choose([a.cards[0] for a in legal]) == rules.cards[0]
            # now and then a random card, so the deals do not all go the rules player's way
            act = rnd.choice(legal) if rnd.random() < 0.2 else rules
            events = game.apply(mover, act)
            if any(isinstance(e, (DealEnded, QueenCaught)) for e in events):
                break


@settings(max_examples=30, derandomize=True, deadline=None)
@RANDOM_MATCHES
def test_r4_the_true_deal_explains_every_rules_players_play(
    config: tuple[str, dict[str, Any]], seed: int, rnd: random.Random
) -> None:
    """RULES.md 4, 4a-4c: the search weighs a determinization by how well the quick player
    explains the plays the seat saw (``TrumpCompact.likelihood``). Where every seat is the
    rules player, the true deal explains every play (weight 1) at every moment and for
    every seat, after a boast and with a 32-card deck too; a determinization's weight is
    ``miss`` to the power of the plays it leaves unexplained, and only the seat's own plays
    never count against it."""
    game = new_match(make_rules(config[0], 4, config[1]), seed=seed)
    bot = RulesBot()
    _to_play(game, rnd)
    weights: set[float] = set()
    while not game.finished and game.to_state()["phase"] == "play":
        mover = game.to_act()[0]
        history = [(s, a.cards[0]) for s, a in trail_of(game) if a.kind == "play"]
        for seat in range(4):
            compact = build(game, seat)
            assert compact is not None
            assert compact.likelihood(history, 0.5) == 1.0
            try:
                f = Sampler(game, seat).draw(rnd)
            except NoSample:  # (the voids left too few ways: the search stops there too)
                continue
            weight = compact.relabel(f).likelihood(history, 0.5)
            assert weight > 0 and math.log2(weight) == int(math.log2(weight))
            weights.add(weight)
        legal = [a for a in game.legal_actions(mover) if a.kind == "play"]
        act = bot.choose(game.observe(mover), legal, rnd, True)
        assert act is not None
        events = game.apply(mover, act)
        if any(isinstance(e, (DealEnded, QueenCaught)) for e in events):
            break


@settings(max_examples=20, derandomize=True, deadline=None)
@RANDOM_MATCHES
def test_a_seats_misses_hang_only_on_its_own_hand(
    config: tuple[str, dict[str, Any]], seed: int, rnd: random.Random
) -> None:
    """The search keeps each other seat's misses under its hand for the whole move
    (``TrumpCompact.misses``): that is only sound if a seat's choices hang on its own hand
    and on what everyone saw, never on the other hidden hands. Over many samples of the
    same moment, with one plays off the rules player's choice now and then, the kept
    counts give every sample the weight that its replay from nothing gives."""
    game = new_match(make_rules(config[0], 4, config[1]), seed=seed)
    bot = RulesBot()
    _to_play(game, rnd)
    hits = 0
    while not game.finished and game.to_state()["phase"] == "play":
        mover = game.to_act()[0]
        history = [(s, a.cards[0]) for s, a in trail_of(game) if a.kind == "play"]
        seat = rnd.randrange(4)
        compact = build(game, seat)
        assert compact is not None
        sampler = Sampler(game, seat)
        known: dict[int, int] = {}
        for _ in range(12):
            try:
                sample = compact.relabel(sampler.draw(rnd))
            except NoSample:
                break
            before = len(known)
            fresh = sample.misses(history, {})
            assert sample.misses(history, known) == fresh
            hits += len(known) == before
            weight = 1.0
            for _miss in range(fresh):
                weight *= 0.5
            assert sample.likelihood(history, 0.5) == weight
        legal = [a for a in game.legal_actions(mover) if a.kind == "play"]
        rules = bot.choose(game.observe(mover), legal, rnd, True)
        assert rules is not None
        act = rnd.choice(legal) if rnd.random() < 0.3 else rules
        events = game.apply(mover, act)
        if any(isinstance(e, (DealEnded, QueenCaught)) for e in events):
            break


def test_r4_a_play_the_quick_player_would_not_make_costs_the_sample_weight() -> None:
    """The other seats' plays are compared with the quick player's choice, the seat's own
    are not: a deal of kozel-kocherga where seat 1 played off the rules player's card is
    weighed ``miss`` by seats 0, 2 and 3, and 1 by seat 1."""
    rnd = random.Random(7)
    for seed in range(50):
        game = new_match(make_rules("kozel-kocherga", 4), seed=seed)
        _to_play(game, rnd)
        bot = RulesBot()
        while not game.finished and game.to_state()["phase"] == "play":
            mover = game.to_act()[0]
            legal = [a for a in game.legal_actions(mover) if a.kind == "play"]
            rules = bot.choose(game.observe(mover), legal, rnd, True)
            other = next((a for a in legal if a != rules), None)
            if mover == 1 and other is not None:
                game.apply(mover, other)
                history = [(s, a.cards[0]) for s, a in trail_of(game) if a.kind == "play"]
                if game.to_state()["phase"] != "play":
                    break
                weights = []
                for seat in range(4):
                    compact = build(game, seat)
                    assert compact is not None
                    weights.append(compact.likelihood(history, 0.25))
                assert weights == [0.25, 1.0, 0.25, 0.25]
                return
            assert rules is not None
            game.apply(mover, rules)
    raise AssertionError("seat 1 never had a choice in 50 deals")
