"""The ``search`` computer player (``hard``) and its determinizations (issue 15).

Stories: the search plays every preset legally; it never reads a hidden card (a state
whose hidden cards were swapped gives the same choice for the same seed); a sample keeps
everything the seat saw (its view, the places of the cards it knows, the voids play
revealed); a seeded search with an iteration budget is exact.
"""

from __future__ import annotations

import random
from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.actions import Action
from engine.cards import Card
from engine.errors import IllegalAction
from engine.families.trump.rules import TRUMPS
from engine.game import Game
from engine.players.bots import EasyBot, RulesBot
from engine.players.levels import make_bot
from engine.players.playout import compact_of, draws_dice
from engine.players.sampler import Sampler, known_cards, shuffle, suit_class, swap_hidden, trail_of, voids
from engine.players.search import Search, SearchBot, deal_value, think
from engine.presets import SEARCH_TABLES, make_rules
from engine.registry import new_match
from engine.simulate import check_invariants, simulate

CASES = list(SEARCH_TABLES)
IDS = [f"{p}-{n}p" for p, n in CASES]


def advance(match: Game, moves: int, seed: int = 0) -> Game:
    """``moves`` actions by rules players (the seat on move each time)."""
    rng = random.Random(seed)
    bot = RulesBot()
    for _ in range(moves):
        seat = match.to_act()[0]
        legal = match.legal_actions(seat)
        match.apply(seat, bot.choose(match.observe(seat), legal, rng, True) or legal[0])
    return match


def mid_play(preset: str, players: int, seed: int) -> Game:
    """A match on a play move (a card to a trick) a few tricks into its first deal."""
    match = new_match(make_rules(preset, players, {}), seed=seed)
    advance(match, 0)
    for _ in range(40):
        seat = match.to_act()[0]
        kinds = {a.kind for a in match.legal_actions(seat)}
        if match.observe(seat).trick_no >= 3 and kinds & {"play", "lead", "beat"}:
            return match
        advance(match, 1, seed)
    return match


def hidden_pairs(match: Game, seat: int) -> list[tuple[Card, Card]]:
    """Pairs of cards in two different places ``seat`` cannot see (other hands, the stock,
    face-down throws), same suit first; none is in its hand or among what it was shown."""
    obs = match.observe(seat)
    sampler = Sampler(match, seat)
    known, slots = sampler.known, sampler.slots
    assert known <= known_cards(obs, trail_of(match)) | set(obs.hand)
    assert not {c for _p, c in slots} & (known | set(obs.hand))
    one_place = len({p for p, _c in slots}) == 1  # Petukh: the deck's hidden positions
    pairs = [(a, b) for (p, a), (q, b) in combinations(slots, 2) if p != q or one_place]
    pairs.sort(key=lambda p: (p[0] // 9 != p[1] // 9, p))
    return pairs


@pytest.mark.parametrize(("preset", "players"), CASES, ids=IDS)
def test_search_plays_a_deal_of_every_preset(preset: str, players: int) -> None:
    """hard at seat 0, normal elsewhere, one deal to its end: every move legal, every
    invariant kept."""
    match = new_match(make_rules(preset, players, {}), seed=11)
    bots = [SearchBot(iterations=6), *[RulesBot() for _ in range(players - 1)]]
    rng = random.Random(0)
    deal = match.deal_no
    for _ in range(300):
        if match.finished or match.deal_no != deal:
            break
        seat = match.to_act()[0]
        bot = bots[seat]
        if isinstance(bot, SearchBot):
            act = bot.choose_in(match, seat, rng, True)
        else:
            act = bot.choose(match.observe(seat), match.legal_actions(seat), rng, True)
        assert act is not None
        assert act in match.legal_actions(seat)
        match.apply(seat, act)
        check_invariants(match)
    assert match.finished or match.deal_no != deal


@pytest.mark.parametrize(("preset", "players"), CASES, ids=IDS)
def test_search_never_reads_hidden_cards(preset: str, players: int) -> None:
    """Two worlds that differ only in where two hidden cards lie: the same choice, the same
    value, for the same seed."""
    match = mid_play(preset, players, seed=4)
    seat = match.to_act()[0]
    tried = 0
    for a, b in hidden_pairs(match, seat):
        try:
            other = swap_hidden(match, a, b)
        except (IllegalAction, ValueError):
            continue  # the swap breaks a duty seen in play (Petukh replays): not a world
        assert other.observe(seat) == match.observe(seat) or preset.startswith("petukh")
        assert other.observe(seat).hand == match.observe(seat).hand
        one = think(match, seat, random.Random(9), iterations=40, trail=trail_of(match))
        two = think(other, seat, random.Random(9), iterations=40, trail=trail_of(match))
        assert (one.action, one.value, one.playouts) == (two.action, two.value, two.playouts)
        tried += 1
        if tried == 2:
            break
    assert tried, "no pair of hidden cards to swap"


@pytest.mark.parametrize(("preset", "players"), CASES, ids=IDS)
def test_a_sample_keeps_what_the_seat_saw(preset: str, players: int) -> None:
    """The seat's own view is the same in every sample, every card it knows stays where
    it is, and the hidden cards are dealt again (some sample differs from the real deal)."""
    match = mid_play(preset, players, seed=7)
    seat = match.to_act()[0]
    real = match.observe(seat)
    sampler = Sampler(match, seat)
    rng = random.Random(1)
    moved = False
    for _ in range(10):
        game = sampler.sample(rng)
        seen = game.observe(seat)
        assert seen.hand == real.hand and seen.trick == real.trick
        assert seen.hand_sizes == real.hand_sizes and seen.stock == real.stock
        assert game.legal_actions(seat) == match.legal_actions(seat)
        assert game.audit() is None
        for s in range(players):
            if s != seat:
                mine = set(game.observe(s).hand)
                theirs = set(match.observe(s).hand)
                assert mine & sampler.known == theirs & sampler.known
                moved |= mine != theirs
        assert game.seed != match.seed  # the future is not the real seed's either
    assert moved or not sampler.slots


def test_sample_keeps_voids_the_play_revealed() -> None:
    """RULES.md 4 (follow suit): a seat that did not follow the led class has none of it
    in any sample."""
    rules = make_rules("kozel-hvalenyi", 4, {})
    for seed in range(40):
        match = new_match(rules, seed=seed)
        for _ in range(30):
            advance(match, 1, seed)
            seat = match.to_act()[0]
            if match.finished or not match.legal_actions(seat):
                break
            found = voids(match.observe(seat), trail_of(match), suit_class(match))
            if found:
                klass = suit_class(match)
                sampler = Sampler(match, seat)
                for _ in range(5):
                    game = sampler.sample(random.Random(seed))
                    for s, classes in found.items():
                        assert not {klass(c) for c in game.observe(s).hand} & classes
                return
    pytest.fail("no void in 40 seeds")


def test_r4b_a_trump_lead_shows_a_hand_of_trumps_only() -> None:
    """RULES.md 4b (kozel-nn: no trump lead while holding a non-trump): a seat that led a
    trump holds trumps only in every sample."""
    rules = make_rules("kozel-nn", 4, {})
    klass = None
    for seed in range(40):
        match = new_match(rules, seed=seed)
        for _ in range(40):
            advance(match, 1, seed)
            if match.finished or not match.to_act():
                break
            seat = match.to_act()[0]
            klass = suit_class(match)
            leaders = {
                s
                for s, classes in voids(match.observe(seat), trail_of(match), klass, TRUMPS).items()
                if classes >= {0, 1, 2, 3}
            }
            if leaders and match.legal_actions(seat):
                sampler = Sampler(match, seat)
                for k in range(5):
                    game = sampler.sample(random.Random(k))
                    for s in leaders:
                        assert {klass(c) for c in game.observe(s).hand} <= {TRUMPS}
                return
    pytest.fail("no trump lead by another seat in 40 seeds")


def test_r4_the_search_weighs_its_samples_in_the_permanent_trump_presets() -> None:
    """RULES.md 4: in a permanent-trump deal each sample counts by how well the rules
    player explains the other seats' plays so far (``engine.players.search.MISS`` a play it would
    not have made): after off-rules plays some samples weigh less than one, and an
    action's value is its playouts' weighted mean. A drawing-family deal (no
    ``likelihood``) weighs every sample one."""
    match = new_match(make_rules("kozel-kocherga", 4, {}), seed=3)
    rng = random.Random(3)
    for _ in range(9):  # random plays: few of them the rules player's
        seat = match.to_act()[0]
        match.apply(seat, rng.choice(match.legal_actions(seat)))
    seat = match.to_act()[0]
    legal = match.legal_actions(seat)
    assert len(legal) > 1
    search = Search(match, seat, legal, random.Random(5))
    search.run(120, None)
    assert search.weighs
    assert all(0 < w <= v for w, v in zip(search.weights, search.visits, strict=True))
    assert any(w < v for w, v in zip(search.weights, search.visits, strict=True))
    best = search.best()
    top = legal.index(best.action)
    assert best.value == max(0.0, search.totals[top] / search.weights[top])

    drawing = mid_play("kozel", 4, seed=2)
    seat = drawing.to_act()[0]
    legal = drawing.legal_actions(seat)
    search = Search(drawing, seat, legal, random.Random(5))
    search.run(60, None)
    assert not search.weighs and search.history == []
    assert search.weights == [float(v) for v in search.visits]


def test_seeded_search_is_exact() -> None:
    """An iteration budget and a seed make the choice exact (tests, benches)."""
    match = mid_play("kozel", 4, seed=2)
    seat = match.to_act()[0]
    one = think(match, seat, random.Random(5), iterations=60)
    two = think(match, seat, random.Random(5), iterations=60)
    assert one == two and one.playouts == 60


@given(st.integers(0, 2**64), st.integers(0, 36))
def test_the_samplers_shuffle_is_pythons(seed: int, n: int) -> None:
    """The sampler's own shuffle puts the cards in the order ``random.Random.shuffle`` does
    and leaves the rng where it does: the same samples, so the same moves, as before it."""
    ours, theirs = list(range(n)), list(range(n))
    one, two = random.Random(seed), random.Random(seed)
    shuffle(ours, one)
    two.shuffle(theirs)
    assert ours == theirs
    assert one.getrandbits(64) == two.getrandbits(64)


class NoDice(random.Random):
    """An rng that fails the test if a playout draws from it."""

    def random(self) -> float:
        raise AssertionError("a rules quick player drew a random number")

    def getrandbits(self, k: int) -> int:
        raise AssertionError("a rules quick player drew random bits")


@pytest.mark.parametrize(("preset", "players"), CASES, ids=IDS)
def test_the_rules_quick_players_draw_no_dice(preset: str, players: int) -> None:
    """A compact playout with the rules quick player (``QUICK`` "rules") never draws from its
    rng, so the search hands it none seeded for it (``engine.players.playout.draws_dice``): its
    deals still play to their end, with a value in 0..1."""
    match = mid_play(preset, players, seed=1)
    seat = match.to_act()[0]
    assert not draws_dice(match)
    sampler = Sampler(match, seat)
    for game in (sampler.sample(random.Random(s)) for s in range(5)):
        compact = compact_of(game, seat)
        assert compact is not None
        assert 0.0 <= compact.copy().finish(NoDice()) <= 1.0


@pytest.mark.parametrize(("preset", "players"), CASES, ids=IDS)
def test_a_search_without_dice_thinks_as_one_seeding_every_playout(preset: str, players: int) -> None:
    """The search that seeds no rng for a playout that draws none makes the same playouts,
    values and choice as one that seeds a Random for every playout."""
    match = mid_play(preset, players, seed=4)
    seat = match.to_act()[0]
    legal = match.legal_actions(seat)
    runs = []
    for dice in (False, True):
        search = Search(match, seat, legal, random.Random(7))
        search.dice = dice
        search.run(150, None)
        runs.append((search.best(), search.totals, search.weights, search.visits))
    assert runs[0] == runs[1]


def game_api_playout(game: Game, seat: int, first: Action, rng: random.Random) -> float:
    """A playout through the ``Game`` API alone, rules players to the deal's end: what the
    search's playouts of a redeal or a cut were before they went on in compact form."""
    side = game.rules.side_of(seat)
    if game.check(seat, first) is not None:
        return 0.5  # kozel-nn: a redeal the sample's partner hand does not allow
    events = game.apply(seat, first)
    bot = RulesBot()
    while (value := deal_value(game.rules, events, seat, side)) is None:
        mover = game.to_act()[0]
        legal = game.legal_actions(mover)
        act = bot.choose(game.observe(mover), legal, rng, True) if len(legal) > 1 else None
        events = game.apply(mover, act or rng.choice(legal))
    return value


ROOT_GAME_API = [("kozel-nn", "redeal"), ("kozel-nn", "cut"), ("kozel-hvalenyi", "redeal")]


@pytest.mark.parametrize(("preset", "kind"), ROOT_GAME_API)
def test_r4_a_redeal_or_cut_plays_out_as_through_the_game_api(preset: str, kind: str) -> None:
    """RULES.md 4a-4b: a redeal or a cut has no compact form, so its playout starts through
    the ``Game`` API (the cut, the new deal) and goes on in compact form once trick play is
    on move with nobody else to act; its value is the one a playout through the ``Game``
    API alone gives, for every sample and dice."""
    rules = make_rules(preset, 4, {})
    found = None
    for seed in range(200):
        match = new_match(rules, seed=seed)
        for _ in range(4):  # the cut, the first lead: before any card is played
            seat = match.to_act()[0]
            legal = match.legal_actions(seat)
            if any(a.kind == kind for a in legal) and len(legal) > 1:
                found = match
                break
            advance(match, 1, seed)
        if found is not None:
            break
    else:
        pytest.fail(f"no {kind} on move in 200 seeds")
    search = Search(match, seat, legal, random.Random(3))
    sampler = Sampler(match, seat)
    first = next(a for a in legal if a.kind == kind)
    for s in range(6):
        game = sampler.sample(random.Random(s))
        assert search._playout(game.copy(), first, random.Random(s)) == game_api_playout(
            game.copy(), seat, first, random.Random(s)
        )


def test_a_time_budget_stops_the_search() -> None:
    """``ms``: the search stops once its time is up (one playout at least)."""
    match = mid_play("kozel", 4, seed=2)
    seat = match.to_act()[0]
    thought = think(match, seat, random.Random(5), ms=0.001)
    assert thought.playouts >= 1
    assert thought.action in match.legal_actions(seat)


def test_search_out_of_turn_answers_as_the_rules_player() -> None:
    match = new_match(make_rules("kozel", 4, {}), seed=1)
    seat = match.to_act()[0]
    other = (seat + 1) % 4
    assert SearchBot().choose_in(match, other, random.Random(0), False) is None or match.legal_actions(other)


def test_levels_and_their_names() -> None:
    """easy, normal, hard (the service's words) and random, rules, search (the engine's)."""
    assert make_bot("hard").name == "search" and make_bot("normal").name == "rules"
    assert make_bot("easy").name == "easy"
    with pytest.raises(ValueError, match="allowed"):
        make_bot("grandmaster")


def test_easy_makes_mistakes() -> None:
    """easy plays the rules player's move most of the time, and now and then another."""
    match = mid_play("kozel", 4, seed=3)
    seat = match.to_act()[0]
    obs, legal = match.observe(seat), match.legal_actions(seat)
    rules = RulesBot().choose(obs, legal, random.Random(0), True)
    rng = random.Random(0)
    picks = [EasyBot().choose(obs, legal, rng, True) for _ in range(200)]
    same = sum(p == rules for p in picks)
    assert len(legal) > 1 and 100 < same < 200


def test_simulate_reports_card_points_and_records() -> None:
    """simulate: per-side card points (Kozel) and records left (Petukh) beside the wins;
    a search seat with an iteration budget."""
    kozel = simulate("kozel-60", 2, 1, 0, ["hard", "normal"], iterations=4)
    assert kozel["invariants"] == "ok" and kozel["bots"] == ["hard", "normal"]
    assert sum(kozel["card_points"]) == 120 * kozel["scored_deals"]
    assert len(kozel["card_point_share"]) == 2
    petukh = simulate("petukh-25", 4, 2, 0, ["rules"])
    assert len(petukh["records_left"]) == 4 and len(petukh["average_record_left"]) == 4


def test_simulate_command_takes_a_search_budget(capsys: pytest.CaptureFixture[str]) -> None:
    """``python -m engine simulate --bots hard,normal --iterations N --json``."""
    import json

    from engine.cli import main

    code = main(
        [
            "simulate",
            "--preset",
            "kozel-60",
            "--players",
            "2",
            "--matches",
            "1",
            "--bots",
            "hard,normal",
            "--iterations",
            "3",
            "--json",
        ]
    )
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["bots"] == ["hard", "normal"] and "card_point_share" in out
    code = main(
        [
            "simulate",
            "--preset",
            "petukh-25",
            "--players",
            "2",
            "--matches",
            "1",
            "--bots",
            "rules",
            "--think-ms",
            "5",
            "--json",
        ]
    )
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and len(out["average_record_left"]) == 2
