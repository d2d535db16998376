"""The permanent-trump family's rules-based computer player (RULES.md 4): ``rules_choice``."""

from __future__ import annotations

import random
from collections.abc import Callable

from engine.actions import Action
from engine.cards import KOZEL_STRENGTH, POINTS, Card, parse_card
from engine.families.trump.rules import (
    QUEEN_CLUBS,
    REDEALS_IN_A_ROW,
    TRUMPS,
    Table,
    TrumpPlay,
    settings_of,
    table_for,
)
from engine.families.trump.view import BoastPiles, TrumpExtras
from engine.observation import Observation
from engine.presets import default_rules


def _cost(t: Table, card: Card) -> int:
    """How dear a card is to give up: trumps by strength, then points, then rank."""
    if t.cls[card] == TRUMPS:
        return 60 + t.strength[card] + POINTS[card] * 2
    return POINTS[card] * 3 + KOZEL_STRENGTH[card]


def rules_choice(obs: Observation, legal: list[Action], rng: random.Random, on_move: bool) -> Action | None:
    """A sensible player: win tricks cheaply, save high trumps, smear points onto a partner's
    trick, catch the Q♣, ask for redeals with weak hands, boast with high cards."""
    if not legal:
        return None
    seat = obs.seat if obs.seat is not None else 0
    t = table_for(obs.preset, obs.trump)
    kinds = {a.kind for a in legal}
    if "redeal" in kinds and _want_redeal(obs, t, seat):
        return Action("redeal")
    if not on_move:
        return None
    kind = legal[0].kind
    if kind == "cut":
        return rng.choice(legal)
    if kind in ("reboast", "keep", "lay", "cover"):
        return _boast_choice(obs, legal, t, seat, kind)
    plays = [a for a in legal if a.kind == "play"]
    if not plays:
        return legal[0]
    return _choose_card(obs, t, seat, [a.cards[0] for a in plays])


def _extras(obs: Observation) -> TrumpExtras:
    assert isinstance(obs.extras, TrumpExtras), "a permanent-trump observation"
    return obs.extras


def _boast_choice(obs: Observation, legal: list[Action], t: Table, seat: int, kind: str) -> Action:
    """kozel-nn's boast (RULES.md 4b): keep or boast again, lay, cover."""
    boast = _extras(obs).boast
    if kind in ("reboast", "keep"):
        piles = boast.piles if isinstance(boast, BoastPiles) else ()
        mine = sum(p.points for p in piles if p.winner % 2 == seat % 2)
        theirs = sum(p.points for p in piles if p.winner % 2 != seat % 2)
        return Action("keep") if mine >= theirs else Action("reboast")
    if kind == "lay":
        # face down, the others cover blind: lay strong cards (two when both are)
        def lay_score(a: Action) -> tuple[int, int]:
            strong = all(KOZEL_STRENGTH[c] >= 7 for c in a.cards)
            return (1 if strong and len(a.cards) == 2 else 0, max(KOZEL_STRENGTH[c] for c in a.cards))

        return max((a for a in legal if a.kind == "lay"), key=lay_score)
    if boast is not None and boast.boaster == (seat + 2) % 4:  # the partner boasts
        return max(legal, key=lambda a: sum(POINTS[c] for c in a.cards))
    return min(legal, key=lambda a: sum(_cost(t, c) for c in a.cards))


def _want_redeal(obs: Observation, t: Table, seat: int) -> bool:
    hand = obs.hand
    if settings_of(default_rules(obs.preset, obs.players)).nn:
        if _extras(obs).redeals == REDEALS_IN_A_ROW - 1:
            return obs.dealer % 2 != seat % 2  # the third costs the dealer's team 2
        return True
    trumps = sum(1 for c in hand if t.cls[c] == TRUMPS)
    return trumps < 4 and t.top not in hand


class _Seen:
    """What the player knows of the cards: the table, and the cards no longer out."""

    def __init__(self, obs: Observation, t: Table) -> None:
        self.t = t
        played = {parse_card(x) for x in _extras(obs).played}
        self.gone = played | set(obs.hand)
        # keep the Q♣ away from the 6♣/7♣ while it is out
        self.risky = {QUEEN_CLUBS} if t.top not in self.gone else set()

    def higher_trumps_out(self, card: Card) -> int:
        t = self.t
        return sum(1 for c in t.order if t.strength[c] > t.strength[card] and c not in self.gone)

    def cost(self, card: Card) -> int:
        return _cost(self.t, card) + (200 if card in self.risky else 0)


def _choose_card(obs: Observation, t: Table, seat: int, cards: list[Card]) -> Action:
    if len(cards) == 1:
        return Action("play", (cards[0],))
    seen = _Seen(obs, t)
    trick = [TrumpPlay(s, cs[0]) for s, _k, cs, _n in obs.trick if cs]
    # catch the other team's Q♣ with the 6♣/7♣
    if t.top in cards and any(c == QUEEN_CLUBS and s % 2 != seat % 2 for s, c in trick):
        return Action("play", (t.top,))
    if not trick:
        return Action("play", (_lead(t, cards, seen.gone, seen.cost, seen.higher_trumps_out),))
    return Action("play", (_answer(seen, trick, seat, cards),))


def _answer(seen: _Seen, trick: list[TrumpPlay], seat: int, cards: list[Card]) -> Card:
    t, cost = seen.t, seen.cost
    led = t.cls[trick[0][1]]
    win_seat = t.winner(trick)
    win_card = next(c for s, c in trick if s == win_seat)
    last = len(trick) == 3
    if win_seat % 2 == seat % 2:
        safe = last or (t.cls[win_card] == TRUMPS and seen.higher_trumps_out(win_card) == 0)
        if safe:
            # smear: the most points that are not dear trumps
            return max(
                cards,
                key=lambda c: (
                    POINTS[c] * 3
                    - (60 + t.strength[c] if t.cls[c] == TRUMPS else 0)
                    - (200 if c in seen.risky else 0)
                ),
            )
        return min(cards, key=cost)
    winners = [c for c in cards if t.key(c, led) > t.key(win_card, led)]
    if winners:
        best = _best_winner(seen, winners, led, last)
        gain = sum(POINTS[c] for _s, c in trick) + POINTS[best]
        if gain >= 4 or t.cls[best] != TRUMPS or cost(best) < 110 or last and gain > 0:
            return best
    return min(cards, key=cost)


def _best_winner(seen: _Seen, winners: list[Card], led: int, last: bool) -> Card:
    """The cheapest card that takes the trick; not last: one nobody left can beat first."""
    t = seen.t
    if last:
        return min(winners, key=seen.cost)
    sure = [c for c in winners if t.cls[c] == TRUMPS and seen.higher_trumps_out(c) == 0]
    plain_sure = [
        c
        for c in winners
        if t.cls[c] != TRUMPS and t.cls[c] == led and led != TRUMPS and KOZEL_STRENGTH[c] >= 7
    ]
    return min(sure or plain_sure or winners, key=seen.cost)


def _lead(
    t: Table,
    cards: list[Card],
    gone: set[Card],
    cost: Callable[[Card], int],
    higher_trumps_out: Callable[[Card], int],
) -> Card:
    trumps = [c for c in cards if t.cls[c] == TRUMPS]
    plain = [c for c in cards if t.cls[c] != TRUMPS]
    # a plain master card (nothing higher of its suit is out) brings its points home
    masters = [
        c
        for c in plain
        if all(
            KOZEL_STRENGTH[o] <= KOZEL_STRENGTH[c]
            for o in range(36)
            if t.cls[o] == t.cls[c] and o not in gone
        )
    ]
    if masters:
        return max(masters, key=lambda c: POINTS[c])
    top_trumps = [c for c in trumps if higher_trumps_out(c) == 0]
    if top_trumps and len(trumps) >= 3:
        return max(top_trumps, key=lambda c: t.strength[c])
    if plain:
        return min(plain, key=cost)
    return min(trumps, key=cost)
