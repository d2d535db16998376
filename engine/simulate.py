"""Whole matches between computer players, with the invariants checked after every action."""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.actions import Action
from engine.cards import deck_points
from engine.game import Game
from engine.observation import observe
from engine.players.bots import Bot
from engine.players.levels import make_bot
from engine.presets import Rules, make_rules
from engine.registry import family_of, new_match


class InvariantError(AssertionError):
    """An engine invariant broke: the message names it."""


# kinds of play that lie face down: the public never sees their cards
FACE_DOWN = frozenset({"throw", "lay"})


def check_invariants(match: Game, strict: bool = False) -> None:
    """Every card in exactly one place (the family's ``audit``); public views hold no
    hidden card.

    ``strict`` also checks that no seat outside ``to_act`` has a legal action.
    """
    problem = match.audit()
    if problem:
        raise InvariantError(problem)
    public = observe(match, None)
    if public.hand:
        raise InvariantError("the public view shows a hand")
    for _s, kind, cards, _n in public.trick:
        if kind in FACE_DOWN and cards is not None:
            raise InvariantError("the public view shows a face-down card")
    if strict:
        acting = set(match.to_act())
        for seat in range(match.rules.players):
            if seat not in acting and match.legal_actions(seat):
                raise InvariantError(f"seat {seat} has legal actions but may not act")
            if seat in acting and not match.legal_actions(seat):
                raise InvariantError(f"seat {seat} may act but has no legal action")


@dataclass
class Stats:
    matches: int = 0
    deals: int = 0
    actions: int = 0
    wins: list[int] = field(default_factory=list)
    seconds: float = 0.0


def bot_choice(bot: Bot, match: Game, seat: int, rng: random.Random, on_move: bool) -> Action | None:
    """One computer player's choice: a searching one is handed the match (it reads only
    what the seat may see: ``engine.players.sampler``), the others the seat's view."""
    if getattr(bot, "needs_match", False):
        result: Action | None = bot.choose_in(match, seat, rng, on_move)  # type: ignore[attr-defined]
        return result
    obs = observe(match, seat) if bot.needs_observation else None
    return bot.choose(obs, match.legal_actions(seat), rng, on_move)


def step(match: Game, bots: Sequence[Bot], rng: random.Random) -> bool:
    """Let one computer player act. Out-of-turn declarers get their chance first."""
    acting = match.to_act()
    if not acting:
        return False
    mover = acting[0]
    for seat in acting[1:]:
        act = bot_choice(bots[seat], match, seat, rng, False)
        if act is not None:
            match.apply(seat, act)
            return True
    act = bot_choice(bots[mover], match, mover, rng, True)
    if act is None:
        act = match.legal_actions(mover)[0]
    match.apply(mover, act)
    return True


def make_bots(
    levels: Sequence[str], think_ms: float | None = None, iterations: int | None = None
) -> list[Bot]:
    """The seats' players; a searching one gets the budget (``iterations`` playouts, or
    ``think_ms`` a move)."""
    bots = [make_bot(level) for level in levels]
    for bot in bots:
        if getattr(bot, "needs_match", False) and (think_ms is not None or iterations):
            bot.ms = think_ms  # type: ignore[attr-defined]
            bot.iterations = iterations  # type: ignore[attr-defined]
    return bots


def deal_totals(match: Game, sides: int) -> tuple[list[int], int]:
    """Card points per side summed over the match's scored deals, and how many deals."""
    totals = [0] * sides
    deals = 0
    for record in match.history:
        points = (record.result or {}).get("points")
        if points:
            deals += 1
            for side, p in enumerate(points):
                totals[side] += p
    return totals, deals


def play_match(
    rules: Rules,
    bots: Sequence[Bot],
    seed: int | str,
    check: bool = True,
    strict: bool = False,
    max_deals: int = 500,
) -> tuple[Game, int, int]:
    """Play one match to its end. Returns (match, deals, actions).

    With ``check``, a Kozel deal that ends with its cards counted must hold 120 points
    (a deal cut short by a catch records ``points`` as None).
    """
    match = new_match(rules, seed=seed)
    rng = random.Random(f"bots:{seed}")
    actions = 0
    deal_no = match.deal_no
    while not match.finished:
        step(match, bots, rng)
        actions += 1
        if check:
            check_invariants(match, strict)
            if match.deal_no != deal_no or match.finished:
                done = [r for r in match.history if r.result is not None]
                if not done or done[-1].result is None:
                    raise InvariantError(f"deal {deal_no} ended without a result")
                points = done[-1].result.get("points")
                if family_of(rules).scores_card_points and points is not None:
                    total = sum(points)
                    if total != deck_points(rules.deck):
                        raise InvariantError(f"deal {deal_no} holds {total} points, not 120")
                deal_no = match.deal_no
        if match.deal_no > max_deals:
            raise InvariantError(f"match seed {seed} did not end in {max_deals} deals")
    return match, match.deal_no, actions


def simulate(
    preset: str,
    players: int,
    matches: int,
    seed: int,
    bots: Sequence[str],
    options: dict[str, Any] | None = None,
    check: bool = True,
    strict: bool = False,
    think_ms: float | None = None,
    iterations: int | None = None,
) -> dict[str, Any]:
    """Play ``matches`` matches with seeds ``seed .. seed + matches - 1``; a JSON summary.

    ``check`` runs ``check_invariants`` after every action; ``strict`` adds its to_act checks.
    """
    rules = make_rules(preset, players, options)
    levels = list(bots) if len(bots) == players else [bots[0]] * players
    if len(bots) not in (1, players):
        raise ValueError(f"--bots needs 1 or {players} levels, got {len(bots)}")
    seat_bots = make_bots(levels, think_ms, iterations)
    stats = Stats(wins=[0] * players)
    points = [0] * rules.sides
    scored_deals = 0
    left = [0] * players
    start = time.perf_counter()
    invariants = "ok"
    try:
        for i in range(matches):
            match, deals, actions = play_match(rules, seat_bots, seed + i, check=check, strict=strict)
            stats.matches += 1
            stats.deals += deals
            stats.actions += actions
            for s in match.winners:
                stats.wins[s] += 1
            if rules.scoring == "record":
                left = [a + b for a, b in zip(left, match.scores, strict=True)]
            else:
                totals, n = deal_totals(match, rules.sides)
                points = [a + b for a, b in zip(points, totals, strict=True)]
                scored_deals += n
    except AssertionError as e:
        invariants = str(e) or "invariant broken"
    stats.seconds = time.perf_counter() - start
    return {
        "preset": preset,
        "players": players,
        "options": dict(rules.options),
        "bots": levels,
        "matches": stats.matches,
        "deals": stats.deals,
        "actions": stats.actions,
        "seconds": round(stats.seconds, 3),
        "deals_per_second": round(stats.deals / stats.seconds, 1) if stats.seconds else 0.0,
        "wins": stats.wins,
        **_sides(rules, points, scored_deals, left, stats.matches),
        "invariants": invariants,
    }


def _sides(rules: Rules, points: list[int], deals: int, left: list[int], matches: int) -> dict[str, Any]:
    """Kozel: card points per side over the scored deals (and each side's share); Petukh:
    records left per seat at the matches' ends (and their average)."""
    if rules.scoring == "record":
        return {
            "records_left": left,
            "average_record_left": [round(x / matches, 2) if matches else 0.0 for x in left],
        }
    total = sum(points)
    return {
        "card_points": points,
        "scored_deals": deals,
        "card_point_share": [round(p / total, 4) if total else 0.0 for p in points],
    }
