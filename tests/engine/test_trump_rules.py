"""Rule scenarios for RULES.md section 4 (permanent-trump Kozel: hvalenyi, nn, kocherga).

Each test tells one rule as a story: a hand-built deck (through the deal-log replay, or a
``TrumpMatch`` with a ``decks`` source), the moves, the expected outcome. Names start with
the section: ``test_r4_`` (common play), ``test_r4a_`` (hvalenyi), ``test_r4b_`` (nn),
``test_r4c_`` (kocherga).

The "base deal" of hvalenyi (dealer 3, seat 0 leads; ``rot`` turns every seat by one):
seat 0 takes the first eight tricks (three plain aces, then five trumps) and the last trick
decides the split, so the card points are known exactly.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.actions import Action
from engine.cards import CARD_TEXT, POINTS, deck_points
from engine.dealing import first_dealer
from engine.errors import IllegalAction
from engine.events import DealEnded, DealStarted, Event, MatchEnded, TrickWon
from engine.families.trump.match import (
    BoastGiven,
    BoastRevealed,
    BoastVoid,
    Covered,
    DeckCut,
    Laid,
    Lyusya,
    PileWon,
    QueenCaught,
    RedealAsked,
    RedealPenalty,
    Shuffled,
    TrumpMatch,
    table_for,
    trump_order,
)
from engine.log import replay, to_log
from engine.presets import make_rules
from engine.simulate import simulate
from tests.engine.trump_helpers import (
    act,
    boast_deck,
    c,
    cs,
    deal_deck,
    new,
    of,
    play_out,
    play_tricks,
    run,
    uncut,
)

HV = "kozel-hvalenyi"
NN = "kozel-nn"
KO = "kozel-kocherga"


def legal_cards(match: TrumpMatch, seat: int) -> set[str]:
    return {CARD_TEXT[a.cards[0]] for a in match.legal_actions(seat) if a.kind == "play"}


def base_hands(last: dict[int, str], dumps: list[str], x: str) -> dict[int, list[str]]:
    """The hvalenyi base deal; ``x`` is seat 0's last lead, ``last`` the others' last cards,
    ``dumps`` seat 3's four throws on trump leads."""
    return {
        0: ["AC", "AS", "AH", "6C", "QS", "QH", "QD", "JC", x],
        1: ["7C", "7S", "7H", "JS", "JH", "9D", "8D", "7D", last[1]],
        2: ["8C", "8S", "8H", "QC", "JD", "AD", "10D", "KD", last[2]],
        3: ["9C", "9S", "9H", "6D", *dumps, last[3]],
    }


def base_tricks(last: dict[int, str], dumps: list[str], x: str) -> list[str]:
    return [
        "AC 7C 8C 9C",
        "AS 7S 8S 9S",
        "AH 7H 8H 9H",
        "6C JS QC 6D",
        f"QS JH JD {dumps[0]}",
        f"QH 9D AD {dumps[1]}",
        f"QD 8D 10D {dumps[2]}",
        f"JC 7D KD {dumps[3]}",
        f"{x} {last[1]} {last[2]} {last[3]}",
    ]


def rotate(hands: dict[int, list[str]], rot: int) -> dict[int, list[str]]:
    return {(s + rot) % 4: h for s, h in hands.items()}


# variants of the base deal: (x, last cards, seat 3's dumps)
THIRTY = ("6S", {1: "10S", 2: "10C", 3: "10H"}, ["KC", "KS", "6H", "KH"])  # 90:30
TWENTY_FOUR = ("6S", {1: "10S", 2: "10C", 3: "KH"}, ["KC", "KS", "6H", "10H"])  # 96:24
SWEEP = ("10S", {1: "6S", 2: "10C", 3: "10H"}, ["KC", "KS", "6H", "KH"])  # 120:0


def base_match(
    variant: tuple[str, dict[int, str], list[str]],
    rot: int = 0,
    options: dict[str, Any] | None = None,
    preset: str = HV,
) -> tuple[TrumpMatch, list[str]]:
    x, last, dumps = variant
    deck = deal_deck(preset, (3 + rot) % 4, rotate(base_hands(last, dumps, x), rot), options)
    return new(preset, [deck], (3 + rot) % 4, options), base_tricks(last, dumps, x)


# --- RULES.md 4: common play ----------------------------------------------------------------


def test_r4_trump_lists_per_preset() -> None:
    def texts(preset: str, suit: int) -> list[str]:
        return [CARD_TEXT[x] for x in trump_order(preset, suit)]

    qj = ["QC", "QS", "QH", "QD", "JC", "JS", "JH", "JD"]
    assert texts(HV, 3) == ["6C", *qj, "AD", "10D", "KD", "9D", "8D", "7D", "6D"]
    assert texts(NN, 0) == ["6C", *qj, "AC", "10C", "KC", "9C", "8C", "7C"]
    assert texts(KO, 0) == ["7C", *qj, "AC", "10C", "KC", "9C", "8C"]
    assert texts(KO, 2) == ["7C", *qj, "AH", "10H", "KH", "9H", "8H", "7H"]
    # kocherga with spades: A♣..8♣ are plain, below nothing but their own suit
    t = table_for(KO, 1)
    assert t.cls[c("AC")] == 0 and t.cls[c("7C")] == 4 and t.cls[c("7S")] == 4
    # plain order 6 7 8 9 J Q K 10 A: the ten above the king
    h = table_for(HV, 3)
    assert h.strength[c("10S")] > h.strength[c("KS")] > h.strength[c("9S")]
    assert h.strength[c("6D")] > h.strength[c("AS")]  # any trump above any plain card


@pytest.mark.parametrize(
    ("preset", "options", "suit"),
    [
        (HV, {}, 3),
        (NN, {}, 0),
        (KO, {}, 0),
        (KO, {"trump_suit": "hearts"}, 2),
        (KO, {"trump_suit": "spades"}, 1),
        (KO, {"trump_suit": "diamonds"}, 3),
    ],
)
def test_r4_observation_trump_is_the_trump_suit(preset: str, options: dict[str, Any], suit: int) -> None:
    m = TrumpMatch(make_rules(preset, 4, options), seed=1)
    assert m.observe(None).trump == suit
    assert m.observe(0).to_json()["trump"] == "CSHD"[suit]


def test_r4_every_card_dealt_and_left_of_dealer_leads() -> None:
    for preset, opts, size in ((HV, {}, 9), (HV, {"deck": 32}, 8), (KO, {}, 8)):
        m = TrumpMatch(make_rules(preset, 4, opts), seed=5, dealer=2)
        assert [len(h) for h in m.deal.hands] == [size] * 4
        assert m.to_act()[0] == 3 and m.observe(None).phase == "play"
        assert of(m.start_events, DealStarted)[0].leader == 3
    assert first_dealer(4, 5) == TrumpMatch(make_rules(HV, 4), seed=5).dealer


def test_r4_must_follow_suit_with_trumps_as_their_own_suit() -> None:
    # seat 0 leads the Q♠: a trump lead, not a spade lead
    deck = deal_deck(
        HV,
        3,
        {
            0: ["QS", "7H"],
            1: ["6S", "7S", "8S", "AD", "9H", "10H", "KH", "AH", "7C"],  # one trump: must play it
            2: ["9S", "10S", "KS", "AS", "8H", "6H", "8C", "9C", "10C"],  # no trump: anything
        },
    )
    m = new(HV, [deck], 3)
    act(m, 0, "play QS")
    assert legal_cards(m, 1) == {"AD"}
    with pytest.raises(IllegalAction) as e:
        act(m, 1, "play 6S")
    assert e.value.code == "must_follow_suit"
    act(m, 1, "play AD")
    assert "9S" in legal_cards(m, 2) and "8H" in legal_cards(m, 2)
    # a plain lead: follow the plain suit; the queen of that suit is a trump, not the suit
    deck = deal_deck(
        HV, 3, {0: ["7S"], 1: ["QS", "8S", "AD", "7C", "8C", "9C", "10C", "KC", "AC"], 2: ["QH", "AH", "KH"]}
    )
    m = new(HV, [deck], 3)
    act(m, 0, "play 7S")
    assert legal_cards(m, 1) == {"8S"}


def test_r4_highest_trump_wins_else_highest_card_of_the_led_suit() -> None:
    no_spade = ["AH", "KH", "10H", "9H", "8H", "7H", "AC", "KC", "10C"]
    deck = deal_deck(HV, 3, {0: ["9S"], 1: no_spade, 2: ["10S"], 3: ["KS"]})
    m = new(HV, [deck], 3)
    won = of(play_tricks(m, ["9S KH 10S KS"]), TrickWon)[0]
    assert won.seat == 2  # the K♥ is off-suit; the 10♠ is above the K♠
    deck = deal_deck(
        HV,
        3,
        {
            0: ["9S"],
            1: ["6D", *no_spade[:8]],
            2: ["AS"],
            3: ["JD", "6H", "7C", "8C", "9C", "QD", "6C", "QH", "QS"],
        },
    )
    m = new(HV, [deck], 3)
    assert of(play_tricks(m, ["9S 6D AS JD"]), TrickWon)[0].seat == 3  # J♦ over 6♦


def test_r4_illegal_actions_change_nothing() -> None:
    m = TrumpMatch(make_rules(HV, 4), seed=3)
    before = m.to_state()
    mover = m.to_act()[0]
    other = (mover + 1) % 4
    for seat, a in (
        (
            other,
            m.legal_actions(other)[0]
            if m.legal_actions(other)
            else Action("play", (m.deal.hands[other][0],)),
        ),
        (mover, Action("play", (m.deal.hands[other][0],))),
        (mover, Action("cut", (3,))),
    ):
        if a.kind == "redeal":
            continue
        with pytest.raises(IllegalAction):
            m.apply(seat, a)
    assert m.to_state() == before


# --- RULES.md 4a: kozel-hvalenyi --------------------------------------------------------------


def test_r4a_deck_32_has_no_sevens_and_deals_eight() -> None:
    rules = make_rules(HV, 4, {"deck": 32})
    assert len(rules.deck) == 32 and not any(x % 9 == 1 for x in rules.deck)
    assert c("6C") in rules.deck and deck_points(rules.deck) == 120
    m = TrumpMatch(rules, seed=2)
    assert all(len(h) == 8 for h in m.deal.hands)


def test_r4a_ace_rule_forbids_the_ace_of_a_suit_not_led_yet() -> None:
    deck = deal_deck(
        HV,
        3,
        {
            0: ["10H", "7S"],
            1: ["AH", "AC", "8H", "9H", "7C", "8C", "9C", "10C", "KC"],  # no spade, no trump
            2: ["6H"],
            3: ["7H"],
        },
    )
    m = new(HV, [deck], 3)
    play_tricks(m, ["10H 8H 6H 7H"])  # hearts are led now
    act(m, 0, "play 7S")
    legal = legal_cards(m, 1)
    assert "AH" in legal and "AC" not in legal and "9H" in legal
    with pytest.raises(IllegalAction) as e:
        act(m, 1, "play AC")
    assert e.value.code == "ace_rule"


def test_r4a_queen_and_jack_leads_open_no_suit_and_a_lone_ace_may_be_played() -> None:
    # seat 0 leads nine trumps (Q♥ among them); seat 1 holds 7 trumps, the 7♠ and the A♥
    deck = deal_deck(
        HV,
        3,
        {
            0: ["6C", "QC", "QS", "QH", "QD", "JC", "JS", "JH", "JD"],
            1: ["AD", "10D", "KD", "9D", "8D", "7D", "6D", "7S", "AH"],
        },
    )
    m = new(HV, [deck], 3)
    for i, lead in enumerate(["6C", "QC", "QS", "QH", "QD", "JC", "JS"]):
        assert legal_cards(m, 0) >= {lead}
        act(m, 0, f"play {lead}")
        trump = ["6D", "7D", "8D", "9D", "KD", "10D", "AD"][i]
        act(m, 1, f"play {trump}")
        act(m, 2, f"play {sorted(legal_cards(m, 2))[0]}")
        act(m, 3, f"play {sorted(legal_cards(m, 3))[0]}")
    act(m, 0, "play JH")
    assert legal_cards(m, 1) == {"7S"}  # no throwing the A♥: hearts were never led
    act(m, 1, "play 7S")
    act(m, 2, f"play {sorted(legal_cards(m, 2))[0]}")
    act(m, 3, f"play {sorted(legal_cards(m, 3))[0]}")
    act(m, 0, "play JD")
    assert legal_cards(m, 1) == {"AH"}  # [decision] it is all he can play


def test_r4a_six_of_clubs_over_queen_ends_the_deal() -> None:
    deck = deal_deck(
        HV,
        3,
        {
            0: ["6C", "AC", "10C", "KC", "9C", "8C", "7C", "6S", "8H"],
            1: ["QC", "7S", "8S", "9S", "10S", "KS", "AS", "6H", "7H"],  # Q♣ his only trump
        },
    )
    m, summary = run(
        HV,
        [{"dealer": 3, "deck": deck, "actions": [{"seat": 0, "play": ["6C"]}, {"seat": 1, "play": ["QC"]}]}],
    )
    rec = m.history[0]
    assert rec.result == {"points": None, "tricks": [0, 0], "score": [4, 0], "outcome": "caught"}
    assert m.scores == [4, 0] and m.deal_no == 2 and len(m.history) == 2
    assert summary["score"] == [4, 0]
    # in the other order (the Q♣ led, the 6♣ on it) the 6♣'s team scores just the same
    deck = deal_deck(
        HV,
        2,
        {
            3: ["QC", "7S", "8S", "9S", "10S", "KS", "AS", "6H", "7H"],
            0: ["6C", "AC", "10C", "KC", "9C", "8C", "7C", "6S", "8H"],
        },
    )
    m = new(HV, [deck], 2)
    events = play_tricks(m, ["QC 6C"])
    assert of(events, QueenCaught) == [QueenCaught(0, 3)]
    assert of(events, DealEnded)[0].scored == (4, 0) and m.scores == [4, 0]


def test_r4a_six_and_queen_of_one_team_do_not_end_the_deal() -> None:
    deck = deal_deck(
        HV,
        3,
        {
            0: ["6C", "AC", "10C", "KC", "9C", "8C", "7C", "6S", "8H"],
            2: ["QC", "7S", "8S", "9S", "10S", "KS", "AS", "6H", "7H"],
        },
    )
    m = new(HV, [deck], 3)
    events = play_tricks(m, ["6C"])
    act(m, 1, f"play {sorted(legal_cards(m, 1))[0]}")
    events += act(m, 2, "play QC")
    assert not of(events, QueenCaught) and m.deal_no == 1 and len(m.deal.plays) == 3


def test_r4a_catch_counts_as_the_deal_won_and_takes_the_eggs_bonus() -> None:
    deck = deal_deck(
        HV,
        3,
        {
            0: ["6C", "AC", "10C", "KC", "9C", "8C", "7C", "6S", "8H"],
            1: ["QC", "7S", "8S", "9S", "10S", "KS", "AS", "6H", "7H"],
        },
    )
    m = new(HV, [deck], 3)
    m.eggs = True
    events = play_tricks(m, ["6C QC"])
    ended = of(events, DealEnded)[0]
    assert ended.scored == (6, 0) and ended.outcome == "caught" and ended.doubled
    assert not m.eggs


def test_r4a_more_than_60_scores_two_eyes_and_30_is_the_save() -> None:
    for rot in (0, 1):
        m, tricks = base_match(THIRTY, rot)
        ended = of(play_tricks(m, tricks), DealEnded)[0]
        win, lose = rot % 2, 1 - rot % 2
        assert ended.points[win] == 90 and ended.points[lose] == 30
        assert ended.scored[win] == 2 and ended.scored[lose] == 0 and ended.outcome == "normal"


def test_r4a_91_or_more_scores_four_eyes() -> None:
    m, tricks = base_match(TWENTY_FOUR)
    ended = of(play_tricks(m, tricks), DealEnded)[0]
    assert ended.points == (96, 24) and ended.scored == (4, 0) and m.scores == [4, 0]


def test_r4a_lyusya_match_wins_the_match_at_once() -> None:
    m, tricks = base_match(SWEEP)
    events = play_tricks(m, tricks)
    assert of(events, Lyusya) == [Lyusya(0, "match")]
    assert of(events, DealEnded)[0].outcome == "lyusya" and m.finished
    assert m.winners == (0, 2) and of(events, MatchEnded)[0].winners == (0, 2)
    assert m.to_act() == ()


def test_r4a_lyusya_reset_wipes_the_other_teams_eyes() -> None:
    m, tricks = base_match(SWEEP, rot=1, options={"lyusya": "reset"})
    m.scores = [3, 8]
    ended = of(play_tricks(m, tricks), DealEnded)[0]
    assert m.scores == [0, 12] and ended.scored == (-3, 4) and ended.outcome == "lyusya"
    assert m.finished and m.winners == (1, 3)  # 8 + 4 = 12


def test_r4a_sweep_beats_a_catch_in_the_last_trick() -> None:
    hands = {
        0: ["AC", "AS", "AH", "QS", "QH", "QD", "JC", "JS", "6C"],
        1: ["7C", "7S", "7H", "JH", "9D", "8D", "7D", "6D", "QC"],
        2: ["8C", "8S", "8H", "JD", "AD", "10D", "KD", "KC", "10C"],
        3: ["9C", "9S", "9H", "6S", "10S", "KS", "6H", "10H", "KH"],
    }
    tricks = [
        "AC 7C 8C 9C",
        "AS 7S 8S 9S",
        "AH 7H 8H 9H",
        "QS JH JD 6S",
        "QH 9D AD 10S",
        "QD 8D 10D KS",
        "JC 7D KD 6H",
        "JS 6D KC 10H",
        "6C QC 10C KH",
    ]
    for opts, outcome in (({}, "lyusya"), ({"lyusya": "reset"}, "lyusya")):
        m = new(HV, [deal_deck(HV, 3, hands, opts)], 3, opts)
        events = play_tricks(m, tricks)
        assert not of(events, QueenCaught)
        ended = of(events, DealEnded)[0]
        assert ended.outcome == outcome and ended.points == (120, 0)
    # without the sweep (seat 1 took a trick) the same last trick is a catch
    hands2 = {s: list(h) for s, h in hands.items()}
    m = new(HV, [deal_deck(HV, 3, hands2)], 3)
    play_tricks(m, tricks[:8])
    m.deal.tricks = [7, 1]  # as if seat 1 had taken one trick
    events = play_tricks(m, ["6C QC"])
    assert of(events, QueenCaught) == [QueenCaught(0, 1)]


def test_r4a_eggs_give_the_next_winner_two_more_and_never_stack() -> None:
    seed, picks = _find_eggs(HV, {})
    rules = make_rules(HV, 4)
    m = TrumpMatch(rules, seed=seed)
    m.eggs = True  # eggs already pending: a second 60:60 does not stack
    rng = random.Random(picks)
    events = play_out(m, lambda ls: rng.choice(ls))
    ended = of(events, DealEnded)[0]
    assert ended.points == (60, 60) and ended.outcome == "eggs" and ended.scored == (0, 0)
    assert m.eggs and m.scores == [0, 0]
    events = play_out(m)
    ended = of(events, DealEnded)[0]
    assert ended.outcome in ("normal", "caught")
    win = 0 if ended.scored[0] else 1
    base = 4 if ended.outcome == "caught" or ended.points[win] >= 91 else 2
    assert ended.scored[win] == base + 2 and ended.doubled and not m.eggs


def _find_eggs(preset: str, options: dict[str, Any]) -> tuple[int, int]:
    """A seed and a pick seed whose first deal, played at random, ends 60:60."""
    rules = make_rules(preset, 4, options)
    for seed in range(2000):
        m = TrumpMatch(rules, seed=seed)
        rng = random.Random(seed)
        events = play_out(m, lambda ls, r=rng: r.choice(ls))
        ended = of(events, DealEnded)
        if ended and ended[0].outcome == "eggs":
            return seed, seed
    raise AssertionError("no 60:60 deal found")


def test_r4a_redeal_with_13_points_or_less_before_the_first_card() -> None:
    fourteen = ["AS", "QS", "6C", "7C", "8C", "9C", "6S", "7S", "8S"]
    thirteen = ["10S", "QH", "9S", "6H", "7H", "8H", "9H", "6D", "7D"]
    deck = deal_deck(HV, 3, {2: fourteen, 3: thirteen, 0: ["AC", "AH", "10C"], 1: ["AD", "10D", "10H"]})
    m, _ = run(HV, [{"dealer": 3, "deck": deck, "actions": []}])
    m.eggs = True
    assert m.to_act() == (0, 3)
    assert m.legal_actions(3) == [Action("redeal")]
    assert m.legal_actions(2) == [] and Action("redeal") not in m.legal_actions(0)
    with pytest.raises(IllegalAction) as e:
        act(m, 2, "redeal")
    assert e.value.code == "not_your_turn"
    events = act(m, 3, "redeal")
    assert of(events, RedealAsked) == [RedealAsked(3, 1, 1)]
    assert len(m.history) == 2 and m.deal_no == 1 and m.dealer == 3 and m.eggs
    assert m.history[0].actions == [(3, Action("redeal"))] and m.history[0].result is None
    assert of(events, DealStarted)[0].leader == 0
    # once a card is led nobody may ask
    m2 = new(HV, [deck], 3)
    act(m2, 0, "play AC")
    assert m2.legal_actions(3) == [] and m2.to_act() == (1,)


def test_r4a_redeals_have_no_limit() -> None:
    weak = ["6S", "7S", "8S", "9S", "6H", "7H", "8H", "9H", "JD"]
    deck = deal_deck(HV, 3, {1: weak})
    m = new(HV, [deck] * 5, 3)
    for _ in range(5):
        act(m, 1, "redeal")
    assert len(m.history) == 6 and m.deal_no == 1 and m.scores == [0, 0]


def test_r4a_first_team_to_12_eyes_wins() -> None:
    m, tricks = base_match(THIRTY)
    m.scores = [10, 11]
    events = play_tricks(m, tricks)
    assert m.finished and m.winners == (0, 2) and m.scores == [12, 11]
    assert of(events, MatchEnded)[0].score == (12, 11)
    with pytest.raises(IllegalAction) as e:
        m.apply(0, Action("play", (0,)))
    assert e.value.code == "match_over"


# --- RULES.md 4b: kozel-nn -----------------------------------------------------------------


def test_r4b_cut_before_each_deal() -> None:
    m = TrumpMatch(make_rules(NN, 4), seed=4, dealer=1)
    assert isinstance(m.start_events[0], Shuffled) and m.start_events[0].cutter == 0
    obs = m.observe(None)
    assert obs.phase == "cut" and m.to_act() == (0,) and obs.hand_sizes == (0, 0, 0, 0)
    assert m.legal_actions(0) == [Action("cut", (n,)) for n in range(1, 36)]
    assert m.legal_actions(1) == []
    deck = list(m.deal.deck)
    with pytest.raises(IllegalAction):
        m.apply(0, Action("cut", (36,)))
    events = act(m, 0, "cut 5")
    assert of(events, DeckCut) == [DeckCut(0, 5)]
    cut = deck[5:] + deck[:5]
    assert m.deal.hands[2] == cut[0::4]  # dealt one at a time from the dealer's left
    assert m.observe(None).phase == "play"


def test_r4b_first_deal_is_led_by_the_ace_of_diamonds() -> None:
    deck = uncut(deal_deck(NN, 3, {2: ["AD"], 3: ["QC", "QS", "QH", "QD"]}))
    m, _ = run(NN, [{"dealer": 3, "deck": deck, "actions": [{"seat": 2, "cut": [1]}]}])
    # his only card to play is the A♦ (his team holds no queen: he may also ask for a redeal)
    assert m.to_act()[0] == 2
    assert [a for a in m.legal_actions(2) if a.kind == "play"] == [Action("play", (c("AD"),))]
    with pytest.raises(IllegalAction) as e:
        act(m, 2, f"play {CARD_TEXT[sorted(m.deal.hands[2])[0]]}")
    assert e.value.code == "must_lead_ace_of_diamonds"


def test_r4b_no_trump_lead_while_holding_a_non_trump() -> None:
    hands = {
        0: ["AD", "6C", "QC", "JC", "AC", "7S", "6H", "KC", "10C"],
        1: ["6D"],
        2: ["7D"],
        3: ["8D"],
    }
    m = new(NN, [uncut(deal_deck(NN, 3, hands))], 3)
    act(m, 2, "cut 1")
    assert of(play_tricks(m, ["AD 6D 7D 8D"]), TrickWon)[0].seat == 0
    assert legal_cards(m, 0) == {"7S", "6H"}
    with pytest.raises(IllegalAction) as e:
        act(m, 0, "play 6C")
    assert e.value.code == "no_trump_lead"
    # hvalenyi has no such restriction
    m = new(HV, [deal_deck(HV, 3, {0: ["QC", "7S"]})], 3)
    assert {"QC", "7S"} <= legal_cards(m, 0)


def test_r4b_shamok_catches_shamka_the_queens_team_takes_four_eight_after_eggs() -> None:
    hands = {
        0: ["AD", "6C"],
        1: ["6D", "QC", "7S", "8S", "9S", "10S", "KS", "AS", "6H"],  # Q♣ his only trump
        2: ["7D"],
        3: ["8D"],
    }
    for eggs, penalty in ((False, 4), (True, 8)):
        m = new(NN, [uncut(deal_deck(NN, 3, hands))], 3)
        m.eggs = eggs
        act(m, 2, "cut 1")
        play_tricks(m, ["AD 6D 7D 8D"])
        act(m, 0, "play 6C")  # the filler gave seat 0 only trumps besides the A♦
        events = act(m, 1, "play QC")
        assert of(events, QueenCaught) == [QueenCaught(0, 1)]
        ended = of(events, DealEnded)[0]
        assert ended.scored == (0, penalty) and ended.outcome == "caught"
        assert m.history[0].result is not None and m.history[0].result["points"] is None
        assert m.scores == [0, penalty] and not m.eggs


def _nn_deals(band: str) -> DealEnded:
    rules = make_rules(NN, 4)
    for seed in range(400):
        m = TrumpMatch(rules, seed=seed)
        rng = random.Random(seed)
        for _ in range(4):
            events = play_out(m, lambda ls, r=rng: r.choice(ls))
            for e in of(events, DealEnded):
                if e.outcome != "normal" or e.doubled:
                    continue
                low = min(e.points)
                if {"zero": low == 0, "chiper": 1 <= low <= 30, "pair": 31 <= low <= 59}[band]:
                    return e
            if m.finished:
                break
    raise AssertionError(f"no {band} deal found")


@pytest.mark.parametrize(("band", "penalty"), [("zero", 6), ("chiper", 4), ("pair", 2)])
def test_r4b_penalties_6_4_2_by_card_points(band: str, penalty: int) -> None:
    e = _nn_deals(band)
    loser = 0 if e.points[0] < e.points[1] else 1
    assert e.scored[loser] == penalty and e.scored[1 - loser] == 0


def test_r4b_eggs_double_the_next_deals_penalties() -> None:
    seed, picks = _find_eggs(NN, {})
    m = TrumpMatch(make_rules(NN, 4), seed=seed)
    rng = random.Random(picks)
    ended = of(play_out(m, lambda ls: rng.choice(ls)), DealEnded)[0]
    assert ended.outcome == "eggs" and ended.scored == (0, 0) and m.eggs
    ended = of(play_out(m), DealEnded)[0]
    loser = 0 if ended.scored[0] else 1
    if ended.outcome == "normal":
        low = ended.points[loser]
        assert ended.scored[loser] == 2 * (6 if low == 0 else 4 if low <= 30 else 2)
    assert ended.doubled and not m.eggs


def test_r4b_team_reaching_12_loses() -> None:
    hands = {
        0: ["AD", "6C"],
        1: ["6D", "QC", "7S", "8S", "9S", "10S", "KS", "AS", "6H"],
        2: ["7D"],
        3: ["8D"],
    }
    m = new(NN, [uncut(deal_deck(NN, 3, hands))], 3)
    m.scores = [11, 8]
    act(m, 2, "cut 1")
    events = play_tricks(m, ["AD 6D 7D 8D", "6C QC"])
    assert m.scores == [11, 12] and m.finished and m.winners == (0, 2)
    assert of(events, MatchEnded)[0].winners == (0, 2)


def test_r4b_redeal_for_a_team_without_queens_or_only_the_queen_of_diamonds() -> None:
    # team 1 holds no queen: either of its players may ask; team 0 may not
    deck = uncut(deal_deck(NN, 3, {0: ["AD", "QC", "QS"], 2: ["QH", "QD"]}))
    m = new(NN, [deck], 3)
    act(m, 2, "cut 1")
    assert m.to_act() == (0, 1, 3)
    assert m.legal_actions(1) == [Action("redeal")] == m.legal_actions(3)
    assert m.legal_actions(2) == []
    # only the Q♦: may ask; the Q♥: may not
    deck = uncut(deal_deck(NN, 3, {0: ["AD", "QC", "QS"], 2: ["QH"], 1: ["QD"]}))
    m = new(NN, [deck], 3)
    act(m, 2, "cut 1")
    assert Action("redeal") in m.legal_actions(3) and m.legal_actions(2) == []
    events = act(m, 3, "redeal")
    assert of(events, RedealAsked) == [RedealAsked(3, 1, 1)]
    assert m.observe(None).phase == "cut" and m.deal_no == 1 and len(m.history) == 2
    # "that team may ask": the A♦ holder too (before he leads it), and his partner
    deck = uncut(deal_deck(NN, 3, {1: ["AD"], 0: ["QC", "QS", "QH", "QD"]}))
    m = new(NN, [deck], 3)
    act(m, 2, "cut 1")
    assert m.legal_actions(1) == [Action("play", (c("AD"),)), Action("redeal")]
    assert m.legal_actions(3) == [Action("redeal")]


def test_r4b_third_redeal_costs_the_dealers_team_two() -> None:
    deck = uncut(deal_deck(NN, 3, {0: ["AD", "QC", "QS"], 2: ["QH", "QD"]}))
    m = new(NN, [deck, deck, deck], 3)
    m.eggs = True
    for i in range(3):
        act(m, 2, "cut 1")
        events = act(m, 1, "redeal")
        assert of(events, RedealAsked)[0].in_a_row == i + 1
    assert of(events, RedealPenalty) == [RedealPenalty(1, 2)]
    ended = of(events, DealEnded)[0]
    assert ended.scored == (0, 2) and ended.outcome == "redeals" and not ended.doubled
    assert m.scores == [0, 2] and m.deal_no == 2 and m.dealer == 0 and m.redeals == 0
    assert m.eggs  # [decision] the doubling waits for a played deal
    assert m.history[2].result is not None and m.history[2].result["points"] is None


# the boast of deal 2 (dealer 0; seat 1 boasts, then seats 2, 3, 0 cover)
BOAST_DRAWS = [
    "QC",
    "JC",
    "AS",
    "10H",  # seat 1: two trumps, then two non-trumps
    "6S",
    "KH",  # seat 2
    "QS",
    "7S",
    "8H",
    "9D",  # seat 3: one non-trump, then two more
    "10S",
    "AH",
]  # seat 0


def boast_match(rest_first: list[str] | None = None) -> TrumpMatch:
    used = set(BOAST_DRAWS) | set(rest_first or [])
    rest = list(rest_first or []) + [CARD_TEXT[x] for x in make_rules(NN, 4).deck if CARD_TEXT[x] not in used]
    deck2 = uncut(boast_deck(BOAST_DRAWS, rest))
    m = new(NN, [None, deck2], 3)
    act(m, 2, "cut 7")
    play_out(m)
    assert m.deal_no == 2 and m.dealer == 0 and m.observe(None).phase == "cut"
    return m


def cover(m: TrumpMatch, seat: int, cards: str) -> list[Event]:
    """Cover the boast a card at a time: the first card on the first pile, and so on."""
    events: list[Event] = []
    for card in cards.split():
        events = act(m, seat, f"cover {card}")
    return events


def test_r4b_boast_trousers_lay_cover_and_piles() -> None:
    m = boast_match()
    events = act(m, 3, "cut 1")
    assert of(events, BoastGiven) == [BoastGiven(1, 4)]
    assert sorted(m.deal.hands[1]) == sorted(cs("QC JC AS 10H"))
    obs = m.observe(None)
    assert obs.phase == "boast" and m.to_act() == (1,)
    assert m.legal_actions(1) == [
        Action("lay", cs("AS")),
        Action("lay", cs("10H")),
        Action("lay", cs("AS 10H")),
    ]
    events = act(m, 1, "lay AS 10H")
    assert of(events, Laid) == [Laid(1, 2)] and of(events, BoastGiven) == [BoastGiven(2, 2)]
    assert m.observe(2).trick[0] == (1, "lay", None, 2)  # face down to the others
    assert m.observe(1).trick[0] == (1, "lay", cs("AS 10H"), 2)
    # a card on each pile, a button each: the first on the AS pile, the next on the 10H pile
    assert m.legal_actions(2) == [Action("cover", cs("6S")), Action("cover", cs("KH"))]
    cover(m, 2, "6S KH")
    assert sorted(m.deal.hands[3]) == sorted(cs("QS 7S 8H 9D"))  # given pairs until 2 non-trumps
    with pytest.raises(IllegalAction):
        act(m, 3, "cover 7S 8H")  # one card at a time
    cover(m, 3, "7S 8H")
    events = cover(m, 0, "10S AH")
    assert of(events, Covered) == [Covered(0, cs("AH"))]
    assert of(events, BoastRevealed) == [BoastRevealed(1, cs("AS 10H"))]
    assert of(events, PileWon) == [  # the boaster's card first, then the covers in turn
        PileWon(1, 1, (c("AS"), c("6S"), c("7S"), c("10S")), 21),
        PileWon(0, 0, (c("10H"), c("KH"), c("8H"), c("AH")), 25),
    ]
    # the rest dealt to 7 each; the winner of the richer pile leads
    assert [len(h) for h in m.deal.hands] == [7, 7, 7, 7] and m.deal.tricks == [1, 1]
    assert of(events, DealStarted)[0].leader == 0 and m.to_act()[0] == 0
    boast = m.observe(None).extras.boast
    assert boast.leader == 0 and [p.points for p in boast.piles] == [21, 25]
    # the piles count for points at the end of the deal
    ended = of(play_out(m), DealEnded)[0]
    assert sum(ended.points) == 120 or ended.outcome == "caught"


def test_r4b_lay_two_only_if_the_last_pair_were_both_non_trumps() -> None:
    draws = ["QC", "7S", "6S", "KH"]  # a trump and a non-trump: he must lay the 7♠ alone
    rest = [CARD_TEXT[x] for x in make_rules(NN, 4).deck if CARD_TEXT[x] not in draws]
    m = new(NN, [None, uncut(boast_deck(draws, rest))], 3)
    act(m, 2, "cut 7")
    play_out(m)
    act(m, 3, "cut 1")
    assert m.legal_actions(1) == [Action("lay", cs("7S"))]
    assert sorted(m.deal.hands[1]) == sorted(cs("QC 7S"))


def test_r4b_boast_void_when_a_player_holds_more_than_his_share() -> None:
    # the boaster takes 8 trumps, then two non-trumps: after laying two he holds 8 > 7
    draws = ["QC", "JC", "QS", "JS", "QH", "JH", "QD", "JD", "AS", "10H", "6S", "KH", "7S", "8H", "10S", "AH"]
    rest = [CARD_TEXT[x] for x in make_rules(NN, 4).deck if CARD_TEXT[x] not in draws]
    m = new(NN, [None, uncut(boast_deck(draws, rest))], 3)
    act(m, 2, "cut 7")
    play_out(m)
    act(m, 3, "cut 1")
    act(m, 1, "lay AS 10H")
    cover(m, 2, "6S KH")
    cover(m, 3, "7S 8H")
    dealings = len(m.history)
    events = cover(m, 0, "10S AH")
    assert of(events, BoastVoid) == [BoastVoid((1,), 7)]
    assert len(m.history) == dealings + 1 and m.deal_no == 2 and m.redeals == 0
    assert m.observe(None).phase == "cut" and m.deal.tricks == [0, 0]
    assert isinstance(events[-1], Shuffled)


def test_r4b_redeal_after_a_boast_the_boast_team_chooses_keep() -> None:
    m = boast_match(["QH", "7C", "QD"])  # seats 1 and 3 get the Q♥ and the Q♦
    act(m, 3, "cut 1")
    act(m, 1, "lay AS 10H")
    cover(m, 2, "6S KH")
    cover(m, 3, "7S 8H")
    cover(m, 0, "10S AH")
    assert m.legal_actions(2) == [Action("redeal")]  # team 0 holds no queen
    events = act(m, 2, "redeal")
    assert m.observe(None).phase == "redeal" and m.to_act() == (0,)
    assert m.legal_actions(0) == [Action("reboast"), Action("keep")]
    events = act(m, 0, "keep")
    assert m.observe(None).phase == "cut" and len(m.legal_actions(3)) == 27
    assert m.deal.tricks == [1, 1] and sorted(m.deal.piles[0]) == sorted(cs("10H KH 8H AH"))
    events = act(m, 3, "cut 4")
    assert [len(h) for h in m.deal.hands] == [7, 7, 7, 7]
    assert of(events, DealStarted)[0].leader == 0
    assert m.audit() is None
    ended = of(play_out(m), DealEnded)[0]
    assert sum(ended.points) == 120 or ended.outcome == "caught"


def test_r4b_redeal_after_a_boast_reboast_boasts_again() -> None:
    m = boast_match(["QH", "7C", "QD"])
    act(m, 3, "cut 1")
    act(m, 1, "lay AS 10H")
    cover(m, 2, "6S KH")
    cover(m, 3, "7S 8H")
    cover(m, 0, "10S AH")
    act(m, 0, "redeal")
    act(m, 0, "reboast")
    assert m.deal.tricks == [0, 0] and m.deal.piles == [[], []] and len(m.legal_actions(3)) == 35
    act(m, 3, "cut 1")
    assert m.observe(None).phase == "boast" and m.to_act() == (1,)


def test_r4b_match_log_replays() -> None:
    rules = make_rules(NN, 4)
    m = TrumpMatch(rules, seed=11)
    rng = random.Random(3)
    while not m.finished:
        seat = rng.choice(m.to_act())
        m.apply(seat, rng.choice(m.legal_actions(seat)))
    again, summary = replay(to_log(m))
    assert again.scores == m.scores and again.winners == m.winners


# --- RULES.md 4c: kozel-kocherga -------------------------------------------------------------


def test_r4c_kocherga_catches_the_queen_of_clubs() -> None:
    deck = deal_deck(
        KO,
        3,
        {
            0: ["7C", "AS", "10S", "KS", "9S", "8S", "7S", "AH"],
            1: ["QC", "7H", "8H", "9H", "10H", "KH", "7D", "8D"],  # Q♣ his only trump
        },
    )
    m, _ = run(
        KO,
        [{"dealer": 3, "deck": deck, "actions": [{"seat": 0, "play": ["7C"]}, {"seat": 1, "play": ["QC"]}]}],
    )
    assert m.scores == [4, 0] and m.history[0].result is not None
    assert m.history[0].result["outcome"] == "caught" and m.history[0].result["points"] is None


def test_r4c_trump_suit_option_moves_the_plain_trumps() -> None:
    opts = {"trump_suit": "spades"}
    deck = deal_deck(KO, 3, {0: ["AC"], 1: ["7S"], 2: ["KC"], 3: ["7C"]}, opts)
    m = new(KO, [deck], 3, opts)
    won = of(play_tricks(m, ["AC 7S KC 7C"]), TrickWon)[0]
    assert won.seat == 3  # the 7♣ stays on top; the 7♠ is a trump; the A♣ is plain
    deck = deal_deck(KO, 3, {0: ["AC"], 1: ["8D"], 2: ["KC"], 3: ["10C"]}, opts)
    m = new(KO, [deck], 3, opts)
    assert of(play_tricks(m, ["AC 8D KC 10C"]), TrickWon)[0].seat == 0


def test_r4c_ace_rule_is_an_option() -> None:
    # seat 1 holds no spade and no trump; hearts were never led
    for rule, allowed in ((False, True), (True, False)):
        opts = {"ace_rule": rule}
        deck = deal_deck(KO, 3, {0: ["7S"], 1: ["AH", "7H", "8H", "9H", "10H", "KH", "7D", "8D"]}, opts)
        m = new(KO, [deck], 3, opts)
        act(m, 0, "play 7S")
        assert ("AH" in legal_cards(m, 1)) is allowed


@pytest.mark.parametrize("lyusya", ["match", "reset"])
def test_r4c_lyusya_option(lyusya: str) -> None:
    # seat 0: 7♣ and every queen and jack: he leads them all and takes every trick
    opts = {"lyusya": lyusya}
    hands = {0: ["7C", "QC", "QS", "QH", "QD", "JC", "JS", "JH"]}
    m = new(KO, [deal_deck(KO, 3, hands, opts)], 3, opts)
    m.scores = [0, 5]
    events: list[Any] = []
    for lead in hands[0]:
        events += act(m, 0, f"play {lead}")
        for s in (1, 2, 3):
            events += act(m, s, f"play {sorted(legal_cards(m, s))[0]}")
    assert of(events, Lyusya) == [Lyusya(0, lyusya)]
    if lyusya == "match":
        assert m.finished and m.winners == (0, 2)
    else:
        assert m.scores == [4, 0] and not m.finished


def test_r4c_eyes_like_hvalenyi() -> None:
    # the hvalenyi base deal does not fit 32 cards; one played kocherga deal is scored by
    # the same eyes table (more than 60: 2, 91 or more: 4)
    rules = make_rules(KO, 4)
    for seed in range(40):
        m = TrumpMatch(rules, seed=seed)
        ended = of(play_out(m), DealEnded)[0]
        if ended.outcome != "normal":
            continue
        win = 0 if ended.points[0] > 60 else 1
        assert ended.scored[win] == (4 if ended.points[win] >= 91 else 2)
        assert ended.scored[1 - win] == 0


# --- the computer player -----------------------------------------------------------------------


@pytest.mark.parametrize("preset", [HV, NN, KO])
def test_r4_rules_bot_beats_random(preset: str) -> None:
    result = simulate(preset, 4, 200, 0, ["rules", "random", "rules", "random"])
    assert result["invariants"] == "ok"
    assert result["wins"][0] >= 140, result["wins"]


def test_r4_points_of_the_deck() -> None:
    for preset in (HV, NN, KO):
        assert sum(POINTS[x] for x in make_rules(preset, 4).deck) == 120


def test_r4_public_view_does_not_tell_who_may_ask_for_a_redeal() -> None:
    """Hidden cards stay hidden: the right to ask for a redeal depends on a hand (13 points
    or less; a team without queens), so only its holder sees it; the table sees the seat
    on move alone."""
    m = new("kozel-nn", [uncut(deal_deck("kozel-nn", 3, {0: ["AD", "QC", "QS"], 2: ["QH", "QD"]}))], 3)
    act(m, 2, "cut 1")
    assert m.to_act() == (0, 1, 3)  # team 1 (seats 1, 3) holds no queen: it may ask
    assert m.observe(None).to_act == (0,)
    assert m.observe(2).to_act == (0,)
    assert m.observe(1).to_act == (0, 1) and m.observe(3).to_act == (0, 3)
    m = new(
        "kozel-hvalenyi",
        [deal_deck("kozel-hvalenyi", 3, {3: ["10S", "QH", "9S", "6H", "7H", "8H", "9H", "6D", "7D"]})],
        3,
    )
    assert m.to_act() == (0, 3)
    assert m.observe(None).to_act == (0,) and m.observe(1).to_act == (0,)
    assert m.observe(3).to_act == (0, 3)


def test_r4b_boast_cover_each_pile_by_its_own_button() -> None:
    """Step 3: the covering player chooses which card goes on which of the boaster's cards:
    seat 3 puts his 8H on the AS pile and his 7S on the 10H pile."""
    m = boast_match()
    act(m, 3, "cut 1")
    act(m, 1, "lay AS 10H")
    cover(m, 2, "6S KH")
    cover(m, 3, "8H 7S")
    assert m.observe(None).trick[2] == (3, "cover", (c("8H"), c("7S")), 2)
    events = cover(m, 0, "10S AH")
    assert of(events, PileWon) == [
        PileWon(1, 1, (c("AS"), c("6S"), c("8H"), c("10S")), 21),
        PileWon(0, 0, (c("10H"), c("KH"), c("7S"), c("AH")), 25),
    ]
