"""The Petukh family's record (RULES.md 5): ``petukh``, ``petukh-25``."""

from __future__ import annotations

from engine.events import DealEnded, Event
from engine.families.petukh import bot, compact, sampling
from engine.families.petukh.match import PetukhMatch
from engine.families.petukh.odds import win_chance
from engine.families.petukh.rules import DealScored, settings_of
from engine.family import DealValue, Family, no_voids, plain_suits, share
from engine.presets import Rules


def value(rules: Rules) -> DealValue:
    """A deal is worth the seat's chance to win the match from the records it leaves
    (``engine.families.petukh.odds``)."""
    settings = settings_of(rules)

    def deal_value(events: list[Event], seat: int, side: int) -> float | None:
        for ev in events:
            if isinstance(ev, DealEnded):
                return share(ev, side)
            if isinstance(ev, DealScored):
                return win_chance(ev.records, seat, settings)
        return None

    return deal_value


def draws_dice() -> bool:
    return compact.QUICK != "rules"


FAMILY = Family(
    name="petukh",
    match=PetukhMatch,
    rules_choice=bot.rules_choice,
    compact=compact.build,
    draws_dice=draws_dice,
    places=sampling.places,
    relabel=sampling.relabel,
    suit_class=plain_suits,
    voids=no_voids,
    hidden_again=None,
    replays=True,
    value=value,
    scores_card_points=False,
)
