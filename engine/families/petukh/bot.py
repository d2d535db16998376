"""The Petukh family's rules-based computer player (RULES.md 5): ``rules_choice``."""

from __future__ import annotations

import random

from engine.actions import Action
from engine.cards import JACK, Card
from engine.families.petukh.rules import STANDARD_BOYS, THIRTY_BOYS, Play, best_boys, trick_winner
from engine.families.petukh.view import PetukhExtras
from engine.observation import Observation


def _strength(card: Card, trump: int) -> float:
    """A rough chance that the card takes a trick."""
    r = card % 9
    if card // 9 == trump:
        return 0.45 + 0.07 * r
    return {8: 0.75, 7: 0.4, 6: 0.15}.get(r, 0.0)


def _extras(obs: Observation) -> PetukhExtras:
    assert isinstance(obs.extras, PetukhExtras), "a Petukh observation"
    return obs.extras


def _target(obs: Observation, me: int) -> int:
    """How many tricks the player wants this deal: his record less his boys, or all."""
    record = obs.scores[me]
    hand = obs.hand
    x = _extras(obs)
    table = x.boys_table
    combo = None
    declared = [b for b in x.boys if b.seat == me]
    if declared:
        combo = declared[0].combination
    elif table is not None:
        jacks = [c for c in hand if c % 9 == JACK]
        combo = best_boys(jacks, obs.trump, table, x.crooked_boys)
    took = 0
    if combo is not None:
        tbl = THIRTY_BOYS if table == "thirty" else STANDARD_BOYS
        took = tbl[combo][0] if combo in tbl else -x.crooked_boys
    return record + took  # tricks that bring the record to exactly 0


def rules_choice(obs: Observation, legal: list[Action], rng: random.Random, on_move: bool) -> Action | None:
    """A sensible Petukh player (RULES.md 5): exchange weak cards, pass a hopeless hand
    when sitting out beats the +5, take tricks while the record is high, stop at exactly 0,
    show boys and finish with them."""
    if not legal or obs.seat is None:
        return None
    me = obs.seat
    kinds = {a.kind for a in legal}
    if "finish" in kinds:
        return Action("finish")
    trump = obs.trump
    if obs.phase == "swap":
        swaps = [a for a in legal if a.kind == "swap"]
        if not swaps:
            return legal[0]
        worst = min(swaps, key=lambda a: (_keep_value(a.cards[0], trump), a.cards[0]))
        face = obs.trump_card
        if face is None or _keep_value(face, trump) > _keep_value(worst.cards[0], trump):
            return worst
        return next((a for a in legal if a.kind == "keep"), worst)
    if obs.phase == "exchange":
        return _exchange_choice(obs, legal, me)
    return _play_choice(obs, legal, me)


def _keep_value(card: Card, trump: int) -> float:
    v = _strength(card, trump)
    if card % 9 == JACK:
        v += 0.5  # boys
    return v


def _exchange_choice(obs: Observation, legal: list[Action], me: int) -> Action:
    trump = obs.trump
    hand = obs.hand
    expected = sum(_strength(c, trump) for c in hand)
    record = obs.scores[me]
    cap = _extras(obs).no_trick_cap
    fined = cap is None or record <= cap
    weak = sorted((c for c in hand if _keep_value(c, trump) < 0.35), key=lambda c: (_keep_value(c, trump), c))
    exchanges = {a.cards: a for a in legal if a.kind == "exchange"}
    can_pass = any(a.kind == "pass" for a in legal)
    if can_pass and fined and expected < 0.5 and (not exchanges or len(weak) >= 4):
        return Action("pass")
    while weak:
        act = exchanges.get(tuple(sorted(weak)))
        if act is not None:
            return act
        weak.pop()  # the stock is short: change the weakest cards only
    if can_pass and fined and expected < 0.4:
        return Action("pass")
    return Action("keep") if Action("keep") in legal else legal[0]


def _play_choice(obs: Observation, legal: list[Action], me: int) -> Action:
    trump = obs.trump
    plays = [a for a in legal if a.kind == "play"]
    if not plays:
        return legal[0]
    taken = obs.tricks[me]
    target = _target(obs, me)
    want = taken < target  # take more tricks
    if not obs.trick:
        # leading: strong cards when tricks are wanted, else the lowest
        def lead_key(a: Action) -> tuple[float, int]:
            return _strength(a.cards[0], trump), a.cards[0] % 9

        return max(plays, key=lead_key) if want else min(plays, key=lead_key)
    led = obs.trick[0][2]
    assert led is not None
    current = [Play(s, k, cs or ()) for s, k, cs, _n in obs.trick]
    winners: list[Action] = []
    losers: list[Action] = []
    for a in plays:
        trial = [*current, Play(me, "play", a.cards)]
        (winners if trick_winner(trial, trump) == me else losers).append(a)

    def rank(a: Action) -> tuple[int, int]:
        c = a.cards[0]
        return (1 if c // 9 == trump else 0, c % 9)

    skip = next((a for a in legal if a.kind == "skip"), None)
    if want:
        if winners:
            return min(winners, key=rank)
        return min(plays, key=rank)
    if losers:
        return max(losers, key=rank)
    if skip is not None:
        return skip
    return min(plays, key=rank)
