"""The computer players by the names the service and the CLI use: ``random``, ``rules``,
``easy`` and ``search``, and the service's words for the levels (easy, normal, hard)."""

from __future__ import annotations

from collections.abc import Callable

from engine.players.bots import Bot, EasyBot, RandomBot, RulesBot
from engine.players.search import SearchBot

BOTS: dict[str, Callable[[], Bot]] = {
    "random": RandomBot,
    "rules": RulesBot,
    "easy": EasyBot,
    "search": SearchBot,
}


# the service's words for the levels: easy, normal (the rules player), hard (the search)
ALIASES = {"normal": "rules", "hard": "search"}


def make_bot(level: str) -> Bot:
    try:
        return BOTS[ALIASES.get(level, level)]()
    except KeyError:
        allowed = ", ".join([*BOTS, *ALIASES])
        raise ValueError(f"unknown computer player {level!r} (allowed: {allowed})") from None
