"""Conformance: random legal matches of every preset, every table size and every option
value, through the ``Game`` interface (``engine.game``), checked after every action.

One driver (``play_conforming``) for the three families. Each step a hypothesis-drawn
``Random`` tries illegal actions (the family oracle's own, and one of any kind of
``engine.actions.ACTION_KINDS`` by any seat, a seat off the table too): each raises
``IllegalAction`` with the code ``check`` gives, and changes neither the state nor the
public view. Then a seat of ``to_act()`` plays one of its legal actions, through the
family's oracle (tests/engine/oracle_*.py: cards in one place each, hidden cards hidden in
every view and event, deal scores recomputed from RULES.md). Everywhere:

- exactly the seats in ``to_act()`` have legal actions, each passing ``check``; ``audit``
  finds nothing;
- ``to_state`` -> ``match_from_state`` at a random moment gives a twin that sees and plays
  on identically (events and states), and a ``copy`` made then is independent;
- ``to_log`` -> ``replay`` reproduces the finished match (state, scores, winners, its log),
  and so does a log cut at a random moment;
- a finished match has nobody to act and refuses every action with ``match_over``.

``test_simulate_strict`` plays bot matches with ``engine.simulate``'s strict invariants.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from engine.actions import ACTION_KINDS, Action
from engine.errors import IllegalAction
from engine.game import Game
from engine.log import replay, to_log
from engine.presets import PRESETS, make_rules, players_allowed
from engine.registry import match_from_state, new_match
from engine.simulate import simulate
from tests.engine import oracle_drawing, oracle_petukh, oracle_trump
from tests.sizes import FULL, full_or

Config = tuple[str, int, dict[str, Any]]
ORACLES: dict[str, Any] = {
    "drawing": oracle_drawing.Oracle,
    "trump": oracle_trump.Oracle,
    "petukh": oracle_petukh.Oracle,
}
MAX_STEPS = 200_000
TWIN_STEPS = 80  # how long a twin from to_state is compared state by state


def _values(annotation: Any) -> tuple[Any, ...]:
    return (True, False) if annotation is bool else tuple(getattr(annotation, "__args__", ()))


def every_option_value() -> list[Config]:
    """Each preset at each table size with its defaults, and each option value alone."""
    out: list[Config] = []
    for preset, spec in PRESETS.items():
        out.extend((preset, n, {}) for n in spec.players)
        i = 0
        for field_name, f in spec.options.model_fields.items():
            name = f.alias or field_name
            for value in _values(f.annotation):
                if value == f.default:
                    continue
                sizes = players_allowed(preset, {name: value})
                out.append((preset, sizes[i % len(sizes)], {name: value}))
                i += 1
    return out


def _full(config: Config) -> tuple[str, int, str]:
    preset, n, options = config
    return preset, n, json.dumps(make_rules(preset, n, options).options, sort_keys=True)


def _configs() -> list[Config]:
    """Every option value alone, and the families' chosen combinations (once each)."""
    chosen: list[Config] = [
        *oracle_drawing.KOZEL,
        *oracle_drawing.KOZEL_4,
        *oracle_drawing.KOZEL_60,
        *[(p, 4, o) for p, o in oracle_trump.CONFIGS],
        *oracle_petukh.CONFIGS,
    ]
    seen: set[tuple[str, int, str]] = set()
    out = []
    for config in [*every_option_value(), *chosen]:
        if _full(config) not in seen:
            seen.add(_full(config))
            out.append(config)
    return out


CONFIGS = _configs()
# petukh-25 at 4 players runs long matches ("no trick +5"): one example each, cut after 60
# deals (whole matches: bench/strength.py and simulate below)
LONG = [c for c in CONFIGS if c[0] == "petukh-25" and c[1] >= 4]
# examples per family: the cheaper its matches, the more. A Petukh match is tens of deals,
# each step checked whole: two whole matches a configuration check as much as three (and a
# Kozel family's 8 examples as its 12); FULL_TESTS=1 (tests/sizes.py) plays the full numbers
# with fresh random examples every run, the default the same examples every run
EXAMPLES = {
    "kozel": 5,
    "kozel-4": full_or(20, 30),
    "kozel-60": full_or(20, 30),
    "kozel-hvalenyi": full_or(8, 12),
    "kozel-nn": full_or(8, 12),
    "kozel-kocherga": full_or(8, 12),
    "petukh": full_or(2, 3),
    "petukh-25": full_or(2, 3),
}


def _id(config: Config) -> str:
    preset, players, options = config
    opts = ",".join(f"{k}={v}" for k, v in options.items())
    return f"{preset}-{players}p" + (f"-{opts}" if opts else "")


# --- the generic checks ----------------------------------------------------------------------


def _check_acting(match: Game) -> None:
    players = match.rules.players
    acting = match.to_act()
    assert len(set(acting)) == len(acting)
    assert match.audit() is None, match.audit()
    for seat in range(-1, players + 1):
        legal = match.legal_actions(seat)
        assert len(set(legal)) == len(legal), f"seat {seat}: duplicate legal actions"
        assert bool(legal) == (seat in acting), (seat, acting, legal)
        for a in legal:
            assert match.check(seat, a) is None, f"legal {a} of seat {seat} fails check"


def _try_any_kind(match: Game, rnd: random.Random) -> None:
    """An action of any kind, by any seat (one off the table too): refused, nothing changed."""
    rules = match.rules
    kind = rnd.choice(list(ACTION_KINDS))
    seat = rnd.randrange(-1, rules.players + 1)
    if ACTION_KINDS[kind].takes == "number":
        act = Action(kind, (rnd.randrange(0, 40),))
    else:
        act = Action(kind, tuple(sorted(rnd.sample(rules.deck, rnd.randrange(0, 3)))))
    if 0 <= seat < rules.players and act in match.legal_actions(seat):
        return
    reason = match.check(seat, act)
    assert reason is not None, f"{act} by seat {seat} is not legal but passes check"
    before = json.dumps([match.to_state(), match.observe(None).to_json()], sort_keys=True)
    with pytest.raises(IllegalAction) as info:
        match.apply(seat, act)
    assert info.value.code == reason
    after = json.dumps([match.to_state(), match.observe(None).to_json()], sort_keys=True)
    assert after == before, f"the illegal {act} by seat {seat} changed the match"


def _twin(match: Game) -> Game:
    state = json.loads(json.dumps(match.to_state()))
    twin = match_from_state(match.rules, state)
    assert twin.to_state() == state
    for seat in (None, *range(match.rules.players)):
        assert twin.observe(seat) == match.observe(seat)
    return twin


def play_conforming(config: Config, seed: int, rnd: random.Random, stop_after: int | None = None) -> None:
    """One random legal match of ``config``, checked after every action; ``stop_after``
    deals cut a long one short (its log still replays to the same scores)."""
    preset, players, options = config
    match = new_match(make_rules(preset, players, options), seed=seed)
    oracle = ORACLES[match.rules.family](match)
    twin_at, cut_at = rnd.randrange(1, 200), rnd.randrange(1, 60)
    twin: Game | None = None
    cut: tuple[dict[str, Any], Any, list[int]] | None = None
    steps = 0
    while not match.finished:
        assert steps < MAX_STEPS, "the match does not end"
        if stop_after is not None and match.deal_no > stop_after:
            break
        oracle.try_illegal(rnd)
        _try_any_kind(match, rnd)
        _check_acting(match)
        seat = rnd.choice(match.to_act())
        act = rnd.choice(match.legal_actions(seat))
        copied = None
        if steps == twin_at:
            twin = _twin(match)
            copied, kept = match.copy(), match.copy()
            kept_state = json.dumps(kept.to_state(), sort_keys=True)
        events = oracle.apply(seat, act)
        if copied is not None:
            assert json.dumps(kept.to_state(), sort_keys=True) == kept_state, "a copy changed with the match"
            assert [e.to_json() for e in copied.apply(seat, act)] == [e.to_json() for e in events]
            assert copied.to_state() == match.to_state()
        if twin is not None:
            assert [e.to_json() for e in twin.apply(seat, act)] == [e.to_json() for e in events]
            if steps < twin_at + TWIN_STEPS:
                assert twin.to_state() == match.to_state()
        steps += 1
        if steps == cut_at:
            cut = (json.loads(json.dumps(to_log(match))), oracle.snapshot(match), list(match.scores))
    if twin is not None:
        assert twin.to_state() == match.to_state() and twin.winners == match.winners
    _check_end(match, oracle, cut)


def _check_end(match: Game, oracle: Any, cut: tuple[dict[str, Any], Any, list[int]] | None) -> None:
    log = json.loads(json.dumps(to_log(match)))
    again, summary = replay(log)
    assert summary["score"] == match.scores and to_log(again) == log
    if cut is not None:
        part, snap, scores = cut
        partly, part_summary = replay(part)
        assert oracle.snapshot(partly) == snap and part_summary["score"] == scores
    if not match.finished:
        return  # cut short
    assert match.to_act() == ()
    for seat in range(match.rules.players):
        assert match.check(seat, Action("play", (match.rules.deck[0],))) == "match_over"
    assert summary["finished"] is True and summary["winners"] == list(match.winners)
    assert again.to_state() == match.to_state()
    oracle.finish(again, summary)


# --- the tests ----------------------------------------------------------------------------


def test_every_preset_size_and_option_value_is_played() -> None:
    for preset, spec in PRESETS.items():
        for n in spec.players:
            assert any(c[0] == preset and c[1] == n for c in CONFIGS), (preset, n)
        for field_name, f in spec.options.model_fields.items():
            name = f.alias or field_name
            for value in _values(f.annotation):
                assert any(c[0] == preset and make_rules(*c).options[name] == value for c in CONFIGS), (
                    preset,
                    name,
                    value,
                )


def _examples(n: int) -> settings:
    return settings(
        max_examples=n,
        derandomize=not FULL,  # deterministic by default: the same matches, the same time
        deadline=None,
        phases=[Phase.explicit, Phase.generate, Phase.shrink],
        suppress_health_check=[HealthCheck.too_slow],
    )


SEEDS = st.integers(min_value=0, max_value=2**32)
# The per-action choices come from a Random that hypothesis draws (and reports on failure);
# a whole match makes thousands of choices, more than hypothesis' own choice buffer holds.
CHOICES = st.randoms(use_true_random=True)


@pytest.mark.parametrize("config", [c for c in CONFIGS if c not in LONG], ids=_id)
def test_random_legal_matches_conform(config: Config) -> None:
    # a family's number of examples: the cheaper its matches, the more
    @_examples(EXAMPLES[config[0]])
    @given(seed=SEEDS, rnd=CHOICES)
    def run(seed: int, rnd: random.Random) -> None:
        play_conforming(config, seed, rnd)

    run()


@pytest.mark.parametrize("config", LONG, ids=_id)
@_examples(1)
@given(seed=SEEDS, rnd=CHOICES)
def test_random_long_matches_conform(config: Config, seed: int, rnd: random.Random) -> None:
    play_conforming(config, seed, rnd, stop_after=60)


# --- whole bot matches with the engine's own strict invariants ------------------------------

# (preset, players, options, matches, computer players); seeds from 1000 (Petukh 500; the
# permanent-trump rules players 2000)
SIM: list[tuple[str, int, dict[str, Any] | None, int, list[str]]] = [
    *[
        (
            "kozel",
            n,
            {"shokha": shokha, "tie": tie},
            34,
            ["random"] * n if n != 4 else ["rules", "random", "random", "rules"],
        )
        for n in (2, 3, 4)
        for shokha, tie in ((True, "both_two"), (False, "eggs"), (True, "eggs_double"))
    ],
    ("kozel-4", 4, None, 150, ["rules", "random", "random", "rules"]),
    ("kozel-60", 2, None, 100, ["random"] * 2),
    ("kozel-60", 3, None, 100, ["random"] * 3),
    ("kozel-60", 4, None, 100, ["rules", "random", "random", "rules"]),
    ("kozel-60", 4, {"deal": "halves"}, 100, ["rules", "random", "random", "rules"]),
    *[(p, 4, None, 50, ["random"]) for p in ("kozel-hvalenyi", "kozel-nn", "kozel-kocherga")],
    *[(p, 4, None, 20, ["rules"]) for p in ("kozel-hvalenyi", "kozel-nn", "kozel-kocherga")],
    *[
        (p, n, None, 15, ["rules"] + ["random"] * (n - 1))
        for p in ("petukh", "petukh-25")
        for n in PRESETS[p].players
    ],
]


@pytest.mark.parametrize(
    "preset,players,options,matches,bots",
    SIM,
    ids=[f"{_id((p, n, o or {}))}-{b[0]}" for p, n, o, _m, b in SIM],
)
def test_simulate_strict(
    preset: str, players: int, options: dict[str, Any] | None, matches: int, bots: list[str]
) -> None:
    """Bot matches with the engine's own strict invariant checks after every action."""
    # the first seed: as the three drivers this test replaced had them
    first = 500 if preset.startswith("petukh") else 2000 if bots == ["rules"] else 1000
    result = simulate(preset, players, matches, first, bots, options, check=True, strict=True)
    assert result["invariants"] == "ok"
    assert result["matches"] == matches
    assert result["deals"] >= matches
    assert sum(result["wins"]) >= matches  # every match has a winner
