"""The drawing family's hidden cards as a sample deals them again (``engine.players.sampler``):
the places of the stored deal, the deal renamed, and where a turned trump may hide again
(RULES.md 1-3)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.cards import Card
from engine.codec import pack_cards, unpack_cards
from engine.families.drawing.deal import DrawingDeal
from engine.families.drawing.match import Match
from engine.family import FACE_DOWN, Place, Trail
from engine.game import Game
from engine.presets import Rules

# Primary places hold each card once (hands, stock, piles, the trick); the rest of the state
# (the deck, the actions, the winning cards) names cards again and is relabelled with them.


def places(game: Game) -> list[Place]:
    """``Family.places``: the deal's cards where they lie, read from the deal itself."""
    assert isinstance(game, Match)
    d = game.deal
    places: list[Place] = [(f"hand {i}", list(h)) for i, h in enumerate(d.hands)]
    places.append(("stock", list(d.stock)))
    places.extend((f"pile {i}", list(p)) for i, p in enumerate(d.piles))
    places.extend(("trick", list(cs)) for _s, _k, cs in d.plays)
    places.append(("reserve", list(d.reserve)))
    return places


def relabel(state: dict[str, Any], f: Callable[[Card], Card]) -> dict[str, Any]:
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


def turned_trump_hiding(
    deal: DrawingDeal, rules: Rules, trail: Trail, seat: int
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
    card = deal.trump_card
    if card is None or card in deal.stock:
        return None
    if any(card in act.cards and act.kind not in FACE_DOWN for _s, act in trail):
        return None  # played face up since: its place is seen again
    hands = deal.hands
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


def _cards_above(deal: DrawingDeal, rules: Rules, card: Card) -> int:
    """How many cards lay above the turned trump ``card`` in the stock (0: dealt)."""
    rest = list(deal.deck[rules.hand_size * len(deal.seats) :])
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


def hidden_again(game: Game, rules: Rules, trail: Trail, seat: int) -> tuple[int | None, set[Card]] | None:
    """``Family.hidden_again``: the turned trump (``turned_trump_hiding``)."""
    assert isinstance(game, Match)
    return turned_trump_hiding(game.deal, rules, trail, seat)
