"""Action tokens: compact, no hidden card, meaningless outside their room.

``<room>|<gen>.<deal>.<trick>.<hand>.<kind><mask>``:
- ``gen`` the room's match generation, ``deal`` and ``trick`` the moment of play;
- ``hand`` a short keyed fingerprint of the seat's hand (so a button made for one hand
  never plays a card of a changed hand), ``-`` for moves without cards;
- ``kind`` one letter of ``engine.actions.ACTION_KINDS`` (l lead, b beat, t throw, p play,
  y lay, v cover, x exchange, s swap: with cards; d declare, r redeal, a reboast, k keep,
  q pass, f finish, n skip: without; c cut: with a number), ``mask`` the chosen positions
  in the seat's sorted hand, base 36 (the cut's number for ``c``; none for moves without
  cards).

A token is refused only when what it means is no longer possible.

What adapters need of a button's payload is here too, so that none of them builds or parses
a token: a select of several cards carries a token's ``select_stem`` and makes its move with
``selected``; a card tapped in a hand carries its hand's moment (``HandView.moment``) and
``picked`` tells whether the press still belongs to the hand shown now. A move's moment is
decided by ``moment`` alone: the service's ``play._act`` refuses a token of another moment
as stale with it.
"""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass

from engine.actions import ACTION_KINDS, Action
from engine.cards import Card

MAX_TOKEN = 64
# the engine's one table of action kinds (its letters are the stored logs' letters too)
_KIND = {kind: spec.code for kind, spec in ACTION_KINDS.items()}
_BARE_KINDS = frozenset(kind for kind, spec in ACTION_KINDS.items() if spec.takes == "none")
_CODE = {v: k for k, v in _KIND.items()}
_CODE["e"] = "exchange"  # an exchange button made before the table was one (it was "e")


def bare(kind: str) -> bool:
    """A move without cards: the token names only its kind (and the cut its number)."""
    return kind in _BARE_KINDS


class TokenError(ValueError):
    pass


@dataclass(frozen=True)
class Token:
    room: str
    gen: int
    deal: int
    trick: int
    hand: str
    kind: str
    mask: int

    def __str__(self) -> str:
        mask = "" if self.kind in _BARE_KINDS else _base36(self.mask)
        return f"{self.room}|{self.gen}.{self.deal}.{self.trick}.{self.hand}.{_KIND[self.kind]}{mask}"

    @property
    def moment(self) -> str:
        return moment(self.gen, self.deal, self.trick)


def moment(gen: int, deal: int, trick: int) -> str:
    """The moment of play a button belongs to: the match's generation, the deal, the trick
    (or the turn). A move of another moment is stale; so is a card picked in a hand drawn
    at another moment."""
    return f"{gen}.{deal}.{trick}"


def picked(now: str, cards: int, pressed: str, mask: int) -> int | None:
    """The cards a press of a hand's card leaves picked (a mask of hand positions): the
    hand shown is of moment ``now`` with ``cards`` cards; the press carries the moment it
    was drawn at and the pick it makes. None: the press is stale (the hand is drawn again
    as it is now); a pick beyond the hand picks nothing."""
    if pressed != now:
        return None
    return mask if 0 <= mask < 1 << cards else 0


def select_stem(token: str) -> str:
    """What a select of several cards carries: the move token of one of its picks without
    its mask (``room|gen.deal.trick.hand.`` and the kind's letter)."""
    head, _, act = token.rpartition(".")
    return f"{head}.{act[0]}"


def selected(stem: str, mask: int) -> str | None:
    """The move token a select's ``stem`` and the hand positions picked in it make; None:
    the stem is no move of cards (forged). Whether the move is possible is the service's
    to say (``act``)."""
    try:
        tok = parse_token(stem + "1")
    except TokenError:
        return None
    if tok.kind in _BARE_KINDS or tok.kind == "cut" or mask <= 0:
        return None
    return str(dataclasses.replace(tok, mask=mask))


def hand_fingerprint(
    room: str, gen: int, seat: int, hand: list[Card] | tuple[Card, ...], secret: str = ""
) -> str:
    # keyed with a secret of the match (its seed): the room, generation and seat are
    # public, and a key made of them alone lets anyone try every hand against the token
    key = hashlib.blake2s(f"{room}|{gen}|{seat}|{secret}".encode()).digest()
    h = hashlib.blake2s(bytes(sorted(hand)), key=key, digest_size=3)
    return _base36(int.from_bytes(h.digest(), "big"))


def make_token(
    room: str,
    gen: int,
    deal: int,
    trick: int,
    seat: int,
    hand: tuple[Card, ...],
    action: Action,
    secret: str = "",
) -> Token:
    """The token for ``action`` of the seat holding the sorted ``hand``."""
    if action.kind in _BARE_KINDS:
        return Token(room, gen, deal, trick, "-", action.kind, 0)
    if action.kind == "cut":
        return Token(room, gen, deal, trick, "-", "cut", action.cards[0])
    mask = 0
    for c in action.cards:
        mask |= 1 << hand.index(c)
    fingerprint = hand_fingerprint(room, gen, seat, hand, secret)
    return Token(room, gen, deal, trick, fingerprint, action.kind, mask)


def parse_token(text: str) -> Token:
    if not isinstance(text, str) or len(text.encode()) > MAX_TOKEN or text.count("|") != 1:
        raise TokenError("malformed")
    room, rest = text.split("|")
    parts = rest.split(".")
    if len(parts) != 5 or not room:
        raise TokenError("malformed")
    gen, deal, trick, hand, act = parts
    # ASCII digits only: str.isdigit() is true for "²", which int() refuses
    if not all(p.isascii() and p.isdigit() for p in (gen, deal, trick)) or not act:
        raise TokenError("malformed")
    kind = _CODE.get(act[0])
    if kind is None:
        raise TokenError("malformed")
    mask = _parse_mask(kind, act, hand)
    return Token(room, int(gen), int(deal), int(trick), hand, kind, mask)


def _parse_mask(kind: str, act: str, hand: str) -> int:
    """The hand positions (or a cut's number) after the kind's letter; 0 for a bare kind."""
    if kind in _BARE_KINDS:
        if len(act) != 1 or hand != "-":
            raise TokenError("malformed")
        return 0
    if not (act[1:].isascii() and act[1:].isalnum()):
        raise TokenError("malformed")  # int() would take " 1", "1_0", "+1"
    try:
        mask = int(act[1:], 36)
    except ValueError:
        raise TokenError("malformed") from None
    if not 0 < mask < 1 << 12 or (kind == "cut") != (hand == "-"):
        raise TokenError("malformed")
    if kind == "cut" and mask >= 36:
        raise TokenError("malformed")  # a cut is a place in a deck of at most 36
    return mask


def cards_of(mask: int, hand: tuple[Card, ...]) -> tuple[Card, ...] | None:
    """The hand positions in ``mask`` as cards (None if a position is out of the hand)."""
    out = []
    for i in range(mask.bit_length()):
        if mask >> i & 1:
            if i >= len(hand):
                return None
            out.append(hand[i])
    return tuple(sorted(out))


def _base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    if n == 0:
        return "0"
    out = []
    while n:
        n, r = divmod(n, 36)
        out.append(digits[r])
    return "".join(reversed(out))
