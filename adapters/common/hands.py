"""A person's hand on a chat platform, whatever the platform: what it shows (its signature),
the one live copy a person keeps at a table, and how to offer moves of several cards.

Platform-neutral: only ``bot.views`` goes in, plain values come out. The Discord adapter
draws from it; the Telegram one may (its ephemeral hands have the same needs).
"""

from __future__ import annotations

import hashlib
import itertools
from dataclasses import dataclass
from typing import Any

from bot.views import Choice, HandView

# --- what a hand shows -------------------------------------------------------------------


def hand_signature(hand: HandView | None, state: str = "", *, trick_when_waiting: bool = True) -> str:
    """Everything a drawn hand shows: two views with the same signature draw the same
    message, so the second needs no edit. ``trick_when_waiting=False``: a hand that shows the
    trick on the table only while it must answer it (the table shows it otherwise), so it is
    not edited at every move of the others (Telegram). A short digest: Discord keeps it in
    Redis beside every open hand, and a room with its hands stays within 8 KB."""
    if hand is None:
        return f"{state}:-"
    table = hand.table
    trick = [(p.seat, p.count, p.cards) for p in table.trick] if hand.on_move or trick_when_waiting else []
    shown = repr(
        (
            state or table.state,
            table.gen,
            table.deal_no,
            hand.cards,
            hand.prompt,
            hand.need,
            [c.token for c in hand.choices],
            trick,
            table.trump_card,
            table.to_move,
            [(s.computer, s.auto) if s else None for s in table.seats],
        )
    )
    return hashlib.blake2s(shown.encode(), digest_size=9).hexdigest()


# --- the one live copy --------------------------------------------------------------------


@dataclass(frozen=True)
class LiveHand:
    """The message that shows a person's hand at one table, and how long the platform lets
    us edit it. A person has one live hand a table: a newer one retires the older.

    ``ref``: the platform's handle to edit the message (Discord: an interaction token);
    ``message``: the message's id; ``expires``: when ``ref`` stops working (clock time),
    None for never; ``sig``: what it shows now (``hand_signature``); ``lang``: its words.
    """

    ref: str
    message: int | str
    expires: float | None
    sig: str
    lang: str

    # a hand this close to its end says so (and offers a refresh) rather than going stale
    WARN = 180.0
    # after this, no edit is tried: a request in flight must not outlive the handle
    MARGIN = 10.0

    def to_json(self) -> dict[str, Any]:
        return {"ref": self.ref, "msg": self.message, "exp": self.expires, "sig": self.sig, "lang": self.lang}

    @classmethod
    def from_json(cls, data: object) -> LiveHand | None:
        """A stored record, or None for anything that is not one (an old or broken value)."""
        if not isinstance(data, dict):
            return None
        try:
            exp = data.get("exp")
            return cls(
                str(data["ref"]),
                data["msg"],
                None if exp is None else float(exp),
                str(data.get("sig", "")),
                str(data.get("lang", "ru")),
            )
        except (KeyError, TypeError, ValueError):
            return None

    def usable(self, now: float) -> bool:
        return self.expires is None or now < self.expires - self.MARGIN

    def expiring(self, now: float) -> bool:
        return self.expires is not None and now >= self.expires - self.WARN

    def same_message(self, other: LiveHand | None) -> bool:
        return other is not None and str(other.message) == str(self.message)


# --- moves of several cards ----------------------------------------------------------------

# a select offers at most this many options (Discord); Telegram keyboards are smaller still
MAX_OPTIONS = 25
# this few combinations read best as buttons of their own
AS_BUTTONS = 5


@dataclass(frozen=True)
class Several:
    """The legal moves of one kind that take several cards, and how to offer them.

    ``how``:
    - ``"buttons"``: a button each (a handful of them);
    - ``"cards"``: pick ``low``..``high`` of ``positions`` freely: every such pick is legal
      (an exchange, a throw of N cards from a hand of N+);
    - ``"combos"``: pick one whole combination from a list (a lead that may mix the 6♠
      with one suit, a beat where only some pairs beat): nothing illegal is offered;
    - ``"loose"``: too many combinations to list and not every pick is legal: cards are
      picked freely and an impossible pick is refused with the rule's words.
    """

    kind: str
    choices: list[Choice]
    positions: list[int]
    low: int
    high: int
    how: str


def _bits(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


def several_card_moves(hand: HandView, kind: str) -> Several | None:
    """How to offer ``kind``'s moves of two or more cards (an exchange of any count)."""
    choices = [
        c for c in hand.choices if c.kind == kind and c.mask and (len(c.cards) > 1 or kind == "exchange")
    ]
    if not choices:
        return None
    used = 0
    for c in choices:
        used |= c.mask
    positions = _bits(used)
    low = min(len(c.cards) for c in choices)
    high = max(len(c.cards) for c in choices)
    if len(choices) <= AS_BUTTONS:
        how = "buttons"
    elif _closed({c.mask for c in choices}, positions, low, high):
        how = "cards"
    elif len(choices) <= MAX_OPTIONS:
        how = "combos"
    else:
        how = "loose"
    return Several(kind, choices, positions, low, high, how)


def _closed(masks: set[int], positions: list[int], low: int, high: int) -> bool:
    """Whether every pick of ``low``..``high`` of ``positions`` is one of ``masks``."""
    total = 0
    for n in range(low, high + 1):
        for combo in itertools.combinations(positions, n):
            total += 1
            if sum(1 << i for i in combo) not in masks:
                return False
    return total == len(masks)


def choice_of(mask: int, choices: list[Choice]) -> Choice | None:
    """The legal choice these hand positions make, if they make one."""
    return next((c for c in choices if c.mask == mask), None)


def completions(mask: int, choices: list[Choice]) -> list[Choice]:
    """The legal choices that hold every position of ``mask`` (for tap-to-select hands:
    which cards may still join, and whether the pick is already a move)."""
    return [c for c in choices if c.mask & mask == mask]


# --- the order a player reads his hand in ------------------------------------------------------


def display_order(hand: HandView) -> list[int]:
    """Positions of ``hand.cards`` as a player reads them (UX.md): the plain suits as the
    engine sorts them, then the trumps from the weakest to the strongest (``hand.trumps``),
    so the strongest sit at the right. The engine's own order (by card id) stays the
    positions' meaning."""
    strength = {c: n for n, c in enumerate(hand.trumps)}
    plain = [i for i, c in enumerate(hand.cards) if c not in strength]
    trumps = sorted(
        (i for i, c in enumerate(hand.cards) if c in strength), key=lambda i: strength[hand.cards[i]]
    )
    return plain + trumps


def in_display_order(hand: HandView, cards: list[str]) -> list[str]:
    """Some cards of the hand (a move's), in the order the hand shows them."""
    place = {hand.cards[i]: n for n, i in enumerate(display_order(hand))}
    return sorted(cards, key=lambda c: place.get(c, len(place)))
