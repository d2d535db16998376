"""Actions: small immutable values with one canonical text form.

``lead AS KS``, ``beat 10H QH``, ``throw 7C 8D``, ``play 9D``, ``declare AH AD 10C 10S``.
The cards of an action are kept sorted by card id, so two spellings of the same move are
one value and one text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal, NamedTuple

from engine.cards import CARD_TEXT, Card, CardError, parse_card


class KindSpec(NamedTuple):
    """One kind of action: its letter and what a move of it names."""

    code: str  # one letter: stored logs (``engine.codec``) and button tokens (``bot.tokens``)
    # "cards": the cards chosen from the hand; "number": a number (``cut 17``, how many
    # cards are cut off the top); "none": nothing chosen (the seat's one move of the kind,
    # its cards, if any, follow from the hand: a declaration)
    takes: Literal["cards", "number", "none"]


# The one table of action kinds (the drawing kinds keep their first letters: old logs stay
# readable).
ACTION_KINDS: dict[str, KindSpec] = {
    "lead": KindSpec("l", "cards"),
    "beat": KindSpec("b", "cards"),
    "throw": KindSpec("t", "cards"),
    "play": KindSpec("p", "cards"),
    "declare": KindSpec("d", "none"),
    # permanent-trump Kozel (RULES.md 4) and Petukh (RULES.md 5)
    "cut": KindSpec("c", "number"),
    "redeal": KindSpec("r", "none"),
    "lay": KindSpec("y", "cards"),
    "cover": KindSpec("v", "cards"),
    "reboast": KindSpec("a", "none"),
    "keep": KindSpec("k", "none"),
    "exchange": KindSpec("x", "cards"),
    "pass": KindSpec("q", "none"),
    "swap": KindSpec("s", "cards"),
    "finish": KindSpec("f", "none"),
    "skip": KindSpec("n", "none"),
}
assert len({k.code for k in ACTION_KINDS.values()}) == len(ACTION_KINDS)
KINDS = tuple(ACTION_KINDS)
NUMBER_KINDS = frozenset(k for k, spec in ACTION_KINDS.items() if spec.takes == "number")


class ActionError(ValueError):
    """An action's text form could not be read."""


class Action(NamedTuple):
    kind: str
    cards: tuple[Card, ...] = ()

    def __str__(self) -> str:
        if not self.cards:
            return self.kind
        if self.kind in NUMBER_KINDS:
            return self.kind + " " + " ".join(map(str, self.cards))
        return self.kind + " " + " ".join(CARD_TEXT[c] for c in self.cards)

    def to_json(self) -> dict[str, Any]:
        if self.kind in NUMBER_KINDS:
            return {self.kind: list(self.cards)}
        return {self.kind: [CARD_TEXT[c] for c in self.cards]}


# The one-card moves, made once and shared (actions are immutable values; a legal list is
# built many times a second in a search's playouts).
ONE_CARD: dict[str, tuple[Action, ...]] = {
    k: tuple(Action(k, (c,)) for c in range(36))
    for k in ("lead", "play", "beat", "throw", "lay", "cover", "swap")
}


# The drawing family's two-card moves by their cards (sorted), made once and shared too.
TWO_CARDS: dict[str, dict[tuple[Card, ...], Action]] = {
    k: {(a, b): Action(k, (a, b)) for a in range(36) for b in range(a + 1, 36)}
    for k in ("lead", "beat", "throw")
}


def remembered(
    known: dict[int, list[Action]], seat: int, make: Callable[[int], list[Action]]
) -> list[Action]:
    """The seat's legal actions from ``known`` (a deal's, for its current state), made by
    ``make`` the first time; a copy, so that the caller may change it."""
    out = known.get(seat)
    if out is None:
        out = known[seat] = make(seat)
    return out[:]


def action(kind: str, cards: Iterable[Card] = ()) -> Action:
    """The canonical action: known kind, cards sorted."""
    if kind not in KINDS:
        raise ActionError(f"unknown action {kind!r} (allowed: {', '.join(KINDS)})")
    return Action(kind, tuple(sorted(cards)))


def parse_action(text: str) -> Action:
    """``"beat 10H QH"`` -> Action."""
    words = text.split()
    if not words:
        raise ActionError("empty action")
    if words[0].lower() in NUMBER_KINDS:
        if len(words) != 2 or not (words[1].isascii() and words[1].isdigit()):
            raise ActionError(f"{words[0]} takes one number, e.g. 'cut 17', not {text!r}")
        return Action(words[0].lower(), (int(words[1]),))
    try:
        cards = [parse_card(w) for w in words[1:]]
    except CardError as e:
        raise ActionError(str(e)) from None
    if len(set(cards)) != len(cards):
        raise ActionError(f"a card is named twice in {text!r}")
    return action(words[0].lower(), cards)


def action_from_json(entry: Mapping[str, Any]) -> tuple[int, Action]:
    """A deal-log entry ``{"seat": 1, "throw": ["7H"]}`` -> (seat, action)."""
    if not isinstance(entry, Mapping) or "seat" not in entry:
        raise ActionError(f"an action needs a seat: {entry!r}")
    seat = entry["seat"]
    kinds = [k for k in entry if k != "seat"]
    if len(kinds) != 1 or not isinstance(seat, int):
        raise ActionError(f"an action is one kind with its cards and a seat: {entry!r}")
    kind = kinds[0]
    cards = entry[kind]
    if kind in NUMBER_KINDS:
        if not isinstance(cards, list) or not all(
            isinstance(n, int) and not isinstance(n, bool) for n in cards
        ):
            raise ActionError(f"{kind} takes a list of numbers: {entry!r}")
        return seat, Action(kind, tuple(cards))
    if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
        raise ActionError(f"cards must be a list of card texts: {entry!r}")
    return seat, parse_action(" ".join([kind, *cards]))
