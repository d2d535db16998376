"""Hand-built deals for the permanent-trump presets (RULES.md 4), in the deal-log format."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.actions import Action, parse_action
from engine.cards import CARD_TEXT, parse_card
from engine.events import Event
from engine.families.trump.match import TrumpMatch
from engine.log import replay
from engine.presets import make_rules


def c(text: str) -> int:
    return parse_card(text)


def cs(text: str) -> tuple[int, ...]:
    return tuple(sorted(parse_card(t) for t in text.split()))


def deal_deck(
    preset: str,
    dealer: int,
    hands: dict[int, list[str]],
    options: dict[str, Any] | None = None,
) -> list[str]:
    """A deck (top first) that deals ``hands`` one card at a time from the dealer's left;
    seats' missing cards are filled with the preset's other cards in card order."""
    rules = make_rules(preset, 4, options)
    size = rules.hand_size
    used = {parse_card(t) for h in hands.values() for t in h}
    if len(used) != sum(len(h) for h in hands.values()):
        raise ValueError("a card is used twice")
    rest = [CARD_TEXT[x] for x in rules.deck if x not in used]
    full = {s: list(hands.get(s, [])) for s in range(4)}
    for s in range(4):
        while len(full[s]) < size:
            full[s].append(rest.pop(0))
        if len(full[s]) != size:
            raise ValueError(f"seat {s} holds {len(full[s])} cards, not {size}")
    left = (dealer + 1) % 4
    return [full[(left + j) % 4][i] for i in range(size) for j in range(4)]


def uncut(after: list[str], n: int = 1) -> list[str]:
    """The deck that ``cut n`` turns into ``after`` (the top n cards go under)."""
    return after[-n:] + after[:-n]


def boast_deck(draws: list[str], rest: list[str]) -> list[str]:
    """The deck after the cut for a boast: ``draws`` are given in order bottom, top, bottom,
    top, ...; ``rest`` is then dealt top-down."""
    bottoms = draws[0::2]
    tops = draws[1::2]
    return tops + rest + list(reversed(bottoms))


def log(
    preset: str,
    deals: list[dict[str, Any]],
    options: dict[str, Any] | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    return {"preset": preset, "players": 4, "options": options or {}, "seed": seed, "deals": deals}


def run(
    preset: str, deals: list[dict[str, Any]], options: dict[str, Any] | None = None
) -> tuple[TrumpMatch, dict[str, Any]]:
    match, summary = replay(log(preset, deals, options))
    assert isinstance(match, TrumpMatch)
    return match, summary


def new(
    preset: str,
    decks: list[list[str] | None],
    dealer: int,
    options: dict[str, Any] | None = None,
    seed: int = 0,
) -> TrumpMatch:
    """A match whose dealings use ``decks`` in turn (then the seed's shuffles)."""
    rules = make_rules(preset, 4, options)
    from engine.dealing import shuffled_deck

    def source(no: int, _dealer: int) -> tuple[list[int], int | None]:
        deck = decks[no - 1] if no <= len(decks) else None
        if deck is not None:
            return [parse_card(t) for t in deck], None
        return shuffled_deck(rules, seed, no)

    return TrumpMatch(rules, seed=seed, dealer=dealer, decks=source)


def act(match: TrumpMatch, seat: int, text: str) -> list[Event]:
    return match.apply(seat, parse_action(text))


def play_tricks(match: TrumpMatch, tricks: list[str]) -> list[Event]:
    """Each trick: the cards in play order from the seat on move."""
    events: list[Event] = []
    for trick in tricks:
        for card in trick.split():
            events.extend(match.apply(match.to_act()[0], Action("play", (parse_card(card),))))
    return events


def play_out(
    match: TrumpMatch, pick: Callable[[list[Action]], Action] | None = None, deal_no: int | None = None
) -> list[Event]:
    """Play the seat on move's actions (never a redeal) until the deal ends."""
    events: list[Event] = []
    no = match.deal_no if deal_no is None else deal_no
    while not match.finished and match.deal_no == no:
        seat = match.to_act()[0]
        legal = [a for a in match.legal_actions(seat) if a.kind != "redeal"]
        events.extend(match.apply(seat, (pick or (lambda ls: ls[0]))(legal)))
    return events


def of(events: list[Event], kind: type[Any]) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]
