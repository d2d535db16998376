"""The permanent-trump family's record (RULES.md 4): ``kozel-hvalenyi``, ``kozel-nn``,
``kozel-kocherga``."""

from __future__ import annotations

from engine.events import DealEnded, Event
from engine.families.trump import bot, compact, sampling
from engine.families.trump.match import TrumpMatch
from engine.families.trump.rules import QueenCaught
from engine.family import CATCH, DealValue, Family, share
from engine.presets import Rules


def deal_value(events: list[Event], seat: int, side: int) -> float | None:
    """A catch of the Q♣ is worth ``CATCH`` to the catching side (RULES.md 4a-4c), else the
    side's share of the card points."""
    for ev in events:
        if isinstance(ev, QueenCaught):
            return CATCH if ev.seat % 2 == side else 1.0 - CATCH
        if isinstance(ev, DealEnded):
            return share(ev, side)
    return None


def value(rules: Rules) -> DealValue:
    return deal_value


def draws_dice() -> bool:
    return compact.QUICK != "rules"


FAMILY = Family(
    name="trump",
    match=TrumpMatch,
    rules_choice=bot.rules_choice,
    compact=compact.build,
    draws_dice=draws_dice,
    places=sampling.places,
    relabel=sampling.relabel,
    suit_class=sampling.suit_class,
    voids=sampling.voids,
    hidden_again=None,
    replays=False,
    value=value,
    scores_card_points=True,
)
