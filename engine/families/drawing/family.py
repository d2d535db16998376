"""The drawing family's record (RULES.md 1-3): ``kozel``, ``kozel-4``, ``kozel-60``."""

from __future__ import annotations

from engine.families.drawing import bot, compact, sampling
from engine.families.drawing.match import Match
from engine.family import DealValue, Family, card_share, no_voids, plain_suits
from engine.presets import Rules


def value(rules: Rules) -> DealValue:
    return card_share


def draws_dice() -> bool:
    return compact.QUICK != "rules"


FAMILY = Family(
    name="drawing",
    match=Match,
    rules_choice=bot.rules_choice,
    compact=compact.build,
    draws_dice=draws_dice,
    places=sampling.places,
    relabel=sampling.relabel,
    suit_class=plain_suits,
    voids=no_voids,
    hidden_again=sampling.hidden_again,
    replays=False,
    value=value,
    scores_card_points=True,
)
