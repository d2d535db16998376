"""The drawing family's computer player (RULES.md 1-3): ``rules_choice``, as
``engine.players.bots.RulesBot`` plays it for kozel, kozel-4 and kozel-60."""

from __future__ import annotations

import random

from engine.actions import Action
from engine.cards import JACK, KOZEL_STRENGTH, POINTS, SHOKHA, Card
from engine.families.drawing.deal import settings_of, strength60
from engine.observation import Observation
from engine.presets import default_rules


def _shokha(obs: Observation) -> bool:
    """The preset plays the shokha (the 6S over every card, RULES.md 1)."""
    return settings_of(default_rules(obs.preset, obs.players)).shokha


class DrawingPlayer:
    """Sensible play: cheap beats, low throws, points onto its own side's trick, combinations."""

    def choose(
        self, obs: Observation | None, legal: list[Action], rng: random.Random, on_move: bool
    ) -> Action | None:
        if not legal or obs is None:
            return None
        declares = [a for a in legal if a.kind == "declare"]
        if not on_move:
            return self._declare_out_of_turn(obs, declares)
        if declares and self._worth_declaring(obs, declares[0]):
            return declares[0]
        if (
            legal[0].kind in ("lead", "play")
            and len(legal[0].cards) == 1
            and not any(len(a.cards) > 1 for a in legal)
        ):
            return self._single(obs, legal)
        if not obs.trick:
            return self._lead(obs, [a for a in legal if a.kind == "lead"] or legal)
        return self._answer(obs, legal)

    # --- helpers ---------------------------------------------------------------------

    def _cost(self, obs: Observation, card: Card) -> int:
        """How dear a card is to give up: trumps and the shokha first, then points, rank."""
        c = POINTS[card] * 3 + KOZEL_STRENGTH[card]
        if card == SHOKHA and _shokha(obs):
            c += 200
        elif card // 9 == obs.trump:
            c += 60
        return c

    def _my_side(self, obs: Observation, seat: int) -> bool:
        if obs.seat is None:
            return False
        if obs.partnership:
            return seat % 2 == obs.seat % 2
        return seat == obs.seat

    def _worth_declaring(self, obs: Observation, act: Action) -> bool:
        return True

    def _declare_out_of_turn(self, obs: Observation, declares: list[Action]) -> Action | None:
        if not declares:
            return None
        act = declares[0]
        if obs.declared == "molodka" or not obs.trick:
            return act  # a Moscow over a Molodka, or a combination at the start of a trick
        # kozel-4 pull mid-trick: worth it when the other side is winning something
        if not self._my_side(obs, obs.win_seat):
            return act
        return None

    def _lead(self, obs: Observation, leads: list[Action]) -> Action:
        def score(a: Action) -> tuple[int, int]:
            cards = a.cards
            if _shokha(obs) and SHOKHA in cards and obs.seat is not None:
                # an unbeatable lead: bring the most points home with it
                return (1000 + sum(POINTS[c] for c in cards), len(cards))
            # otherwise lead cheap cards, several of a suit when they are all cheap
            cost = sum(self._cost(obs, c) for c in cards) / len(cards)
            return (-int(cost * 10), len(cards))

        return max(leads, key=score)

    def _answer(self, obs: Observation, legal: list[Action]) -> Action:
        beats = [a for a in legal if a.kind == "beat"]
        throws = [a for a in legal if a.kind == "throw"]
        on_table = sum(POINTS[c] for _s, _k, cs, _n in obs.trick if cs for c in cs)
        if self._my_side(obs, obs.win_seat):
            # partner is winning: throw points that are not trumps
            return max(
                throws,
                key=lambda a: sum(
                    POINTS[c] * 3 - (100 if c // 9 == obs.trump or c == SHOKHA else 0) for c in a.cards
                ),
            )
        cheapest_throw = min(throws, key=lambda a: sum(self._cost(obs, c) for c in a.cards))
        if beats:
            best = min(beats, key=lambda a: sum(self._cost(obs, c) for c in a.cards))
            beat_cost = sum(self._cost(obs, c) for c in best.cards)
            throw_cost = sum(self._cost(obs, c) for c in cheapest_throw.cards)
            gain = on_table + sum(POINTS[c] for c in best.cards)
            if gain >= 10 or beat_cost <= throw_cost + 20:
                return best
        return cheapest_throw

    def _single(self, obs: Observation, legal: list[Action]) -> Action:
        """kozel-60: one card a trick, no duty to follow."""
        cards = [a.cards[0] for a in legal]
        if not obs.trick:
            # lead the cheapest non-trump
            return min(legal, key=lambda a: self._cost60(obs, a.cards[0]))
        led = obs.trick[0][2]
        assert led is not None
        led_card = led[0]
        on_table = sum(POINTS[c] for _s, _k, cs, _n in obs.trick if cs for c in cs)
        winning = obs.win_cards[0]
        winners = [
            c for c in cards if strength60(c, obs.trump, led_card) > strength60(winning, obs.trump, led_card)
        ]
        if winners:
            best = min(winners, key=lambda c: self._cost60(obs, c))
            if on_table + POINTS[best] >= 10 or best // 9 != obs.trump and best % 9 != JACK:
                return Action(legal[0].kind, (best,))
        return Action(legal[0].kind, (min(cards, key=lambda c: self._cost60(obs, c)),))

    def _cost60(self, obs: Observation, card: Card) -> int:
        c = POINTS[card] * 3 + KOZEL_STRENGTH[card]
        if card % 9 == JACK:
            c += 100 - card // 9
        elif card // 9 == obs.trump:
            c += 50
        return c


_PLAYER = DrawingPlayer()


def rules_choice(obs: Observation, legal: list[Action], rng: random.Random, on_move: bool) -> Action | None:
    return _PLAYER.choose(obs, legal, rng, on_move)
