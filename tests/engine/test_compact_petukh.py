"""RULES.md 5, 5a: the Petukh compact playout form (``engine.families.petukh.compact``) plays what the
engine plays: random legal deals of both presets over every option and table size, from
random records, stepped through the ``Game`` API and the compact form side by side (same
legal moves as codes, trick winners, tricks, records after the deal and the same value as
``engine.players.search.deal_value`` reads from the engine's events)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.actions import Action
from engine.errors import IllegalAction
from engine.events import Event, TrickWon
from engine.families.petukh.compact import CODES, EXCHANGE, KEEP, PASS, SWAP, PetukhCompact, build
from engine.families.petukh.rules import DealScored
from engine.game import Game
from engine.players.playout import compact_of
from engine.players.sampler import Sampler
from engine.players.search import deal_value
from engine.presets import PRESETS, make_rules
from engine.registry import match_from_state, new_match

PETUKH_OPTIONS = st.fixed_dictionaries(
    {
        "deck": st.sampled_from([32, 36]),
        "start": st.sampled_from([15, 20, 25, 30]),
        "trump_swap": st.sampled_from(["may", "must", "never"]),
        "pass": st.booleans(),
        "must_beat": st.booleans(),
        "lead_trump_ace": st.booleans(),
        "no_trick_cap": st.sampled_from(["auto", 0, 5, 10, 15, 20, 25]),
        "boys_table": st.sampled_from(["standard", "thirty"]),
        "crooked_boys": st.sampled_from([0, 3, 5]),
        "boys_finish": st.booleans(),
        "spade_ace": st.booleans(),
    }
)
CONFIGS = st.one_of(
    st.tuples(st.just("petukh"), st.sampled_from(PRESETS["petukh"].players), PETUKH_OPTIONS),
    st.tuples(
        st.just("petukh-25"),
        st.sampled_from(PRESETS["petukh-25"].players),
        st.fixed_dictionaries({"deck": st.sampled_from([32, 36])}),
    ),
)
KINDS = {code: kind for kind, code in CODES.items()}


def _code(a: Action) -> int:
    if a.kind == "play":
        return a.cards[0]
    if a.kind == "swap":
        return SWAP + a.cards[0]
    if a.kind == "exchange":
        return EXCHANGE | sum(1 << c for c in a.cards)
    return CODES[a.kind]


def _action(code: int) -> Action:
    if code & EXCHANGE:
        return Action("exchange", tuple(c for c in range(36) if code >> c & 1))
    if code >= SWAP:
        return Action("swap", (code - SWAP,))
    return Action(KINDS[code]) if code in KINDS else Action("play", (code,))


def _to_play(game: Game, rnd: random.Random) -> None:
    """Random legal exchanges, passes and swaps until the deal's trick play."""
    while not game.finished:
        seat = game.to_act()[0]
        legal = game.legal_actions(seat)
        if {a.kind for a in legal} & {"play", "skip", "finish"}:
            return
        game.apply(seat, rnd.choice(legal))


def _step(game: Game, compact: PetukhCompact, rnd: random.Random) -> list[Event]:
    mover = game.to_act()[0]
    assert compact.to_move == mover
    codes = [_code(a) for a in game.legal_actions(mover)]
    assert compact.legal() == codes
    code = compact.choose() if rnd.random() < 0.5 else rnd.choice(codes)
    assert code in codes
    events = game.apply(mover, _action(code))
    compact.play(code)
    won = next((e for e in events if isinstance(e, TrickWon)), None)
    if won is not None:
        assert compact.last_winner == won.seat
    return events


def play_both(
    preset: str, players: int, options: dict[str, Any], seed: int, rnd: random.Random, low: int = 0
) -> None:
    rules = make_rules(preset, players, options)
    game = new_match(rules, seed=seed)
    start = PRESETS[preset].options.model_validate(options).model_dump().get("start", 25)
    state = game.to_state()
    # random records (low ones too: no exchange, boys finish)
    state["records"] = [rnd.randint(1, low or start) for _ in range(players)]
    game = match_from_state(rules, state)
    for deal in range(2):
        if deal == 1:  # the second deal from its trick play (replayed exchange)
            _to_play(game, rnd)
        if game.finished:
            return
        seat = rnd.randrange(players)
        compact = build(game, seat)
        assert compact is not None
        while True:
            if rnd.random() < 0.15:  # built again mid-deal (mid-trick too)
                compact = compact_of(game, seat)
                assert isinstance(compact, PetukhCompact)
            elif rnd.random() < 0.15:
                compact = compact.copy()
            events = _step(game, compact, rnd)
            scored = next((e for e in events if isinstance(e, DealScored)), None)
            if scored is None:
                assert compact.value is None
                assert compact.tricks == list(game.observe(None).tricks)
                continue
            assert list(scored.tricks) == compact.tricks
            assert list(scored.records) == [compact.after(s) for s in range(players)]
            assert compact.value == deal_value(rules, events, seat, seat)
            break
        if game.finished:
            return


@settings(max_examples=80, derandomize=True, deadline=None)
@given(config=CONFIGS, seed=st.integers(min_value=0, max_value=2**31), rnd=st.randoms(use_true_random=True))
def test_rules_5_compact_petukh_agrees_with_the_engine(
    config: tuple[str, int, dict[str, Any]], seed: int, rnd: random.Random
) -> None:
    play_both(*config, seed, rnd)


def test_rules_5_compact_petukh_quick_player_finishes_the_deal() -> None:
    for preset in ("petukh", "petukh-25"):
        game = new_match(make_rules(preset, 4), seed=2)
        compact = build(game, 0)
        assert compact is not None
        assert compact.code(Action("keep")) == KEEP
        assert compact.code(Action("pass")) == PASS
        value = compact.copy().finish(random.Random(0))
        assert 0.0 <= value <= 1.0
        assert compact.value is None


@settings(max_examples=40, derandomize=True, deadline=None)
@given(
    players=st.sampled_from([5, 6]),
    options=PETUKH_OPTIONS,
    seed=st.integers(min_value=0, max_value=2**31),
    rnd=st.randoms(use_true_random=True),
)
def test_rules_5_compact_petukh_must_beat_overtrumps_as_the_engine(
    players: int, options: dict[str, Any], seed: int, rnd: random.Random
) -> None:
    # many hands to a trick: trumping over a trump on the table (must_beat) comes often;
    # records of 8 or less: boys finish (5 or less) and the overshoot
    play_both("petukh", players, {**options, "must_beat": True, "pass": False}, seed, rnd, low=8)


def _fields(c: PetukhCompact) -> tuple[Any, ...]:
    return (
        c.hands,
        c.plays,
        c.tricks,
        c.to_move,
        c.phase,
        c.passed,
        c.boys,
        c.stock[c.stock_pos :],
        c.face_up,
    )


@pytest.mark.parametrize("preset", ["petukh", "petukh-25"])
def test_rules_5_a_relabelled_compact_petukh_is_the_samples_or_none(preset: str) -> None:
    """The search relabels the real deal's compact form into a determinization
    (``Sampler.draw``): the compact form of that sample's match, or None where the
    sample's replay breaks a duty (the seat saw someone not follow suit)."""
    kept = broken = 0
    for seed in range(6):
        game = new_match(make_rules(preset, 4, {"deck": 36}), seed=seed)
        rnd = random.Random(seed)
        for step in range(60):
            if game.finished:
                break
            seat = game.to_act()[0]
            if step % 5 == 4:
                sampler = Sampler(game, seat)
                whole = build(game, seat)
                assert whole is not None
                for _ in range(4):
                    f = sampler.draw(rnd)
                    try:
                        sample = build(sampler.game_of(f, rnd), seat)
                    except (IllegalAction, AssertionError):
                        sample = None
                    relabelled = whole.relabel(f)
                    assert (relabelled is None) == (sample is None)
                    if relabelled is not None and sample is not None:
                        assert _fields(relabelled) == _fields(sample)
                        kept += 1
                    else:
                        broken += 1
            game.apply(seat, rnd.choice(game.legal_actions(seat)))
    assert kept and broken
