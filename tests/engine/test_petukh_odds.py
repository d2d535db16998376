"""The Petukh search's value of a deal's end: the chance to win the match from the records
(RULES.md 5: first to exactly 0 wins, overshoot goes back to the start)."""

from __future__ import annotations

import math
import random

import pytest

from engine.actions import parse_action
from engine.families.petukh.odds import ODDS, weights, win_chance
from engine.families.petukh.rules import DealScored, settings_of
from engine.players.search import think
from engine.presets import make_rules
from tests.engine.petukh_helpers import deal, keep_all, play

PETUKH = settings_of(make_rules("petukh", 4))


def test_r5_a_record_at_zero_has_won_the_match() -> None:
    assert win_chance([0, 3, 15, 15], 0, PETUKH) == 1.0
    assert win_chance([0, 3, 15, 15], 1, PETUKH) == 0.0
    assert win_chance([0, 0, 15, 15], 1, PETUKH) == 1.0  # everyone who reached 0 wins
    with pytest.raises(ValueError, match="below 0"):
        win_chance([-1, 3, 15, 15], 0, PETUKH)  # an overshoot goes back to the start first


def test_r5_a_chance_is_its_records_weight_over_everyones() -> None:
    logs = ODDS[(15, True, True)]
    assert len(logs) == 15 and logs[-1] == 0.0
    table = weights(15, True, True)
    assert table[1:] == pytest.approx([math.exp(x) for x in logs])
    mine, others = math.exp(logs[2]), math.exp(logs[9]) + 2.0  # records 3; 10, 15, 15
    assert win_chance([3, 10, 15, 15], 0, PETUKH) == pytest.approx(mine / (mine + others))
    assert win_chance([3, 10, 16, 15], 0, PETUKH) == pytest.approx(mine / (mine + others))


@pytest.mark.parametrize(("preset", "players"), [("petukh", 4), ("petukh", 6), ("petukh-25", 4)])
def test_r5_the_chances_share_the_match_out(preset: str, players: int) -> None:
    cfg = settings_of(make_rules(preset, players))
    assert (cfg.start, cfg.boys_finish, cfg.exchange) in ODDS  # a fitted table, no fallback
    rng = random.Random(preset)
    for _ in range(50):
        records = [rng.randint(1, cfg.start) for _ in range(players)]
        chances = [win_chance(records, s, cfg) for s in range(players)]
        assert sum(chances) == pytest.approx(1.0)
        assert all(0.0 < x < 1.0 for x in chances)
    # a low record is a better place to be than the start
    table = weights(cfg.start, cfg.boys_finish, cfg.exchange)
    assert min(table[1:6]) > table[cfg.start]


def test_r5_an_opponents_overshoot_is_worth_more_than_a_trick() -> None:
    even = win_chance([14, 1, 15, 15], 0, PETUKH)
    assert win_chance([15, 15, 15, 15], 0, PETUKH) > even  # seat 1 set back to the start


def test_r5_the_search_makes_a_record_of_one_overshoot() -> None:
    """Seat 1 needs exactly one trick and has it. The search (seat 0) can take trick 4 with
    the K♣ and the last with the 9♣, and seat 1 wins the match; or duck with the 9♣: seat 1
    takes a second trick and goes back to 15. Its own record counts for less."""
    hands = {1: "8S 8D QS 10C 7D", 0: "AS AD 7S 9C KC"}
    m = deal("petukh", 2, 0, hands, ["7H"], records=[15, 1])
    keep_all(m)  # a record of 1: nobody exchanges (seat 0 keeps rather than passes)
    play(m, "1:8S 0:AS | 0:AD 1:8D | 0:7S 1:QS | 1:10C")
    thought = think(m, 0, random.Random(0), iterations=200)
    assert thought.action == parse_action("play 9C")
    assert thought.value > thought.runner_up
    events = m.apply(0, thought.action) + play(m, "1:7D 0:KC")
    scored = next(e for e in events if isinstance(e, DealScored))
    assert scored.records == (13, 15) and scored.overshoot == (1,)
