"""Determinizations: a whole match one seat could be in, given only what that seat has seen.

The search player (``engine.players.search``) needs complete states to play out, but a seat knows
only its own hand and what was shown. A determinization keeps every card whose place the
seat knows (its hand, the cards played face up, the turned trump, declared combinations and
boys, boast cards) and deals every other card at random over the places the seat cannot
see (other hands, the stock, face-down throws and discards, the stock's order), as a
relabelling of the match's state: a card the seat cannot see becomes another unseen card
everywhere it appears, so the state stays whole.

What the seat may know is read from public sources only: its observation, the dealing's
actions as everybody saw them (face-down kinds hide their cards from the others), and the
places of the cards it knows. Hidden places are visited in a fixed order by position, never
by which card lies there, and the unseen cards are drawn from a sorted pool, so two states
that differ only in where the hidden cards lie give the same determinizations for the same
seed (``tests/engine/test_search.py`` swaps hidden cards to check it).

Play reveals voids: a seat that did not follow the led suit (class, in the permanent-trump
presets) has none of it; the sampler deals no such card to that hand. In Petukh the sample
is replayed from the deal's deck (its state is the deck and the actions), so every duty the
engine checks (follow suit, else trump, must beat) is kept: a sample that breaks one is
drawn again.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from typing import Any

from engine.actions import Action
from engine.cards import CARD_TEXT, Card, parse_card
from engine.errors import IllegalAction
from engine.family import FACE_DOWN, Trail
from engine.game import Game
from engine.observation import Observation
from engine.registry import family_of, match_from_state

# action kinds whose cards only their owner sees (a throw, a boast's laid cards, a Petukh
# exchange's discards and the card the dealer gives for the trump)
NO_CLASSES: frozenset[int] = frozenset()
ATTEMPTS = 40  # samples drawn before giving up on the void constraints

# a place of cards in a state: (the place's name, e.g. "hand 2", its cards)


class NoSample(Exception):
    """No determinization kept every duty the seat saw kept (after ATTEMPTS tries)."""


def trail_of(match: Game) -> list[tuple[int, Action]]:
    """The current dealing's actions as the match has them (a loaded match may have none:
    the service passes its deal log instead)."""
    return list(match.history[-1].actions) if match.history else []


def known_cards(obs: Observation, trail: Trail) -> set[Card]:
    """Every card whose place ``obs.seat`` knows: its hand, what it did, what was shown."""
    seat = obs.seat
    known = set(obs.hand)
    if obs.trump_card is not None:
        known.add(obs.trump_card)
    for s, act in trail:
        if (s == seat or act.kind not in FACE_DOWN) and act.kind != "cut":
            known.update(act.cards)
    for plays in (obs.trick, obs.last_trick[1] if obs.last_trick else ()):
        for _s, _k, cards, _n in plays:
            if cards is not None:
                known.update(cards)
    known.update(_info_cards(obs.extras.to_json() if obs.extras is not None else {}))
    return known


def _info_cards(info: dict[str, Any]) -> Iterable[Card]:
    """Cards a family shows in its public extras: played cards, boys, boast piles."""
    texts: list[str] = list(info.get("played") or [])
    if info.get("face_up"):
        texts.append(info["face_up"])
    for boys in info.get("boys") or []:
        texts.extend(boys.get("cards", []))
    boast = info.get("boast")
    if isinstance(boast, dict):
        for pile in boast.get("piles") or []:
            texts.extend(pile.get("cards", []))
    return (parse_card(t) for t in texts)


def voids(
    obs: Observation, trail: Trail, klass: Callable[[Card], int], trump_leads: int | None = None
) -> dict[int, set[int]]:
    """Per seat, the suit classes it showed it has none of by not following a lead; with
    ``trump_leads`` (kozel-nn's trump class: RULES.md 4b, no trump lead while holding a
    non-trump), a seat that led a trump showed it holds trumps only."""
    out: dict[int, set[int]] = {}
    led: int | None = None
    count = 0
    for s, act in trail:
        if act.kind != "play" or len(act.cards) != 1:
            continue
        cls = klass(act.cards[0])
        if count == 0:
            led = cls
            if cls == trump_leads and s != obs.seat:
                out.setdefault(s, set()).update(c for c in range(5) if c != trump_leads)
        elif cls != led and s != obs.seat and led is not None:
            out.setdefault(s, set()).add(led)
        count = (count + 1) % max(1, len(obs.seats))
    return out


def suit_class(match: Game) -> Callable[[Card], int]:
    """The suit class a lead asks to follow in ``match`` (its family's)."""
    return family_of(match.rules).suit_class(match.rules)


def shuffle(cards: list[Card], rng: random.Random) -> None:
    """``rng.shuffle(cards)``: Python 3.11's Fisher-Yates over ``getrandbits``, the same
    order for the same rng (``tests/engine/test_search.py``), but in compiled code: the
    library's loop in Python was about a tenth of a search's time."""
    bits = rng.getrandbits
    for i in range(len(cards) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = bits(k)
        while j >= n:
            j = bits(k)
        cards[i], cards[j] = cards[j], cards[i]


class Sampler:
    """Determinizations of ``match`` for ``seat``: built once per move, drawn per playout."""

    def __init__(self, match: Game, seat: int, trail: Trail | None = None) -> None:
        self.rules = match.rules
        self.seat = seat
        trail = trail_of(match) if trail is None else trail
        obs = match.observe(seat)
        self.known = known_cards(obs, trail)
        family = family_of(match.rules)
        places, self._relabel = family.places, family.relabel
        self.state = match.to_state()
        hiding = None
        if family.hidden_again is not None and obs.trump_card is not None:
            hiding = family.hidden_again(match, match.rules, trail, seat)
            if hiding is not None:
                self.known.discard(obs.trump_card)
        # hidden slots in a fixed order of places and positions; whose hand each one is in
        self.slots: list[tuple[str, Card]] = [
            (name, c) for name, cards in places(match) for c in cards if c not in self.known
        ]
        # cards each slot cannot take: a turned trump that its drawer may have thrown face
        # down is in his hand or in one of those throws, nowhere else. (Cards a declaration
        # sent back need no such care: every declaration is four cards, and the answers to
        # it empty the four-card hands, so a sent-back card is never kept back from a throw.)
        self.slot_out: list[frozenset[Card]] = [frozenset()] * len(self.slots)
        if hiding is not None and obs.trump_card is not None:
            drawer, throws = hiding
            out = frozenset({obs.trump_card})
            for i, (name, c) in enumerate(self.slots):
                may = name == f"hand {drawer}" or c in throws or (drawer is None and name.startswith("pile"))
                if not may:
                    self.slot_out[i] = out
        self.pool = sorted(c for _name, c in self.slots)
        self.voids: dict[str, set[int]] = {}
        self.klass = suit_class(match)
        rule = family.voids(match.rules)
        if rule is not None:
            for s, classes in voids(obs, trail, self.klass, rule.trump_leads).items():
                self.voids[f"hand {s}"] = classes
            self.voids.update(rule.fixed)
        self.replays = family.replays

    def sample(self, rng: random.Random) -> Game:
        """One complete match consistent with what the seat saw."""
        for _attempt in range(ATTEMPTS):
            mapping = self._deal(rng)
            if mapping is None:
                continue
            try:
                return self.game_of(mapping, rng)
            except (IllegalAction, ValueError, AssertionError, KeyError):
                continue  # a replayed duty broke (Petukh): draw again
        raise NoSample(f"seat {self.seat}: no sample after {ATTEMPTS} tries")

    def draw(self, rng: random.Random) -> list[Card]:
        """One determinization as a relabelling of the cards (``f[card]``), for a compact
        playout form to apply (``engine.players.playout``) without building the sample's ``Game``;
        only where no replay checks a sample (not Petukh: ``replays``)."""
        for _attempt in range(ATTEMPTS):
            mapping = self._deal(rng)
            if mapping is not None:
                return [mapping[c] for c in range(36)]
        raise NoSample(f"seat {self.seat}: no sample after {ATTEMPTS} tries")

    def game_of(self, mapping: dict[Card, Card] | list[Card], rng: random.Random) -> Game:
        """The match of one relabelling (``draw``); a replay may refuse it (Petukh)."""
        state = self._relabel(self.state, mapping.__getitem__)
        # the future (redeals, next deals) must not come from the real seed either
        state["seed"] = f"s{rng.getrandbits(48)}"
        return match_from_state(self.rules, state)

    def _deal(self, rng: random.Random) -> dict[Card, Card] | None:
        """Slot i's card becomes target i: voided hands first take cards they may hold."""
        pool = self.pool[:]
        shuffle(pool, rng)
        mapping = {c: c for c in range(36)}  # a known card stays itself
        voids, outs = self.voids, self.slot_out
        order = sorted(range(len(self.slots)), key=lambda i: self.slots[i][0] not in voids and not outs[i])
        for i in order:
            name, card = self.slots[i]
            banned = voids.get(name, NO_CLASSES)
            out = outs[i]
            if banned or out:
                klass = self.klass
                pick = next((j for j, c in enumerate(pool) if klass(c) not in banned and c not in out), None)
                if pick is None:
                    return None
                mapping[card] = pool.pop(pick)
            else:
                mapping[card] = pool.pop()
        return mapping


def swap_hidden(match: Game, a: Card, b: Card) -> Game:
    """The same match with cards ``a`` and ``b`` trading places everywhere (a test's way to
    build a state that differs only in where two hidden cards lie)."""
    relabel = family_of(match.rules).relabel
    swap = {a: b, b: a}
    return match_from_state(match.rules, relabel(match.to_state(), lambda c: swap.get(c, c)))


def card_texts(cards: Iterable[Card]) -> list[str]:
    return [CARD_TEXT[c] for c in cards]
