"""Scenario tests for RULES.md section 2: ``kozel-4``, "Kozel on 4 cards".

Every test names the rule it checks (``test_r2_...``). Hands are built with
``helpers.build_deck`` and replayed through the deal-log format; whole deals are scripted
trick by trick (``deal_from_tricks``) so that every point and penalty is known in advance.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.actions import Action, action, parse_action
from engine.cards import CARD_TEXT, SPADES, deck_36, parse_card, parse_cards
from engine.dealing import shuffled_deck
from engine.errors import IllegalAction
from engine.events import (
    Beaten,
    CardsDrawn,
    CardsReturned,
    DealEnded,
    DealStarted,
    Declared,
    Event,
    Led,
    MatchEnded,
    Thrown,
    TrickWon,
    TrumpCardTaken,
)
from engine.families.drawing.match import Match
from engine.log import LogError, to_log
from engine.observation import observe
from engine.presets import PresetError, make_rules

from .helpers import build_deck, run

PRESET = "kozel-4"


# --- helpers ------------------------------------------------------------------------------


def cs(text: str) -> tuple[int, ...]:
    """``"7S 8S"`` -> the sorted card ids (the canonical order of an action's cards)."""
    return tuple(sorted(parse_cards(text.split())))


def log_of(*deals: dict[str, Any]) -> dict[str, Any]:
    return {"preset": PRESET, "players": 4, "deals": list(deals)}


def start(hands: dict[int, list[str]], trump: str, dealer: int = 3) -> Match:
    """A kozel-4 match whose first deal deals ``hands``; ``trump`` is the card shown from
    the stock (it must not be in a hand)."""
    deck = build_deck(PRESET, 4, dealer, hands)
    match, _ = run(log_of({"dealer": dealer, "deck": deck, "trump_card": trump, "actions": []}))
    return match


def act(match: Match, seat: int, text: str) -> list[Event]:
    return match.apply(seat, parse_action(text))


def hand(match: Match, seat: int) -> tuple[int, ...]:
    return tuple(sorted(match.deal.hands[seat]))


def deal_from_tricks(
    tricks: list[str | None],
    dealer: int = 3,
    leader: int | None = None,
    trump: str | None = None,
) -> tuple[dict[str, Any], list[int]]:
    """One deal of nine single-card tricks, as a deal-log entry, and the trick winners.

    A trick is ``"0:7C 1:AD 2:10H 3:+10C"``: seats in play order, the first leads, ``+``
    marks a beat, the others throw. The winner is the last beater, else the leader.
    ``None`` is a filler trick: the leader leads and everyone throws (so the leader wins),
    with the cards nobody named, in card order.

    Every seat plays its cards in the order they reach its hand, so the deck is the dealt
    cards (tricks 1-4) followed by the stock in drawing order (tricks 5-9, each drawn
    winner first, clockwise). ``trump`` is the card shown from the stock (default: the
    eighth card of the stock).
    """
    left = (dealer + 1) % 4
    lead = left if leader is None else leader
    named = {e.split(":")[1].lstrip("+") for t in tricks if t for e in t.split()}
    pool = iter(CARD_TEXT[c] for c in deck_36() if CARD_TEXT[c] not in named)
    seq: dict[int, list[str]] = {s: [] for s in range(4)}
    actions: list[dict[str, Any]] = []
    winners: list[int] = []
    for trick in tricks:
        if trick is None:
            trick = " ".join(f"{(lead + i) % 4}:{next(pool)}" for i in range(4))
        win = lead
        for i, entry in enumerate(trick.split()):
            seat_text, card = entry.split(":")
            seat = int(seat_text)
            assert seat == (lead + i) % 4, f"{trick}: seat {seat} does not play {i + 1}th"
            beat = card.startswith("+")
            card = card.lstrip("+")
            kind = "lead" if i == 0 else "beat" if beat else "throw"
            if beat:
                win = seat
            actions.append({"seat": seat, kind: [card]})
            seq[seat].append(card)
        winners.append(win)
        lead = win
    assert len(winners) == 9 and all(len(v) == 9 for v in seq.values())
    deck = [seq[(left + k) % 4][i] for i in range(4) for k in range(4)]
    for t in range(5):
        deck += [seq[(winners[t] + k) % 4][t + 4] for k in range(4)]
    trump = trump or deck[16 + 7]
    assert trump in deck[16:], "the shown card must be a card of the stock"
    return {"dealer": dealer, "deck": deck, "trump_card": trump, "actions": actions}, winners


def replay_events(log: dict[str, Any]) -> tuple[Match, list[Event]]:
    """Like ``run`` (the log is first checked with it), but also returns every event."""
    run(log)
    deals = log["deals"]

    rules = make_rules(PRESET, 4)

    def decks(no: int, _dealer: int) -> tuple[list[int], int | None]:
        if no > len(deals):
            return shuffled_deck(rules, 0, no)  # the deal after the log: any deck
        entry = deals[no - 1]
        return [parse_card(c) for c in entry["deck"]], parse_card(entry["trump_card"])

    match = Match(rules, dealer=deals[0]["dealer"], decks=decks)
    events = list(match.start_events)
    for entry in deals:
        for raw in entry["actions"]:
            seat = raw["seat"]
            kind = next(k for k in raw if k != "seat")
            events.extend(match.apply(seat, action(kind, parse_cards(raw[kind]))))
    return match, events


def throw_out(match: Match) -> list[Event]:
    """Play the current deal to its end: the leader leads his lowest card, all throw."""
    events: list[Event] = []
    deal_no = match.deal_no
    while match.deal_no == deal_no and not match.finished:
        d = match.deal
        seat = d.to_move
        if not d.plays:
            events += match.apply(seat, Action("lead", (min(d.hands[seat]),)))
        else:
            events += match.apply(seat, Action("throw", (min(d.hands[seat]),)))
    return events


def ended(events: list[Event]) -> list[DealEnded]:
    return [e for e in events if isinstance(e, DealEnded)]


# --- players, partnerships, options -----------------------------------------------------


@pytest.mark.parametrize("players", [1, 2, 3, 5])
def test_r2_four_players_only_other_counts_refused(players: int) -> None:
    with pytest.raises(PresetError, match="'kozel-4' is for 4 players, not " + str(players)):
        make_rules(PRESET, players)


def test_r2_four_players_in_two_partnerships_opposite() -> None:
    rules = make_rules(PRESET, 4)
    assert rules.partnership and rules.sides == 2
    assert [rules.side_of(s) for s in range(4)] == [0, 1, 0, 1]
    assert rules.side_seats(0) == (0, 2) and rules.side_seats(1) == (1, 3)
    assert len(rules.deck) == 36


@pytest.mark.parametrize("options", [{"shokha": True}, {"tie": "both_two"}, {"deal": "draw"}])
def test_r2_no_house_options_shokha_refused(options: dict[str, Any]) -> None:
    with pytest.raises(PresetError, match="unknown option"):
        make_rules(PRESET, 4, options)


def test_r2_partners_share_one_pile() -> None:
    """A trick won by seat 2 goes to the pile of seats 0+2."""
    m = start(
        {
            0: ["7C", "AH", "KH", "9D"],
            1: ["8D", "6H", "7H", "8H"],
            2: ["9C", "QS", "KS", "AS"],
            3: ["10D", "6C", "8C", "JC"],
        },
        trump="AD",
    )
    act(m, 0, "lead 7C")
    act(m, 1, "throw 8D")
    act(m, 2, "beat 9C")
    events = act(m, 3, "throw 10D")
    assert TrickWon(2, 0, cs("7C 9C"), 2) in events
    assert sorted(m.deal.piles[0]) == sorted(cs("7C 8D 9C 10D"))
    assert m.deal.piles[1] == [] and m.deal.tricks == [1, 0]


# --- no shokha, no Moscow, no Molodka ----------------------------------------------------


def test_r2_six_of_spades_is_ordinary_beaten_by_seven() -> None:
    m = start(
        {
            0: ["6S", "AH", "KH", "9D"],
            1: ["7S", "6H", "7H", "8H"],
            2: ["9C", "QS", "KS", "AS"],
            3: ["10D", "6C", "8C", "JC"],
        },
        trump="AD",
    )
    act(m, 0, "lead 6S")
    assert Action("beat", cs("7S")) in m.legal_actions(1)
    act(m, 1, "beat 7S")
    assert m.deal.win_seat == 1 and m.deal.win_cards == cs("7S")


def test_r2_six_of_spades_neither_beats_another_suit_nor_joins_its_lead() -> None:
    m = start(
        {
            0: ["7C", "AH", "KH", "9D"],
            1: ["6S", "6H", "7H", "8H"],
            2: ["9C", "QS", "KS", "AS"],
            3: ["10D", "6C", "8C", "JC"],
        },
        trump="AD",
    )
    act(m, 0, "lead 7C")
    assert m.check(1, parse_action("beat 6S")) == "cannot_beat"
    assert [a for a in m.legal_actions(1) if a.kind == "beat"] == []
    # and as a leader the 6S does not stand in for another suit
    m2 = start(
        {
            0: ["6S", "AH", "KH", "9D"],
            1: ["7S", "6H", "7H", "8H"],
            2: ["9C", "QS", "KS", "AS"],
            3: ["10D", "6C", "8C", "JC"],
        },
        trump="AD",
    )
    assert m2.check(0, parse_action("lead 6S AH")) == "mixed_suits"
    assert Action("lead", cs("6S AH")) not in m2.legal_actions(0)


def test_r2_six_of_spades_is_an_ordinary_trump_when_spades_are_trump() -> None:
    """It beats a non-trump (as any trump does) but the 7S beats it."""
    m = start(
        {
            0: ["AC", "AH", "KH", "9D"],
            1: ["6S", "6H", "7H", "8H"],
            2: ["7S", "QC", "KC", "JC"],
            3: ["10D", "6C", "8C", "9C"],
        },
        trump="AS",
    )
    assert m.deal.trump == SPADES
    act(m, 0, "lead AC")
    act(m, 1, "beat 6S")
    act(m, 2, "beat 7S")
    events = act(m, 3, "throw 6C")
    assert TrickWon(2, 0, cs("AC 6S 7S"), 1) in events


def test_r2_no_moscow_leader_cannot_lead_aces_and_tens() -> None:
    m = start(
        {
            0: ["AS", "AH", "10C", "10D"],
            1: ["6S", "6H", "7H", "8H"],
            2: ["7S", "QC", "KC", "JC"],
            3: ["QD", "6C", "8C", "9C"],
        },
        trump="AC",
    )
    assert m.check(0, parse_action("lead AS AH 10C 10D")) == "mixed_suits"
    assert m.check(0, parse_action("declare AS AH 10C 10D")) == "declaration_closed"
    legal = m.legal_actions(0)
    assert all(a.kind == "lead" for a in legal)
    assert all(len({c // 9 for c in a.cards}) == 1 for a in legal)


def test_r2_no_moscow_no_molodka_out_of_turn() -> None:
    """A non-leader with a Moscow may not declare it; four of a suit is a pull, not a
    Molodka."""
    m = start(
        {
            0: ["7C", "8D", "KH", "9D"],
            1: ["AS", "AH", "10C", "10D"],
            2: ["6H", "7H", "8H", "9H"],
            3: ["QD", "6C", "8C", "9C"],
        },
        trump="AC",
    )
    assert m.to_act() == (0, 2)
    assert m.legal_actions(1) == []
    assert m.check(1, parse_action("declare AS AH 10C 10D")) == "declaration_closed"
    events = act(m, 2, "declare 6H 7H 8H 9H")
    assert events == [Declared(2, "pull", cs("6H 7H 8H 9H"))]


# --- trump: the shown card stays in the stock --------------------------------------------


def test_r2_trump_is_suit_of_shown_card_which_stays_in_the_stock() -> None:
    hands = {
        0: ["7C", "AH", "KH", "9D"],
        1: ["8D", "6H", "7H", "8H"],
        2: ["9C", "QS", "KS", "AS"],
        3: ["10D", "6C", "8C", "JC"],
    }
    deck = build_deck(PRESET, 4, 3, hands)
    shown = deck[16 + 9]
    match, _ = run(log_of({"dealer": 3, "deck": deck, "trump_card": shown, "actions": []}))
    d = match.deal
    assert d.trump == parse_card(shown) // 9
    assert len(d.stock) == 20 and parse_card(shown) in d.stock
    # stock[-1] is the next card drawn: the stock is the rest of the deck, in deck order
    assert list(reversed(d.stock)) == [parse_card(c) for c in deck[16:]]
    assert match.start_events == [DealStarted(1, 3, d.trump, parse_card(shown), 0)]
    for viewer in (None, 0, 1, 2, 3):
        assert observe(match, viewer).trump_card == parse_card(shown)
        assert observe(match, viewer).stock == 20


def test_r2_stock_drawn_top_down_shown_card_in_its_place_no_face_up_bottom() -> None:
    deal, winners = deal_from_tricks([None] * 9)
    deck = deal["deck"]
    shown = deck[16 + 7]
    assert deal["trump_card"] == shown and winners == [0] * 9
    match, events = replay_events(log_of(deal))
    draws = [e for e in events if isinstance(e, CardsDrawn)]
    assert draws == [CardsDrawn((0, 1, 2, 3), (1, 1, 1, 1), 20 - 4 * t) for t in range(1, 6)]
    assert not any(isinstance(e, TrumpCardTaken) for e in events)
    # The hands after trick t, replayed step by step: seat s drew deck[16 + 4(t-1) + s].
    m, _ = run(log_of({**deal, "actions": deal["actions"][:8]}))  # two tricks played
    assert parse_card(shown) in m.deal.hands[3]  # the 8th card of the stock, drawn 4th
    assert parse_card(deck[16 + 4]) in m.deal.hands[0]
    assert len(m.deal.stock) == 12
    m, _ = run(log_of({**deal, "actions": deal["actions"][:20]}))  # five tricks played
    assert m.deal.stock == [] and parse_card(deck[35]) in m.deal.hands[3]


def test_r2_log_needs_a_shown_card_from_the_stock() -> None:
    deal, _ = deal_from_tricks([None] * 9)
    no_card = {k: v for k, v in deal.items() if k != "trump_card"}
    with pytest.raises(LogError, match="needs trump_card"):
        run(log_of(no_card))
    with pytest.raises(LogError, match="must be a card of the stock"):
        run(log_of({**deal, "trump_card": deal["deck"][0]}))  # a dealt card


def test_r2_random_shown_card_is_from_the_middle_of_the_stock() -> None:
    rules = make_rules(PRESET, 4)
    for seed in range(40):
        deck, shown = shuffled_deck(rules, seed, 1)
        assert shown is not None and shown in deck[17:35]  # neither top nor bottom
        match = Match(rules, seed=seed)
        assert match.history[0].trump_card == shown and match.deal.trump == shown // 9
        assert shown in match.deal.stock
    # the shown card is kept in the log, and the log replays it
    assert shown is not None
    log = to_log(match)
    assert log["deals"][0]["trump_card"] == CARD_TEXT[shown]
    replayed, _ = run(log)
    assert replayed.deal.trump_card == shown


# --- beats face up, throws face down ------------------------------------------------------


def test_r2_beats_face_up_throws_face_down() -> None:
    m = start(
        {
            0: ["7C", "AH", "KH", "9D"],
            1: ["8D", "6H", "7H", "8H"],
            2: ["9C", "QS", "KS", "AS"],
            3: ["10D", "6C", "8C", "JC"],
        },
        trump="AD",
    )
    assert act(m, 0, "lead 7C") == [Led(0, cs("7C"))]
    assert act(m, 1, "throw 8D") == [Thrown(1, 1)]
    assert act(m, 2, "beat 9C") == [Beaten(2, cs("9C"))]
    for viewer in (None, 0, 2, 3):
        assert observe(m, viewer).trick == (
            (0, "lead", cs("7C"), 1),
            (1, "throw", None, 1),
            (2, "beat", cs("9C"), 1),
        )
    assert observe(m, 1).trick[1] == (1, "throw", cs("8D"), 1)
    events = act(m, 3, "throw 10D")
    assert events[0] == Thrown(3, 1)
    assert events[1] == TrickWon(2, 0, cs("7C 9C"), 2)
    last = observe(m, 0).last_trick
    assert last is not None and last[1][1][2] is None and last[1][3][2] is None
    assert observe(m, 3).last_trick[1][3][2] == cs("10D")  # type: ignore[index]


# --- the pull -------------------------------------------------------------------------------


PULL_HANDS = {
    0: ["7C", "8C", "AH", "9D"],
    1: ["9C", "10C", "6D", "7D"],
    2: ["QH", "6S", "7S", "8S"],
    3: ["9S", "JS", "QS", "KS"],
}


def test_r2_pull_at_trick_start_by_non_leader() -> None:
    m = start(
        {
            0: ["7C", "8C", "AH", "9D"],
            1: ["9C", "10C", "6D", "7D"],
            2: ["6S", "7S", "8S", "9S"],
            3: ["QH", "KH", "JD", "QD"],
        },
        trump="AD",
    )
    assert m.to_act() == (0, 2)
    assert m.legal_actions(2) == [Action("declare", cs("6S 7S 8S 9S"))]
    assert m.legal_actions(1) == [] and m.legal_actions(3) == []
    events = act(m, 2, "declare 6S 7S 8S 9S")
    assert events == [Declared(2, "pull", cs("6S 7S 8S 9S"))]
    d = m.deal
    assert (d.leader, d.to_move, d.win_seat) == (2, 3, 2)
    assert d.plays == [(2, "lead", cs("6S 7S 8S 9S"))]
    assert d.hands[2] == [] and hand(m, 0) == cs("7C 8C AH 9D")
    # the others answer his four with four, from his left
    assert m.to_act() == (3,)
    assert all(len(a.cards) == 4 for a in m.legal_actions(3))


def test_r2_leader_with_four_of_a_suit_just_leads_them() -> None:
    m = start(
        {
            0: ["6S", "7S", "8S", "9S"],
            1: ["9C", "10C", "6D", "7D"],
            2: ["7C", "8C", "AH", "9D"],
            3: ["QH", "KH", "JD", "QD"],
        },
        trump="AD",
    )
    assert m.to_act() == (0,)
    legal = m.legal_actions(0)
    assert Action("lead", cs("6S 7S 8S 9S")) in legal
    assert all(a.kind == "lead" for a in legal)
    assert m.check(0, parse_action("declare 6S 7S 8S 9S")) == "declaration_closed"
    assert act(m, 0, "lead 6S 7S 8S 9S") == [Led(0, cs("6S 7S 8S 9S"))]


@pytest.mark.parametrize("played", [1, 2, 3])
def test_r2_pull_interrupts_trick_cards_go_back(played: int) -> None:
    """Seat 3 pulls after 1, 2 or 3 plays (at the latest instead of the trick's last card):
    the cards on the table go back to their owners, he leads his four, and the answers
    run from his left."""
    m = start(PULL_HANDS, trump="AD")
    moves = [(0, "lead 7C 8C"), (1, "beat 9C 10C"), (2, "throw QH 6S")][:played]
    for seat, text in moves:
        act(m, seat, text)
    assert 3 in m.to_act()
    assert m.legal_actions(3)[-1] == Action("declare", cs("9S JS QS KS"))
    events = act(m, 3, "declare 9S JS QS KS")
    assert events == [CardsReturned(tuple(range(played))), Declared(3, "pull", cs("9S JS QS KS"))]
    for seat in (0, 1, 2):
        assert hand(m, seat) == cs(" ".join(PULL_HANDS[seat]))
    d = m.deal
    assert (d.leader, d.to_move, d.win_cards) == (3, 0, cs("9S JS QS KS"))
    assert d.plays == [(3, "lead", cs("9S JS QS KS"))]
    order = []
    for seat in (0, 1, 2):
        assert m.to_act() == (seat,)
        order.append(seat)
        events = act(m, seat, "throw " + " ".join(PULL_HANDS[seat]))
    assert order == [0, 1, 2]
    assert events[-2] == TrickWon(3, 1, cs("9S JS QS KS"), 12)
    assert len(m.deal.piles[1]) == 16 and m.deal.tricks == [0, 1]
    # the winner draws first, one card at a time, back up to four
    assert events[-1] == CardsDrawn((3, 0, 1, 2), (4, 4, 4, 4), 4)
    assert m.deal.leader == 3


def test_r2_pull_closed_only_for_its_own_trick() -> None:
    """After a pull's trick, the next trick is open to a new pull (seat 1 draws four
    hearts: the winner, seat 3, draws first, so seat 1 takes stock cards 3, 7, 11, 15)."""
    after = ["JC", "QC", "6H", "KC", "8D", "10D", "7H", "AC", "JD", "QD", "8H", "10S", "KD", "AS", "9H", "AD"]
    deck = build_deck(PRESET, 4, 3, PULL_HANDS, after)
    m, _ = run(log_of({"dealer": 3, "deck": deck, "trump_card": "AD", "actions": []}))
    act(m, 3, "declare 9S JS QS KS")
    assert observe(m, 0).declared == "pull"
    for seat in (0, 1, 2):
        events = act(m, seat, "throw " + " ".join(PULL_HANDS[seat]))
    assert events[-1] == CardsDrawn((3, 0, 1, 2), (4, 4, 4, 4), 4)
    assert hand(m, 1) == cs("6H 7H 8H 9H")
    assert m.deal.declared is None and m.to_act() == (3, 1)
    assert act(m, 1, "declare 6H 7H 8H 9H") == [Declared(1, "pull", cs("6H 7H 8H 9H"))]


def test_r2_puller_own_cards_on_table_count_toward_his_four() -> None:
    m = start(
        {
            0: ["7S", "AH", "KH", "9D"],
            1: ["9S", "JS", "QS", "KS"],
            2: ["7C", "8C", "6H", "10D"],
            3: ["QH", "6C", "JD", "QD"],
        },
        trump="AD",
    )
    act(m, 0, "lead 7S")
    act(m, 1, "beat 9S")
    assert hand(m, 1) == cs("JS QS KS")
    assert m.to_act() == (2, 1)
    assert m.legal_actions(1) == [Action("declare", cs("9S JS QS KS"))]
    events = act(m, 1, "declare 9S JS QS KS")
    assert events == [CardsReturned((0, 1)), Declared(1, "pull", cs("9S JS QS KS"))]
    assert hand(m, 0) == cs("7S AH KH 9D") and m.deal.hands[1] == []
    assert (m.deal.leader, m.deal.to_move) == (1, 2)


def test_r2_leader_may_pull_after_his_own_lead() -> None:
    """The leader who led one of his four may pull them all once the trick has gone on."""
    m = start(
        {
            0: ["7S", "8S", "9S", "10S"],
            1: ["JS", "AH", "KH", "9D"],
            2: ["7C", "8C", "6H", "10D"],
            3: ["QH", "6C", "JD", "QD"],
        },
        trump="AD",
    )
    assert m.to_act() == (0,)  # before his lead: he simply leads
    act(m, 0, "lead 7S")
    act(m, 1, "beat JS")
    assert m.to_act() == (2, 0)
    events = act(m, 0, "declare 7S 8S 9S 10S")
    assert events == [CardsReturned((0, 1)), Declared(0, "pull", cs("7S 8S 9S 10S"))]
    assert hand(m, 1) == cs("JS AH KH 9D")
    assert (m.deal.leader, m.deal.to_move, m.deal.win_seat) == (0, 1, 0)


def test_r2_pull_needs_four_of_one_suit() -> None:
    m = start(PULL_HANDS, trump="AD")
    # seat 2 has three spades and a heart: no pull
    assert 2 not in m.to_act()
    assert m.check(2, parse_action("declare QH 6S 7S 8S")) == "declaration_closed"
    # seat 3 must pull his whole four
    assert m.check(3, parse_action("declare JS QS KS")) == "not_a_combination"
    with pytest.raises(IllegalAction) as e:
        act(m, 3, "declare 9S JS QS")
    assert e.value.code == "not_a_combination"


def test_r2_to_act_lists_pull_holders_with_the_seat_to_move() -> None:
    m = start(PULL_HANDS, trump="AD")
    assert m.to_act() == (0, 3)
    act(m, 0, "lead 7C")
    assert m.to_act() == (1, 3)
    act(m, 1, "beat 9C")
    assert m.to_act() == (2, 3)
    assert [a for a in m.legal_actions(2) if a.kind == "declare"] == []


def test_r2_pull_refused_over_a_pull() -> None:
    m = start(
        {
            0: ["7C", "8C", "AD", "9D"],
            1: ["6H", "7H", "8H", "9H"],
            2: ["6S", "7S", "8S", "9S"],
            3: ["9C", "10C", "6D", "7D"],
        },
        trump="AC",
    )
    act(m, 0, "lead 7C")
    assert m.to_act() == (1, 2)
    act(m, 2, "declare 6S 7S 8S 9S")
    assert m.to_act() == (3,)
    assert m.check(1, parse_action("declare 6H 7H 8H 9H")) == "declaration_closed"
    with pytest.raises(IllegalAction) as e:
        act(m, 1, "declare 6H 7H 8H 9H")
    assert e.value.code == "declaration_closed"
    act(m, 3, "throw 9C 10C 6D 7D")
    act(m, 0, "throw 7C 8C AD 9D")
    assert m.to_act() == (1,)
    assert [a for a in m.legal_actions(1) if a.kind == "declare"] == []
    assert m.check(1, parse_action("declare 6H 7H 8H 9H")) == "declaration_closed"


@pytest.mark.parametrize("first,second", [(1, 2), (2, 1)])
def test_r2_simultaneous_pulls_first_received_stands(first: int, second: int) -> None:
    hands = {
        0: ["7C", "8C", "AD", "9D"],
        1: ["6H", "7H", "8H", "9H"],
        2: ["6S", "7S", "8S", "9S"],
        3: ["9C", "10C", "6D", "7D"],
    }
    m = start(hands, trump="AC")
    assert m.to_act() == (0, 1, 2)
    act(m, first, "declare " + " ".join(hands[first]))
    with pytest.raises(IllegalAction) as e:
        act(m, second, "declare " + " ".join(hands[second]))
    assert e.value.code == "declaration_closed"
    assert m.deal.leader == first and m.deal.to_move == (first + 1) % 4
    assert hand(m, second) == cs(" ".join(hands[second]))


# --- scoring a deal ------------------------------------------------------------------------


def test_r2_loser_without_a_trick_takes_6() -> None:
    deal, winners = deal_from_tricks([None] * 9)
    assert winners == [0] * 9
    match, events = replay_events(log_of(deal))
    (end,) = ended(events)
    assert end.points == (120, 0) and end.tricks == (9, 0)
    assert end.scored == (0, 6) and end.score == (0, 6) and end.outcome == "normal"
    assert match.scores == [0, 6] and not match.finished


# Last tricks that leave side 1 (seats 1+3) exactly the given points.
LOSER_TRICKS = {
    30: ["0:7C 1:10D 2:10H 3:+10C"],  # 0 + 10 + 10 + 10
    31: ["0:7C 1:AD 2:10H 3:+10C"],  # 0 + 11 + 10 + 10
    59: ["0:7C 1:AD 2:AH 3:+AC", "3:10C 0:KC 1:10D 2:JH"],  # 33 + 26
    60: ["0:7C 1:AD 2:AH 3:+AC", "3:10C 0:KC 1:10D 2:QH"],  # 33 + 27
}


@pytest.mark.parametrize(
    "loser,penalty", [(59, 2), (31, 2), (30, 4)], ids=["59-takes-2", "31-takes-2", "30-takes-4"]
)
def test_r2_61_wins_loser_takes_2_from_31_to_59_else_4_with_a_trick(loser: int, penalty: int) -> None:
    last = LOSER_TRICKS[loser]
    deal, winners = deal_from_tricks([None] * (9 - len(last)) + last)
    assert winners[-1] == 3
    match, events = replay_events(log_of(deal))
    (end,) = ended(events)
    assert end.points == (120 - loser, loser)
    assert end.tricks == (9 - len(last), len(last))
    assert end.scored == (0, penalty) and end.outcome == "normal"
    assert match.scores == [0, penalty]


def test_r2_sixty_sixty_eggs_nobody_scores_nothing_carries_over() -> None:
    eggs, winners = deal_from_tricks([None] * 7 + LOSER_TRICKS[60])
    # deal 2: dealt by seat 0, led by seat 3 (who took the last trick); seat 3 takes all
    second, _ = deal_from_tricks([None] * 9, dealer=0, leader=winners[-1])
    match, events = replay_events(log_of(eggs, second))
    first_end, second_end = ended(events)
    assert first_end.points == (60, 60) and first_end.outcome == "eggs"
    assert first_end.scored == (0, 0) and first_end.score == (0, 0)
    assert not first_end.doubled and not match.eggs
    assert second_end.points == (0, 120)
    assert second_end.scored == (6, 0) and not second_end.doubled  # not doubled by the eggs
    assert match.scores == [6, 0]


# --- the match and who leads ---------------------------------------------------------------


def test_r2_match_ends_when_a_team_reaches_12() -> None:
    d1, w1 = deal_from_tricks([None] * 9, dealer=3)  # side 1 takes no trick: 6
    d2, w2 = deal_from_tricks([None] * 8 + LOSER_TRICKS[30], dealer=0, leader=w1[-1])  # 4
    d3, w3 = deal_from_tricks(  # side 1 takes the first trick only, 32 points: 2
        ["3:AD 0:7C 1:AH 2:10S", "3:7S 0:+8S 1:7H 2:8H"] + [None] * 7,
        dealer=1,
        leader=w2[-1],
    )
    assert (w1[-1], w2[-1], w3[-1]) == (0, 3, 0)
    log = log_of(d1, d2, d3)
    match, events = replay_events(log)
    assert [e.score for e in ended(events)] == [(0, 6), (0, 10), (0, 12)]
    assert ended(events)[2].points == (88, 32)
    assert match.finished and match.winners == (0, 2)
    assert events[-1] == MatchEnded((0, 2), (0, 12))
    _, summary = run(log)
    assert summary["finished"] and summary["winners"] == [0, 2] and summary["score"] == [0, 12]
    # nothing can follow the end of the match
    extra, _ = deal_from_tricks([None] * 9, dealer=2, leader=0)
    with pytest.raises(LogError, match="already over"):
        run(log_of(d1, d2, d3, extra))


def test_r2_not_over_below_12() -> None:
    d1, w1 = deal_from_tricks([None] * 9, dealer=3)
    d2, _ = deal_from_tricks([None] * 8 + LOSER_TRICKS[30], dealer=0, leader=w1[-1])
    match, _ = replay_events(log_of(d1, d2))
    assert match.scores == [0, 10] and not match.finished and match.deal_no == 3


def test_r2_first_deal_led_from_dealers_left_then_by_last_trick_winner() -> None:
    """Deal 1: dealer 3, seat 0 leads. Seat 3 takes its last trick, so in deal 2 (dealt by
    seat 0, whose left is seat 1) seat 3 leads; seat 0 takes deal 2's last trick and leads
    deal 3, dealt by seat 1."""
    d1, w1 = deal_from_tricks([None] * 8 + LOSER_TRICKS[31], dealer=3)
    d2, w2 = deal_from_tricks(["3:7S 0:+8S 1:7H 2:8H"] + [None] * 8, dealer=0, leader=w1[-1])
    assert (w1[-1], w2[-1]) == (3, 0)
    match, events = replay_events(log_of(d1, d2))
    starts = [e for e in events if isinstance(e, DealStarted)]
    assert [(e.deal_no, e.dealer, e.leader) for e in starts] == [(1, 3, 0), (2, 0, 3), (3, 1, 0)]
    assert (match.deal.dealer, match.deal.leader, match.deal.to_move) == (1, 0, 0)
    # the log checks the rotation: deal 2 must be dealt by seat 0
    bad = {**d2, "dealer": 3}
    with pytest.raises(LogError, match="rotation gives 0"):
        run(log_of(d1, bad))
