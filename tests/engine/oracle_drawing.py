"""The drawing family's oracle (RULES.md 1-3) for the conformance test
(tests/engine/test_conformance.py), which plays random legal matches of every preset.

Before each legal action one *illegal* action (a mutated legal one, a random one, a card
named twice, a wrong seat) is tried and must change nothing. After every action
``Checker`` verifies:

- every card of the deck lies in exactly one place (hands, stock, reserve, table, piles);
- exactly the seats in ``to_act()`` have legal actions, and each legal action passes
  ``match.check``; a seat outside the table has none;
- no observation (public or another seat's) and no returned event shows a card of
  another seat's hand, of the stock (besides the public trump card), or a face-down card;
- a finished deal holds 120 card points, its penalties follow RULES.md 1-3 (recomputed
  here from the points and tricks), and the match ends exactly when the rules say;
- the next deal rotates the dealer clockwise (skipping seats that are out) and is led by
  the right seat;
- ``to_log`` -> ``replay`` reproduces every deal's points, tricks and scores and the
  final state (``Oracle.finish``).
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import fields
from typing import Any

import pytest

from engine.actions import KINDS, Action
from engine.cards import CARD_TEXT, POINTS, deck_points
from engine.errors import IllegalAction
from engine.events import (
    DealEnded,
    DealStarted,
    Event,
    MatchEnded,
    SideOut,
)
from engine.families.drawing.deal import settings_of
from engine.families.drawing.match import PENALTY_LIMIT, SIXTY, Match
from engine.log import to_log
from engine.observation import observe

CARD_STRINGS = frozenset(CARD_TEXT)
MAX_DEALS = 400

# the configurations the conformance test plays beside every option value alone
KOZEL = [
    ("kozel", n, {"shokha": shokha, "tie": tie})
    for n in (2, 3, 4)
    for shokha in (True, False)
    for tie in ("both_two", "eggs", "eggs_double")
]
KOZEL_4: list[tuple[str, int, dict[str, Any]]] = [("kozel-4", 4, {})]
KOZEL_60 = [("kozel-60", n, {"deal": "draw"}) for n in (2, 3, 4)] + [("kozel-60", 4, {"deal": "halves"})]


def _id(config: tuple[str, int, dict[str, Any]]) -> str:
    preset, players, options = config
    opts = ",".join(f"{k}={v}" for k, v in options.items())
    return f"{preset}-{players}p" + (f"-{opts}" if opts else "")


# --- helpers -----------------------------------------------------------------------------


_CARD_RE = re.compile(r'"((?:10|[6-9JQKA])[CSHD])"')


def card_strings(obj: Any) -> set[str]:
    """Every card text anywhere in a JSON-like value (as a key or a value)."""
    return set(_CARD_RE.findall(json.dumps(obj)))


def texts(cards: Any) -> set[str]:
    return {CARD_TEXT[c] for c in cards}


def event_card_fields_are_text(event: Event) -> None:
    """Every field typed as a card (or cards) is written as card text in ``to_json``."""
    data = event.to_json()
    for f in fields(event):
        if "Card" not in str(f.type):
            continue
        value = data[f.name]
        flat = value if isinstance(value, list) else [value]
        for v in flat:
            assert v is None or (isinstance(v, str) and v in CARD_STRINGS), (
                f"{type(event).__name__}.{f.name} is not card text in to_json(): {value!r}"
            )


def snapshot(match: Match, full: bool = True) -> Any:
    """Everything an action could change: the match, its deal, its log and what each seat sees.

    ``full=False`` (after an illegal action, every step) keeps only the current deal's log
    and the public view: the rest of the log and every other view follow from the state.
    """
    d = match.deal
    rec = match.history[-1]
    views = [None, *range(match.rules.players)] if full else [None]
    return (
        json.dumps(to_log(match), sort_keys=True)
        if full
        else (rec.dealer, list(rec.deck), rec.trump_card, list(rec.actions), rec.result),
        [json.dumps(observe(match, s).to_json(), sort_keys=True) for s in views],
        [sorted(h) for h in d.hands],
        list(d.stock),
        [list(p) for p in d.piles],
        list(d.plays),
        list(d.tricks),
        d.leader,
        d.to_move,
        d.win_seat,
        d.win_cards,
        d.declared,
        d.counter,
        d.trick_no,
        d.finished,
        list(d.reserve),
        d.half,
        d.last_trick,
        list(match.scores),
        list(match.out),
        match.eggs,
        match.finished,
        match.winners,
        match.deal_no,
        match.dealer,
        match.next_leader,
        len(match.history),
    )


def next_clockwise(seat: int, seats: tuple[int, ...], players: int) -> int:
    for i in range(1, players + 1):
        s = (seat + i) % players
        if s in seats:
            return s
    raise AssertionError("no active seat")


# --- the oracle: RULES.md 1-3 scoring and the end of a match ------------------------------


def expected_deal_end(
    rules: Any,
    points: tuple[int, ...],
    tricks: tuple[int, ...],
    scores: list[int],
    out: list[bool],
    eggs: bool,
) -> dict[str, Any]:
    """What a finished deal must score and whether the match ends (independent of Match)."""
    n = rules.sides
    if rules.scoring == "sixty":
        new = [a + b for a, b in zip(scores, points, strict=True)]
        reached = [s for s in range(n) if new[s] >= SIXTY]
        finished = False
        winners: tuple[int, ...] = ()
        if reached:
            top = max(new[s] for s in reached)
            best = [s for s in reached if new[s] == top]
            if len(best) == 1:
                finished, winners = True, (best[0],)
        return {
            "scored": list(points),
            "score": new,
            "out": out,
            "eggs": False,
            "finished": finished,
            "winners": winners,
            "doubled": False,
            "outcome": "normal",
        }
    if rules.scoring == "halves":
        best = [s for s in range(n) if points[s] >= SIXTY]
        single = len(best) == 1
        return {
            "scored": list(points),
            "score": list(points),
            "out": out,
            "eggs": False,
            "finished": single,
            "winners": (best[0],) if single else (),
            "doubled": False,
            "outcome": "normal" if single else "void",
        }

    # penalty: kozel (option tie) and kozel-4 (60:60 is plain eggs)
    tie = rules.options.get("tie", "eggs")
    sides = [s for s in range(n) if not out[s]]
    factor = 2 if eggs else 1
    scored = [0] * n
    top = max(points[s] for s in sides)
    leaders = [s for s in sides if points[s] == top]
    new_eggs = False
    if len(sides) == 2 and len(leaders) == 2:  # 60:60
        assert points[sides[0]] == points[sides[1]] == 60
        if tie == "both_two":
            for s in sides:
                scored[s] = 2 * factor
            outcome = "tie"
        else:
            outcome = "eggs"
            new_eggs = tie == "eggs_double"
    else:
        outcome = "normal"
        save = 21 if len(sides) == 3 else 31
        for s in sides:
            if s in leaders:
                scored[s] = 0 if len(leaders) == 1 else 2 * factor
            elif points[s] >= save:
                scored[s] = 2 * factor
            elif tricks[s] > 0:
                scored[s] = 4 * factor
            else:
                scored[s] = 6 * factor
    new = [a + b for a, b in zip(scores, scored, strict=True)]
    gone = [s for s in sides if new[s] >= PENALTY_LIMIT]
    remaining = [s for s in sides if s not in gone]
    new_out = [o or s in gone for s, o in enumerate(out)]
    finished, winning = False, []
    if gone:
        if rules.players == 3 and len(remaining) >= 2:
            pass  # the two left play on head to head
        elif len(remaining) == 1:
            finished, winning = True, remaining
        elif not remaining:
            low = min(new[s] for s in gone)
            finished, winning = True, [s for s in gone if new[s] == low]
        else:
            raise AssertionError("unreachable")
    winners = tuple(seat for s in winning for seat in rules.side_seats(s))
    return {
        "scored": scored,
        "score": new,
        "out": new_out,
        "eggs": new_eggs,
        "finished": finished,
        "winners": winners,
        "doubled": eggs and outcome != "eggs",
        "outcome": outcome,
    }


# --- the per-action checker ----------------------------------------------------------------


class Checker:
    """Follows one match and checks every invariant after every action."""

    def __init__(self, match: Match) -> None:
        self.match = match
        self.rules = match.rules
        self.deck_total = deck_points(self.rules.deck)
        self.secret: dict[int, set[int]] = {}  # owner seat -> cards thrown face down this deal
        self.trick_no = match.deal.trick_no
        self.deal_ends: list[DealEnded] = []
        self.match_ended: MatchEnded | None = None
        self.actions = 0
        self.check_deal_start(match.deal, None, None)
        for e in match.start_events:
            event_card_fields_are_text(e)
        self.check_state()

    # what is hidden from a viewer ---------------------------------------------------------

    def hidden_from(self, viewer: int | None) -> set[str]:
        d = self.match.deal
        hidden: set[int] = set(d.stock) | set(d.reserve)
        for s in range(self.rules.players):
            if s != viewer:
                hidden.update(d.hands[s])
                hidden.update(self.secret.get(s, ()))
        for s, kind, cards in d.plays:
            if kind == "throw" and s != viewer:
                hidden.update(cards)
        hidden.discard(d.trump_card)  # shown to everybody
        return texts(hidden)

    def hidden_in_old_deal(self, d: Any) -> set[str]:
        """What the public may not see of a deal that just ended (or goes on)."""
        hidden: set[int] = set(d.stock) | set(d.reserve)
        for h in d.hands:
            hidden.update(h)
        for cards in self.secret.values():
            hidden.update(cards)
        for _s, kind, cards in d.plays:
            if kind == "throw":
                hidden.update(cards)
        hidden.discard(d.trump_card)
        return texts(hidden)

    # state checks ----------------------------------------------------------------------

    def check_state(self) -> None:
        m, rules = self.match, self.rules
        d = m.deal
        # every card in exactly one place
        cards = d.all_cards()
        assert len(cards) == len(set(cards)), "a card lies in two places"
        assert sorted(cards) == sorted(d.deck) == sorted(rules.deck), "a card is missing"
        # who may act
        acting = m.to_act()
        assert len(set(acting)) == len(acting)
        if m.finished:
            assert acting == ()
        for seat in range(rules.players):
            legal = m.legal_actions(seat)
            assert len(set(legal)) == len(legal), f"seat {seat}: duplicate legal actions"
            if seat in acting:
                assert legal, f"seat {seat} is in to_act {acting} but has no legal action"
            else:
                assert not legal, f"seat {seat} is not in to_act {acting} but may {legal[0]}"
            for a in legal:
                assert m.check(seat, a) is None, f"legal {a} of seat {seat} fails check"
                if a.kind == "declare":  # rare: its cards under every other kind
                    for kind in KINDS:
                        alias = Action(kind, a.cards)
                        assert alias in legal or m.check(seat, alias) is not None, (
                            f"{alias} by seat {seat} is not legal but passes check"
                        )
        for seat in (-1, rules.players):
            assert m.legal_actions(seat) == [], f"seat {seat} (no such seat) has actions"
        if acting:
            assert set(acting) <= set(d.seats)
            assert acting[0] == d.to_move
        # what the table and each seat see
        public = observe(m, None)
        assert public.hand == ()
        pub = public.to_json()
        leak = card_strings(pub) & self.hidden_from(None)
        assert not leak, f"the public view shows hidden cards {sorted(leak)}"
        for seat in range(rules.players):
            obs = observe(m, seat)
            assert obs.hand == tuple(sorted(d.hands[seat]))
            leak = card_strings(obs.to_json()) & self.hidden_from(seat)
            assert not leak, f"seat {seat}'s view shows hidden cards {sorted(leak)}"

    def check_deal_start(self, d: Any, prev_dealer: int | None, prev_deal: Any) -> None:
        m, rules = self.match, self.rules
        active = m.active_seats
        assert d.seats == active, "the deal must skip exactly the seats that are out"
        if prev_dealer is not None:
            assert d.dealer == next_clockwise(prev_dealer, active, rules.players), (
                "the deal passes clockwise to the next active seat"
            )
        left = next_clockwise(d.dealer, active, rules.players)
        if settings_of(rules).next_leader == "last_trick" and prev_deal is not None:
            assert d.leader == prev_deal.last_winner, "kozel-4: last trick's winner leads"
        else:
            assert d.leader == left, "the player left of the dealer leads"
        assert d.to_move == d.leader and not d.plays
        for s in range(rules.players):
            assert len(d.hands[s]) == (rules.hand_size if s in active else 0)
        assert d.trump == d.trump_card // 9
        if rules.trump_mode == "turn":
            assert d.stock[0] == d.trump_card, "the turned card is drawn last"
            assert len(d.stock) % len(active) == 0, "stock sizes are multiples of the seats"
        elif rules.trump_mode == "middle":
            assert d.trump_card in d.stock[1:-1], "kozel-4 shows a card from the middle"
        else:
            left_hand = d.hands[left]
            assert d.trump_card == d.deck[rules.hand_size * len(active) - len(active)]
            assert d.trump_card in left_hand, "halves: the shown card stays in the hand"
        self.secret = {}
        self.trick_no = d.trick_no

    # an illegal action changes nothing ------------------------------------------------------

    def random_illegal(self, rnd: random.Random) -> tuple[int, Action]:
        m, rules = self.match, self.rules
        d = m.deal
        seats = list(range(rules.players))
        seat = rnd.choice([*seats, *seats, *seats, -1, rules.players])
        hand = list(d.hands[seat]) if 0 <= seat < rules.players else []
        pool = list(rules.deck)
        legal = m.legal_actions(seat) if 0 <= seat < rules.players else []
        if not legal:
            legal = m.legal_actions(d.to_move)
        how = rnd.randrange(6)
        declares = [a for a in legal if a.kind == "declare"]
        if declares and rnd.random() < 0.5:
            base = declares[0]  # rare and special: mutate it often (e.g. into a "lead")
        else:
            base = rnd.choice(legal) if legal else Action("lead", (pool[0],))
        cards = list(base.cards)
        kind = base.kind
        if how == 0:  # another kind
            kind = rnd.choice([k for k in KINDS if k != kind] + ["lead", "pass"])
        elif how == 1 and cards:  # a card fewer
            cards.pop(rnd.randrange(len(cards)))
        elif how == 2:  # a card more, from the hand or anywhere
            extra = [c for c in (hand if hand and rnd.random() < 0.5 else pool) if c not in cards]
            if extra:
                cards.append(rnd.choice(extra))
        elif how == 3 and cards:  # one card swapped for another
            i = rnd.randrange(len(cards))
            cards[i] = rnd.choice([c for c in pool if c not in cards])
        elif how == 4 and cards:  # a card named twice
            if len(cards) > 1:
                cards[rnd.randrange(1, len(cards))] = cards[0]
            else:
                cards.append(cards[0])
        else:  # anything
            kind = rnd.choice(KINDS)
            source = hand + pool if hand else pool
            k = rnd.randrange(0, 6)
            cards = [rnd.choice(source) for _ in range(k)]
            if rnd.random() < 0.8:
                cards = list(dict.fromkeys(cards))
        return seat, Action(kind, tuple(sorted(cards)))

    def try_illegal(self, rnd: random.Random) -> None:
        m = self.match
        for _ in range(10):
            seat, act = self.random_illegal(rnd)
            legal = m.legal_actions(seat) if 0 <= seat < self.rules.players else []
            if act not in legal:
                break
        else:
            return
        reason = m.check(seat, act)
        assert reason is not None, f"{act} by seat {seat} is not legal but passes check"
        full = rnd.random() < 0.1  # now and then the whole log and every seat's view
        before = snapshot(m, full=full)
        with pytest.raises(IllegalAction) as info:
            m.apply(seat, act)
        assert info.value.code == reason
        assert snapshot(m, full=full) == before, f"the illegal {act} by seat {seat} changed it"

    # after a legal action ---------------------------------------------------------------

    def after(self, old_deal: Any, state: dict[str, Any], events: list[Any]) -> None:
        m = self.match
        self.actions += 1
        for e in events:
            event_card_fields_are_text(e)
        # face-down cards of a finished trick stay secret for the rest of the deal
        if old_deal.trick_no != self.trick_no:
            assert old_deal.trick_no == self.trick_no + 1, "one action ends at most one trick"
            assert old_deal.last_trick is not None
            for s, kind, cards in old_deal.last_trick[1]:
                if kind == "throw":
                    self.secret.setdefault(s, set()).update(cards)
            self.trick_no = old_deal.trick_no
        starts = [i for i, e in enumerate(events) if isinstance(e, DealStarted)]
        cut = starts[0] if starts else len(events)
        hidden = self.hidden_in_old_deal(old_deal)
        for e in events[:cut]:
            leak = card_strings(e.to_json()) & hidden
            assert not leak, f"event {e.to_json()} shows hidden cards {sorted(leak)}"
        ended = [e for e in events if isinstance(e, DealEnded)]
        matches_ended = [e for e in events if isinstance(e, MatchEnded)]
        assert len(ended) <= 1 and len(starts) <= 1 and len(matches_ended) <= 1
        if ended:
            self.check_deal_end(old_deal, ended[0], state, events)
        else:
            assert not old_deal.finished and m.deal is old_deal and not starts
            assert not matches_ended and not any(isinstance(e, SideOut) for e in events)
        if matches_ended:
            assert m.finished and ended
            assert matches_ended[0].winners == m.winners
            assert matches_ended[0].score == tuple(m.scores)
            self.match_ended = matches_ended[0]
        if starts:
            assert not m.finished and ended and cut == len(events) - 1
            self.check_deal_start(m.deal, state["dealer"], old_deal)
            new_hidden = self.hidden_from(None)
            leak = card_strings(events[cut].to_json()) & new_hidden
            assert not leak, f"the deal start shows hidden cards {sorted(leak)}"
        elif ended:
            assert m.finished, "a deal ended but no new deal started"
        self.check_state()

    def check_deal_end(self, d: Any, ended: DealEnded, state: dict[str, Any], events: list[Any]) -> None:
        m, rules = self.match, self.rules
        self.deal_ends.append(ended)
        assert d.finished
        assert not any(d.hands) and not d.stock and not d.reserve and not d.plays
        assert sum(len(p) for p in d.piles) == len(rules.deck)
        assert ended.deal_no == state["deal_no"]
        assert sum(ended.points) == self.deck_total == 120, f"the deal holds {ended.points}"
        assert list(ended.points) == [sum(POINTS[c] for c in p) for p in d.piles]
        for s in range(rules.sides):
            assert (ended.tricks[s] == 0) == (not d.piles[s]), "no trick = an empty pile"
        if rules.scoring == "penalty":
            allowed = {0, 4, 8, 12} if ended.doubled else {0, 2, 4, 6}
            assert set(ended.scored) <= allowed, f"penalties {ended.scored}"
            if settings_of(rules).tie != "eggs_double":
                assert not ended.doubled
        want = expected_deal_end(
            rules, ended.points, ended.tricks, state["scores"], state["out"], state["eggs"]
        )
        assert list(ended.scored) == want["scored"], (ended, want)
        assert list(ended.score) == want["score"] == m.scores, (ended, want)
        assert ended.outcome == want["outcome"], (ended, want)
        assert ended.doubled == want["doubled"], (ended, want)
        assert m.out == want["out"]
        assert m.finished == want["finished"], (ended, want, m.finished)
        assert m.winners == want["winners"]
        if rules.scoring == "penalty":
            assert m.eggs == want["eggs"]
            outs = [e.side for e in events if isinstance(e, SideOut)]
            assert outs == [s for s in range(rules.sides) if want["out"][s] and not state["out"][s]]


# --- the conformance test's hooks (tests/engine/test_conformance.py) -----------------------


class Oracle:
    """The drawing family's checks around each action of a conformance match."""

    def __init__(self, match: Match) -> None:
        self.match = match
        self.checker = Checker(match)

    @staticmethod
    def snapshot(match: Any) -> Any:
        """Everything a replay must reproduce of a match."""
        return snapshot(match)

    def try_illegal(self, rnd: random.Random) -> None:
        self.checker.try_illegal(rnd)

    def apply(self, seat: int, act: Action) -> list[Event]:
        match = self.match
        old_deal = match.deal
        state = {
            "scores": list(match.scores),
            "out": list(match.out),
            "eggs": match.eggs,
            "dealer": match.dealer,
            "deal_no": match.deal_no,
        }
        events = match.apply(seat, act)
        self.checker.after(old_deal, state, events)
        return events

    def finish(self, again: Any, summary: dict[str, Any]) -> None:
        """The finished match and its replay (``again``, ``summary``) agree deal by deal."""
        match, checker = self.match, self.checker
        assert checker.match_ended is not None
        assert [d["points"] for d in summary["deals"]] == [list(e.points) for e in checker.deal_ends]
        assert [d["score"] for d in summary["deals"]] == [list(e.score) for e in checker.deal_ends]
        assert [d["tricks"] for d in summary["deals"]] == [list(e.tricks) for e in checker.deal_ends]
        assert snapshot(again) == snapshot(match)
