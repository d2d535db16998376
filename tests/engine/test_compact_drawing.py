"""The drawing family's compact playout form agrees with the engine (issue 15).

Stories: random legal deals of every drawing preset and option (kozel 2-4 players with and
without the shokha, kozel-4, kozel-60 2-4 players and halves), played step by step through
the ``Game`` API and the compact form (``engine.families.drawing.compact``) at once, half the moves
the compact quick player's own choices: the same seats may act, the same legal moves (as
codes) for every seat, the same trick winners, tricks and card points, the same end and
the same value as ``engine.players.search.deal_value`` reads from the engine's events; a compact
form built in the middle of a deal agrees too.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.actions import Action
from engine.cards import POINTS, parse_cards
from engine.codec import unpack_cards
from engine.events import DealEnded, Event, TrickWon
from engine.families.drawing import compact as compact_drawing
from engine.families.drawing.compact import DrawingCompact, build
from engine.families.drawing.compact_table import DECLARE, decode, encode, mask_of
from engine.game import Game
from engine.players.bots import RulesBot
from engine.players.playout import compact_of
from engine.players.sampler import Sampler
from engine.players.search import deal_value
from engine.presets import make_rules
from engine.registry import new_match

CONFIGS: list[tuple[str, int, dict[str, Any]]] = [
    ("kozel", 4, {}),
    ("kozel", 3, {}),
    ("kozel", 2, {}),
    ("kozel", 4, {"shokha": False}),
    ("kozel", 2, {"shokha": False, "tie": "eggs"}),
    ("kozel-4", 4, {}),
    ("kozel-60", 2, {}),
    ("kozel-60", 3, {}),
    ("kozel-60", 4, {}),
    ("kozel-60", 4, {"deal": "halves"}),
]


def _id(c: tuple[str, int, dict[str, Any]]) -> str:
    return f"{c[0]}-{c[1]}p" + "".join(f"-{k}={v}" for k, v in c[2].items())


def same_moment(game: Game, c: DrawingCompact) -> None:
    """Who may act and every seat's legal moves; the tricks and card points so far."""
    assert c.to_act() == game.to_act()
    for s in range(game.rules.players):
        assert sorted(c.legal(s)) == sorted(encode(a) or -1 for a in game.legal_actions(s)), s
    d = game.to_state()["deal"]
    assert c.tricks == d["tricks"]
    assert c.points == [sum(POINTS[x] for x in unpack_cards(p)) for p in d["piles"]]


def pick(game: Game, c: DrawingCompact, rnd: random.Random) -> tuple[int, int]:
    """Half the time the quick player's move (it must be legal), else a random legal one
    (an out-of-turn declaration now and then)."""
    if rnd.random() < 0.5:
        seat, kind, cards = c.quick_choice()
        code = kind << 36 | mask_of(cards)
        assert seat in game.to_act() and decode(code) in game.legal_actions(seat)
        return seat, code
    acting = game.to_act()
    seat = rnd.choice(acting) if rnd.random() < 0.3 else acting[0]
    return seat, encode(rnd.choice(game.legal_actions(seat))) or -1


def check_events(game: Game, c: DrawingCompact, events: list[Event]) -> bool:
    """The trick winners and the deal's end; True when the deal ended."""
    for ev in events:
        if isinstance(ev, TrickWon):
            assert c.last_winner == ev.seat
        if isinstance(ev, DealEnded):
            assert c.finished and c.points == list(ev.points) and c.tricks == list(ev.tricks)
            for s in range(game.rules.players):
                c.seat = s
                assert c.value() == deal_value(game.rules, events, s, game.rules.side_of(s))
            return True
    assert not c.finished
    return False


def play_both(
    config: tuple[str, int, dict[str, Any]], seed: int, rnd: random.Random, decks: Any = None
) -> None:
    preset, players, options = config
    game = new_match(
        make_rules(preset, players, options), seed=seed, dealer=3 if decks else None, decks=decks
    )
    for _deal in range(2):  # the second deal: another dealer and first leader
        c = compact_of(game, 0)
        assert isinstance(c, DrawingCompact)
        rebuild = rnd.randrange(30)
        for step in range(400):
            if step == rebuild:  # built again in the middle of the deal
                again = build(game, 0)
                assert again is not None
                again.seat = c.seat
                c = again
            same_moment(game, c)
            seat, code = pick(game, c, rnd)
            assert code >> 36 == DECLARE or seat == game.to_act()[0]
            events = game.apply(seat, decode(code))
            c.apply(seat, code)
            if check_events(game, c, events):
                break
        else:
            raise AssertionError("the deal did not end")
        if game.finished:
            return


@pytest.mark.parametrize("config", CONFIGS, ids=_id)
@settings(max_examples=6, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**32), choices=st.integers(min_value=0, max_value=2**32))
def test_compact_deals_agree_with_the_engine(
    config: tuple[str, int, dict[str, Any]], seed: int, choices: int
) -> None:
    play_both(config, seed, random.Random(choices))


# seat 0 holds a Molodka (hearts), seats 1 and 3 a Moscow each, seat 2 four spades (a pull
# in kozel-4):
# the deal goes one card at a time from the dealer's left (dealer 3)
HANDS = ("6H 7H 8H 9H", "AC AS AD 10C", "7S 8S 9S JS", "AH 10H 10S 10D")


def crafted(no: int, _dealer: int) -> tuple[list[int], int | None]:
    hands = [parse_cards(h.split()) for h in HANDS]
    dealt = [hands[i % 4][i // 4] for i in range(16)]
    rest = [c for c in range(36) if c not in dealt]
    random.Random(no).shuffle(rest)
    return dealt + rest, rest[len(rest) // 2]


@pytest.mark.parametrize(
    "config", [("kozel", 4, {}), ("kozel", 4, {"shokha": False}), ("kozel-4", 4, {})], ids=_id
)
def test_declarations_agree_with_the_engine(config: tuple[str, int, dict[str, Any]]) -> None:
    """A Moscow over a Molodka, a pull: the deals that hold them, every way of playing."""
    for choices in range(12):
        play_both(config, 0, random.Random(choices), decks=crafted)


def rules_step(game: Game, bot: RulesBot, rnd: random.Random) -> tuple[int, Action]:
    """What ``engine.simulate.step`` lets rules players do: out-of-turn declarers first."""
    acting = game.to_act()
    for s in acting[1:]:
        act = bot.choose(game.observe(s), game.legal_actions(s), rnd, False)
        if act is not None:
            return s, act
    act = bot.choose(game.observe(acting[0]), game.legal_actions(acting[0]), rnd, True)
    assert act is not None
    return acting[0], act


@pytest.mark.parametrize("config", CONFIGS, ids=_id)
def test_the_quick_player_plays_as_the_rules_player(config: tuple[str, int, dict[str, Any]]) -> None:
    """The compact quick player's every choice is the family's rules player's
    (``engine.families.drawing.bot``), out-of-turn declarations included."""
    preset, players, options = config
    bot = RulesBot()
    for seed in range(4):
        game = new_match(make_rules(preset, players, options), seed=seed)
        rnd = random.Random(seed)
        deal = game.deal_no
        while not game.finished and game.deal_no == deal:
            c = build(game, 0)
            assert c is not None
            seat, kind, cards = c.quick_choice()
            expected = rules_step(game, bot, rnd)
            assert (seat, decode(kind << 36 | mask_of(cards))) == expected
            game.apply(*expected)


def test_the_quick_player_finishes_every_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    """``finish`` (the quick player, its fast loops included) plays as ``quick_step`` step by
    step, and ``finish_random`` ends a deal too, with a value in 0..1; a copy leaves its
    original as it was."""
    for preset, players, options in CONFIGS:
        for seed in range(4):
            game = new_match(make_rules(preset, players, options), seed=seed)
            c = build(game, 1)
            assert c is not None
            for _ in range(seed * 3):  # from the middle of a trick or of the deal too
                c.quick_step()
            before = ([h[:] for h in c.hands], c.stock[:], c.points[:])
            fast, slow = c.copy(), c.copy()
            assert 0.0 <= fast.finish(random.Random(0)) <= 1.0
            while not slow.finished:
                slow.quick_step()
            assert (fast.points, fast.tricks, fast.last_winner) == (
                slow.points,
                slow.tricks,
                slow.last_winner,
            )
            assert 0.0 <= c.copy().finish_random(random.Random(0)) <= 1.0
            for quick in ("random", "mixed"):  # the quick players measured against the rules one
                monkeypatch.setattr(compact_drawing, "QUICK", quick)
                assert 0.0 <= c.copy().finish(random.Random(0)) <= 1.0
            monkeypatch.undo()
            assert (c.hands, c.stock, c.points) == before and not c.finished


@pytest.mark.parametrize("config", CONFIGS, ids=_id)
def test_a_relabelled_compact_form_is_the_samples(config: tuple[str, int, dict[str, Any]]) -> None:
    """The search relabels the real deal's compact form into a determinization
    (``Sampler.draw``): the same as the compact form of that sample's match."""
    preset, players, options = config
    game = new_match(make_rules(preset, players, options), seed=5)
    rnd = random.Random(5)
    for step in range(25):
        if step % 6 == 5:
            seat = game.to_act()[0]
            sampler = Sampler(game, seat)
            whole = build(game, seat)
            assert whole is not None
            for _ in range(3):
                f = sampler.draw(rnd)
                one = whole.relabel(f)
                two = build(sampler.game_of(f, rnd), seat)
                assert two is not None
                assert {n: getattr(one, n) for n in SLOTS} == {n: getattr(two, n) for n in SLOTS}
        game.apply(*rules_step(game, RulesBot(), rnd))


# the fields: a compiled class (setup.py) names them in __mypyc_attrs__, a plain one in __slots__
FIELDS = getattr(DrawingCompact, "__mypyc_attrs__", None) or DrawingCompact.__slots__
SLOTS = [n for n in FIELDS if n != "t"]
