"""The Petukh family's oracle (RULES.md 5, 5a) for the conformance test
(tests/engine/test_conformance.py), which plays random legal matches of every preset.

First one illegal action is tried and must raise ``IllegalAction`` and change nothing.
After every action:

- every card of the deck lies in exactly one place;
- exactly the seats in ``to_act()`` have legal actions, each passing ``check``;
- no view (public or another seat's) shows another hand's card, the stock or a discarded
  card, and no event shows one;
- a finished deal's records follow the tables (recomputed here independently), the match
  ends exactly when a record reaches 0 (or on a boys finish).
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

from engine.actions import KINDS, Action
from engine.cards import ACE, CARD_TEXT, JACK, SPADES, make
from engine.errors import IllegalAction
from engine.events import DealStarted, Event, MatchEnded, Played, TrickWon
from engine.families.petukh.match import BoysFinish, DealScored, PetukhMatch
from engine.log import to_log

MAX_DEALS = 1500
_CARD_RE = re.compile(r'"((?:10|[6-9JQKA])[CSHD])"')

CONFIGS: list[tuple[str, int, dict[str, Any]]] = [
    ("petukh", 2, {}),
    ("petukh", 3, {"deck": 36, "start": 20, "trump_swap": "must", "must_beat": True}),
    ("petukh", 4, {"trump_swap": "never", "pass": False, "lead_trump_ace": True, "no_trick_cap": 0}),
    (
        "petukh",
        5,
        {"start": 25, "no_trick_cap": 25, "boys_table": "thirty", "crooked_boys": 3, "spade_ace": True},
    ),
    (
        "petukh",
        6,
        {"start": 30, "crooked_boys": 5, "boys_finish": False, "no_trick_cap": 5, "elimination": True},
    ),
    ("petukh", 2, {"deck": 36, "boys_table": "thirty", "must_beat": True, "no_trick_cap": 10}),
    ("petukh", 3, {"spade_ace": True, "crooked_boys": 5, "no_trick_cap": 15, "lead_trump_ace": True}),
    ("petukh", 4, {"start": 20, "no_trick_cap": 20, "pass": False, "trump_swap": "must"}),
    ("petukh", 5, {"deck": 36}),
    ("petukh", 6, {"must_beat": True, "spade_ace": True, "boys_table": "thirty"}),
    ("petukh-25", 2, {}),
    ("petukh-25", 3, {"deck": 36}),
    ("petukh-25", 4, {"elimination": True}),
]


def _id(config: tuple[str, int, dict[str, Any]]) -> str:
    preset, players, options = config
    return f"{preset}-{players}p-" + ",".join(f"{k}={v}" for k, v in options.items())


def card_strings(obj: Any) -> set[str]:
    return set(_CARD_RE.findall(json.dumps(obj)))


def texts(cards: Any) -> set[str]:
    return {CARD_TEXT[c] for c in cards}


# --- the oracle: RULES.md 5 scoring, written again ------------------------------------------


def combination(jacks: list[int], trump: int, table: str, crooked: int) -> str | None:
    if len(jacks) < 2:
        return None
    if len(jacks) == 4:
        return "four"
    with_trump = trump in [j // 9 for j in jacks]
    if table == "thirty":
        return "three" if len(jacks) == 3 else "coloured" if with_trump else "pair"
    if with_trump:
        return "coloured"
    reds = sum(1 for j in jacks if j // 9 >= 2)
    if reds >= 2 or len(jacks) - reds >= 2:
        return "pair"
    return "crooked" if crooked else None


def expected_change(rules: Any, record: int, tricks: int, combo: str | None, ace: int) -> int:
    if rules.preset == "petukh-25":
        # RULES.md 5a: no boys; no trick +5 (capped at start - 5 = 20, as petukh)
        return -tricks if tricks else (5 if record <= 20 else 0)
    o = rules.options
    cap = o["start"] - 5 if o["no_trick_cap"] == "auto" else o["no_trick_cap"]
    took = {"pair": -5, "coloured": -10, "three": -12, "four": -15, "crooked": -o["crooked_boys"], None: 0}[
        combo
    ]
    if o["boys_table"] == "thirty":
        none = {"pair": 10, "coloured": 15, "three": 15, "four": 15}.get(combo or "")
    else:
        none = {"pair": 0, "coloured": -5, "four": -10}.get(combo or "")
    if tricks:
        change = -tricks + took
    elif none is not None:
        change = none
    else:
        change = 5 if record <= cap else 0
    return change + ace


# --- the per-action checker ----------------------------------------------------------------


class Checker:
    def __init__(self, match: PetukhMatch) -> None:
        self.m = match
        self.rules = match.rules
        self.start = 25 if self.rules.preset == "petukh-25" else self.rules.options["start"]
        self.new_deal()
        for e in match.start_events:
            assert not card_strings(e.to_json()) - {CARD_TEXT[match.deal.trump_card]}
        self.check_state()

    def new_deal(self) -> None:
        m = self.m
        self.records = list(m.scores)
        self.combo: dict[int, str | None] = {}
        self.owner: dict[int, int] = {}
        self.ace = [0] * self.rules.players
        self.tricks = [0] * self.rules.players
        self.passed: set[int] = set()
        assert [len(h) for h in m.deal.hands] == [5] * self.rules.players
        assert m.scores == self.records and m.deal.phase in ("exchange", "swap", "play")

    def shown(self) -> set[int]:
        """Cards of hands that are public: the trump card, declared boys."""
        out = {self.m.deal.trump_card}
        for _combo, cards in self.m.deal.boys.values():
            out.update(cards)
        return out

    def hidden_from(self, viewer: int | None) -> set[str]:
        m = self.m
        hidden = set(m.deal.stock) | set(m.deal.discards)
        for s in range(self.rules.players):
            if s != viewer:
                hidden.update(m.deal.hands[s])
        return texts(hidden - self.shown())

    def check_state(self) -> None:
        m, rules = self.m, self.rules
        cards = m.deal.all_cards()
        assert len(cards) == len(set(cards)) and sorted(cards) == sorted(rules.deck)
        assert m.audit() is None
        acting = m.to_act()
        assert len(acting) == (0 if m.finished else 1)
        for seat in range(-1, rules.players + 1):
            legal = m.legal_actions(seat)
            assert len(set(legal)) == len(legal)
            assert bool(legal) == (seat in acting), (seat, acting, legal)
            for a in legal:
                assert m.check(seat, a) is None
        pub = m.observe(None)
        assert pub.hand == ()
        leak = card_strings(pub.to_json()) & self.hidden_from(None)
        assert not leak, f"public view shows {leak}"
        for seat in range(rules.players):
            obs = m.observe(seat)
            assert obs.hand == tuple(sorted(m.deal.hands[seat]))
            leak = card_strings(obs.to_json()) & self.hidden_from(seat)
            assert not leak, f"seat {seat} sees {leak}"
            assert obs.phase == m.deal.phase and obs.scores == tuple(m.scores)

    def try_illegal(self, rnd: random.Random) -> None:
        m, rules = self.m, self.rules
        seat = rnd.choice([*range(-1, rules.players + 1), *m.to_act() * 4])
        legal = m.legal_actions(m.to_act()[0])
        base = rnd.choice(legal)
        cards = list(base.cards)
        how = rnd.randrange(4)
        kind = base.kind
        if how == 0:
            kind = rnd.choice(KINDS)
        elif how == 1:
            cards.append(rnd.choice(rules.deck))
        elif how == 2 and cards:
            cards[0] = rnd.choice(rules.deck)
        else:
            kind, cards = rnd.choice(KINDS), [rnd.choice(rules.deck) for _ in range(2)]
        act = Action(kind, tuple(sorted(cards)))
        if 0 <= seat < rules.players and act in m.legal_actions(seat):
            return
        reason = m.check(seat, act)
        assert reason is not None
        before = json.dumps([m.to_state(), m.observe(None).to_json(), to_log(m)])
        with pytest.raises(IllegalAction) as info:
            m.apply(seat, act)
        assert info.value.code == reason
        assert json.dumps([m.to_state(), m.observe(None).to_json(), to_log(m)]) == before

    def step(self, seat: int, act: Action) -> list[Event]:
        m = self.m
        hidden = set(m.deal.stock) | set(m.deal.discards) | {c for h in m.deal.hands for c in h}
        hidden -= self.shown()
        revealed = set(act.cards) if act.kind == "play" else set()
        jacks = sorted(c for c in m.deal.hands[seat] if c % 9 == JACK)
        if act.kind == "play" and act.cards[0] % 9 == JACK and seat not in self.combo:
            self.combo[seat] = (
                combination(
                    jacks,
                    m.deal.trump,
                    self.rules.options.get("boys_table", "standard"),
                    self.rules.options.get("crooked_boys", 0),
                )
                if self.rules.preset == "petukh"
                else None
            )
            revealed |= set(jacks)
        if act.kind == "finish":
            revealed |= set(jacks)
        if act.kind == "pass":
            self.passed.add(seat)
        events = m.apply(seat, act)
        starts = [i for i, e in enumerate(events) if isinstance(e, DealStarted)]
        cut = starts[0] if starts else len(events)
        for e in events[:cut]:
            leak = card_strings(e.to_json()) & texts(hidden - revealed)
            assert not leak, f"{e} shows {leak}"
            if isinstance(e, Played):
                self.owner[e.card] = e.seat
            if isinstance(e, TrickWon):
                self.tricks[e.seat] += 1
                if self.rules.options.get("spade_ace") and make(ACE, SPADES) in e.face_up:
                    owner = self.owner[make(ACE, SPADES)]
                    self.ace[owner] += -5 if owner == e.seat else 5
        scored = [e for e in events if isinstance(e, DealScored)]
        if scored:
            self.check_deal_end(scored[0], events)
        else:
            assert not starts and not m.finished
        if starts:
            assert not m.finished
            assert all(e.name == "play_started" for e in events[cut + 1 :])
            self.new_deal()
            for e in events[cut:]:
                assert not card_strings(e.to_json()) & self.hidden_from(None)
        self.check_state()
        return events

    def check_deal_end(self, d: DealScored, events: list[Event]) -> None:
        m, n = self.m, self.rules.players
        finish = [e for e in events if isinstance(e, BoysFinish)]
        assert d.tricks == tuple(self.tricks) and set(d.passed) == self.passed
        want = list(self.records)
        if finish:
            want[finish[0].seat] = 0
        else:
            for s in range(n):
                if s in self.passed:
                    continue
                new = self.records[s] + expected_change(
                    self.rules, self.records[s], self.tricks[s], self.combo.get(s), self.ace[s]
                )
                want[s] = new if new >= 0 else self.start
        assert list(d.records) == want, (d, want, self.records, self.combo)
        assert m.scores == want
        winners = tuple(s for s in range(n) if want[s] == 0)
        assert m.finished == bool(winners) and m.winners == winners
        ended = [e for e in events if isinstance(e, MatchEnded)]
        assert bool(ended) == m.finished
        if m.finished:
            losers = [s for s in range(n) if s not in winners]
            if losers:
                top = max(want[s] for s in losers)
                assert set(m.roosters) == {s for s in losers if want[s] == top}
            assert set(m.debts) == {(lo, w, want[lo]) for lo in losers for w in winners}


class Oracle:
    """The Petukh family's checks around each action of a conformance match."""

    def __init__(self, match: PetukhMatch) -> None:
        self.match = match
        self.checker = Checker(match)

    @staticmethod
    def snapshot(match: Any) -> Any:
        """Everything a replay must reproduce of a match."""
        return json.loads(json.dumps(match.to_state()))

    def try_illegal(self, rnd: random.Random) -> None:
        self.checker.try_illegal(rnd)

    def apply(self, seat: int, act: Action) -> list[Event]:
        return self.checker.step(seat, act)

    def finish(self, again: Any, summary: dict[str, Any]) -> None:
        assert again.scores == self.match.scores and again.winners == self.match.winners
