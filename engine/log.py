"""Deal logs: the public JSON format for replays, bug reports and tests (docs/deal-log.md).

```
{"preset": "kozel", "options": {...}, "players": 4, "seed": 7,
 "deals": [{"dealer": 3, "deck": ["AS", "10H", ...], "trump_card": "9D",
            "actions": [{"seat": 0, "lead": ["AS"]}, {"seat": 1, "throw": ["7H"]}, ...]}]}
```
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.actions import ActionError, action_from_json
from engine.cards import CARD_TEXT, Card, CardError, parse_card
from engine.dealing import DeckSource, shuffled_deck
from engine.errors import IllegalAction
from engine.game import Game
from engine.presets import PresetError, Rules, make_rules
from engine.registry import new_match


class LogError(ValueError):
    """A deal log that cannot be replayed: one line naming where and why."""


def to_log(match: Game) -> dict[str, Any]:
    """The match so far as a deal log (every dealing with its deck, so no RNG is needed).

    A redeal is a dealing of its own: the log then holds more dealings than deals.
    """
    rules = match.rules
    deals = []
    for rec in match.history:
        entry: dict[str, Any] = {"dealer": rec.dealer, "deck": [CARD_TEXT[c] for c in rec.deck]}
        if rec.trump_card is not None:
            entry["trump_card"] = CARD_TEXT[rec.trump_card]
        entry["actions"] = [{"seat": s, **a.to_json()} for s, a in rec.actions]
        deals.append(entry)
    return {
        "preset": rules.preset,
        "options": dict(rules.options),
        "players": rules.players,
        "seed": match.seed,
        "deals": deals,
    }


def _deck(entry: Mapping[str, Any], where: str, expected: tuple[Card, ...]) -> list[Card]:
    try:
        deck = [parse_card(c) for c in entry["deck"]]
    except (CardError, TypeError) as e:
        raise LogError(f"{where}: bad deck: {e}") from None
    if sorted(deck) != sorted(expected):
        raise LogError(f"{where}: the deck must hold each of the preset's {len(expected)} cards once")
    return deck


def replay(log: Mapping[str, Any]) -> tuple[Game, dict[str, Any]]:
    """Replay a deal log. Returns the match and the summary the CLI prints.

    Raises ``LogError`` with one line (naming the deal and action index) on anything wrong.
    """
    rules, deals = _read(log)
    seed = log.get("seed", 0)
    first = deals[0].get("dealer") if deals else None
    if first is not None and not (isinstance(first, int) and 0 <= first < rules.players):
        raise LogError(f"deal 1: no such dealer {first!r}")
    match = new_match(rules, seed=seed, dealer=first, decks=_decks(rules, deals, seed))
    for no, entry in enumerate(deals, start=1):
        _replay_deal(match, no, entry)
    summary = {
        "preset": rules.preset,
        "players": rules.players,
        "deals": [dict(rec.result) for rec in match.history if rec.result is not None],
        "finished": match.finished,
        "winners": list(match.winners),
        "score": list(match.scores),
    }
    return match, summary


def _read(log: Mapping[str, Any]) -> tuple[Rules, list[Mapping[str, Any]]]:
    """The log's rules and deals, each checked for its shape."""
    if not isinstance(log, Mapping):
        kind = type(log).__name__
        raise LogError(f"a deal log is a JSON object with preset, players and deals, not a {kind}")
    players = log.get("players")
    if isinstance(players, bool) or not isinstance(players, int):
        raise LogError(f"players must be a whole number, not {players!r}")
    try:
        rules = make_rules(str(log.get("preset")), players, log.get("options"))
    except (PresetError, ValueError, TypeError) as e:
        raise LogError(str(e)) from None
    deals = log.get("deals") or []
    if not isinstance(deals, list):
        raise LogError("deals must be a list")
    for no, entry in enumerate(deals, start=1):
        if not isinstance(entry, Mapping):
            raise LogError(f"deal {no}: a deal is a JSON object, not {entry!r}")
        if not isinstance(entry.get("actions") or [], list):
            raise LogError(f"deal {no}: actions must be a list")
    return rules, deals


def _decks(rules: Rules, deals: list[Mapping[str, Any]], seed: Any) -> DeckSource:
    """Each dealing's deck: the log's own, else the one its seed shuffles."""

    def decks(no: int, dealer: int) -> tuple[list[Card], Card | None]:
        entry: Mapping[str, Any] = deals[no - 1] if no <= len(deals) else {}
        if "deck" not in entry:
            return shuffled_deck(rules, entry.get("seed", seed), no)
        where = f"deal {no}"
        deck = _deck(entry, where, rules.deck)
        if rules.trump_mode != "middle":
            return deck, None
        if "trump_card" not in entry:
            raise LogError(f"{where}: kozel-4 needs trump_card (the card shown from the stock)")
        try:
            trump_card = parse_card(entry["trump_card"])
        except CardError as e:
            raise LogError(f"{where}: {e}") from None
        if trump_card not in deck[rules.hand_size * rules.players :]:
            raise LogError(f"{where}: trump_card must be a card of the stock")
        return deck, trump_card

    return decks


def _replay_deal(match: Game, no: int, entry: Mapping[str, Any]) -> None:
    """Deal ``no`` of the log: its dealer checked, its actions applied (the refusal of one
    names it: ``deal 1, action 3: play 7C by seat 0: must trump no higher``)."""
    where = f"deal {no}"
    if match.finished:
        raise LogError(f"{where}: the match was already over")
    if len(match.history) != no:
        raise LogError(f"{where}: the previous deal did not end")
    dealer = entry.get("dealer")
    if dealer is not None and dealer != match.dealer:
        raise LogError(f"{where}: dealer {dealer} but the rotation gives {match.dealer}")
    actions = entry.get("actions") or []
    for i, raw in enumerate(actions):
        try:
            seat, act = action_from_json(raw)
            match.apply(seat, act)
        except (ActionError, IllegalAction) as e:
            raise LogError(f"{where}, action {i}: {e}") from None
        if len(match.history) != no and i != len(actions) - 1:
            raise LogError(f"{where}, action {i + 1}: the deal was already over")
