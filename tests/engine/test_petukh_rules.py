"""Rule scenarios for RULES.md 5 (``petukh``) and 5a (``petukh-25``).

Each test is one rule as a story: a hand-built deck (the deal-log format, or a state with
the records before the deal), the moves, the outcome. Most use two players with seat 0
dealing, so seat 1 exchanges and leads first; the face-up card (``after[0]``) is trump.
Tricks are written ``"1:AC 0:7C | ..."`` (seat:card, the leader first).
"""

from __future__ import annotations

import random
import statistics
from typing import Any

import pytest

from engine.actions import Action
from engine.cards import CARD_TEXT, HEARTS, SPADES, deck_30, deck_32, deck_36
from engine.dealing import first_dealer
from engine.errors import IllegalAction
from engine.events import DealStarted, MatchEnded, TrickWon
from engine.families.petukh.match import (
    BoysDeclared,
    BoysFinish,
    DealScored,
    Exchanged,
    PetukhMatch,
    RoosterChosen,
    Skipped,
    TrumpSwapped,
)
from engine.log import LogError, replay, to_log
from engine.players.levels import make_bot
from engine.presets import make_rules
from engine.registry import new_match
from engine.simulate import play_match
from tests.engine.petukh_helpers import act, c, deal, keep_all, kinds, petukh_log, play

# seat 1 takes three tricks, seat 0 two (trump hearts; nobody holds a heart)
H3 = {1: "AC KC QC 7D 8D", 0: "7C 8C 9C AD KD"}
S3 = "1:AC 0:7C | 1:KC 0:8C | 1:QC 0:9C | 1:7D 0:AD | 0:KD 1:8D"
# seat 1 takes all five, seat 0 none
H5 = {1: "AC KC QC 10C 9C", 0: "7C 8C 7D 8D 9D"}
S5 = "1:AC 0:7C | 1:KC 0:8C | 1:QC 0:7D | 1:10C 0:8D | 1:9C 0:9D"
TRUMP_H = ["7H"]


def scored(events: list[Any]) -> DealScored:
    return next(e for e in events if isinstance(e, DealScored))


def two(
    hands: dict[int, str] = H3,
    options: dict[str, Any] | None = None,
    records: list[int] | None = None,
    after: list[str] | None = None,
    preset: str = "petukh",
) -> PetukhMatch:
    return deal(preset, 2, 0, hands, after or TRUMP_H, options, records)


# --- RULES.md 5: deck, deal, trump ----------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("deck", [32, 36])
def test_r5_deck_and_deal_five_cards_each(players: int, deck: int) -> None:
    rules = make_rules("petukh", players, {"deck": deck})
    m = new_match(rules, seed=3)
    assert isinstance(m, PetukhMatch)
    if players == 6:
        assert sorted(rules.deck) == sorted(deck_30())  # 32 without 7S and 7C, all dealt
        assert m.deal.stock == [] and m.deal.face_up is None
    else:
        assert sorted(rules.deck) == sorted(deck_36() if deck == 36 else deck_32())
        assert len(m.deal.stock) == deck - 5 * players - 1
    assert [len(h) for h in m.deal.hands] == [5] * players
    assert m.audit() is None


def test_r5_trump_is_the_turned_card_not_part_of_the_stock() -> None:
    m = two(after=["9S", "AH", "KH"])
    assert m.deal.trump == SPADES and m.deal.trump_card == c("9S") and m.deal.face_up == c("9S")
    assert c("9S") not in m.deal.stock and m.deal.stock[:2] == [c("AH"), c("KH")]
    obs = m.observe(None)
    assert obs.trump_card == c("9S") and obs.phase == "exchange" and obs.extras.face_up == "9S"


def test_r5_six_players_dealer_last_card_is_trump_and_no_exchange() -> None:
    hands = {
        0: "7D 8D 9D 10D QH",
        1: "AC KC QC JC 10C",
        2: "9C 8C 7H 8H 9H",
        3: "AS KS QS JS 10S",
        4: "9S 8S 10H JH KH",
        5: "AD KD QD JD AH",
    }
    m = deal("petukh", 6, 0, hands)
    assert m.deal.trump_card == c("QH") and m.deal.trump == HEARTS and c("QH") in m.deal.hands[0]
    assert m.legal_actions(1) == [Action("keep"), Action("pass")]  # passing still allowed
    act(m, 1, "pass")
    for seat in (2, 3, 4, 5):
        act(m, seat, "keep")
    events = act(m, 0, "keep")
    assert m.deal.phase == "play" and "trump_swapped" not in kinds(events)
    assert m.to_act() == (2,)  # seat 1 passed: the next seat leads


def test_r5_first_dealer_is_random_and_the_deal_passes_clockwise() -> None:
    dealers = {first_dealer(4, seed) for seed in range(40)}
    assert dealers == {0, 1, 2, 3}
    m = new_match(make_rules("petukh", 3), seed=5)
    first = m.dealer
    while m.deal_no == 1:
        seat = m.to_act()[0]
        m.apply(seat, m.legal_actions(seat)[0])
    assert m.dealer == (first + 1) % 3


@pytest.mark.parametrize("start", [15, 20, 25, 30])
def test_r5_start_record_option(start: int) -> None:
    m = new_match(make_rules("petukh", 3, {"start": start}), seed=1)
    assert m.scores == [start] * 3


# --- RULES.md 5: exchange, swap, pass -----------------------------------------------------


def test_r5_exchange_in_turn_from_the_dealers_left_draws_from_the_stock() -> None:
    m = two(after=["7H", "AS", "KS", "QS"])
    assert m.to_act() == (1,)
    events = act(m, 1, "exchange 7D 8D")
    assert events == [Exchanged(1, 2)]
    assert sorted(m.deal.hands[1]) == sorted([c("AC"), c("KC"), c("QC"), c("AS"), c("KS")])
    assert m.to_act() == (0,)
    with pytest.raises(IllegalAction):
        act(m, 1, "keep")
    act(m, 0, "exchange 7C")
    assert c("QS") in m.deal.hands[0] and c("7C") not in m.observe(None).to_json()["hand"]
    assert m.deal.phase == "swap" and m.to_act() == (0,)


def test_r5_exchange_at_most_as_many_cards_as_the_stock_holds() -> None:
    hands = {
        1: "7C 8C 9C 10C QC",
        2: "7D 8D 9D 10D QD",
        3: "7S 8S 9S 10S QS",
        4: "7H 8H 9H 10H QH",
        0: "AC KC AD KD AS",
    }
    m = deal("petukh", 5, 0, hands, ["KS"])  # 32 cards: 25 dealt, 1 face up, stock 6
    assert len(m.deal.stock) == 6
    act(m, 1, "exchange 7C 8C 9C 10C QC")
    sizes = {len(a.cards) for a in m.legal_actions(2) if a.kind == "exchange"}
    assert sizes == {1}
    with pytest.raises(IllegalAction) as e:
        act(m, 2, "exchange 7D 8D")
    assert e.value.code == "stock_too_small"
    act(m, 2, "exchange 7D")
    assert m.legal_actions(3) == [Action("keep"), Action("pass")]


@pytest.mark.parametrize("swap", ["may", "must", "never"])
def test_r5_only_the_dealer_may_swap_the_face_up_trump(swap: str) -> None:
    m = two(options={"trump_swap": swap}, after=["JH"])
    act(m, 1, "keep")
    events = act(m, 0, "keep")
    if swap == "never":
        assert m.deal.phase == "play"
        return
    assert m.deal.phase == "swap" and m.to_act() == (0,)
    assert (Action("keep") in m.legal_actions(0)) == (swap == "may")
    events = act(m, 0, "swap 7C")
    assert TrumpSwapped(0, c("JH")) in events and c("JH") in m.deal.hands[0]
    assert m.deal.face_up is None and c("7C") in m.deal.discards and m.deal.phase == "play"


def test_r5_record_two_or_less_may_not_exchange_pass_or_swap() -> None:
    m = two(records=[2, 15])
    assert m.legal_actions(1)[:2] == [Action("keep"), Action("pass")]
    act(m, 1, "keep")
    assert m.deal.phase == "play"  # the dealer (record 2) gets neither exchange nor swap
    m = two(records=[15, 2])
    assert m.to_act() == (0,)  # seat 1 had only "keep": passed over
    with pytest.raises(IllegalAction):
        act(m, 1, "exchange 7D")


def test_r5_nobody_exchanges_when_a_record_is_one() -> None:
    m = two(records=[1, 15])
    assert m.legal_actions(1) == [Action("keep"), Action("pass")]  # passing stays
    act(m, 1, "keep")
    assert m.deal.phase == "play"  # no swap either
    assert m.observe(1).extras.exchange is False


def test_r5_pass_sits_the_deal_out_and_the_next_seat_leads() -> None:
    hands = {1: "AC KC QC 10C 9C", 2: "7C 8C 7D 8D 9D", 0: "7S 8S 9S 10S QS"}
    m = deal("petukh", 3, 0, hands, TRUMP_H)
    assert kinds(act(m, 1, "pass")) == ["passed"]
    assert m.deal.hands[1] == [] and m.observe(2).seats == (0, 2)
    act(m, 2, "keep")
    act(m, 0, "keep")
    act(m, 0, "keep")  # leaves the trump
    assert m.deal.leader == 2 and m.to_act() == (2,)
    events = play(m, "2:7C 0:7S | 2:8C 0:8S | 2:7D 0:9S | 2:8D 0:10S | 2:9D 0:QS")
    d = scored(events)
    assert d.passed == (1,) and d.tricks == (0, 0, 5) and d.changes == (0, 0, -5)
    assert m.scores == [15, 15, 10]


def test_r5_the_last_player_who_has_not_passed_may_not_pass() -> None:
    hands = {1: "AC KC QC 10C 9C", 2: "7C 8C 7D 8D 9D", 0: "7S 8S 9S 10S QS"}
    m = deal("petukh", 3, 0, hands, TRUMP_H)
    act(m, 1, "pass")
    act(m, 2, "pass")
    assert Action("pass") not in m.legal_actions(0)
    with pytest.raises(IllegalAction) as e:
        act(m, 0, "pass")
    assert e.value.code == "last_may_not_pass"


def test_r5_pass_option_off() -> None:
    m = two(options={"pass": False})
    assert Action("pass") not in m.legal_actions(1)
    with pytest.raises(IllegalAction) as e:
        act(m, 1, "pass")
    assert e.value.code == "no_passing"


# --- RULES.md 5: play ---------------------------------------------------------------------


def test_r5_follow_suit_else_trump_else_any() -> None:
    m = two({1: "AC KC 7D 8D 9D", 0: "7C 7H 8S 9S 10S"}, after=["8H"])
    keep_all(m)
    act(m, 1, "play AC")
    assert m.legal_actions(0) == [Action("play", (c("7C"),))]
    with pytest.raises(IllegalAction) as e:
        act(m, 0, "play 8S")
    assert e.value.code == "must_follow_suit"
    act(m, 0, "play 7C")
    act(m, 1, "play KC")
    assert m.legal_actions(0) == [Action("play", (c("7H"),))]  # must trump
    act(m, 0, "play 7H")  # the trump wins
    act(m, 0, "play 8S")
    assert {a.cards[0] for a in m.legal_actions(1)} == {c("7D"), c("8D"), c("9D")}  # any


def test_r5_highest_trump_wins_else_highest_of_the_led_suit_ten_below_jack() -> None:
    m = two({1: "10C 7D 8D 9D QD", 0: "JC AS 7S 8S 9S"})
    keep_all(m)
    events = play(m, "1:10C 0:JC")
    assert [e for e in events if isinstance(e, TrickWon)][0].seat == 0  # J over 10
    events = play(m, "0:AS 1:7D")
    assert [e for e in events if isinstance(e, TrickWon)][0].seat == 0  # off-suit loses


def test_r5_must_beat_option_follow_higher_and_overtrump() -> None:
    hands = {1: "KC 7D 8D 9D 10D", 2: "AC 7C JH 7S 8S", 0: "QH 8H 9S 10S QS"}
    m = deal("petukh", 3, 0, hands, TRUMP_H, {"must_beat": True})
    keep_all(m)
    act(m, 1, "play KC")
    assert m.legal_actions(2) == [Action("play", (c("AC"),))]  # higher if he can
    m2 = deal("petukh", 3, 0, hands, TRUMP_H, {"must_beat": True})
    keep_all(m2)
    act(m2, 1, "play 7D")
    act(m2, 2, "play JH")  # void in diamonds: trumps
    assert m2.legal_actions(0) == [Action("play", (c("QH"),))]  # overtrump
    m3 = deal("petukh", 3, 0, hands, TRUMP_H)
    keep_all(m3)
    act(m3, 1, "play KC")
    assert {a.cards[0] for a in m3.legal_actions(2)} == {c("AC"), c("7C")}  # option off


def test_r5_lead_trump_ace_option() -> None:
    hands = {1: "AH 7D 8D 9D 10D", 0: "7C 8C 9C 10C QC"}
    m = two(hands, {"lead_trump_ace": True}, after=["7H"])
    keep_all(m)
    assert m.legal_actions(1) == [Action("play", (c("AH"),))]
    with pytest.raises(IllegalAction) as e:
        act(m, 1, "play 7D")
    assert e.value.code == "must_lead_trump_ace"
    m = two(hands, after=["7H"])
    keep_all(m)
    assert len(m.legal_actions(1)) == 5


# --- RULES.md 5: scoring ------------------------------------------------------------------


def test_r5_each_trick_costs_one_point() -> None:
    m = two()
    keep_all(m)
    d = scored(play(m, S3))
    assert d.tricks == (2, 3) and d.changes == (-2, -3) and m.scores == [13, 12]
    assert m.deal_no == 2 and m.dealer == 1


@pytest.mark.parametrize(
    "options,record,expected",
    [
        ({}, 10, 15),
        ({}, 11, 11),
        ({"start": 20}, 15, 20),
        ({"start": 20}, 16, 16),
        ({"no_trick_cap": 0}, 5, 5),
        ({"no_trick_cap": 25}, 25, 30),
        ({"no_trick_cap": 5}, 5, 10),
    ],
)
def test_r5_no_trick_plus_five_only_up_to_the_cap(
    options: dict[str, Any], record: int, expected: int
) -> None:
    m = two(H5, options, records=[record, 20])
    keep_all(m)
    play(m, S5)
    assert m.scores[0] == expected


def test_r5_overshoot_goes_back_to_the_start_record() -> None:
    m = two(H5, records=[15, 3])
    keep_all(m)
    d = scored(play(m, S5))
    assert d.overshoot == (1,) and m.scores[1] == 15 and not m.finished
    m = two(H5, {"start": 20}, records=[15, 4])
    keep_all(m)
    play(m, S5)
    assert m.scores[1] == 20


def _boys(
    hands: dict[int, str],
    script: str,
    options: dict[str, Any] | None = None,
    after: list[str] | None = None,
    records: list[int] | None = None,
) -> tuple[PetukhMatch, list[Any]]:
    m = two(hands, options, records=records or [20, 20], after=after)
    keep_all(m)
    return m, play(m, script)


# seat 1 leads every trick and holds the jacks (trump hearts, face-up 7H)
BOYS_TOOK = {
    "pair": (
        "JC JS AD KD QD",
        "7D 8D 9D 7C 10D",
        "1:AD 0:7D | 1:KD 0:8D | 1:QD 0:9D | 1:JC 0:7C | 1:JS 0:10D",
        -5,
    ),
    "coloured": (
        "JH JD AC KC QC",
        "7C 8C 9C 8D 10D",
        "1:AC 0:7C | 1:KC 0:8C | 1:QC 0:9C | 1:JD 0:8D | 1:JH 0:10D",
        -10,
    ),
    "four": (
        "JC JS JH JD AC",
        "7C 8C 9C 8D 10D",
        "1:AC 0:7C | 1:JC 0:8C | 1:JS 0:9C | 1:JD 0:8D | 1:JH 0:10D",
        -15,
    ),
}


@pytest.mark.parametrize("combo", list(BOYS_TOOK))
def test_r5_boys_with_a_trick_standard_table(combo: str) -> None:
    mine, theirs, script, value = BOYS_TOOK[combo]
    m, events = _boys({1: mine, 0: theirs}, script)
    declared = [e for e in events if isinstance(e, BoysDeclared)]
    assert len(declared) == 1 and declared[0].seat == 1 and declared[0].combination == combo
    assert set(declared[0].cards) == {x for x in map(c, mine.split()) if x % 9 == 5}
    assert scored(events).changes[1] == -5 + value


# seat 0 holds the jacks and takes no trick: seat 1 leads the top hearts (trump)
@pytest.mark.parametrize(
    "theirs,script,value",
    [
        ("JC JS 7D 8D 9D", "1:AH 0:JC | 1:KH 0:JS | 1:QH 0:7D | 1:10H 0:8D | 1:9H 0:9D", 0),
        ("JH JD 7S 8S 9S", "1:AH 0:JH | 1:KH 0:JD | 1:QH 0:7S | 1:10H 0:8S | 1:9H 0:9S", -5),
        ("JC JS JH JD 7S", "1:AH 0:JH | 1:KH 0:JC | 1:QH 0:JS | 1:10H 0:JD | 1:9H 0:7S", -10),
    ],
)
def test_r5_boys_without_a_trick_replace_the_plus_five(theirs: str, script: str, value: int) -> None:
    m, events = _boys({1: "AH KH QH 10H 9H", 0: theirs}, script, records=[10, 20])
    assert scored(events).tricks[0] == 0
    assert m.scores[0] == 10 + value  # without boys: 15


def test_r5_boys_declared_with_the_first_jack_a_trump_jack_from_the_swap_counts() -> None:
    m = two({1: "AC KC QC 10C 9C", 0: "JD 7D 8D 9D 10D"}, records=[20, 20], after=["JH"])
    act(m, 1, "keep")
    act(m, 0, "keep")
    act(m, 0, "swap 7D")
    events = play(m, "1:AC 0:JH")  # void in clubs: must trump with the jack he took
    assert BoysDeclared(0, (c("JH"), c("JD")), "coloured") in events
    assert m.observe(1).extras.boys[0].cards == ("JH", "JD")
    later = play(m, "0:JD 1:KC")  # the second jack declares nothing more
    assert not [e for e in later if isinstance(e, BoysDeclared)]


@pytest.mark.parametrize("crooked,value", [(0, 0), (3, -3), (5, -5)])
def test_r5_crooked_boys_option(crooked: int, value: int) -> None:
    script = "1:AC 0:7C | 1:JC 0:8C | 1:JD 0:8D | 1:AD 0:10D | 1:KD 0:9C"
    m, events = _boys({1: "JC JD AC AD KD", 0: "7C 8C 9C 8D 10D"}, script, {"crooked_boys": crooked})
    declared = [e for e in events if isinstance(e, BoysDeclared)]
    assert bool(declared) == bool(crooked)
    assert scored(events).changes[1] == -5 + value


@pytest.mark.parametrize(
    "mine,script,value",
    [
        ("JC JD AC AD KD", "1:AC 0:7C | 1:JC 0:8C | 1:JD 0:8D | 1:AD 0:10D | 1:KD 0:9C", -5),
        ("JC JD JH AD KD", "1:AD 0:8D | 1:JC 0:8C | 1:JD 0:10D | 1:JH 0:7C | 1:KD 0:9C", -12),
    ],
)
def test_r5_boys_table_thirty(mine: str, script: str, value: int) -> None:
    m, events = _boys({1: mine, 0: "7C 8C 9C 8D 10D"}, script, {"boys_table": "thirty"})
    assert scored(events).changes[1] == -5 + value
    # no trick with a pair costs +10 (above the cap too)
    m = two({1: "AH KH QH 10H 9H", 0: "JC JS 7D 8D 9D"}, {"boys_table": "thirty"}, records=[20, 20])
    keep_all(m)
    play(m, "1:AH 0:JC | 1:KH 0:JS | 1:QH 0:7D | 1:10H 0:8D | 1:9H 0:9D")
    assert m.scores[0] == 30


def test_r5_boys_finish_ends_the_match() -> None:
    hands = {1: "AC KC QC 10C 9C", 0: "JC JD 7D 8D 9D"}
    m = two(hands, records=[5, 15])
    keep_all(m)
    act(m, 1, "play AC")
    assert Action("finish") in m.legal_actions(0)
    events = act(m, 0, "finish")
    assert BoysFinish(0, (c("JC"), c("JD"))) in events
    assert m.finished and m.winners == (0,) and m.scores == [0, 15]
    assert [e for e in events if isinstance(e, RoosterChosen)][0].debts == ((1, 0, 15),)
    for options, records in (({"boys_finish": False}, [5, 15]), ({}, [6, 15])):
        m = two(hands, options, records=records)
        keep_all(m)
        act(m, 1, "play AC")
        assert Action("finish") not in m.legal_actions(0)
        with pytest.raises(IllegalAction):
            act(m, 0, "finish")
    m = two({1: "AC KC QC 10C 9C", 0: "JC 7S 7D 8D 9D"}, records=[5, 15])
    keep_all(m)
    act(m, 1, "play AC")
    assert Action("finish") not in m.legal_actions(0)  # one jack is not boys


def test_r5_spade_ace_option() -> None:
    hands = {1: "AS KC QC 10C 9C", 0: "KS 8C 7D 8D 9D"}
    script = "1:AS 0:KS | 1:KC 0:8C | 1:QC 0:7D | 1:10C 0:8D | 1:9C 0:9D"
    m = two(hands, {"spade_ace": True}, records=[20, 20])
    keep_all(m)
    assert scored(play(m, script)).changes[1] == -5 - 5
    m = two(hands, records=[20, 20])
    keep_all(m)
    assert scored(play(m, script)).changes[1] == -5
    # an ace of spades beaten by a trump: +5 to its owner
    m = two({1: "AC KC QC 10C 9C", 0: "AS 7D 8D 9D 10D"}, {"spade_ace": True}, records=[20, 20], after=["7C"])
    keep_all(m)
    d = scored(play(m, "1:AC 0:AS | 1:KC 0:7D | 1:QC 0:8D | 1:10C 0:9D | 1:9C 0:10D"))
    assert d.changes[0] == 5 and m.scores[0] == 25


def test_r5_match_ends_at_exactly_zero_debts_and_the_rooster() -> None:
    hands = {1: "AC KC QC 10C 9C", 2: "7D 8D 9D 10D QD", 0: "7S 8S 9S 10S QS"}
    m = deal("petukh", 3, 0, hands, TRUMP_H, records=[7, 5, 7])
    keep_all(m)
    events = play(m, "1:AC 2:7D 0:7S | 1:KC 2:8D 0:8S | 1:QC 2:9D 0:9S | 1:10C 2:10D 0:10S | 1:9C 2:QD 0:QS")
    assert m.finished and m.winners == (1,) and m.scores == [12, 0, 12]
    ended = [e for e in events if isinstance(e, MatchEnded)][0]
    assert ended.winners == (1,)
    assert m.roosters == (2, 0) == m.rooster_order()  # tied: clockwise from the dealer's left
    assert set(m.debts) == {(0, 1, 12), (2, 1, 12)}
    assert m.history[-1].result is not None and m.history[-1].result["roosters"] == [2, 0]
    assert m.to_act() == () and m.observe(None).extras.roosters == (2, 0)


def test_r5_several_winners_in_one_deal() -> None:
    m = two(records=[2, 3])
    keep_all(m)
    play(m, S3)
    assert m.finished and m.winners == (0, 1) and m.roosters == () and m.debts == ()


def test_r5_events_and_the_public_view_show_no_hidden_card() -> None:
    m = two(after=["7H", "AS"])
    events = act(m, 1, "exchange 7D")
    assert events == [Exchanged(1, 1)]
    public = m.observe(None).to_json()
    assert "AS" not in str(public) and "7D" not in str(public)


def test_r5_log_and_state_round_trip() -> None:
    log = petukh_log("petukh", 2, 0, H3, TRUMP_H, actions=[(1, "exchange 7D"), (0, "keep")])
    m, _ = replay(log)
    assert isinstance(m, PetukhMatch)
    again = PetukhMatch.from_state(m.rules, m.to_state())
    assert again.to_state() == m.to_state() and again.observe(0) == m.observe(0)
    assert to_log(m)["deals"][0]["actions"] == log["deals"][0]["actions"]
    assert DealStarted(1, 0, HEARTS, c("7H"), 1) in m.start_events


# --- RULES.md 5a: petukh-25 ---------------------------------------------------------------


def test_r5a_start_25_and_the_dealers_last_card_is_trump() -> None:
    m = deal("petukh-25", 2, 0, {1: "AC KC QC 10C 9C", 0: "7C 8C 7D 8D 9S"}, ["AH"])
    assert m.scores == [25, 25] and m.deal.trump_card == c("9S") and m.deal.trump == SPADES
    assert m.deal.stock[0] == c("AH") and m.deal.face_up is None
    act(m, 1, "keep")
    act(m, 0, "keep")
    assert m.deal.phase == "play"  # no swap in petukh-25


def test_r5a_must_lead_the_trump_ace() -> None:
    m = deal("petukh-25", 2, 0, {1: "AS KC QC 10C 9C", 0: "7C 8C 7D 8D 9S"})
    keep_all(m)
    assert m.legal_actions(1) == [Action("play", (c("AS"),))]


def plays_of(m: PetukhMatch, seat: int) -> set[str]:
    """The cards the seat may play (a skip aside)."""
    return {CARD_TEXT[a.cards[0]] for a in m.legal_actions(seat) if a.kind == "play"}


def refusal(m: PetukhMatch, seat: int, text: str) -> str:
    with pytest.raises(IllegalAction) as e:
        act(m, seat, text)
    return e.value.code


def test_r5a_answering_the_example_must_trump_while_holding_a_lower_card_of_the_suit() -> None:
    """RULES.md 5a, the issue's example: trump spades; KC is led; 7C and 9S held: 9S."""
    m = deal("petukh-25", 2, 0, {1: "KC 7D 8D 9D 10D", 0: "7C 8H 9H 10H 9S"})
    assert m.deal.trump == SPADES
    keep_all(m)
    act(m, 1, "play KC")
    assert plays_of(m, 0) == {"9S"}
    before = m.to_state()
    assert refusal(m, 0, "play 7C") == "must_trump_no_higher"
    assert refusal(m, 0, "play 8H") == "must_trump_no_higher"
    assert m.to_state() == before  # a refusal changes nothing
    act(m, 0, "play 9S")
    assert m.deal.tricks == [1, 0]


def test_r5a_answering_step_1_higher_than_every_card_of_the_led_suit_on_the_table() -> None:
    hands = {1: "10C 7D 8D 9D 10D", 2: "KC 7H 8H 9H 10H", 0: "QC AC JS 7S 8S"}
    m = deal("petukh-25", 3, 0, hands)  # trump: the dealer's last card, 8S
    keep_all(m)
    act(m, 1, "play 10C")
    assert plays_of(m, 2) == {"KC"}
    act(m, 2, "play KC")
    assert plays_of(m, 0) == {"AC"}  # QC is above the 10 but not above the king
    assert refusal(m, 0, "play JS") == "must_follow_suit"
    assert refusal(m, 0, "play QC") == "must_beat"


def test_r5a_answering_step_2_a_trump_when_no_card_of_the_suit_is_higher() -> None:
    hands = {1: "10C 7D 8D 9D 10D", 2: "KC 7H 8H 9H 10H", 0: "QC 7C JS 7S 8S"}
    m = deal("petukh-25", 3, 0, hands)  # trump 8S
    keep_all(m)
    act(m, 1, "play 10C")
    act(m, 2, "play KC")
    assert plays_of(m, 0) == {"JS", "7S", "8S"}  # any trump, QC below the king
    assert refusal(m, 0, "play QC") == "must_trump_no_higher"


def test_r5a_answering_step_2_any_trump_after_a_ruff_on_a_plain_lead() -> None:
    hands = {1: "7D QC KC AC 10C", 2: "JS 7C 8H 9H 10H", 0: "8D 7S QS JH 8S"}
    m = deal("petukh-25", 3, 0, hands)  # trump 8S
    keep_all(m)
    act(m, 1, "play 7D")
    assert plays_of(m, 2) == {"JS"}  # no diamond: a trump
    act(m, 2, "play JS")
    # RULES.md 5a: higher than every card of the led suit, though the trump takes the trick
    assert plays_of(m, 0) == {"8D"}
    m = deal("petukh-25", 3, 0, {**hands, 0: "AH 7S QS JH 8S"})
    keep_all(m)
    play(m, "1:7D 2:JS")
    assert plays_of(m, 0) == {"7S", "QS", "8S"}  # no overtrump on a plain lead


def test_r5a_answering_step_3_the_led_suit_without_a_higher_card_or_a_trump() -> None:
    hands = {1: "KC 7D 8D 9D 10D", 2: "7C 8C 9H 10H JH", 0: "AC QS 7S 8S 9S"}
    m = deal("petukh-25", 3, 0, hands)  # trump 9S
    keep_all(m)
    act(m, 1, "play KC")
    assert plays_of(m, 2) == {"7C", "8C"}
    assert refusal(m, 2, "play 9H") == "must_follow_suit"


def test_r5a_answering_step_4_neither_the_suit_nor_a_trump_any_card() -> None:
    hands = {1: "KC 7D 8D 9D 10D", 2: "7H 8H 9H 10H JH", 0: "AC QS 7S 8S 9S"}
    m = deal("petukh-25", 3, 0, hands)  # trump 9S
    keep_all(m)
    act(m, 1, "play KC")
    assert plays_of(m, 2) == {"7H", "8H", "9H", "10H", "JH"}


def test_r5a_answering_a_trump_lead_higher_trump_else_any_trump_else_any() -> None:
    hands = {1: "10S 7D 8D 9D QD", 2: "JS 7S KC 8H 9H", 0: "AC 7H QS 10H 8S"}
    m = deal("petukh-25", 3, 0, hands)  # trump 8S
    keep_all(m)
    act(m, 1, "play 10S")
    assert plays_of(m, 2) == {"JS"}  # a higher trump
    assert refusal(m, 2, "play 7S") == "must_beat"
    assert refusal(m, 2, "play KC") == "must_follow_suit"
    act(m, 2, "play JS")
    assert plays_of(m, 0) == {"QS"}
    m = deal("petukh-25", 3, 0, {**hands, 2: "7S 6S KC 8H 9H"}, options={"deck": 36})
    keep_all(m)
    act(m, 1, "play 10S")
    assert plays_of(m, 2) == {"7S", "6S"}  # no higher trump: any trump
    m = deal("petukh-25", 3, 0, {**hands, 2: "7C KC 8H 9H 10C"})
    keep_all(m)
    act(m, 1, "play 10S")
    assert plays_of(m, 2) == {"7C", "KC", "8H", "9H", "10C"}  # no trump: any card


def test_r5a_answering_by_the_computer_players_and_the_log_replay() -> None:
    """The rules and random players choose only legal cards; a replay names the refusal."""
    for level in ("rules", "random"):
        m = deal("petukh-25", 2, 0, {1: "KC 7D 8D 9D 10D", 0: "7C 8H 9H 10H 9S"})
        keep_all(m)
        act(m, 1, "play KC")
        bot = make_bot(level)
        for seed in range(20):
            chosen = bot.choose(m.observe(0), m.legal_actions(0), random.Random(seed), True)
            assert chosen in (Action("play", (c("9S"),)), Action("skip"))
    log = petukh_log(
        "petukh-25",
        2,
        0,
        {1: "KC 7D 8D 9D 10D", 0: "7C 8H 9H 10H 9S"},
        actions=[(1, "keep"), (0, "keep"), (1, "play KC"), (0, "play 7C")],
    )
    with pytest.raises(LogError, match=r"deal 1, action 3: play 7C by seat 0: must trump"):
        replay(log)


def test_r5_must_beat_holder_of_a_lower_card_of_the_suit_follows_it() -> None:
    """RULES.md 5 ``must_beat`` is not 5a's order: a lower card of the led suit, no trump."""
    m = two({1: "KC 7D 8D 9D 10D", 0: "7C 8S 9S 10S 7H"}, {"must_beat": True}, after=["8H"])
    keep_all(m)
    act(m, 1, "play KC")
    assert plays_of(m, 0) == {"7C"}
    assert refusal(m, 0, "play 7H") == "must_follow_suit"


def test_r5a_skip_at_most_twice_a_match() -> None:
    m = deal("petukh-25", 2, 0, {1: "AC KC QC 10C 9C", 0: "7C 8C 7D 8D 9S"})
    keep_all(m)
    assert Action("skip") not in m.legal_actions(1)  # the leader may not skip
    events = play(m, "1:AC 0:skip | 1:KC 0:skip")
    assert [e for e in events if isinstance(e, Skipped)] == [Skipped(0, 1), Skipped(0, 0)]
    act(m, 1, "play QC")
    assert Action("skip") not in m.legal_actions(0)
    with pytest.raises(IllegalAction) as e:
        act(m, 0, "skip")
    assert e.value.code == "no_skips_left"
    events = play(m, "0:9S | 0:7C 1:10C | 1:9C 0:8C")  # RULES.md 5a: 9S, a trump over QC
    d = scored(events)  # [decision] seat 0's two cards kept by skipping are dead
    assert d.tricks == (1, 4) and m.deal_no == 2 and m.skips_left == [0, 2]
    assert m.observe(0).extras.skips_left == (0, 2)
    two_p = deal("petukh", 2, 0, H3, TRUMP_H)
    keep_all(two_p)
    act(two_p, 1, "play AC")
    with pytest.raises(IllegalAction):
        act(two_p, 0, "skip")  # no skipping in petukh


def test_r5a_no_boys_and_plus_five_for_no_trick() -> None:
    """ "No trick +5": the source fines a trickless player 5 (capped at start - 5 as in
    petukh); boys count nothing."""
    # the dealer's last card, 7C, is trump; seat 1 must lead the trump ace
    m = deal("petukh-25", 2, 0, {1: "AC JH JD AD KD", 0: "7D 8D 9D 10H 7C"}, ["AH"], records=[20, 20])
    keep_all(m)
    events = play(m, "1:AC 0:7C | 1:JH 0:10H | 1:AD 0:7D | 1:KD 0:8D | 1:JD 0:9D")
    assert not [e for e in events if isinstance(e, BoysDeclared)]
    d = scored(events)
    assert d.changes == (5, -5) and m.scores == [25, 15]
    # above the cap (start - 5 = 20) no +5
    m = deal("petukh-25", 2, 0, {1: "AC JH JD AD KD", 0: "7D 8D 9D 10H 7C"}, ["AH"], records=[21, 20])
    keep_all(m)
    d = scored(play(m, "1:AC 0:7C | 1:JH 0:10H | 1:AD 0:7D | 1:KD 0:8D | 1:JD 0:9D"))
    assert d.changes == (0, -5)
    m = deal("petukh-25", 2, 0, {1: "AC JH JD AD KD", 0: "7D 8D 9D 10H 7C"}, ["AH"], records=[5, 20])
    keep_all(m)
    act(m, 1, "play AC")
    assert Action("finish") not in m.legal_actions(0)  # no boys finish either


# --- the computer player ------------------------------------------------------------------


def test_r5_rules_player_beats_random() -> None:
    """Seeds 0-199, four players; the rules player sits at seat ``seed % 4``."""
    rules = make_rules("petukh", 4)
    mine: list[int] = []
    theirs: list[int] = []
    for seed in range(200):
        seat = seed % 4
        bots = [make_bot("rules" if s == seat else "random") for s in range(4)]
        m, _deals, _actions = play_match(rules, bots, seed, check=False)
        mine.append(m.scores[seat])
        theirs.extend(m.scores[s] for s in range(4) if s != seat)
    assert statistics.mean(mine) < statistics.mean(theirs)
