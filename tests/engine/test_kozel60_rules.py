"""Scenario tests for RULES.md section 3: ``kozel-60``, Kozel to 60 points.

Every test names the rule it checks (``test_r3_...``). Single tricks are built with
``helpers.build_deck``; whole deals are written trick by trick with the expected winner of
each trick (``deal_from_tricks``), so every point total below is known in advance.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.actions import Action, parse_action
from engine.cards import (
    DIAMONDS,
    HEARTS,
    SPADES,
    deck_30,
    deck_32,
    deck_points,
    parse_card,
    parse_cards,
)
from engine.dealing import shuffled_deck
from engine.errors import IllegalAction
from engine.events import (
    CardsDrawn,
    DealEnded,
    DealStarted,
    Event,
    MatchEnded,
    Played,
    SecondHalfDealt,
    TrickWon,
    TrumpCardTaken,
)
from engine.families.drawing.deal import strength60
from engine.families.drawing.match import Match
from engine.log import LogError
from engine.observation import observe
from engine.presets import PresetError, make_rules

from .helpers import build_deck, run

PRESET = "kozel-60"
HALVES = {"deal": "halves"}


# --- helpers ------------------------------------------------------------------------------


def c(text: str) -> int:
    return parse_card(text)


def cs(text: str) -> tuple[int, ...]:
    """Cards in the order written (a trick's face-up cards keep their play order)."""
    return parse_cards(text.split())


def log_of(*deals: dict[str, Any], players: int = 4, options: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"preset": PRESET, "players": players, "options": options or {}, "deals": list(deals)}


def start(hands: dict[int, list[str]], after: list[str], players: int = 4, dealer: int = 3) -> Match:
    """A kozel-60 match whose first deal deals ``hands`` and turns ``after[0]``."""
    deck = build_deck(PRESET, players, dealer, hands, after)
    match, _ = run(log_of({"dealer": dealer, "deck": deck, "actions": []}, players=players))
    return match


def play(match: Match, seat: int, card: str) -> list[Event]:
    kind = "play" if match.deal.plays else "lead"
    return match.apply(seat, Action(kind, (c(card),)))


def deal_from_tricks(
    tricks: list[tuple[str, int]],
    dealer: int = 3,
    players: int = 4,
    halves: bool = False,
) -> dict[str, Any]:
    """One whole deal as a deal-log entry.

    A trick is ``("0:9C 1:10H 2:8D 3:10C", 2)``: seats in play order (the first leads) and
    the seat that must win it. Each seat plays its cards in the order they reach its hand,
    so the deck is the dealt cards (the first four tricks) and then the stock in drawing
    order, each round drawn from the trick's winner clockwise; the last card drawn is the
    turned trump, so it goes right after the dealt cards. With ``halves`` the deck is the
    two halves, each dealt from the dealer's left.
    """
    n = players
    left = (dealer + 1) % n
    seq: dict[int, list[str]] = {s: [] for s in range(n)}
    actions: list[dict[str, Any]] = []
    lead = left
    for no, (trick, winner) in enumerate(tricks):
        if halves and no == 4:
            lead = left  # RULES.md 3: the second game is led from the dealer's left too
        entries = trick.split()
        assert len(entries) == n, trick
        for i, entry in enumerate(entries):
            seat_text, card = entry.split(":")
            seat = int(seat_text)
            assert seat == (lead + i) % n, f"{trick}: seat {seat} does not play {i + 1}th"
            actions.append({"seat": seat, "lead" if i == 0 else "play": [card]})
            seq[seat].append(card)
        lead = winner
    rows = len(tricks)
    deck = [seq[(left + k) % n][i] for i in range(4) for k in range(n)]
    if halves:
        deck += [seq[(left + k) % n][i] for i in range(4, 8) for k in range(n)]
    else:
        drawn: list[str] = []
        for t in range(rows - 4):
            winner = tricks[t][1]
            drawn += [seq[(winner + k) % n][t + 4] for k in range(n)]
        deck += [drawn[-1], *drawn[:-1]]
    return {"dealer": dealer, "deck": deck, "actions": actions}


def replay_events(log: dict[str, Any]) -> tuple[Match, list[Event]]:
    """Like ``run`` (the log is first checked with it), but also returns every event."""
    run(log)
    rules = make_rules(PRESET, log["players"], log["options"])
    deals = log["deals"]

    def decks(no: int, _dealer: int) -> tuple[list[int], None]:
        if no > len(deals):
            return shuffled_deck(rules, 0, no)[0], None  # the deal after the log: any deck
        return [c(x) for x in deals[no - 1]["deck"]], None

    match = Match(rules, dealer=deals[0]["dealer"], decks=decks)
    events = list(match.start_events)
    for entry in deals:
        for raw in entry["actions"]:
            kind = next(k for k in raw if k != "seat")
            events += match.apply(raw["seat"], Action(kind, (c(raw[kind][0]),)))
    return match, events


def check_winners(events: list[Event], tricks: list[list[tuple[str, int]]]) -> None:
    won = [e.seat for e in events if isinstance(e, TrickWon)]
    assert won[: sum(len(t) for t in tricks)] == [w for t in tricks for _, w in t]


def ended(events: list[Event]) -> list[DealEnded]:
    return [e for e in events if isinstance(e, DealEnded)]


# Whole deals for 4 players. The comment after each trick: its card points.

# Dealt by seat 3 (seat 0 leads). Turned: AD (drawn last, by seat 3). Points 50 30 20 20.
DEAL_A = [
    ("0:9C 1:10H 2:8D 3:10C", 2),  # 20: the 8D is the only trump
    ("2:7H 3:QH 0:8C 1:AH", 1),  # 14: hearts led, the ace is highest
    ("1:10D 2:7C 3:KD 0:JC", 0),  # 16: the J♣ over the trump ten
    ("0:QD 1:9D 2:AC 3:KH", 0),  # 18: trump queen over trump nine
    ("0:JH 1:AS 2:7D 3:QC", 0),  # 16: the J♥ over a trump
    ("0:KS 1:JD 2:8H 3:10S", 1),  # 16: the J♦ over the led spades
    ("1:9H 2:QS 3:JS 0:8S", 3),  # 5: the J♠
    ("3:AD 0:7S 1:KC 2:9S", 3),  # 15: the trump ace
]

# Dealt by seat 0 (seat 1 leads). Turned: 7C (drawn last, by seat 0). Points 20 29 39 32.
DEAL_B = [
    ("1:8C 2:9S 3:9C 0:9H", 3),  # 0: trump nine over trump eight
    ("3:7D 0:JH 1:QH 2:9D", 0),  # 5
    ("0:AS 1:8S 2:7S 3:KH", 0),  # 15
    ("0:AD 1:KC 2:7H 3:8H", 1),  # 15: a trump king over the diamond ace
    ("1:QD 2:JC 3:AH 0:KS", 2),  # 20
    ("2:JS 3:KD 0:QC 1:10C", 2),  # 19: the J♠ over the trump ten
    ("2:10D 3:JD 0:10H 1:10S", 3),  # 32
    ("3:8D 0:7C 1:AC 2:QS", 1),  # 14: the trump ace over the trump seven
]

# Dealt by seat 0 (seat 1 leads). Turned: 7S (drawn last, by seat 0). Points 20 35 25 40.
DEAL_C = [
    ("1:8C 2:JC 3:KS 0:AS", 2),  # 17: the J♣ over the trump ace
    ("2:JS 3:KH 0:9D 1:JH", 2),  # 8: J♠ over J♥
    ("2:QS 3:10S 0:AH 1:KD", 3),  # 28
    ("3:7C 0:9H 1:AC 2:10D", 1),  # 21
    ("1:8D 2:9C 3:10C 0:9S", 0),  # 10: a trump nine over the clubs
    ("0:7D 1:KC 2:QH 3:QC", 0),  # 10: the only diamond
    ("0:7H 1:10H 2:8H 3:JD", 3),  # 12
    ("3:AD 0:7S 1:8S 2:QD", 1),  # 14
]

# Dealt by seat 3 (seat 0 leads). Turned: JH, so hearts are trump; seat 0 draws it last.
# Points 60 60 0 0.
DEAL_TIE = [
    ("0:10D 1:8D 2:AC 3:7S", 0),  # 21
    ("0:QS 1:7H 2:8S 3:QC", 1),  # 6: the trump seven takes the spades
    ("1:AH 2:10H 3:9H 0:7D", 1),  # 21
    ("1:KH 2:10S 3:QH 0:10C", 1),  # 27
    ("1:QD 2:KC 3:7C 0:AD", 0),  # 18
    ("0:9C 1:AS 2:9S 3:KD", 0),  # 15
    ("0:JC 1:KS 2:8H 3:8C", 0),  # 6
    ("0:JH 1:JS 2:JD 3:9D", 1),  # 6: the J♠ over the turned J♥ (hearts are trump)
]


# --- deck, players, sides -------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 4])
def test_r3_thirty_two_cards_without_sixes(players: int) -> None:
    rules = make_rules(PRESET, players)
    assert sorted(rules.deck) == sorted(deck_32()) and len(rules.deck) == 32
    assert not any(card % 9 == 0 for card in rules.deck)  # no six
    assert deck_points(rules.deck) == 120


def test_r3_three_players_thirty_cards_without_7c_7s() -> None:
    rules = make_rules(PRESET, 3)
    assert sorted(rules.deck) == sorted(deck_30()) and len(rules.deck) == 30
    assert c("7C") not in rules.deck and c("7S") not in rules.deck
    assert c("7H") in rules.deck and c("7D") in rules.deck
    match = Match(rules, seed=1)
    assert [len(h) for h in match.deal.hands] == [4, 4, 4]
    assert len(match.deal.stock) == 18  # 6 rounds of drawing, 3 cards each


@pytest.mark.parametrize("players", [2, 3, 4])
def test_r3_two_to_four_players_each_for_himself(players: int) -> None:
    rules = make_rules(PRESET, players)
    assert not rules.partnership and rules.sides == players
    assert [rules.side_of(s) for s in range(players)] == list(range(players))
    match = Match(rules, seed=3)
    assert [len(h) for h in match.deal.hands] == [4] * players
    assert len(match.deal.piles) == players


@pytest.mark.parametrize("players", [1, 5, 6])
def test_r3_other_player_counts_refused(players: int) -> None:
    with pytest.raises(PresetError, match=f"'kozel-60' is for 2 or 3 or 4 players, not {players}"):
        make_rules(PRESET, players)


def test_r3_four_players_are_not_partners() -> None:
    """A trick taken by seat 2 is his alone: seat 0's pile stays empty."""
    m = start(
        {
            0: ["7C", "QH", "KH", "7S"],
            1: ["AH", "9C", "QD", "8S"],
            2: ["8C", "KS", "9S", "10S"],
            3: ["AS", "7H", "8H", "9H"],
        },
        after=["9D"],
    )
    for seat, card in [(0, "7C"), (1, "AH"), (2, "8C"), (3, "AS")]:
        play(m, seat, card)
    assert m.deal.piles[2] and not m.deal.piles[0]
    assert m.deal.tricks == [0, 0, 1, 0]


# --- trump ------------------------------------------------------------------------------


def test_r3_trump_turned_after_the_deal_put_under_stock_drawn_last() -> None:
    deal = deal_from_tricks(DEAL_A)
    assert deal["deck"][16] == "AD"  # the card after the deal
    match, events = replay_events(log_of(deal))
    assert events[0] == DealStarted(1, 3, DIAMONDS, c("AD"), 0)
    check_winners(events, [DEAL_A])
    draws = [e for e in events if isinstance(e, CardsDrawn)]
    assert [d.stock for d in draws] == [12, 8, 4, 0]
    # drawn last: the turned card goes with the last draw, to seat 3
    taken = [e for e in events if isinstance(e, TrumpCardTaken)]
    assert taken == [TrumpCardTaken(3, c("AD"))]
    assert events.index(taken[0]) == events.index(draws[-1]) - 1


def test_r3_turned_card_is_at_the_bottom_of_the_stock() -> None:
    m = start(
        {
            0: ["7C", "QH", "KH", "7S"],
            1: ["AH", "9C", "QD", "8S"],
            2: ["8C", "KS", "9S", "10S"],
            3: ["AS", "7H", "8H", "9H"],
        },
        after=["9D", "10D", "JD"],
    )
    d = m.deal
    assert d.trump == DIAMONDS and d.trump_card == c("9D")
    assert d.stock[0] == c("9D")  # the bottom: drawn last
    assert d.stock[-1] == c("10D") and d.stock[-2] == c("JD")  # the top: drawn first
    assert len(d.stock) == 16
    assert observe(m, None).trump_card == c("9D")


def test_r3_turned_jack_makes_its_suit_trump_and_stays_a_jack() -> None:
    deal = deal_from_tricks(DEAL_TIE)
    assert deal["deck"][16] == "JH"
    match, events = replay_events(log_of(deal))
    assert match.history[0].result is not None
    assert events[0] == DealStarted(1, 3, HEARTS, c("JH"), 0)
    check_winners(events, [DEAL_TIE])
    assert TrumpCardTaken(0, c("JH")) in events
    # the J♠ beats the turned J♥ although hearts are trump (the last trick)
    tricks = [e for e in events if isinstance(e, TrickWon)]
    assert tricks[-1] == TrickWon(1, 1, cs("JH JS JD 9D"), 0)
    # and the J♥ still beats every other heart
    assert strength60(c("JH"), HEARTS, c("AH")) > strength60(c("AH"), HEARTS, c("AH"))
    assert strength60(c("JS"), HEARTS, c("JH")) > strength60(c("JH"), HEARTS, c("JH"))


# --- play ---------------------------------------------------------------------------------


TRICK_HANDS = {
    0: ["7C", "QH", "KH", "7S"],
    1: ["AH", "9C", "QD", "8S"],
    2: ["8C", "KS", "9S", "10S"],
    3: ["AS", "7H", "8H", "9H"],
}


def test_r3_left_of_dealer_leads_then_the_tricks_winner() -> None:
    m = start(TRICK_HANDS, after=["9D"], dealer=3)
    assert (m.deal.leader, m.deal.to_move, m.to_act()) == (0, 0, (0,))
    for seat, card in [(0, "7C"), (1, "AH"), (2, "8C"), (3, "AS")]:
        assert m.to_act() == (seat,)
        play(m, seat, card)
    assert (m.deal.leader, m.deal.to_move) == (2, 2)
    m2 = start(TRICK_HANDS, after=["9D"], dealer=1)
    assert m2.deal.leader == 2 and m2.start_events[0].leader == 2  # type: ignore[attr-defined]


def test_r3_one_card_per_trick_face_up() -> None:
    m = start(TRICK_HANDS, after=["9D"])
    assert m.legal_actions(0) == [Action("lead", (x,)) for x in sorted(cs("7C QH KH 7S"))]
    assert m.check(0, parse_action("lead QH KH")) == "wrong_count"
    assert m.check(0, parse_action("play 7C")) == "wrong_action"
    assert m.check(0, parse_action("declare 7C QH KH 7S")) == "unknown_action"
    assert play(m, 0, "7C") == [Played(0, c("7C"))]
    assert m.legal_actions(1) == [Action("play", (x,)) for x in sorted(cs("AH 9C QD 8S"))]
    for bad in ("beat 9C", "throw 9C", "lead 9C"):
        assert m.check(1, parse_action(bad)) == "wrong_action"
    assert m.check(1, parse_action("play 9C QD")) == "wrong_count"
    with pytest.raises(IllegalAction):
        m.apply(1, parse_action("throw 9C"))
    assert observe(m, 2).trick == ((0, "lead", cs("7C"), 1),)


def test_r3_no_duty_to_follow_suit_or_to_trump() -> None:
    """Seat 1 holds a club (the led suit) and a trump, yet may play his heart ace."""
    m = start(TRICK_HANDS, after=["9D"])
    play(m, 0, "7C")
    assert {a.cards[0] for a in m.legal_actions(1)} == set(cs("AH 9C QD 8S"))
    assert m.check(1, parse_action("play AH")) is None
    play(m, 1, "AH")


def test_r3_only_led_suit_cards_win_among_non_trumps() -> None:
    m = start(TRICK_HANDS, after=["9D"])
    play(m, 0, "7C")
    play(m, 1, "AH")  # a higher card, but not of the led suit
    assert m.deal.win_seat == 0
    play(m, 2, "8C")  # the led suit: it wins
    assert m.deal.win_seat == 2
    events = play(m, 3, "AS")
    assert events[1] == TrickWon(2, 2, cs("7C AH 8C AS"), 0)
    assert m.deal.points() == [0, 0, 22, 0]


def test_r3_any_trump_beats_the_led_suit_higher_trump_beats_lower() -> None:
    m = start(
        {
            0: ["AC", "QH", "KH", "7S"],
            1: ["7D", "9C", "QC", "8S"],
            2: ["8D", "KS", "9S", "10S"],
            3: ["KC", "7H", "8H", "9H"],
        },
        after=["9D"],
    )
    play(m, 0, "AC")
    play(m, 1, "7D")
    assert m.deal.win_seat == 1
    play(m, 2, "8D")
    assert m.deal.win_seat == 2
    events = play(m, 3, "KC")
    assert events[1] == TrickWon(2, 2, cs("AC 7D 8D KC"), 0)


def test_r3_jack_of_clubs_over_trump_ace() -> None:
    m = start(
        {
            0: ["AD", "QH", "KH", "7S"],
            1: ["JC", "9C", "QC", "8S"],
            2: ["10D", "KS", "9S", "10S"],
            3: ["KD", "7H", "8H", "9H"],
        },
        after=["9D"],
    )
    play(m, 0, "AD")
    play(m, 1, "JC")
    assert m.deal.win_seat == 1
    play(m, 2, "10D")
    events = play(m, 3, "KD")
    assert events[1] == TrickWon(1, 1, cs("AD JC 10D KD"), 0)


@pytest.mark.parametrize(
    "order,winners",
    [
        ("JD JH JS JC", [0, 1, 2, 3]),
        ("JC JS JH JD", [0, 0, 0, 0]),
        ("JH JD JC JS", [0, 0, 2, 2]),
        ("JS JD JH JC", [0, 0, 0, 3]),
    ],
)
def test_r3_jacks_order_clubs_spades_hearts_diamonds(order: str, winners: list[int]) -> None:
    jacks = order.split()
    others = [["7H", "8H", "9H"], ["QH", "KH", "AH"], ["7S", "8S", "9S"], ["QS", "KS", "AS"]]
    hands = {s: [jacks[s], *others[s]] for s in range(4)}
    m = start(hands, after=["9D"])
    seen = []
    for seat in range(4):
        play(m, seat, jacks[seat])
        seen.append(m.deal.win_seat if seat < 3 else m.deal.last_winner)
    assert seen == winners


def test_r3_jack_of_diamonds_beats_only_trumps() -> None:
    """Spades trump: the J♦ takes the trump ace; the J♥ takes the J♦."""
    m = start(
        {
            0: ["AS", "QH", "KH", "7C"],
            1: ["JD", "9C", "QC", "8C"],
            2: ["KS", "AD", "9D", "10C"],
            3: ["JH", "7H", "8H", "9H"],
        },
        after=["9S"],
    )
    assert m.deal.trump == SPADES
    play(m, 0, "AS")
    play(m, 1, "JD")
    assert m.deal.win_seat == 1
    play(m, 2, "KS")
    assert m.deal.win_seat == 1
    events = play(m, 3, "JH")
    assert events[1] == TrickWon(3, 3, cs("AS JD KS JH"), 0)


def test_r3_led_jack_is_a_trump_lead() -> None:
    """Spades trump, the J♦ led: diamonds are not the led suit (the trumps are), and
    nothing but a higher jack takes it."""
    m = start(
        {
            0: ["JD", "QH", "KH", "7C"],
            1: ["AD", "9C", "QC", "8C"],
            2: ["AS", "KD", "9D", "10C"],
            3: ["10D", "7H", "8H", "9H"],
        },
        after=["9S"],
    )
    play(m, 0, "JD")
    play(m, 1, "AD")
    play(m, 2, "AS")
    events = play(m, 3, "10D")
    assert events[1] == TrickWon(0, 0, cs("JD AD AS 10D"), 0)
    # under a led jack a diamond counts for nothing while a trump counts as the led suit
    assert strength60(c("AD"), SPADES, c("JD")) == 0
    assert strength60(c("7S"), SPADES, c("JD")) > strength60(c("AD"), SPADES, c("JD"))
    assert strength60(c("AD"), SPADES, c("9D")) > 0  # under a led diamond it would count


def test_r3_drawing_back_to_four_winner_first() -> None:
    m = start(TRICK_HANDS, after=["9D", "10D", "JD", "KD", "AD", "8D"])
    for seat, card in [(0, "7C"), (1, "AH"), (2, "8C")]:
        play(m, seat, card)
    events = play(m, 3, "AS")
    assert events[-1] == CardsDrawn((2, 3, 0, 1), (1, 1, 1, 1), 12)
    d = m.deal
    assert [len(h) for h in d.hands] == [4, 4, 4, 4]
    assert c("10D") in d.hands[2] and c("JD") in d.hands[3]
    assert c("KD") in d.hands[0] and c("AD") in d.hands[1]
    assert d.stock[-1] == c("8D") and d.stock[0] == c("9D")


@pytest.mark.parametrize("players,tricks", [(2, 16), (3, 10)])
def test_r3_two_and_three_players_draw_to_four_and_play_out(players: int, tricks: int) -> None:
    """A whole deal (each plays his lowest card): hands stay equal, four while the stock
    lasts, the turned card comes last, every card is played."""
    match = Match(make_rules(PRESET, players), seed=11, dealer=0)
    turned = match.deal.trump_card
    events: list[Event] = []
    while match.deal_no == 1 and not match.finished:
        d = match.deal
        if not d.plays:  # at the start of every trick
            assert len({len(h) for h in d.hands}) == 1
            if d.stock:
                assert [len(h) for h in d.hands] == [4] * players
        events += match.apply(d.to_move, match.legal_actions(d.to_move)[0])
    assert sum(isinstance(e, TrickWon) for e in events) == tricks
    taken = [e for e in events if isinstance(e, TrumpCardTaken)]
    assert len(taken) == 1 and taken[0].card == turned
    (end,) = ended(events)
    assert sum(end.points) == 120


# --- deal: draw (the default) -------------------------------------------------------------


def test_r3_draw_nobody_at_60_deals_again() -> None:
    d1 = deal_from_tricks(DEAL_A)
    match, events = replay_events(log_of(d1))
    check_winners(events, [DEAL_A])
    (end,) = ended(events)
    assert end.points == (50, 30, 20, 20) and end.score == (50, 30, 20, 20)
    assert not match.finished and match.scores == [50, 30, 20, 20]
    # the next deal: dealt by seat 0, led from his left
    assert (match.deal_no, match.deal.dealer, match.deal.leader) == (2, 0, 1)


def test_r3_draw_points_accumulate_first_to_60_wins() -> None:
    """50 30 20 20, then 20 29 39 32: only seat 0 reaches 60 (70), though he took the
    fewest points of the second deal."""
    log = log_of(deal_from_tricks(DEAL_A), deal_from_tricks(DEAL_B, dealer=0))
    match, events = replay_events(log)
    check_winners(events, [DEAL_A, DEAL_B])
    first, second = ended(events)
    assert second.points == (20, 29, 39, 32)
    assert second.score == (70, 59, 59, 52)
    assert match.finished and match.winners == (0,)
    assert events[-1] == MatchEnded((0,), (70, 59, 59, 52))
    _, summary = run(log)
    assert summary["winners"] == [0] and summary["score"] == [70, 59, 59, 52]


def test_r3_draw_several_reach_60_the_highest_wins() -> None:
    """50 30 20 20, then 20 35 25 40: seats 0 (70), 1 (65) and 3 (60) reach 60 together;
    seat 0 has the most."""
    log = log_of(deal_from_tricks(DEAL_A), deal_from_tricks(DEAL_C, dealer=0))
    match, events = replay_events(log)
    check_winners(events, [DEAL_A, DEAL_C])
    assert ended(events)[1].score == (70, 65, 45, 60)
    assert match.finished and match.winners == (0,)


def test_r3_draw_exact_tie_at_the_top_plays_another_deal() -> None:
    """60 60 0 0: seats 0 and 1 both reach 60, equal: another deal. Then 20 29 39 32:
    seat 1 (89) beats seat 0 (80)."""
    d1 = deal_from_tricks(DEAL_TIE)
    match, events = replay_events(log_of(d1))
    (end,) = ended(events)
    assert end.points == (60, 60, 0, 0) and end.score == (60, 60, 0, 0)
    assert not match.finished and match.deal_no == 2
    match, events = replay_events(log_of(d1, deal_from_tricks(DEAL_B, dealer=0)))
    assert ended(events)[1].score == (80, 89, 39, 32)
    assert match.finished and match.winners == (1,)


# --- deal: halves -------------------------------------------------------------------------


# Dealt by seat 3; seat 0's fourth card QS makes spades trump. Points 70 20 20 10.
HALVES_WIN = [
    ("0:8C 1:7H 2:8D 3:10S", 3),  # 10
    ("3:9C 0:JS 1:7D 2:QC", 0),  # 5
    ("0:10D 1:10C 2:9S 3:9H", 2),  # 20
    ("2:AS 3:KH 0:QS 1:JC", 1),  # 20 (seat 1 takes the last trick of the first game)
    ("0:KS 1:7C 2:KD 3:9D", 0),  # 8: the second game is led by seat 0 again
    ("0:JH 1:QD 2:JD 3:10H", 0),  # 17
    ("0:8S 1:AC 2:AH 3:7S", 0),  # 22
    ("0:QH 1:AD 2:KC 3:8H", 0),  # 18: QH, seat 0's fourth card of the second half
]

# Dealt by seat 3; trump clubs (QC). Points 60 0 60 0.
HALVES_SIXTY = [
    ("0:JC 1:10S 2:QD 3:10H", 0),  # 25
    ("0:JD 1:KD 2:8H 3:7S", 0),  # 6
    ("0:JS 1:KS 2:7H 3:9S", 0),  # 6
    ("0:QC 1:KC 2:10C 3:AS", 2),  # 28
    ("0:JH 1:7C 2:AC 3:10D", 0),  # 23
    ("0:AD 1:9D 2:8C 3:AH", 2),  # 22
    ("2:9C 3:8S 0:QS 1:8D", 2),  # 3
    ("2:KH 3:QH 0:9H 1:7D", 2),  # 7
]

# Dealt by seat 3; trump hearts (KH). Points 50 30 20 20: nobody at 60.
HALVES_NOBODY = [
    ("0:8H 1:8C 2:7H 3:9D", 0),  # 0
    ("0:AH 1:10H 2:AC 3:8D", 0),  # 32
    ("0:QS 1:10S 2:10C 3:7D", 1),  # 23
    ("1:10D 2:KC 3:JS 0:KH", 3),  # 20
    ("0:9H 1:QC 2:AD 3:KD", 0),  # 18
    ("0:9S 1:AS 2:JC 3:JH", 2),  # 15
    ("2:JD 3:8S 0:QD 1:7S", 2),  # 5
    ("2:KS 3:7C 0:9C 1:QH", 1),  # 7
]

# Dealt by seat 0 (seat 1 leads both games); trump diamonds (8D). Points 30 60 20 10.
HALVES_EXACT_60 = [
    ("1:AH 2:JS 3:QH 0:9H", 2),  # 16
    ("2:8H 3:7S 0:AD 1:7C", 0),  # 11
    ("0:KC 1:AC 2:AS 3:KH", 1),  # 30
    ("1:8D 2:9C 3:10D 0:8S", 3),  # 10
    ("1:9S 2:9D 3:8C 0:KS", 2),  # 4
    ("2:7H 3:10C 0:10S 1:10H", 1),  # 30
    ("1:7D 2:JD 3:QD 0:JC", 0),  # 7
    ("0:JH 1:QS 2:QC 3:KD", 0),  # 12
]


def halves_log(*deals: dict[str, Any]) -> dict[str, Any]:
    return log_of(*deals, options=HALVES)


@pytest.mark.parametrize("players", [2, 3])
def test_r3_halves_for_four_players_only(players: int) -> None:
    with pytest.raises(PresetError, match="deal=halves is for 4 players only"):
        make_rules(PRESET, players, HALVES)
    with pytest.raises(LogError, match="halves is for 4 players"):
        run({"preset": PRESET, "players": players, "options": HALVES, "deals": []})
    assert make_rules(PRESET, 4, HALVES).scoring == "halves"


def test_r3_halves_bad_option_refused() -> None:
    with pytest.raises(PresetError, match="bad value for 'deal'"):
        make_rules(PRESET, 4, {"deal": "quarters"})


def test_r3_halves_trump_from_fourth_card_of_dealers_left_stays_in_his_hand() -> None:
    deal = deal_from_tricks(HALVES_WIN, halves=True)
    deck = deal["deck"]
    assert deck[12] == "QS"  # dealt one at a time from seat 0: his fourth card
    match, _ = run(halves_log({**deal, "actions": []}))
    d = match.deal
    assert d.trump == SPADES and d.trump_card == c("QS")
    assert c("QS") in d.hands[0] and d.stock == []
    assert [len(h) for h in d.hands] == [4, 4, 4, 4]
    assert sorted(d.hands[0]) == sorted(cs(" ".join(deck[i] for i in (0, 4, 8, 12))))
    assert match.start_events[0] == DealStarted(1, 3, SPADES, c("QS"), 0)
    assert observe(match, 2).trump_card == c("QS")


def test_r3_halves_four_tricks_no_drawing_then_second_half_same_trump_same_leader() -> None:
    deal = deal_from_tricks(HALVES_WIN, halves=True)
    match, events = replay_events(halves_log(deal))
    check_winners(events, [HALVES_WIN])
    assert not any(isinstance(e, (CardsDrawn, TrumpCardTaken)) for e in events)
    second = [e for e in events if isinstance(e, SecondHalfDealt)]
    assert second == [SecondHalfDealt(0)]  # seat 1 took trick 4, seat 0 leads again
    at = events.index(second[0])
    assert sum(isinstance(e, TrickWon) for e in events[:at]) == 4
    assert sum(isinstance(e, TrickWon) for e in events[at:]) == 4
    # step by step: after 4 tricks, the second half is in the hands, dealt from seat 0
    m, _ = run(halves_log({**deal, "actions": deal["actions"][:16]}))
    d = m.deal
    assert d.trump == SPADES  # the second half's 4th card of seat 0 (QH) changes nothing
    assert (d.leader, d.to_move) == (0, 0)
    for seat in range(4):
        assert sorted(d.hands[seat]) == sorted(c(x) for x in deal["deck"][16 + seat :: 4])
    assert d.piles[1] and sum(len(p) for p in d.piles) == 16  # the first game's tricks kept
    m, _ = run(halves_log({**deal, "actions": deal["actions"][:4]}))
    assert [len(h) for h in m.deal.hands] == [3, 3, 3, 3] and m.deal.stock == []


def test_r3_halves_points_counted_after_second_game_60_wins() -> None:
    deal = deal_from_tricks(HALVES_WIN, halves=True)
    match, events = replay_events(halves_log(deal))
    (end,) = ended(events)
    assert events.index(end) > events.index(SecondHalfDealt(0))
    assert end.points == (70, 20, 20, 10) and end.tricks == (5, 1, 1, 1)
    assert end.outcome == "normal"
    assert match.finished and match.winners == (0,)
    assert events[-1] == MatchEnded((0,), (70, 20, 20, 10))


def test_r3_halves_sixty_sixty_is_void() -> None:
    deal = deal_from_tricks(HALVES_SIXTY, halves=True)
    match, events = replay_events(halves_log(deal))
    check_winners(events, [HALVES_SIXTY])
    (end,) = ended(events)
    assert end.points == (60, 0, 60, 0) and end.outcome == "void"
    assert not match.finished and match.winners == ()
    assert (match.deal_no, match.deal.dealer, match.deal.leader) == (2, 0, 1)


def test_r3_halves_nobody_at_60_void_new_deal_restarts_the_match() -> None:
    """50 30 20 20 is void; the new deal starts from nothing: seat 1's 60 wins it, though
    seat 0 would have 80 had the void deal counted."""
    d1 = deal_from_tricks(HALVES_NOBODY, halves=True)
    d2 = deal_from_tricks(HALVES_EXACT_60, dealer=0, halves=True)
    match, events = replay_events(halves_log(d1))
    check_winners(events, [HALVES_NOBODY])
    (end,) = ended(events)
    assert end.points == (50, 30, 20, 20) and end.outcome == "void"
    assert not match.finished and match.deal_no == 2
    assert (match.deal.dealer, match.deal.leader) == (0, 1)
    match, events = replay_events(halves_log(d1, d2))
    check_winners(events, [HALVES_NOBODY, HALVES_EXACT_60])
    second = ended(events)[1]
    assert second.points == (30, 60, 20, 10) and second.outcome == "normal"
    assert match.finished and match.winners == (1,) and match.scores == [30, 60, 20, 10]
