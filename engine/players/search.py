"""The ``search`` computer player (level ``hard``): determinized Monte-Carlo search.

For its own move the seat draws a complete match it could be in (``engine.players.sampler``:
hidden cards dealt again, consistent with all it saw), tries one of its legal actions in it
and plays the deal out with quick players to its end; the action with the best average
result over many such playouts is played (after a few rounds of every action in the same
sample, the better third gets the rest of the samples). Only the public ``Game`` API is used
(``legal_actions``, ``apply``, ``observe``, ``to_state``), so it plays every preset without
knowing its rules; where a family's compact playout form covers the moment (``Family.compact``: plain
ints, its quick player in one loop, a property test showing it agrees with the engine), the
playouts go through it instead, many times faster (``engine/families/*/compact.py``).

Where the compact form can (``engine.players.playout.Weighs``: the permanent-trump presets), a
sample counts by how well the quick player explains the plays the seat has seen in the deal
(a player who led a small card held no master to lead, one who smeared ten points onto his
partner's trick had no ace there): each play of another seat that the quick player would not
have made in that sample multiplies its weight by ``MISS``.

A playout's value is the seat's share of the deal: its side's share of the card points
(Kozel; a deal ended by a catch of the Q♣: ``engine.family.CATCH``) or its chance to win
the match from the records the deal leaves (Petukh: ``engine.families.petukh.odds``). Out of turn
(a declaration it may skip, a redeal request) it answers as the rules player does.

Budgets: ``iterations`` playouts (exact for a seed: tests and benches), or ``ms`` of
thinking (the service's ``SEARCH_MS``), whichever ends first.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import cast

from engine.actions import Action
from engine.events import Event
from engine.family import Compact, DealValue, Relabels, Trail, Weighs
from engine.game import Game
from engine.observation import Observation
from engine.players.bots import RulesBot
from engine.players.playout import compact_of, draws_dice
from engine.players.sampler import ATTEMPTS, NoSample, Sampler, trail_of
from engine.presets import Rules
from engine.registry import family_of

PRUNE_AFTER = 3  # rounds with every action before the weaker two thirds are dropped
# how much better than the rules player's move another must do (noise): measured with
# bench/strength.py --margin, 2026-12-02: Kozel, first deals of seeds 0-199, the hard side's
# card points at 0.03 and at 0.01: kozel 2p 57.3% and 61.6%, kozel 4p 59.4% and 59.0%,
# kozel-4 60.5% and 61.5%, kozel-hvalenyi 57.3% and 58.3%, kozel-kocherga 56.0% and 56.4%
# (56.5% at 0); Petukh, whole matches at 0.01 with the chance to win as the value
# (engine.families.petukh.odds): petukh 4p seeds 0-199 86 wins of 200, petukh-25 seeds 0-49 28 of 50
MARGIN = 0.01
# a determinization's weight for each play of another seat that the quick player would not
# have made in it (where the compact form weighs: ``engine.players.playout.Weighs``). Measured with
# bench/strength.py --deals --both, kozel-kocherga, seeds 200-399, N 1,000, 2026-12-03: the
# hard side's card points without weights 57.2%; the other team's plays only, MISS 0.1 57.7%,
# 0.3 58.0%, 0.5 57.3%; every other seat's plays, MISS 0.2 58.3%, 0.3 58.4%
MISS = 0.3
PLAYOUT_ACTIONS = 400  # a playout that has not ended its deal by then counts as even
# the quick players of a Game API playout: the rules player (random playouts were measured
# weaker: 52% of the card points against rules at 100 playouts a move, to 59% with rules
# playouts; the compact forms choose their own: engine.families.drawing.compact.QUICK)
POLICY = "rules"
# the rng of a playout that draws none (a compact form's rules quick player: ``draws_dice``):
# a Random seeded per playout cost about a fifth of a compiled playout's time
STILL = random.Random(0)


@dataclass(frozen=True, slots=True)
class Thought:
    """What the search chose and why, in numbers the hint words turn into a reason."""

    action: Action
    value: float  # the chosen action's average playout value, 0..1
    runner_up: float  # the next best action's (equal to value when there was one action)
    playouts: int
    reason: str  # a hint reason code (adapters/common/render.py HINTS)


def deal_value(rules: Rules, events: list[Event], seat: int, side: int) -> float | None:
    """The seat's share of the deal that ``events`` ended, or None if none ended there, as
    its family values it (``engine.family.Family.value``: Kozel by the card points, a catch
    of the Q♣ by ``CATCH``; Petukh by the chance to win the match from the records the deal
    leaves, ``engine.families.petukh.odds``)."""
    return family_of(rules).value(rules)(events, seat, side)


class Search:
    """One move's search: the samples, the statistics per root action."""

    def __init__(
        self, match: Game, seat: int, legal: list[Action], rng: random.Random, trail: Trail | None = None
    ) -> None:
        self.seat = seat
        self.legal = legal
        self.rng = rng
        self.side = match.rules.side_of(seat)
        steps = trail_of(match) if trail is None else trail
        self.sampler = Sampler(match, seat, steps)
        obs = match.observe(seat)
        self.obs = obs
        self.value: DealValue = family_of(match.rules).value(match.rules)
        self.visits = [0] * len(legal)
        self.weights = [0.0] * len(legal)
        self.totals = [0.0] * len(legal)
        self.playouts = 0
        self.policy: RulesBot | None = RulesBot() if POLICY == "rules" else None
        # the rules player's move is the search's prior: another must beat it clearly
        plain = RulesBot().choose(obs, legal, random.Random(rng.random()), True)
        self.prior = legal.index(plain) if plain in legal else 0
        # the real deal in compact form, only ever relabelled into samples (as the sampler
        # relabels its copy of the real state): no sample's Game needs building
        whole = compact_of(match, seat)
        self.whole: Relabels | None = cast(Relabels, whole) if hasattr(whole, "relabel") else None
        self.weighs = whole is not None and hasattr(whole, "likelihood")
        self.dice = draws_dice(match)  # whether a compact playout needs its dice
        # the deal's plays so far, which a weighed sample must explain (built only then)
        self.history = [(s, a.cards[0]) for s, a in steps if a.kind == "play"] if self.weighs else []
        self.known: dict[int, int] = {}  # (hand << 2 | seat) -> its misses (``Weighs.misses``)
        # MISS to the power k, multiplied out as ``likelihood`` does: the same floats
        self.powers = [1.0]
        for _ in self.history:
            self.powers.append(self.powers[-1] * MISS)

    def _sample(self) -> tuple[Game | None, Compact | None, list[int] | None]:
        """One determinization: (its match, unless a compact form was relabelled into it;
        its compact form or None; the relabelling, when one was)."""
        if self.whole is not None:
            for _attempt in range(ATTEMPTS):
                f = self.sampler.draw(self.rng)
                relabelled = self.whole.relabel(f)
                if relabelled is not None:  # None: a replayed duty broke (Petukh)
                    return None, relabelled, f
            raise NoSample(f"seat {self.seat}: no relabelling kept the deal's duties")
        game = self.sampler.sample(self.rng)
        return game, compact_of(game, self.seat), None

    def run(self, iterations: int | None, ms: float | None) -> None:
        """Rounds of one sample each: every root action is played out in the same sample
        with the same playout dice (common random numbers: the actions are compared on
        equal deals, not on luckier ones)."""
        deadline = None if ms is None else time.perf_counter() + ms / 1000
        limit = iterations if iterations is not None else 1_000_000
        while self.playouts < limit:
            if deadline is not None and self.playouts and time.perf_counter() >= deadline:
                break
            try:
                game, base, f = self._sample()
            except NoSample:
                break
            dice = self.rng.getrandbits(32)
            weight = 1.0
            if self.weighs and base is not None:
                weight = self.powers[cast(Weighs, base).misses(self.history, self.known)]
            for i in self._round():
                if self.playouts >= limit:
                    break
                first = self.legal[i]
                if game is None and (base is None or base.code(first) is None):
                    assert f is not None  # a relabelled compact form: its Game after all
                    game = self.sampler.game_of(f, random.Random(dice))
                value = self._play_one(game, base, first, dice)
                self.visits[i] += 1
                self.weights[i] += weight
                self.totals[i] += weight * value
                self.playouts += 1

    def _round(self) -> list[int]:
        """The actions this round plays out: all of them for the first rounds, then the
        better third and the rules player's move (more samples for the moves that matter)."""
        n = len(self.legal)
        rounds = min(self.visits)
        if rounds < PRUNE_AFTER or n <= 3:
            return list(range(n))
        means = [t / w for t, w in zip(self.totals, self.weights, strict=True)]
        keep = sorted(range(n), key=lambda i: means[i], reverse=True)[: max(3, n // 3)]
        return sorted({*keep, self.prior})

    def _play_one(self, game: Game | None, base: Compact | None, first: Action, dice: int) -> float:
        """One playout of ``first`` in the sample ``game``: through its compact form when the
        family has one for this moment (``engine.players.playout``), else through the ``Game`` API;
        ``dice`` seeds its random choices (every action of a round gets the same)."""
        code = base.code(first) if base is not None else None
        if base is None or code is None:
            assert game is not None
            return self._playout(game.copy(), first, random.Random(dice))
        c = base.copy()
        c.play(code)
        return c.finish(random.Random(dice) if self.dice else STILL)

    def _playout(self, game: Game, first: Action, rng: random.Random) -> float:
        if game.check(self.seat, first) is not None:
            # kozel-nn: a redeal the sample's partner hand does not allow (it is hidden)
            return 0.5
        events = game.apply(self.seat, first)
        tried = False
        for _ in range(PLAYOUT_ACTIONS):
            value = self.value(events, self.seat, self.side)
            if value is not None:
                return value
            acting = game.to_act()
            if not acting:
                return 0.5
            mover = acting[0]
            legal = game.legal_actions(mover)
            if not tried and len(acting) == 1 and all(a.kind == "play" for a in legal):
                # trick play again, nobody else may act (a redeal dealt, its first lead on
                # move): the rest of the deal through the compact form, whose quick player
                # plays as the rules player (with ``STILL``, a 12-seed kozel-nn strength run: 28 s to 9 s)
                tried = True
                compact = compact_of(game, self.seat)
                if compact is not None:
                    return compact.finish(rng)
            act = None
            if self.policy is not None and len(legal) > 1:
                act = self.policy.choose(game.observe(mover), legal, rng, True)
            events = game.apply(mover, act or rng.choice(legal))
        return 0.5

    def best(self) -> Thought:
        means = [t / w if w else -1.0 for t, w in zip(self.totals, self.weights, strict=True)]
        order = sorted(range(len(self.legal)), key=lambda i: means[i], reverse=True)
        top = order[0]
        if means[top] - means[self.prior] < MARGIN:
            top = self.prior
        second = means[order[1]] if len(order) > 1 else means[top]
        action = self.legal[top]
        return Thought(
            action, max(0.0, means[top]), max(0.0, second), self.playouts, reason_for(self.obs, action)
        )


def reason_for(obs: Observation, action: Action) -> str:
    """A few words' reason for a hint, from the move's kind and the trick it meets."""
    kind = action.kind
    if kind in ("exchange", "keep", "pass", "swap", "finish", "declare", "redeal", "cut"):
        return f"hint_{kind}"
    if not obs.trick:
        return "hint_lead"
    mine = obs.partnership and obs.seat is not None and obs.win_seat % 2 == obs.seat % 2
    if kind == "throw" or mine:
        return "hint_partner" if mine else "hint_cheap"
    return "hint_take" if kind in ("beat", "play") else "hint_plain"


def think(
    match: Game,
    seat: int,
    rng: random.Random,
    *,
    iterations: int | None = None,
    ms: float | None = None,
    trail: Trail | None = None,
) -> Thought:
    """The search's move for ``seat``, on its move (``legal_actions`` not empty)."""
    legal = match.legal_actions(seat)
    if len(legal) == 1:
        return Thought(legal[0], 0.5, 0.5, 0, reason_for(match.observe(seat), legal[0]))
    search = Search(match, seat, legal, rng, trail)
    search.run(iterations, ms)
    if search.playouts == 0:
        obs = match.observe(seat)
        act = RulesBot().choose(obs, legal, rng, True) or legal[0]
        return Thought(act, 0.5, 0.5, 0, reason_for(obs, act))
    return search.best()


class SearchBot:
    """The ``hard`` computer player. ``choose_in`` searches (it needs the match, whose
    hidden cards it never reads: ``engine.players.sampler``); ``choose`` with only a view plays as
    the rules player, and so does every out-of-turn choice."""

    name = "search"
    needs_observation = True
    needs_match = True

    def __init__(self, iterations: int | None = 200, ms: float | None = None) -> None:
        self.iterations = iterations
        self.ms = ms
        self._rules = RulesBot()

    def choose(
        self, obs: Observation | None, legal: list[Action], rng: random.Random, on_move: bool
    ) -> Action | None:
        return self._rules.choose(obs, legal, rng, on_move)

    def choose_in(
        self, match: Game, seat: int, rng: random.Random, on_move: bool, trail: Trail | None = None
    ) -> Action | None:
        legal = match.legal_actions(seat)
        if not legal:
            return None
        if not on_move:
            return self._rules.choose(match.observe(seat), legal, rng, False)
        return think(match, seat, rng, iterations=self.iterations, ms=self.ms, trail=trail).action
