"""Rule scenarios for RULES.md section 0 (shared) and section 1 (the ``kozel`` preset).

Every test is one rule told as a story: a hand-built deck (``build_deck``, through the
deal-log replay format), the moves, the expected outcome. Test names start with the
section: ``test_r0_...`` for RULES.md 0, ``test_r1_...`` for RULES.md 1.

Whole deals (for the scoring tables and the end of the match) are played with two small
drivers:

* ``play_out``: the leader leads his lowest card alone and everybody else throws his
  lowest card, so the leader takes every trick (the others take no trick at all);
* ``finish``: while the stock lasts, the leader leads his one card outside the seat's
  ``keep`` cards and everybody else throws his own one such card (so the leader takes
  every trick while drawing goes on); then the test's script plays the last cards. The
  deck is built so that each seat then holds exactly its ``keep`` cards plus the card it
  drew in the last draw round, so the final points are known exactly.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.actions import Action, parse_action
from engine.cards import (
    ACE,
    CARD_TEXT,
    CLUBS,
    DIAMONDS,
    EIGHT,
    HEARTS,
    JACK,
    KING,
    KOZEL_STRENGTH,
    NINE,
    POINTS,
    QUEEN,
    SEVEN,
    SIX,
    SPADES,
    TEN,
    deck_points,
    make,
    parse_card,
    parse_cards,
)
from engine.dealing import first_dealer, shuffled_deck
from engine.errors import IllegalAction
from engine.events import (
    Beaten,
    CardsDrawn,
    CardsReturned,
    DealEnded,
    DealStarted,
    Declared,
    Led,
    MatchEnded,
    SideOut,
    Thrown,
    TrickWon,
    TrumpCardTaken,
)
from engine.families.drawing.deal import settings_of
from engine.families.drawing.match import Match
from engine.log import replay, to_log
from engine.observation import observe
from engine.presets import PresetError, make_rules
from tests.engine.helpers import build_deck, run

# --- small helpers ------------------------------------------------------------------------


def c(text: str) -> int:
    return parse_card(text)


def cs(text: str) -> tuple[int, ...]:
    """``"9H KH"`` -> the sorted card tuple an action or event carries."""
    return tuple(sorted(parse_cards(text.split())))


def entry(seat: int, text: str) -> dict[str, Any]:
    """``(1, "beat 10H QH")`` -> the deal-log action ``{"seat": 1, "beat": ["10H", "QH"]}``."""
    kind, *cards = text.split()
    return {"seat": seat, kind: cards}


def kozel_log(
    players: int,
    dealer: int,
    hands: dict[int, str],
    actions: list[tuple[int, str]] | None = None,
    after: list[str] | None = None,
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A one-deal ``kozel`` log: ``hands`` dealt, then ``after`` (turned trump, stock top)."""
    deck = build_deck("kozel", players, dealer, {s: h.split() for s, h in hands.items()}, after, options)
    return {
        "preset": "kozel",
        "players": players,
        "options": options or {},
        "deals": [{"dealer": dealer, "deck": deck, "actions": [entry(s, t) for s, t in actions or []]}],
    }


def start(
    players: int,
    dealer: int,
    hands: dict[int, str],
    actions: list[tuple[int, str]] | None = None,
    after: list[str] | None = None,
    options: dict[str, Any] | None = None,
) -> Match:
    match, _summary = run(kozel_log(players, dealer, hands, actions, after, options))
    return match


def act(m: Match, seat: int, text: str) -> list[Any]:
    return m.apply(seat, parse_action(text))


def refused(m: Match, seat: int, text: str) -> str:
    """Apply an action that must be refused; return the reason code (nothing changes)."""
    before = (m.turn, [h[:] for h in m.deal.hands])
    with pytest.raises(IllegalAction) as err:
        act(m, seat, text)
    assert (m.turn, m.deal.hands) == before
    return err.value.code


def hand(m: Match, seat: int) -> set[str]:
    return {CARD_TEXT[x] for x in m.deal.hands[seat]}


def can(m: Match, seat: int, text: str) -> bool:
    """Is ``text`` among the seat's legal actions (any spelling of the cards)?"""
    return parse_action(text) in m.legal_actions(seat)


def kinds(m: Match, seat: int, kind: str) -> list[str]:
    """The seat's legal actions of one kind, as text."""
    return [str(a) for a in m.legal_actions(seat) if a.kind == kind]


def won(events: list[Any]) -> tuple[int, int, set[str], int]:
    """The trick won in ``events``: (seat, side, face-up cards, face-down count)."""
    (e,) = [e for e in events if isinstance(e, TrickWon)]
    return e.seat, e.side, {CARD_TEXT[x] for x in e.face_up}, e.face_down


def one_trick(m: Match) -> list[Any]:
    """One trick of single cards: the leader leads his lowest, the others throw theirs."""
    d = m.deal
    events: list[Any] = []
    while True:
        seat = d.to_move
        events += m.apply(seat, Action("throw" if d.plays else "lead", (min(d.hands[seat]),)))
        if not d.plays:
            return events


def new_match(
    players: int,
    dealer: int,
    decks: dict[int, list[str]] | None = None,
    options: dict[str, Any] | None = None,
) -> Match:
    """A match whose deal ``no`` uses ``decks[no]`` (else the seeded shuffle)."""
    rules = make_rules("kozel", players, options)
    given = decks or {}

    def source(no: int, _dealer: int) -> tuple[list[int], int | None]:
        if no in given:
            return list(parse_cards(given[no])), None
        return shuffled_deck(rules, 0, no)

    return Match(rules, dealer=dealer, decks=source)


def play_out(m: Match) -> list[Any]:
    """Finish the deal: the leader leads his lowest card, everybody else throws his lowest."""
    no = m.deal_no
    events: list[Any] = []
    while m.deal_no == no and not m.finished:
        d = m.deal
        seat = d.to_move
        events += m.apply(seat, Action("throw" if d.plays else "lead", (min(d.hands[seat]),)))
    return events


def scripted_deck(
    players: int,
    dealer: int,
    keep: dict[int, str],
    filler: dict[int, str],
    last: dict[int, str],
    trump: str,
    seats: list[int] | None = None,
    options: dict[str, Any] | None = None,
) -> list[str]:
    """A deck for ``finish``: seat s is dealt ``keep[s]`` and one ``filler[s]`` card; in the
    last draw round (the leader first) seat s draws ``last[s]``, and the last seat of that
    round draws the turned ``trump``."""
    seats = seats or list(range(players))
    n = len(seats)
    lead = seats[(seats.index(dealer) + 1) % n]
    order = [seats[(seats.index(lead) + i) % n] for i in range(n)]
    assert set(last) == set(order[:-1])
    tail = [last[s] for s in order[:-1]]
    hands = {s: [*keep[s].split(), filler[s]] for s in seats}
    listed = {x for h in hands.values() for x in h} | {trump, *tail}
    middle = [t for t in CARD_TEXT if t not in listed]
    return build_deck("kozel", players, dealer, hands, [trump, *middle, *tail], options, seats)


def finish(m: Match, keep: dict[int, str], script: list[tuple[int, str]]) -> list[Any]:
    """While the stock lasts the leader takes every trick (see the module doc); then the
    script. Returns every event."""
    kept = {s: set(k.split()) for s, k in keep.items()}
    d = m.deal
    events: list[Any] = []
    while d.stock or d.plays:
        seat = d.to_move
        spare = [x for x in d.hands[seat] if CARD_TEXT[x] not in kept[seat]]
        assert len(spare) == 1, (seat, spare)
        events += m.apply(seat, Action("throw" if d.plays else "lead", (spare[0],)))
    for seat, text in script:
        events += act(m, seat, text)
    return events


def ended(events: list[Any]) -> DealEnded:
    found = [e for e in events if isinstance(e, DealEnded)]
    assert len(found) == 1
    return found[0]


def assert_replays(m: Match) -> None:
    """The match's own deal log replays to the same score and result."""
    again, summary = replay(to_log(m))
    assert summary["score"] == list(m.scores)
    assert again.finished == m.finished and again.winners == m.winners


# --- scripted deals: 2 players ------------------------------------------------------------
#
# ``a`` is left of the dealer: he leads and takes every trick while the stock lasts. Then
# ``a`` holds his keep + the tail card, ``b`` (the dealer) his keep + the turned trump.


def two_player_deal(kind: str, dealer: int, seats: list[int] | None = None):
    seats = seats or [0, 1]
    b = dealer
    a = seats[(seats.index(dealer) + 1) % 2]
    if kind == "tie":
        # b takes AH AC (11+11) and 10H KH JH + AS AD 9S (16+22): 60; a the other 60.
        keep = {a: "AS AD 9S", b: "10H KH JH"}
        deck = scripted_deck(2, dealer, keep, {a: "9C", b: "7C"}, {a: "AH"}, "AC", seats)
        script = [(a, "lead AH"), (b, "beat AC"), (b, "lead 10H KH JH"), (a, "throw AS AD 9S")]
        return deck, keep, script
    # trump diamonds (turned 7D, drawn last by b); a ends with AH KH QH + 8C.
    b_keep = {"b31": "10H QD 6D", "b30": "10H JD 6D", "b_none": "10H QD 6D", "b_zero": "7H 8H 9H"}[kind]
    keep = {a: "AH KH QH", b: b_keep}
    deck = scripted_deck(2, dealer, keep, {a: "9C", b: "7C"}, {a: "8C"}, "7D", seats)
    script = {
        # b beats the 18-point lead with 10H QD 6D: 18 + 13 = 31
        "b31": [(a, "lead 8C"), (b, "throw 7D"), (a, "lead AH KH QH"), (b, "beat 10H QD 6D")],
        # b beats the 18-point lead with 10H JD 6D: 18 + 12 = 30
        "b30": [(a, "lead 8C"), (b, "throw 7D"), (a, "lead AH KH QH"), (b, "beat 10H JD 6D")],
        # b throws everything: no trick
        "b_none": [(a, "lead 8C"), (b, "throw 7D"), (a, "lead AH KH QH"), (b, "throw 10H QD 6D")],
        # b takes one trick worth nothing (7D over 8C), then loses the rest
        "b_zero": [(a, "lead 8C"), (b, "beat 7D"), (b, "lead 7H 8H 9H"), (a, "beat AH KH QH")],
    }[kind]
    return deck, keep, script


# --- scripted deals: 3 players, dealer 2, seat 0 leads ---------------------------------------


def three_player_deal(kind: str):
    if kind == "tie3":
        # 40:40:40. Trump clubs (turned AC, drawn last by seat 2).
        keep = {0: "KH QH KS", 1: "AH 10H AD", 2: "10S JS 10C"}
        deck = scripted_deck(3, 2, keep, {0: "6H", 1: "6D", 2: "7C"}, {0: "7S", 1: "KD"}, "AC")
        script = [
            (0, "lead KH QH"),
            (1, "beat AH 10H"),
            (2, "throw 10S JS"),  # seat 1: 40
            (1, "lead AD KD"),
            (2, "beat AC 10C"),
            (0, "throw KS 7S"),  # seat 2: 40
        ]
        return deck, keep, script
    # Seat 0 leads 9H, seat 1 beats it with 10H, seat 2 beats that with the turned trump
    # (the card he drew last) and leads 7S 8S 9S; seat 0 throws his keep; seat 1 beats.
    keep0, keep1, trump = {
        "x": ("KD JD 7D", "10S JS QS", "10C"),  # seat 1: 0+6+15 = 21, seat 2: 0+10+10 = 20
        "y": ("QD JD 7D", "10S JS QS", "AC"),  # seat 1: 0+5+15 = 20, seat 2: 0+10+11 = 21
        "none": ("KD JD 7D", "10S JS QS", "10C"),
        "tie2": ("AD 10D KD", "AS 10S KS", "10C"),  # seat 1: 0+25+25 = 50, seat 2: 20
    }[kind]
    keep = {0: keep0, 1: keep1, 2: "7S 8S 9S"}
    deck = scripted_deck(3, 2, keep, {0: "6H", 1: "6D", 2: "8C"}, {0: "9H", 1: "10H"}, trump)
    if kind == "none":
        script = [
            (0, "lead 9H"),
            (1, "throw 10H"),
            (2, f"throw {trump}"),
            (0, f"lead {keep0}"),
            (1, f"throw {keep1}"),
            (2, "throw 7S 8S 9S"),
        ]
    else:
        script = [
            (0, "lead 9H"),
            (1, "beat 10H"),
            (2, f"beat {trump}"),
            (2, "lead 7S 8S 9S"),
            (0, f"throw {keep0}"),
            (1, f"beat {keep1}"),
        ]
    return deck, keep, script


# --- scripted deals: 4 players, dealer 3, seat 0 leads --------------------------------------


def four_player_deal(kind: str):
    if kind == "tie":
        # 60:60. Trump clubs (turned 7C, drawn last by seat 3). Seat 1 beats AH with 9C and
        # leads KH QH JH; everybody throws: team 1 takes 11+0+0+0 + 9 + 14 + 0 + 26 = 60.
        keep = {0: "AS AD KD", 1: "KH QH JH", 2: "10S KS 7S", 3: "7H 8H 9H"}
        deck = scripted_deck(
            4, 3, keep, {0: "JC", 1: "QC", 2: "KC", 3: "AC"}, {0: "AH", 1: "9C", 2: "8D"}, "7C"
        )
        script = [
            (0, "lead AH"),
            (1, "beat 9C"),
            (2, "throw 8D"),
            (3, "throw 7C"),
            (1, "lead KH QH JH"),
            (2, "throw 10S KS 7S"),
            (3, "throw 7H 8H 9H"),
            (0, "throw AS AD KD"),
        ]
        return deck, keep, script
    # Trump diamonds (turned 7D, drawn last by seat 3).
    keep1 = {"t31": "10H QD 6D", "t30": "10H JD 6D", "t_none": "10H QD 6D"}[kind]
    keep = {0: "AH KH QH", 1: keep1, 2: "7S 8S 9S", 3: "7H 8H 9H"}
    deck = scripted_deck(4, 3, keep, {0: "JC", 1: "QC", 2: "KC", 3: "AC"}, {0: "6C", 1: "7C", 2: "8C"}, "7D")
    answer = "throw" if kind == "t_none" else "beat"
    script = [
        (0, "lead 6C"),
        (1, "throw 7C"),
        (2, "throw 8C"),
        (3, "throw 7D"),
        (0, "lead AH KH QH"),
        (1, f"{answer} {keep1}"),
        (2, "throw 7S 8S 9S"),
        (3, "throw 7H 8H 9H"),
    ]
    return deck, keep, script


def scripted_match(players: int, dealer: int, deck: list[str], **kw: Any) -> Match:
    return new_match(players, dealer, {1: deck}, **kw)


# =============================================================================================
# RULES.md 0 -- shared by every game
# =============================================================================================


def test_r0_card_points_ace_11_ten_10_king_4_queen_3_jack_2_rest_0():
    expected = {ACE: 11, TEN: 10, KING: 4, QUEEN: 3, JACK: 2, NINE: 0, EIGHT: 0, SEVEN: 0, SIX: 0}
    for suit in (CLUBS, SPADES, HEARTS, DIAMONDS):
        for rank, pts in expected.items():
            assert POINTS[make(rank, suit)] == pts


def test_r0_card_points_sum_120():
    for players in (2, 3, 4):
        rules = make_rules("kozel", players)
        assert len(rules.deck) == 36
        assert deck_points(rules.deck) == 120


def test_r0_every_played_deal_counts_120_points():
    for players in (2, 3, 4):
        m = new_match(players, dealer=0)
        assert sum(ended(play_out(m)).points) == 120


def test_r0_plain_order_6_7_8_9_J_Q_K_10_A():
    order = ["6", "7", "8", "9", "J", "Q", "K", "10", "A"]
    # Hearts are not trump here (trump diamonds): a heart beats a heart iff it is higher.
    m = start(2, 1, {0: "7C 8C 9C JS", 1: "7S 8S 9S JC"}, after=["8D"])
    assert m.deal.trump == DIAMONDS
    for i, low in enumerate(order):
        for j, high in enumerate(order):
            assert m.deal.beats(c(high + "H"), c(low + "H")) == (j > i), (high, low)
    ranks = sorted(range(9), key=lambda r: KOZEL_STRENGTH[make(r, HEARTS)])
    assert [CARD_TEXT[make(r, HEARTS)][:-1] for r in ranks] == order


def test_r0_plain_order_ten_over_king_in_play():
    hands = {0: "KH 10D 7C 8C", 1: "10H KD 7S 8S"}  # trump clubs: hearts, diamonds plain
    m = start(2, 1, hands, [(0, "lead KH"), (1, "beat 10H")], after=["9C"])
    assert m.deal.last_trick[0] == 1  # the ten took the king
    m = start(2, 1, hands, [(0, "lead 10D")], after=["9C"])
    assert refused(m, 1, "beat KD") == "cannot_beat"  # a king never beats a ten


def test_r0_seats_clockwise_partners_opposite_in_four():
    rules = make_rules("kozel", 4)
    assert rules.partnership and rules.sides == 2
    assert [rules.side_of(s) for s in range(4)] == [0, 1, 0, 1]
    assert rules.side_seats(0) == (0, 2) and rules.side_seats(1) == (1, 3)
    for players in (2, 3):
        rules = make_rules("kozel", players)
        assert not rules.partnership and rules.sides == players
        assert [rules.side_of(s) for s in range(players)] == list(range(players))


def test_r0_first_dealer_is_random_from_the_seed():
    dealers = {first_dealer(4, seed) for seed in range(60)}
    assert dealers == {0, 1, 2, 3}
    for seed in (1, 2, 3, "abc"):
        assert Match.new("kozel", 4, seed=seed).dealer == first_dealer(4, seed)


def test_r0_deal_one_at_a_time_starting_left_of_the_dealer():
    # The deck in card order: 6C 7C 8C 9C 10C JC QC KC AC 6S 7S 8S 9S 10S ...
    deck = list(CARD_TEXT)
    log = {"preset": "kozel", "players": 3, "deals": [{"dealer": 1, "deck": deck, "actions": []}]}
    m, _ = run(log)
    # seat 2 is left of dealer 1: cards 1, 4, 7, 10; then seat 0; then the dealer.
    assert hand(m, 2) == {"6C", "9C", "QC", "6S"}
    assert hand(m, 0) == {"7C", "10C", "KC", "7S"}
    assert hand(m, 1) == {"8C", "JC", "AC", "8S"}
    assert m.deal.trump_card == c("9S")  # the 13th card is turned
    assert m.deal.leader == 2 and m.to_act() == (2,)


def test_r0_dealer_rotates_clockwise_and_left_of_dealer_leads():
    m = new_match(4, dealer=2)
    started = [m.start_events[0]]
    for _ in range(2):
        started += [e for e in play_out(m) if isinstance(e, DealStarted)]
    assert [(e.dealer, e.leader) for e in started] == [(2, 3), (3, 0), (0, 1)]
    assert_replays(m)


def test_r0_trick_goes_to_the_winning_sides_pile():
    # 4 players: seat 2 takes the trick for team 0+2; the pile is the team's.
    hands = {0: "7C 8C 9C JS", 1: "7S 8S 9S JC", 2: "AH 8H QD JD", 3: "7H QS KS AS"}
    m = start(4, 3, hands, [(0, "lead 9C")], after=["10H"])  # trump hearts
    act(m, 1, "throw 7S")
    act(m, 2, "beat 8H")  # trump over a non-trump
    act(m, 3, "throw 7H")
    assert m.deal.last_trick[0] == 2
    assert m.deal.tricks == [1, 0]
    assert sorted(m.deal.piles[0]) == sorted(cs("9C 7S 8H 7H"))
    assert m.deal.piles[1] == []
    assert m.deal.leader == 2  # the winner leads next


def test_r0_points_counted_from_piles_at_deal_end_and_no_trick_means_empty_pile():
    deck, keep, script = two_player_deal("b_zero", dealer=1)
    m = scripted_match(2, 1, deck)
    e = ended(finish(m, keep, script))
    # b (seat 1) took one trick worth nothing: his pile is not empty, so 4, not 6
    assert e.points == (120, 0) and e.tricks[1] == 1
    assert e.scored == (0, 4)


def test_r0_match_score_kept_between_deals_and_across_a_restart():
    # The score accumulates deal by deal, and a match saved (Match.to_state, as JSON) and
    # restored (Match.from_state) goes on exactly as the original.
    import json

    m = Match.new("kozel", 3, seed=11)
    first = ended(play_out(m)).score
    assert tuple(m.scores) == first and sum(first) > 0
    restored = Match.from_state(m.rules, json.loads(json.dumps(m.to_state())))
    assert restored.scores == m.scores and restored.dealer == m.dealer
    while not m.finished:
        for match in (m, restored):
            d = match.deal
            seat = d.to_move
            match.apply(seat, Action("throw" if d.plays else "lead", (min(d.hands[seat]),)))
        assert observe(restored, None) == observe(m, None)
    assert restored.finished and restored.winners == m.winners


def test_r0_eggs_never_stack():
    # eggs_double: 60:60 twice in a row doubles the next deal once (x2), not twice (x4)
    decks, plan = {}, [(1, "tie"), (0, "tie"), (1, "b31"), (0, "b31")]
    keeps, scripts = [], []
    for no, (dealer, kind) in enumerate(plan, start=1):
        decks[no], keep, script = two_player_deal(kind, dealer)
        keeps.append(keep)
        scripts.append(script)
    m = new_match(2, 1, decks, options={"tie": "eggs_double"})
    results = [ended(finish(m, k, s)) for k, s in zip(keeps, scripts, strict=True)]
    assert [(r.outcome, r.scored, r.doubled) for r in results] == [
        ("eggs", (0, 0), False),
        ("eggs", (0, 0), False),
        ("normal", (0, 4), True),  # 31+ = 2, doubled once
        ("normal", (2, 0), False),  # the doubling is used up
    ]
    assert m.scores == [2, 4]
    assert_replays(m)


# =============================================================================================
# RULES.md 1 -- kozel
# =============================================================================================

# --- players, options --------------------------------------------------------------------


def test_r1_two_three_or_four_players_four_are_two_partnerships():
    for players in (2, 3, 4):
        rules = make_rules("kozel", players)
        assert rules.partnership == (players == 4)
        assert rules.hand_size == 4
    for bad in (1, 5, 6):
        with pytest.raises(PresetError):
            make_rules("kozel", bad)


def test_r1_options_default_shokha_on_and_tie_both_two():
    rules = make_rules("kozel", 2)
    assert settings_of(rules).shokha is True and settings_of(rules).tie == "both_two"
    for tie in ("both_two", "eggs", "eggs_double"):
        assert settings_of(make_rules("kozel", 2, {"tie": tie})).tie == tie
    assert settings_of(make_rules("kozel", 2, {"shokha": False})).shokha is False
    with pytest.raises(PresetError):
        make_rules("kozel", 2, {"tie": "double"})


# --- the deal and the trump ----------------------------------------------------------------


def test_r1_deal_four_each_next_card_turned_is_trump_under_the_stock():
    hands = {0: "7C 8C 9C JS", 1: "7S 8S 9S JH", 2: "7H 8H 9H JC"}
    m = start(3, 2, hands, after=["QD", "AS", "10H"])
    d = m.deal
    assert all(len(d.hands[s]) == 4 for s in range(3))
    assert d.trump == DIAMONDS and d.trump_card == c("QD")
    assert len(d.stock) == 36 - 12  # the turned card is part of the stock...
    assert d.stock[0] == c("QD")  # ...at its bottom: drawn last
    assert d.stock[-1] == c("AS") and d.stock[-2] == c("10H")  # the next card drawn
    assert m.start_events == [DealStarted(1, 2, DIAMONDS, c("QD"), 0)]
    seen = observe(m, 1)
    assert seen.trump == DIAMONDS and seen.trump_card == c("QD") and seen.stock == 24


def test_r1_stock_sizes_keep_hands_equal():
    for players in (2, 3, 4):
        assert (36 - 4 * players) % players == 0
        m = new_match(players, dealer=0)
        no = m.deal_no
        while m.deal_no == no:
            d = m.deal
            if not d.plays:  # each trick starts with equal hands
                assert len({len(d.hands[s]) for s in d.seats}) == 1
            seat = d.to_move
            m.apply(seat, Action("throw" if d.plays else "lead", (min(d.hands[seat]),)))


def test_r1_draw_winner_first_clockwise_one_card_at_a_time():
    # 3 players, dealer 0: seat 1 leads two hearts, seat 2 beats them, seat 0 throws two.
    hands = {0: "7C 8C 9C JD", 1: "7H 8H QS KS", 2: "9H JH 7S 8S"}
    stock = ["AC", "AS", "AH", "10C", "10S", "10H"]
    m = start(3, 0, hands, after=["6D", *stock])
    act(m, 1, "lead 7H 8H")
    act(m, 2, "beat 9H JH")
    events = act(m, 0, "throw 7C 8C")
    assert won(events) == (2, 2, {"7H", "8H", "9H", "JH"}, 2)
    # winner 2 first, then 0, then 1; round and round one card each
    assert CardsDrawn((2, 0, 1), (2, 2, 2), 18) in events
    assert hand(m, 2) == {"7S", "8S", "AC", "10C"}
    assert hand(m, 0) == {"9C", "JD", "AS", "10S"}
    assert hand(m, 1) == {"QS", "KS", "AH", "10H"}
    assert m.deal.leader == 2 and m.to_act() == (2,)


def test_r1_face_up_trump_drawn_last_then_no_more_drawing():
    # 4 players, dealer 3: seat 0 leads a Molodka, everyone throws four and draws four
    # (16 cards); the next trick empties the stock: seat 3, the last in the round, takes
    # the face-up trump card.
    hands = {0: "7H 8H 9H JH", 1: "7C 8C 9C QS", 2: "7S 8S 9S JC", 3: "QC KC JS KS"}
    m = start(4, 3, hands, after=["10D"])
    act(m, 0, "declare 7H 8H 9H JH")
    act(m, 1, "throw 7C 8C 9C QS")
    act(m, 2, "throw 7S 8S 9S JC")
    events = act(m, 3, "throw QC KC JS KS")
    assert CardsDrawn((0, 1, 2, 3), (4, 4, 4, 4), 4) in events
    assert len(m.deal.stock) == 4 and m.deal.stock[0] == c("10D")
    events = one_trick(m)
    assert CardsDrawn((0, 1, 2, 3), (1, 1, 1, 1), 0) in events
    assert TrumpCardTaken(3, c("10D")) in events
    assert c("10D") in m.deal.hands[3]
    # the stock is empty: play goes on without drawing until the hands are empty
    for size in (3, 2, 1):
        events = one_trick(m)
        assert not any(isinstance(e, CardsDrawn) for e in events)
        assert [len(h) for h in m.deal.hands] == [size] * 4
    events = one_trick(m)
    assert any(isinstance(e, DealEnded) for e in events)


# --- the shokha ----------------------------------------------------------------------------


def test_r1_shokha_beats_the_trump_ace():
    m = start(2, 1, {0: "AD 7C 8C 9C", 1: "6S 7H 8H KC"}, [(0, "lead AD")], after=["10D"])
    assert m.deal.trump == DIAMONDS
    assert kinds(m, 1, "beat") == ["beat 6S"]
    events = act(m, 1, "beat 6S")
    assert won(events) == (1, 1, {"AD", "6S"}, 0)


def test_r1_nothing_beats_the_shokha():
    m = start(2, 1, {0: "6S 7C 8C 7H", 1: "AD 10D AS 9H"}, [(0, "lead 6S")], after=["KD"])
    assert kinds(m, 1, "beat") == []
    assert refused(m, 1, "beat AD") == "cannot_beat"  # not even the trump ace
    assert refused(m, 1, "beat AS") == "cannot_beat"  # nor the ace of its printed suit


def test_r1_shokha_joins_a_lead_of_any_suit_as_a_joker():
    m = start(2, 1, {0: "6S 9H KH 7C", 1: "AH 10H AD 9D"}, after=["8D"])
    for lead in ("lead 6S 9H", "lead 6S 9H KH", "lead 6S 7C", "lead 6S"):
        assert can(m, 0, lead)
    assert not can(m, 0, "lead 7C 9H")
    assert refused(m, 0, "lead 9H 7C") == "mixed_suits"
    events = act(m, 0, "lead 6S 9H KH")
    assert events == [Led(0, cs("6S 9H KH"))]


def test_r1_lead_holding_the_shokha_can_never_be_beaten():
    # seat 1 holds the two best hearts and two trumps, yet cannot beat 9H + the shokha
    m = start(2, 1, {0: "6S 9H 7C 8C", 1: "AH 10H AD KD"}, [(0, "lead 6S 9H")], after=["8D"])
    assert kinds(m, 1, "beat") == []
    for answer in ("beat AH 10H", "beat AD KD", "beat AH AD"):
        assert refused(m, 1, answer) == "cannot_beat"
    act(m, 1, "throw AH AD")
    assert m.deal.last_trick[0] == 0


def test_r1_turned_six_of_spades_makes_spades_trump_and_is_still_the_shokha():
    # The 6S is the turned card: spades are trump; seat 1 (last in the last draw round)
    # draws it, and it then beats the ace of trumps.
    keep = {0: "10D KD 9S", 1: "7H 8H 9C"}
    deck = scripted_deck(2, 1, keep, {0: "JC", 1: "QC"}, {0: "AS"}, "6S")
    m = scripted_match(2, 1, deck)
    assert m.start_events[0].trump == SPADES and m.start_events[0].trump_card == c("6S")
    events = finish(m, keep, [(0, "lead AS")])
    assert TrumpCardTaken(1, c("6S")) in events
    assert hand(m, 1) == {"7H", "8H", "9C", "6S"}
    assert kinds(m, 1, "beat") == ["beat 6S"]
    events = act(m, 1, "beat 6S")
    assert won(events) == (1, 1, {"AS", "6S"}, 0)


def test_r1_option_shokha_false_makes_six_of_spades_ordinary():
    opts = {"shokha": False}
    hands = {0: "6S 9H KH AD", 1: "7S AH 10D 7C"}
    m = start(2, 1, hands, after=["8D"], options=opts)
    # no joker: 6S with hearts is a mixed lead
    assert refused(m, 0, "lead 6S 9H") == "mixed_suits"
    act(m, 0, "lead 6S")
    # 7S, a higher plain spade, beats it; a non-trump of another suit does not
    assert can(m, 1, "beat 7S")
    assert refused(m, 1, "beat AH") == "cannot_beat"
    act(m, 1, "beat 7S")
    assert m.deal.last_trick[0] == 1
    # and it does not beat a trump ace
    m2 = start(2, 1, {0: "AD 9H KH 7C", 1: "6S AH 10D 7S"}, [(0, "lead AD")], after=["8D"], options=opts)
    assert refused(m2, 1, "beat 6S") == "cannot_beat"


def test_r1_option_shokha_false_turned_six_of_spades_is_the_lowest_trump():
    keep = {0: "10D KD 9S", 1: "7H 8H 9C"}
    opts = {"shokha": False}
    deck = scripted_deck(2, 1, keep, {0: "JC", 1: "QC"}, {0: "AS"}, "6S", options=opts)
    m = scripted_match(2, 1, deck, options=opts)
    assert m.deal.trump == SPADES
    finish(m, keep, [(0, "lead AS")])
    assert refused(m, 1, "beat 6S") == "cannot_beat"
    # and a plain 7S-over-6S: spades are trump, 6S the lowest of them
    assert m.deal.beats(c("7S"), c("6S")) and m.deal.beats(c("6S"), c("AH"))
    assert not m.deal.beats(c("6S"), c("7S"))


# --- leading -------------------------------------------------------------------------------


def test_r1_lead_one_to_four_cards_of_one_suit():
    m = start(2, 1, {0: "7H 9H KH 7C", 1: "8H 10H AH 8C"}, after=["8D"])
    for lead in ("lead 7H", "lead 7C", "lead 7H 9H", "lead 9H KH", "lead 7H 9H KH"):
        assert can(m, 0, lead)
    leads = kinds(m, 0, "lead")
    assert all(len({x[-1] for x in a.split()[1:]}) == 1 for a in leads)  # one suit each
    assert len(leads) == 8  # 7C; 7H, 9H, KH, and their 3 pairs and 1 triple
    assert refused(m, 0, "lead 7H 7C") == "mixed_suits"
    act(m, 0, "lead 7H 9H KH")
    # the answer is exactly as many cards
    assert refused(m, 1, "beat 10H AH") == "wrong_count"
    assert refused(m, 1, "throw 8C") == "wrong_count"
    act(m, 1, "beat 8H 10H AH")
    assert m.deal.last_trick[0] == 1


def test_r1_four_cards_of_one_suit_lead_as_a_molodka():
    m = start(2, 1, {0: "7H 9H KH QH", 1: "8H 10H AH 8C"}, after=["8D"])
    assert can(m, 0, "declare 7H 9H QH KH")
    assert all(len(a.split()) <= 4 for a in kinds(m, 0, "lead"))  # leads of 1-3 cards
    events = act(m, 0, "declare 7H 9H QH KH")
    assert events == [Declared(0, "molodka", cs("7H 9H QH KH"))]


# --- answering: beating and throwing ---------------------------------------------------------


def test_r1_beat_one_to_one_where_a_sorted_greedy_pairing_fails():
    # Lead 9H KH, trump diamonds. Answer JH 7D: JH takes 9H, the trump 7D takes KH.
    # Sorting both sets by plain rank and pairing lowest with lowest tries 7D on 9H and
    # JH on KH -- which fails; the engine must find the pairing that works.
    m = start(2, 1, {0: "9H KH 7C 8C", 1: "JH 7D 7S 8S"}, [(0, "lead 9H KH")], after=["8D"])
    d = m.deal
    assert not (d.beats(c("7D"), c("9H")) and d.beats(c("JH"), c("KH")))
    assert can(m, 1, "beat JH 7D")
    events = act(m, 1, "beat JH 7D")
    assert Beaten(1, cs("JH 7D")) in events
    assert m.deal.last_trick[0] == 1


def test_r1_beat_one_to_one_ten_over_king_pairing():
    # Lead 9H KH; answer QH 10H. Sorted by printed rank (10 below Q), or taking for each
    # led card the first answer card that beats it, pairs 10H-9H and QH-KH and fails;
    # the working pairing is QH over 9H and 10H over KH (the ten above the king).
    m = start(2, 1, {0: "9H KH 7C 8C", 1: "QH 10H 7S 8S"}, [(0, "lead 9H KH")], after=["8D"])
    assert not m.deal.beats(c("QH"), c("KH"))
    act(m, 1, "beat QH 10H")
    assert m.deal.last_trick[0] == 1


def test_r1_beat_needs_a_different_card_for_every_led_card():
    # QH and JH both beat 9H, but neither beats KH
    m = start(2, 1, {0: "9H KH 7C 8C", 1: "QH JH 7S 8S"}, [(0, "lead 9H KH")], after=["8D"])
    assert refused(m, 1, "beat QH JH") == "cannot_beat"
    assert kinds(m, 1, "beat") == []


def test_r1_trump_beats_non_trump_higher_trump_beats_trump():
    hands = {0: "AH 9D 7C 8C", 1: "6D 7D 10D KS"}
    m = start(2, 1, hands, [(0, "lead AH")], after=["8D"])
    assert refused(m, 1, "beat KS") == "cannot_beat"  # another plain suit never beats
    act(m, 1, "beat 6D")  # the lowest trump beats the plain ace
    assert m.deal.last_trick[0] == 1
    m = start(2, 1, hands, [(0, "lead 9D")], after=["8D"])
    assert refused(m, 1, "beat 7D") == "cannot_beat"  # a lower trump
    act(m, 1, "beat 10D")  # a higher trump
    assert m.deal.last_trick[0] == 1


def test_r1_beat_the_current_winning_set_not_the_lead():
    # 3 players: seat 1 beats 9H with KH; seat 2's QH beats 9H but not KH.
    hands = {0: "9H 7C 8C 9C", 1: "KH 7S 8S 9S", 2: "QH 10H 7D 8D"}
    m = start(3, 2, hands, [(0, "lead 9H"), (1, "beat KH")], after=["JC"])
    assert refused(m, 2, "beat QH") == "cannot_beat"
    assert kinds(m, 2, "beat") == ["beat 10H"]
    events = act(m, 2, "throw QH")
    # the owner of the winning set takes the trick and leads next
    assert won(events) == (1, 1, {"9H", "KH"}, 1)
    assert m.deal.tricks == [0, 1, 0]
    assert m.deal.leader == 1 and m.deal.to_move == 1


def test_r1_last_beater_takes_the_trick_and_leads_next():
    hands = {0: "9H 7C 8C 9C", 1: "KH 7S 8S 9S", 2: "QH 10H 7D 8D"}
    m = start(3, 2, hands, [(0, "lead 9H"), (1, "beat KH"), (2, "beat 10H")], after=["JC"])
    assert m.deal.last_trick[0] == 2
    assert sorted(m.deal.piles[2]) == sorted(cs("9H KH 10H"))
    assert m.deal.leader == 2 and m.deal.to_move == 2


def test_r1_throw_allowed_even_when_able_to_beat():
    m = start(2, 1, {0: "9H 7C 8C 9C", 1: "AH 10H 7S 8S"}, [(0, "lead 9H")], after=["8D"])
    for answer in ("beat AH", "beat 10H", "throw AH", "throw 7S"):
        assert can(m, 1, answer)
    events = act(m, 1, "throw AH")
    assert events[0] == Thrown(1, 1)
    assert m.deal.last_trick[0] == 0  # the leader keeps the trick


def test_r1_thrown_cards_hidden_from_everyone_else_even_the_partner():
    # 4 players, dealer 3: seat 0 leads AH; seats 1, 2 (seat 0's partner) and 3 throw.
    hands = {0: "AH 7C 8C 9C", 1: "KD 7S 8S 9S", 2: "10S 7H 8H 9H", 3: "QC JC 8D 9D"}
    m = start(4, 3, hands, after=["6D"])
    events = act(m, 0, "lead AH") + act(m, 1, "throw KD") + act(m, 2, "throw 10S")
    for viewer in (None, 0, 2, 3):
        seen = observe(m, viewer).trick
        assert seen[1] == (1, "throw", None, 1)
    for viewer in (None, 0, 1, 3):
        assert observe(m, viewer).trick[2] == (2, "throw", None, 1)
    assert observe(m, 1).trick[1] == (1, "throw", cs("KD"), 1)  # the thrower sees his own
    assert observe(m, 0).trick[0] == (0, "lead", cs("AH"), 1)  # face-up cards are public
    events += act(m, 3, "throw 8D")
    assert [e for e in events if isinstance(e, Thrown)] == [Thrown(1, 1), Thrown(2, 1), Thrown(3, 1)]
    assert won(events) == (0, 0, {"AH"}, 3)  # the trick names only face-up cards
    for e in events:
        text = str(e.to_json())
        for card in ("KD", "10S", "8D"):
            assert f"'{card}'" not in text
    # after the trick: the last trick keeps them hidden too
    winner, plays = observe(m, None).last_trick
    assert winner == 0 and [p[2] for p in plays] == [cs("AH"), None, None, None]
    assert observe(m, 2).last_trick[1][2] == (2, "throw", cs("10S"), 1)
    assert observe(m, 0).last_trick[1][2] == (2, "throw", None, 1)


def test_r1_thrown_points_hidden_until_the_deal_total():
    m = new_match(2, dealer=0)
    thrown: set[int] = set()
    events: list[Any] = []
    while m.deal_no == 1:
        d = m.deal
        seat = d.to_move
        card = min(d.hands[seat])
        if d.plays:
            thrown.add(card)
        for viewer in (None, 1 - seat):
            assert "points" not in observe(m, viewer).to_json()
        events += m.apply(seat, Action("throw" if d.plays else "lead", (card,)))
    thrown.discard(m.history[0].deck[8])  # the turned card (after 2 x 4 dealt) is public
    end = next(i for i, e in enumerate(events) if isinstance(e, DealEnded))
    for e in events[:end]:
        data = e.to_json()
        assert "points" not in data
        assert not any(f"'{CARD_TEXT[x]}'" in str(data) for x in thrown)
    # the deal's total counts them: the leader took 120 points, 18 cards face down among them
    assert events[end].points == (0, 120) and events[end].tricks == (0, 18)


# --- combinations ---------------------------------------------------------------------------


MOLODKA_HANDS = {0: "7C 8C 9D JS", 1: "7H 9H JH QH", 2: "7S 8S 9S 10C"}


def test_r1_to_act_includes_the_combination_holders_at_trick_start():
    hands = {0: "7C 8C 9D JS", 1: "7H 9H JH QH", 2: "AS AD 10C 10D"}
    m = start(3, 2, hands, after=["8D"])
    assert m.to_act() == (0, 1, 2)
    assert can(m, 1, "declare 7H 9H JH QH")
    assert can(m, 2, "declare AS AD 10C 10D")
    assert kinds(m, 0, "declare") == []
    # the table does not learn who holds a combination; each holder sees his own right
    assert observe(m, None).to_act == (0,)
    assert observe(m, 1).to_act == (0, 1) and observe(m, 2).to_act == (0, 2)
    assert observe(m, 0).to_act == (0,)


def test_r1_molodka_declared_out_of_turn_by_a_non_leader():
    m = start(3, 2, MOLODKA_HANDS, after=["8D"])
    assert m.deal.to_move == 0
    events = act(m, 1, "declare 7H 9H JH QH")
    assert events == [Declared(1, "molodka", cs("7H 9H JH QH"))]
    # the declarer leads his four; the others answer in turn from his left
    assert m.deal.leader == 1 and m.to_act() == (2,)
    assert refused(m, 0, "throw 7C 8C 9D JS") == "not_your_turn"
    act(m, 2, "throw 7S 8S 9S 10C")
    events = act(m, 0, "throw 7C 8C 9D JS")
    assert won(events) == (1, 1, {"7H", "9H", "JH", "QH"}, 8)
    assert m.deal.leader == 1  # and he leads next


def test_r1_molodka_declared_after_the_draw():
    # 2 players: seat 1 completes four hearts by drawing QH after the first trick.
    hands = {0: "7C 8S 9S JS", 1: "7H 9H JH 7D"}
    m = start(2, 1, hands, after=["8D", "10C", "QH"])
    assert m.to_act() == (0,)  # no combination yet
    act(m, 0, "lead 7C")
    act(m, 1, "throw 7D")
    assert hand(m, 1) == {"7H", "9H", "JH", "QH"}
    assert m.to_act() == (0, 1)
    events = act(m, 1, "declare 7H 9H JH QH")
    assert events == [Declared(1, "molodka", cs("7H 9H JH QH"))]


def test_r1_leader_declaring_makes_it_his_lead():
    hands = {0: "7H 9H JH QH", 1: "7C 8C 9D JS", 2: "7S 8S 9S 10C"}
    m = start(3, 2, hands, after=["8D"])
    assert m.to_act() == (0,)
    events = act(m, 0, "declare 7H 9H JH QH")
    assert events == [Declared(0, "molodka", cs("7H 9H JH QH"))]
    assert m.deal.leader == 0 and m.deal.to_move == 1  # answered from his left


def test_r1_molodka_three_of_a_suit_plus_the_shokha():
    hands = {0: "9H JH QH 6S", 1: "7C 8C 9D JS", 2: "7S 8S 9S 10C"}
    m = start(3, 2, hands, after=["8D"])
    events = act(m, 0, "declare 9H JH QH 6S")
    assert events == [Declared(0, "molodka", cs("9H JH QH 6S"))]
    # without the shokha option it is a mixed lead, no combination
    m = start(3, 2, hands, after=["8D"], options={"shokha": False})
    assert kinds(m, 0, "declare") == []
    assert refused(m, 0, "lead 9H JH QH 6S") == "mixed_suits"
    # ...while four spades with the 6S are a plain Molodka
    hands = {0: "6S 8S 9S QS", 1: "7C 8C 9D JH", 2: "7S KH 9H 10C"}
    m = start(3, 2, hands, after=["8D"], options={"shokha": False})
    assert act(m, 0, "declare 6S 8S 9S QS") == [Declared(0, "molodka", cs("6S 8S 9S QS"))]


def test_r1_moscow_aces_and_tens_the_only_mixed_lead():
    hands = {0: "AH AD 10C 10S", 1: "7C 8C 9D JS", 2: "7S 8S 9S JC"}
    m = start(3, 2, hands, after=["8D"])
    assert refused(m, 0, "lead AH AD") == "mixed_suits"  # no mixed lead otherwise
    events = act(m, 0, "declare AH AD 10C 10S")
    assert events == [Declared(0, "moscow", cs("AH AD 10C 10S"))]
    # four aces are a Moscow too
    m = start(3, 2, {0: "AH AD AC AS", 1: "7C 8C 9D JS", 2: "7S 8S 9S JC"}, after=["8D"])
    assert act(m, 0, "declare AH AD AC AS") == [Declared(0, "moscow", cs("AH AD AC AS"))]


def test_r1_moscow_shokha_stands_for_a_ten_but_one_real_ace_is_needed():
    others = {1: "7C 8C 9D JS", 2: "7S 8S 9S JC"}
    m = start(3, 2, {0: "AH 10D 10C 6S", **others}, after=["8D"])
    assert act(m, 0, "declare AH 10D 10C 6S") == [Declared(0, "moscow", cs("AH 10D 10C 6S"))]
    # no real ace: tens and the shokha are no Moscow
    m = start(3, 2, {0: "10H 10D 10C 6S", **others}, after=["8D"])
    assert m.to_act() == (0,)
    assert refused(m, 0, "lead 10H 10D 10C 6S") == "mixed_suits"
    assert refused(m, 0, "declare 10H 10D 10C 6S") == "declaration_closed"
    # with shokha=false the 6S stands for nothing
    m = start(3, 2, {0: "AH 10D 10C 6S", **others}, after=["8D"], options={"shokha": False})
    assert refused(m, 0, "lead AH 10D 10C 6S") == "mixed_suits"


def test_r1_moscow_over_molodka():
    # Seat 1 declares a Molodka; before anyone answers, seat 2 declares a Moscow over it:
    # the Molodka goes back to seat 1's hand and the Moscow is the lead.
    hands = {0: "7C 8C 9C JS", 1: "7H 9H JH QH", 2: "AS AD 10C 10D"}
    m = start(3, 2, hands, after=["8D"])
    act(m, 1, "declare 7H 9H JH QH")
    assert m.to_act() == (2,)
    events = act(m, 2, "declare AS AD 10C 10D")
    assert events == [CardsReturned((1,)), Declared(2, "moscow", cs("AS AD 10C 10D"))]
    assert hand(m, 1) == {"7H", "9H", "JH", "QH"}
    assert m.deal.leader == 2 and m.deal.declared == "moscow"
    # the others answer from the Moscow's left; the Molodka's owner plays his cards later
    assert m.to_act() == (0,)
    act(m, 0, "throw 7C 8C 9C JS")
    events = act(m, 1, "throw 7H 9H JH QH")
    assert won(events) == (2, 2, {"AS", "AD", "10C", "10D"}, 8)


def test_r1_moscow_by_the_leader_over_a_molodka_declared_out_of_turn():
    hands = {0: "AS AD 10C 10D", 1: "7H 9H JH QH", 2: "7C 8C 9C JS"}
    m = start(3, 2, hands, after=["8D"])
    act(m, 1, "declare 7H 9H JH QH")
    assert m.to_act() == (2, 0)
    events = act(m, 0, "declare AS AD 10C 10D")
    assert events == [CardsReturned((1,)), Declared(0, "moscow", cs("AS AD 10C 10D"))]
    assert m.deal.to_move == 1


def test_r1_moscow_over_the_leaders_own_molodka():
    # the leader's declared Molodka is his lead; a Moscow may still come over it
    hands = {0: "7H 9H JH QH", 1: "AS AD 10C 10D", 2: "7C 8C 9C JS"}
    m = start(3, 2, hands, [(0, "declare 7H 9H JH QH")], after=["8D"])
    assert m.to_act() == (1,)
    events = act(m, 1, "declare AS AD 10C 10D")
    assert events == [CardsReturned((0,)), Declared(1, "moscow", cs("AS AD 10C 10D"))]
    assert hand(m, 0) == {"7H", "9H", "JH", "QH"}
    assert m.deal.leader == 1 and m.deal.to_move == 2


def test_r1_moscow_over_molodka_only_until_the_first_answer():
    hands = {0: "AS AD 10C 10D", 1: "7H 9H JH QH", 2: "7C 8C 9C JS"}
    m = start(3, 2, hands, after=["8D"])
    act(m, 1, "declare 7H 9H JH QH")
    act(m, 2, "throw 7C 8C 9C JS")  # the first answer
    assert m.to_act() == (0,)
    assert kinds(m, 0, "declare") == []
    assert refused(m, 0, "declare AS AD 10C 10D") == "declaration_closed"


def test_r1_second_molodka_refused_first_received_stands():
    # seat 2's declaration arrives first, although seat 1 sits earlier: it stands.
    hands = {0: "7S 8S 9D JS", 1: "7H 9H JH QH", 2: "7C 8C 9C JC"}
    m = start(3, 2, hands, after=["8D"])
    assert m.to_act() == (0, 1, 2)
    act(m, 2, "declare 7C 8C 9C JC")
    assert refused(m, 1, "declare 7H 9H JH QH") == "declaration_closed"
    assert m.to_act() == (0,)
    assert m.deal.leader == 2


def test_r1_second_moscow_refused_and_nothing_else_interrupts_a_moscow():
    hands = {0: "7D 8D 9D JD", 1: "AH AD 10H 10D", 2: "AC AS 10C 10S"}
    m = start(3, 2, hands, after=["8C"])
    assert m.to_act() == (0, 1, 2)
    act(m, 2, "declare AC AS 10C 10S")
    assert refused(m, 1, "declare AH AD 10H 10D") == "declaration_closed"
    assert refused(m, 0, "declare 7D 8D 9D JD") == "declaration_closed"  # a Molodka neither
    assert m.to_act() == (0,)


def test_r1_declaration_closed_once_the_trick_is_under_way():
    hands = {0: "7C 8C 9D JS", 1: "7H 9H JH QH", 2: "AS AD 10C 10D"}
    m = start(3, 2, hands, [(0, "lead 7C")], after=["8D"])
    assert m.to_act() == (1,)
    assert refused(m, 1, "declare 7H 9H JH QH") == "declaration_closed"
    assert refused(m, 2, "declare AS AD 10C 10D") == "declaration_closed"
    assert kinds(m, 1, "declare") == kinds(m, 2, "declare") == []


def test_r1_declarations_replay_in_the_order_received():
    hands = {0: "7S 8S 9D JS", 1: "7H 9H JH QH", 2: "7C 8C 9C JC"}
    m = start(3, 2, hands, [(2, "declare 7C 8C 9C JC"), (0, "throw 7S 8S 9D JS")], after=["8D"])
    again, _ = replay(to_log(m))
    assert again.deal.leader == 2 and again.deal.plays == m.deal.plays


# --- scoring: 2 players ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "points", "scored"),
    [
        ("b31", (89, 31), (0, 2)),  # 31+ -> 2
        ("b30", (90, 30), (0, 4)),  # less, with a trick -> 4
        ("b_zero", (120, 0), (0, 4)),  # nothing, but a trick -> 4
        ("b_none", (120, 0), (0, 6)),  # no trick at all -> 6
    ],
)
def test_r1_scoring_two_players(kind, points, scored):
    deck, keep, script = two_player_deal(kind, dealer=1)
    m = scripted_match(2, 1, deck)
    e = ended(finish(m, keep, script))
    assert e.points == points
    assert e.scored == scored  # the side with the most points takes 0
    assert m.scores == list(scored)


def test_r1_scoring_tie_both_two_default():
    decks = {1: two_player_deal("tie", 1)[0], 2: two_player_deal("b31", 0)[0]}
    m = new_match(2, 1, decks)
    e = ended(finish(m, *two_player_deal("tie", 1)[1:]))
    assert (e.points, e.outcome, e.scored) == ((60, 60), "tie", (2, 2))
    assert m.eggs is False
    e = ended(finish(m, *two_player_deal("b31", 0)[1:]))
    assert (e.scored, e.doubled) == ((2, 0), False)
    assert m.scores == [4, 2]


def test_r1_scoring_tie_eggs_nobody_scores_nothing_carried():
    decks = {1: two_player_deal("tie", 1)[0], 2: two_player_deal("b31", 0)[0]}
    m = new_match(2, 1, decks, options={"tie": "eggs"})
    e = ended(finish(m, *two_player_deal("tie", 1)[1:]))
    assert (e.points, e.outcome, e.scored) == ((60, 60), "eggs", (0, 0))
    assert m.eggs is False
    e = ended(finish(m, *two_player_deal("b31", 0)[1:]))
    assert (e.scored, e.doubled) == ((2, 0), False)


@pytest.mark.parametrize(("kind", "scored"), [("b31", (0, 4)), ("b30", (0, 8)), ("b_none", (0, 12))])
def test_r1_scoring_tie_eggs_double_doubles_the_next_deal(kind, scored):
    decks = {1: two_player_deal("tie", 1)[0], 2: two_player_deal(kind, 0)[0]}
    m = new_match(2, 1, decks, options={"tie": "eggs_double"})
    e = ended(finish(m, *two_player_deal("tie", 1)[1:]))
    assert (e.outcome, e.scored) == ("eggs", (0, 0)) and m.eggs is True
    e = ended(finish(m, *two_player_deal(kind, 0)[1:]))
    assert e.doubled is True
    assert e.scored == scored[::-1]  # seat 0 is the loser ("b") in deal 2
    assert m.eggs is False


# --- scoring: 3 players ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "points", "tricks", "scored"),
    [
        ("x", (79, 21, 20), (8, 1, 1), (0, 2, 4)),  # 21+ -> 2; 20 with a trick -> 4
        ("y", (79, 20, 21), (8, 1, 1), (0, 4, 2)),
        ("none", (120, 0, 0), (10, 0, 0), (0, 6, 6)),  # no trick -> 6
    ],
)
def test_r1_scoring_three_players(kind, points, tricks, scored):
    deck, keep, script = three_player_deal(kind)
    m = scripted_match(3, 2, deck)
    e = ended(finish(m, keep, script))
    assert (e.points, e.tricks, e.scored) == (points, tricks, scored)


def test_r1_scoring_three_players_two_tied_for_most_each_take_2():
    deck, keep, script = three_player_deal("tie2")
    m = scripted_match(3, 2, deck)
    e = ended(finish(m, keep, script))
    assert e.points == (50, 50, 20)
    assert e.scored == (2, 2, 4)


def test_r1_scoring_three_players_three_tied_each_take_2():
    deck, keep, script = three_player_deal("tie3")
    m = scripted_match(3, 2, deck)
    e = ended(finish(m, keep, script))
    assert e.points == (40, 40, 40)
    assert e.scored == (2, 2, 2)


# --- scoring: 4 players (two teams) ----------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "points", "scored"),
    [
        ("t31", (89, 31), (0, 2)),
        ("t30", (90, 30), (0, 4)),
        ("t_none", (120, 0), (0, 6)),
    ],
)
def test_r1_scoring_four_players(kind, points, scored):
    deck, keep, script = four_player_deal(kind)
    m = scripted_match(4, 3, deck)
    e = ended(finish(m, keep, script))
    assert (e.points, e.scored) == (points, scored)


def test_r1_scoring_four_players_tie_both_two():
    deck, keep, script = four_player_deal("tie")
    m = scripted_match(4, 3, deck)
    e = ended(finish(m, keep, script))
    assert (e.points, e.outcome, e.scored) == ((60, 60), "tie", (2, 2))


# --- the end of the match --------------------------------------------------------------------


def test_r1_match_ends_at_12_two_players():
    m = new_match(2, dealer=0)
    results = []
    while not m.finished:
        results += [e for e in play_out(m) if isinstance(e, DealEnded | SideOut | MatchEnded)]
    # the leader (left of the dealer) takes every trick: 6 to the other side each deal
    assert [e.score for e in results if isinstance(e, DealEnded)] == [(6, 0), (6, 6), (12, 6)]
    assert results[-2:] == [SideOut(0, (0,)), MatchEnded((1,), (12, 6))]
    assert m.legal_actions(1) == [] and m.to_act() == ()
    assert_replays(m)


def test_r1_match_ends_at_12_four_players_the_other_team_wins():
    m = new_match(4, dealer=2)
    results = []
    while not m.finished:
        results += [e for e in play_out(m) if isinstance(e, DealEnded | SideOut | MatchEnded)]
    assert [e.score for e in results if isinstance(e, DealEnded)] == [(6, 0), (6, 6), (12, 6)]
    assert results[-2:] == [SideOut(0, (0, 2)), MatchEnded((1, 3), (12, 6))]
    assert_replays(m)


def test_r1_match_twelve_reached_with_a_set_up_score_four_players():
    deck, keep, script = four_player_deal("t31")
    m = scripted_match(4, 3, deck)
    m.scores = [10, 10]  # set up: both teams at 10 before this deal
    events = finish(m, keep, script)
    assert SideOut(1, (1, 3)) in events
    assert events[-1] == MatchEnded((0, 2), (10, 12))


def test_r1_three_players_knock_out_then_head_to_head_skipping_the_empty_seat():
    # Deal 1 (dealer 2): seat 0 takes every trick; seat 1 (at 10) reaches 16 and is out.
    # Deal 2: dealer 0 (next clockwise), and left of him is seat 2 -- seat 1 is skipped.
    # Seat 0 takes 30 points with a trick: the 2-player table gives 4 (the 3-player table
    # would give 2). Deal 3: the deal passes from 0 to 2, skipping seat 1.
    deck2, keep2, script2 = two_player_deal("b30", dealer=0, seats=[0, 2])
    m = new_match(3, dealer=2, decks={2: deck2})
    m.scores = [0, 10, 0]
    events = play_out(m)
    assert ended(events).scored == (0, 6, 6)
    assert SideOut(1, (1,)) in events and not m.finished
    assert m.deal.seats == (0, 2) and m.dealer == 0 and m.deal.leader == 2
    assert DealStarted(2, 0, DIAMONDS, c("7D"), 2) in events
    assert m.deal.hands[1] == [] and c(deck2[0]) in m.deal.hands[2]
    assert m.check(1, parse_action("lead 7C")) == "no_such_seat"
    events = finish(m, keep2, script2)
    deal2 = ended(events)
    assert (deal2.points, deal2.tricks[0]) == ((30, 0, 90), 1)
    assert deal2.scored == (4, 0, 0)
    assert m.scores == [4, 16, 6]
    assert [(e.dealer, e.leader) for e in events if isinstance(e, DealStarted)] == [(2, 0)]
    events = play_out(m)  # seat 0 leads and takes every trick: seat 2 reaches 12
    assert ended(events).score == (4, 16, 12)
    assert events[-2:] == [SideOut(2, (2,)), MatchEnded((0,), (4, 16, 12))]


def test_r1_three_players_two_out_in_the_same_deal():
    m = new_match(3, dealer=2)
    m.scores = [0, 10, 10]
    events = play_out(m)  # seat 0 takes every trick: 6 each to seats 1 and 2
    assert SideOut(1, (1,)) in events and SideOut(2, (2,)) in events
    assert events[-1] == MatchEnded((0,), (0, 16, 16))
    assert m.finished


def test_r1_three_players_all_reach_12_the_lowest_wins():
    deck, keep, script = three_player_deal("tie3")
    m = scripted_match(3, 2, deck)
    m.scores = [10, 11, 11]
    events = finish(m, keep, script)  # 40:40:40 -> 2 each
    assert events[-1] == MatchEnded((0,), (12, 13, 13))


def test_r1_three_players_all_reach_12_equal_lowest_share_the_win():
    deck, keep, script = three_player_deal("tie3")
    m = scripted_match(3, 2, deck)
    m.scores = [10, 10, 11]
    events = finish(m, keep, script)
    assert [e for e in events if isinstance(e, SideOut)] == [
        SideOut(0, (0,)),
        SideOut(1, (1,)),
        SideOut(2, (2,)),
    ]
    assert events[-1] == MatchEnded((0, 1), (12, 12, 13))


def test_r1_next_deal_next_dealer_clockwise_left_of_dealer_leads():
    m = new_match(3, dealer=1)
    seen = [(m.dealer, m.deal.leader)]
    for _ in range(2):
        play_out(m)
        seen.append((m.dealer, m.deal.leader))
    # after deal 2 seat 1 is out (6 + 6): the deal passes 2 -> 0 and seat 2 (left of 0,
    # skipping seat 1) leads
    assert m.scores == [6, 12, 6] and m.out == [False, True, False]
    assert seen == [(1, 2), (2, 0), (0, 2)]
