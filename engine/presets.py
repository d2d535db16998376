"""Presets: named readings of the source texts, with their house-rule options (RULES.md).

Pydantic validates at the edge (``make_rules``); the hot path only sees the plain, frozen
``Rules`` it returns.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from engine.cards import Card, deck_30, deck_32, deck_36


class PresetError(ValueError):
    """An unknown preset, option or value: one clear message that lists what is allowed."""


class _Options(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class KozelOptions(_Options):
    """RULES.md 1."""

    shokha: bool = True
    tie: Literal["both_two", "eggs", "eggs_double"] = "both_two"


class Kozel4Options(_Options):
    """RULES.md 2: no options."""


class Kozel60Options(_Options):
    """RULES.md 3."""

    deal: Literal["draw", "halves"] = "draw"


@dataclass(frozen=True)
class PresetSpec:
    name: str
    family: str
    players: tuple[int, ...]
    options: type[_Options]
    title: str


PRESETS: dict[str, PresetSpec] = {
    "kozel": PresetSpec("kozel", "drawing", (2, 3, 4), KozelOptions, "Kozel (classic, drawing)"),
    "kozel-4": PresetSpec("kozel-4", "drawing", (4,), Kozel4Options, "Kozel on 4 cards"),
    "kozel-60": PresetSpec("kozel-60", "drawing", (2, 3, 4), Kozel60Options, "Kozel to 60"),
}


@dataclass(frozen=True, slots=True)
class Rules:
    """Everything the hot path needs to know about a preset, as plain data."""

    preset: str
    family: str
    players: int
    options: Mapping[str, Any] = field(hash=False)
    partnership: bool
    deck: tuple[Card, ...]
    hand_size: int
    multi: bool  # multi-card leads with beat/throw answers (kozel, kozel-4)
    shokha: bool
    combos: bool  # Moscow and Molodka (RULES.md 1)
    pull: bool  # the kozel-4 pull (RULES.md 2)
    trump_mode: str  # "turn" (card after the deal, drawn last), "middle" (kozel-4), "halves"
    jacks: bool  # kozel-60: the four jacks over every trump
    scoring: str  # "penalty" (to 12) | "sixty" (accumulate to 60) | "halves"
    tie: str  # 60:60 in a penalty game: "both_two" | "eggs" | "eggs_double"
    next_leader: str  # "left" of the dealer | "last_trick" winner of the previous deal

    @property
    def sides(self) -> int:
        return 2 if self.partnership else self.players

    def side_of(self, seat: int) -> int:
        return seat % 2 if self.partnership else seat

    def side_seats(self, side: int) -> tuple[int, ...]:
        if self.partnership:
            return tuple(s for s in range(self.players) if s % 2 == side)
        return (side,)


def preset_names() -> list[str]:
    return list(PRESETS)


def option_help(preset: str) -> str:
    """``shokha: true|false (default true); tie: both_two|eggs|eggs_double (...)``."""
    spec = PRESETS[preset]
    parts = []
    for name, f in spec.options.model_fields.items():
        ann = f.annotation
        if ann is bool:
            allowed = "true|false"
        else:
            allowed = "|".join(str(a) for a in getattr(ann, "__args__", ()))
        default = f.default
        shown = str(default).lower() if isinstance(default, bool) else default
        parts.append(f"{name}: {allowed} (default {shown})")
    return "; ".join(parts) if parts else "no options"


def validate_options(preset: str, options: Mapping[str, Any] | None) -> dict[str, Any]:
    """Options checked against the preset's model, with defaults filled in."""
    spec = _spec(preset)
    if options is not None and not isinstance(options, Mapping):
        raise PresetError(
            f"preset {preset!r}: options must be a mapping of option names to values, "
            f"not {options!r}. Allowed: {option_help(preset)}"
        )
    try:
        model = spec.options.model_validate(dict(options or {}))
    except ValidationError as e:
        problems = []
        for err in e.errors():
            where = ".".join(str(p) for p in err["loc"]) or "options"
            if err["type"] == "extra_forbidden":
                problems.append(f"unknown option {where!r}")
            else:
                problems.append(f"bad value for {where!r}: {err['input']!r}")
        raise PresetError(
            f"preset {preset!r}: {'; '.join(problems)}. Allowed: {option_help(preset)}"
        ) from None
    return model.model_dump()


def _spec(preset: str) -> PresetSpec:
    try:
        return PRESETS[preset]
    except KeyError:
        raise PresetError(
            f"unknown preset {preset!r}. Allowed: {', '.join(PRESETS)}"
        ) from None


def make_rules(preset: str, players: int, options: Mapping[str, Any] | None = None) -> Rules:
    """Validate a preset, a player count and options; return the plain ``Rules``."""
    spec = _spec(preset)
    opts = validate_options(preset, options)
    if players not in spec.players:
        allowed = " or ".join(map(str, spec.players))
        raise PresetError(f"preset {preset!r} is for {allowed} players, not {players!r}")
    if preset == "kozel":
        return Rules(
            preset=preset, family="drawing", players=players, options=opts,
            partnership=players == 4, deck=tuple(deck_36()), hand_size=4, multi=True,
            shokha=opts["shokha"], combos=True, pull=False, trump_mode="turn", jacks=False,
            scoring="penalty", tie=opts["tie"], next_leader="left",
        )
    if preset == "kozel-4":
        return Rules(
            preset=preset, family="drawing", players=players, options=opts,
            partnership=True, deck=tuple(deck_36()), hand_size=4, multi=True,
            shokha=False, combos=False, pull=True, trump_mode="middle", jacks=False,
            scoring="penalty", tie="eggs", next_leader="last_trick",
        )
    # kozel-60
    halves = opts["deal"] == "halves"
    if halves and players != 4:
        raise PresetError("kozel-60 option deal=halves is for 4 players only")
    return Rules(
        preset=preset, family="drawing", players=players, options=opts,
        partnership=False, deck=tuple(deck_30() if players == 3 else deck_32()), hand_size=4,
        multi=False, shokha=False, combos=False, pull=False,
        trump_mode="halves" if halves else "turn", jacks=True,
        scoring="halves" if halves else "sixty", tie="eggs", next_leader="left",
    )
