"""The permanent-trump family's oracle (RULES.md 4) for the conformance test
(tests/engine/test_conformance.py), which plays random legal matches of every preset.

First an *illegal* action is tried and must raise ``IllegalAction`` and change nothing.
After every action ``Checker`` verifies:

- every card of the deck lies in exactly one place (``audit`` and our own count);
- exactly the seats in ``to_act()`` have legal actions, each passing ``check``;
- no observation (public or another seat's) shows a card of another hand, of the undealt
  deck, or a face-down laid card; no event shows a card hidden before the action;
- a deal played to its end holds 120 card points (unless a catch or the third redeal ended
  it); its score follows RULES.md 4a-4c (recomputed here); the match ends when the rules say.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

from engine.actions import Action
from engine.cards import CARD_TEXT
from engine.errors import IllegalAction
from engine.events import DealEnded, Event, MatchEnded
from engine.families.trump.match import Lyusya, QueenCaught, RedealPenalty, TrumpMatch

CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("kozel-hvalenyi", {"deck": 36, "lyusya": "match"}),
    ("kozel-hvalenyi", {"deck": 32, "lyusya": "reset"}),
    ("kozel-hvalenyi", {"deck": 36, "lyusya": "reset"}),
    ("kozel-nn", {}),
    ("kozel-kocherga", {"trump_suit": "clubs", "ace_rule": False, "lyusya": "match"}),
    ("kozel-kocherga", {"trump_suit": "spades", "ace_rule": True, "lyusya": "reset"}),
    ("kozel-kocherga", {"trump_suit": "hearts", "ace_rule": True, "lyusya": "match"}),
    ("kozel-kocherga", {"trump_suit": "diamonds", "ace_rule": False, "lyusya": "reset"}),
]
_CARD_RE = re.compile(r'"((?:10|[6-9JQKA])[CSHD])"')


def card_strings(obj: Any) -> set[str]:
    return set(_CARD_RE.findall(json.dumps(obj)))


def texts(cards: Any) -> set[str]:
    return {CARD_TEXT[x] for x in cards}


def _id(config: tuple[str, dict[str, Any]]) -> str:
    preset, options = config
    return preset + "".join(f"-{k}={v}" for k, v in options.items())


class Checker:
    def __init__(self, match: TrumpMatch) -> None:
        self.m = match
        self.nn = match.rules.preset == "kozel-nn"
        self.scores = [0, 0]
        self.eggs = False
        self.moment = match.moment
        self.check_state()

    def hidden(self, viewer: int | None) -> set[str]:
        m = self.m
        out: set[int] = set(m.deal.stock)
        for s in range(4):
            if s != viewer:
                out.update(m.deal.hands[s])
        if viewer != m.deal.boaster:
            out.update(m.deal.laid)
        return texts(out)

    def check_state(self) -> None:
        m = self.m
        assert m.audit() is None
        cards = m.deal.all_cards()
        assert len(cards) == len(set(cards)) and sorted(cards) == sorted(m.rules.deck)
        acting = m.to_act()
        assert len(set(acting)) == len(acting)
        if m.finished:
            assert acting == ()
        for seat in range(4):
            legal = m.legal_actions(seat)
            assert len(set(legal)) == len(legal)
            assert bool(legal) == (seat in acting), (seat, acting, legal)
            for a in legal:
                assert m.check(seat, a) is None
        for seat in (-1, 4):
            assert m.legal_actions(seat) == []
        for viewer in (None, 0, 1, 2, 3):
            obs = m.observe(viewer)
            assert obs.to_move == (acting[0] if acting else -1)
            leak = card_strings(obs.to_json()) & self.hidden(viewer)
            assert not leak, f"{viewer} sees {leak}"
            if viewer is None:
                assert obs.hand == ()
                assert obs.moment >= self.moment
                self.moment = obs.moment

    def hidden_for_events(self, action: Action) -> tuple[set[str], set[str]]:
        m = self.m
        hands: set[int] = set(m.deal.stock)
        for h in m.deal.hands:
            hands.update(h)
        hands -= set(action.cards) if action.kind in ("play", "cover") else set()
        face_down = set(m.deal.laid) | (set(action.cards) if action.kind == "lay" else set())
        return texts(hands), texts(face_down)

    def after(self, events: list[Event], before: tuple[set[str], set[str]], dealer: int) -> None:
        hidden, laid = before
        for e in events:
            shown = card_strings(e.to_json())
            assert not shown & hidden, f"{e} shows hidden cards"
            if type(e).__name__ not in ("BoastRevealed", "PileWon"):
                assert not shown & laid, f"{e} shows a face-down card"
        ended = [e for e in events if isinstance(e, DealEnded)]
        if ended:
            self.deal_end(ended[0], events, dealer)
        self.check_state()

    def deal_end(self, e: DealEnded, events: list[Event], dealer: int) -> None:
        m = self.m
        rec = next(r for r in reversed(m.history) if r.result is not None)
        assert rec.result is not None and rec.result["outcome"] == e.outcome
        points = rec.result["points"]
        if e.outcome in ("caught", "redeals"):
            assert points is None
        else:
            assert points is not None and sum(points) == 120 and tuple(points) == e.points
        scored = [0, 0]
        winner: int | None = None
        bonus = 2 if self.eggs else 0
        factor = 2 if self.eggs else 1
        if e.outcome == "redeals":
            assert self.nn and any(isinstance(x, RedealPenalty) for x in events)
            scored[dealer % 2] = 2
        elif e.outcome == "caught":
            caught = next(x for x in events if isinstance(x, QueenCaught))
            assert caught.seat % 2 != caught.victim % 2
            if self.nn:
                scored[caught.victim % 2] = 4 * factor
            else:
                scored[caught.seat % 2] = 4 + bonus
            self.eggs = False
        elif e.outcome == "lyusya":
            assert not self.nn
            side = next(x for x in events if isinstance(x, Lyusya)).side
            assert e.tricks[1 - side] == 0 and e.points[side] == 120
            if m.rules.options["lyusya"] == "match":
                winner = side
            else:
                scored[side] = 4 + bonus
                scored[1 - side] = -self.scores[1 - side]
                self.eggs = False
        elif e.outcome == "eggs":
            assert e.points == (60, 60)
            self.eggs = True
        else:
            assert e.outcome == "normal"
            if self.nn:
                loser = 0 if e.points[0] < e.points[1] else 1
                p = e.points[loser]
                scored[loser] = (6 if p == 0 else 4 if p <= 30 else 2) * factor
            else:
                assert min(e.tricks) > 0
                win = 0 if e.points[0] > 60 else 1
                scored[win] = (4 if e.points[win] >= 91 else 2) + bonus
            self.eggs = False
        assert tuple(scored) == e.scored, (e, scored)
        self.scores = [a + b for a, b in zip(self.scores, scored, strict=True)]
        assert self.scores == list(e.score) == m.scores
        assert m.eggs == self.eggs
        reached = [s for s in (0, 1) if self.scores[s] >= 12]
        if winner is None and reached:
            winner = 1 - reached[0] if self.nn else reached[0]
        assert m.finished == (winner is not None)
        if winner is not None:
            assert m.winners == (winner, winner + 2)
            assert any(isinstance(x, MatchEnded) for x in events)


def illegal_candidate(m: TrumpMatch, rng: random.Random) -> tuple[int, Action]:
    kind = rng.choice(["play", "cut", "lay", "cover", "redeal", "keep", "reboast", "swap"])
    seat = rng.randrange(-1, 5)
    if kind == "cut":
        return seat, Action("cut", (rng.choice([0, 36, 40, 1, 17]),))
    n = 0 if kind in ("redeal", "keep", "reboast") else rng.choice([1, 1, 2])
    return seat, Action(kind, tuple(sorted(rng.sample(range(36), n))))


class Oracle:
    """The permanent-trump family's checks around each action of a conformance match."""

    def __init__(self, match: TrumpMatch) -> None:
        self.match = match
        self.checker = Checker(match)

    @staticmethod
    def snapshot(match: Any) -> Any:
        """Everything a replay must reproduce of a match."""
        return json.loads(json.dumps(match.to_state()))

    def try_illegal(self, rnd: random.Random) -> None:
        """An illegal action raises and changes nothing."""
        m = self.match
        seat, bad = illegal_candidate(m, rnd)
        if 0 <= seat < 4 and bad in m.legal_actions(seat):
            return
        state = json.dumps(m.to_state(), sort_keys=True)
        public = json.dumps(m.observe(None).to_json(), sort_keys=True)
        with pytest.raises(IllegalAction):
            m.apply(seat, bad)
        assert json.dumps(m.to_state(), sort_keys=True) == state
        assert json.dumps(m.observe(None).to_json(), sort_keys=True) == public

    def apply(self, seat: int, act: Action) -> list[Event]:
        before = self.checker.hidden_for_events(act)
        dealer = self.match.dealer
        events = self.match.apply(seat, act)
        self.checker.after(events, before, dealer)
        return events

    def finish(self, again: Any, summary: dict[str, Any]) -> None:
        assert again.scores == self.match.scores and again.winners == self.match.winners
