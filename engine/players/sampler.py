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
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from engine.actions import Action
from engine.cards import CARD_TEXT, Card, parse_card
from engine.codec import pack_action, pack_cards, unpack_action, unpack_cards
from engine.errors import IllegalAction
from engine.families.trump.rules import TRUMPS, settings_of
from engine.game import Game, match_from_state
from engine.observation import Observation
from engine.presets import Rules

# action kinds whose cards only their owner sees (a throw, a boast's laid cards, a Petukh
# exchange's discards and the card the dealer gives for the trump)
FACE_DOWN = frozenset({"throw", "lay", "exchange", "swap"})
NO_CLASSES: frozenset[int] = frozenset()
ATTEMPTS = 40  # samples drawn before giving up on the void constraints

Trail = Sequence[tuple[int, Action]]
# a place of cards in a state: (the place's name, e.g. "hand 2", its cards)
Place = tuple[str, list[Card]]


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


def turned_trump_hiding(
    deal: dict[str, Any], rules: Rules, trail: Trail, seat: int
) -> tuple[int | None, set[Card]] | None:
    """RULES.md 1-3: the turned trump is seen, and so is who draws it (or holds it, dealt:
    kozel-60 halves); but once out of the stock it may go face down in a throw, which
    nobody else sees. From the first action after which it may have been drawn, a face-down
    throw by the seat that drew it may have held it: from then on ``seat`` no longer knows
    where it lies (unless it sees it played face up).

    It may have been drawn once as many cards were played as lay above it in the stock:
    each trick's cards are drawn back after it. Counting every card of the trail (pulls
    send some back, and a trick's cards are drawn only once it is over) finds that moment
    earlier, never later. How many cards lay above it is public (it was turned under the
    stock, or shown in it); it is read from the deal's deck, which ``seat`` never sees whole.

    None while ``seat`` knows where it lies; else the seat that drew it and the cards of the
    throws he made from that moment (whose places the table saw: the trump is in his hand
    or in one of them). With no trail to tell (a match loaded without its deal log), the
    drawer of a card in no hand is not known: None for him, and it lies face down."""
    card = deal["trump_card"]
    if card is None or card in unpack_cards(deal["stock"]):
        return None
    if any(card in act.cards and act.kind not in FACE_DOWN for _s, act in trail):
        return None  # played face up since: its place is seen again
    hands = [unpack_cards(h) for h in deal["hands"]]
    if card in hands[seat]:
        return None
    above = _cards_above(deal, rules, card)
    # who drew it is seen too: the seat whose hand holds it, or whose throw took it
    drawer = next((i for i, h in enumerate(hands) if card in h), None)
    if drawer is None:
        drawer = next((s for s, act in trail if card in act.cards), None)
        if drawer is None:
            return None, set()
    throws = _throws_after(trail, drawer, above)
    return (drawer, throws) if throws else None


def _cards_above(deal: dict[str, Any], rules: Rules, card: Card) -> int:
    """How many cards lay above the turned trump ``card`` in the stock (0: dealt)."""
    deck = unpack_cards(deal["deck"])
    rest = deck[rules.hand_size * len(deal["seats"]) :]
    if rules.trump_mode == "turn":
        return len(rest) - 1  # under the stock: drawn last
    if card in rest and rules.trump_mode != "halves":
        return rest.index(card)  # kozel-4: shown in the stock, drawn in its turn
    return 0  # dealt into a hand


def _throws_after(trail: Trail, drawer: int, above: int) -> set[Card]:
    """The cards of the face-down throws ``drawer`` made once ``above`` cards were played."""
    throws: set[Card] = set()
    played = 0
    for s, act in trail:
        if act.kind == "cut":
            continue
        if played > above and s == drawer and act.kind in FACE_DOWN:
            throws.update(act.cards)
        played += len(act.cards)
    return throws


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


# --- the places of each family's state -----------------------------------------------------
# Primary places hold each card once (hands, stock, piles, the trick); the rest of the state
# (the deck, the actions, the winning cards) names cards again and is relabelled with them.


def _drawing_places(state: dict[str, Any]) -> list[Place]:
    d = state["deal"]
    places: list[Place] = [(f"hand {i}", unpack_cards(h)) for i, h in enumerate(d["hands"])]
    places.append(("stock", unpack_cards(d["stock"])))
    places.extend((f"pile {i}", unpack_cards(p)) for i, p in enumerate(d["piles"]))
    places.extend(("trick", unpack_cards(cs)) for _s, _k, cs in d["plays"])
    places.append(("reserve", unpack_cards(d["reserve"])))
    return places


def _drawing_relabel(state: dict[str, Any], f: Callable[[Card], Card]) -> dict[str, Any]:
    d = dict(state["deal"])

    def pk(text: str) -> str:
        return pack_cards(map(f, unpack_cards(text)))

    def plays(ps: list[list[Any]]) -> list[list[Any]]:
        return [[s, k, pk(cs)] for s, k, cs in ps]

    for name in ("deck", "stock", "win_cards", "reserve"):
        d[name] = pk(d[name])
    d["hands"] = [pk(h) for h in d["hands"]]
    d["piles"] = [pk(p) for p in d["piles"]]
    d["plays"] = plays(d["plays"])
    if d["last_trick"] is not None:
        d["last_trick"] = [d["last_trick"][0], plays(d["last_trick"][1])]
    # (``trump_card`` names the turned card, which is public: it keeps its name wherever
    # a sample puts it)
    return {**state, "deal": d}


def _trump_places(state: dict[str, Any]) -> list[Place]:
    places: list[Place] = [(f"hand {i}", unpack_cards(h)) for i, h in enumerate(state["hands"])]
    places.append(("stock", unpack_cards(state["stock"])))
    places.extend((f"pile {i}", unpack_cards(p)) for i, p in enumerate(state["piles"]))
    places.append(("trick", [c for _s, c in state["plays"]]))
    places.append(("laid", unpack_cards(state["laid"])))
    places.extend(("cover", unpack_cards(cs)) for _s, cs in state["covers"])
    return places


def _trump_relabel(state: dict[str, Any], f: Callable[[Card], Card]) -> dict[str, Any]:
    def pk(text: str) -> str:
        return pack_cards(map(f, unpack_cards(text)))

    def act(text: str) -> str:
        s, a = unpack_action(text)
        return text if a.kind == "cut" else pack_action(s, Action(a.kind, tuple(map(f, a.cards))))

    out = dict(state)
    for name in ("deck", "stock", "laid"):
        out[name] = pk(state[name])
    out["hands"] = [pk(h) for h in state["hands"]]
    out["piles"] = [pk(p) for p in state["piles"]]
    out["plays"] = [[s, f(c)] for s, c in state["plays"]]
    if state["last"] is not None:
        out["last"] = [state["last"][0], [[s, f(c)] for s, c in state["last"][1]]]
    out["covers"] = [[s, pk(cs)] for s, cs in state["covers"]]
    out["boast"] = [[pk(cs), w] for cs, w in state["boast"]]
    out["actions"] = [act(a) for a in state["actions"]]
    if state["forced"] is not None:
        out["forced"] = f(state["forced"])
    return out


def _petukh_places(state: dict[str, Any]) -> list[Place]:
    return [("deck", unpack_cards(state["deck"]))]


def _petukh_relabel(state: dict[str, Any], f: Callable[[Card], Card]) -> dict[str, Any]:
    def act(text: str) -> str:
        s, a = unpack_action(text)
        return pack_action(s, Action(a.kind, tuple(sorted(map(f, a.cards)))))

    return {
        **state,
        "deck": pack_cards(map(f, unpack_cards(state["deck"]))),
        "actions": [act(a) for a in state["actions"]],
    }


FAMILIES: dict[
    str,
    tuple[
        Callable[[dict[str, Any]], list[Place]],
        Callable[[dict[str, Any], Callable[[Card], Card]], dict[str, Any]],
    ],
] = {
    "drawing": (_drawing_places, _drawing_relabel),
    "trump": (_trump_places, _trump_relabel),
    "petukh": (_petukh_places, _petukh_relabel),
}


def suit_class(match: Game) -> Callable[[Card], int]:
    """The suit class a lead asks to follow: the permanent-trump presets' own table (its
    trumps are one class), else the card's suit."""
    if match.rules.family == "trump":
        from engine.families.trump.match import table_for, trump_suit

        table = table_for(match.rules.preset, trump_suit(match.rules.preset, match.rules.options))
        return lambda c: int(table.cls[c])
    return lambda c: c // 9


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
        places, self._relabel = FAMILIES[match.rules.family]
        self.state = match.to_state()
        hiding = None
        if match.rules.family == "drawing" and obs.trump_card is not None:
            hiding = turned_trump_hiding(self.state["deal"], match.rules, trail, seat)
            if hiding is not None:
                self.known.discard(obs.trump_card)
        # hidden slots in a fixed order of places and positions; whose hand each one is in
        self.slots: list[tuple[str, Card]] = [
            (name, c) for name, cards in places(self.state) for c in cards if c not in self.known
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
        if match.rules.family == "trump":
            leads = TRUMPS if settings_of(match.rules).nn else None
            for s, classes in voids(obs, trail, self.klass, leads).items():
                self.voids[f"hand {s}"] = classes
            self.voids["laid"] = {TRUMPS}  # RULES.md 4b step 2: the boaster lays non-trumps
        self.replays = match.rules.family == "petukh"

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
    _places, relabel = FAMILIES[match.rules.family]
    swap = {a: b, b: a}
    return match_from_state(match.rules, relabel(match.to_state(), lambda c: swap.get(c, c)))


def card_texts(cards: Iterable[Card]) -> list[str]:
    return [CARD_TEXT[c] for c in cards]
