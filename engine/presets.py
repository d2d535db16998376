"""Presets: named readings of the source texts, with their house-rule options (RULES.md).

Pydantic validates at the edge (``make_rules``); the hot path only sees the plain, frozen
``Rules`` it returns.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from engine.cards import SEVEN, Card, deck_30, deck_32, deck_36


class PresetError(ValueError):
    """An unknown preset, option or value: one clear message that lists what is allowed."""


class _Options(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class KozelOptions(_Options):
    """RULES.md 1."""

    shokha: bool = True
    tie: Literal["both_two", "eggs", "eggs_double"] = "both_two"


class Kozel4Options(_Options):
    """RULES.md 2: no options."""


class Kozel60Options(_Options):
    """RULES.md 3."""

    deal: Literal["draw", "halves"] = "draw"


class HvalenyiOptions(_Options):
    """RULES.md 4a."""

    deck: Literal[36, 32] = 36
    lyusya: Literal["match", "reset"] = "match"


class NNOptions(_Options):
    """RULES.md 4b: no options."""


class KochergaOptions(_Options):
    """RULES.md 4c."""

    trump_suit: Literal["clubs", "spades", "hearts", "diamonds"] = "clubs"
    ace_rule: bool = False
    lyusya: Literal["match", "reset"] = "match"


class PetukhOptions(_Options):
    """RULES.md 5. ``no_trick_cap`` "auto" is start - 5; ``elimination`` is the service's."""

    deck: Literal[32, 36] = 32
    start: Literal[15, 20, 25, 30] = 15
    trump_swap: Literal["may", "must", "never"] = "may"
    pass_: bool = Field(True, alias="pass")
    must_beat: bool = False
    lead_trump_ace: bool = False
    no_trick_cap: Literal["auto", 0, 5, 10, 15, 20, 25] = "auto"
    boys_table: Literal["standard", "thirty"] = "standard"
    crooked_boys: Literal[0, 3, 5] = 0
    boys_finish: bool = True
    spade_ace: bool = False
    elimination: bool = False


class Petukh25Options(_Options):
    """RULES.md 5a."""

    deck: Literal[32, 36] = 32
    elimination: bool = False


@dataclass(frozen=True)
class PresetSpec:
    name: str
    family: str
    players: tuple[int, ...]
    options: type[_Options]


PRESETS: dict[str, PresetSpec] = {
    "kozel": PresetSpec("kozel", "drawing", (2, 3, 4), KozelOptions),
    "kozel-4": PresetSpec("kozel-4", "drawing", (4,), Kozel4Options),
    "kozel-60": PresetSpec("kozel-60", "drawing", (2, 3, 4), Kozel60Options),
    "kozel-hvalenyi": PresetSpec("kozel-hvalenyi", "trump", (4,), HvalenyiOptions),
    "kozel-nn": PresetSpec("kozel-nn", "trump", (4,), NNOptions),
    "kozel-kocherga": PresetSpec("kozel-kocherga", "trump", (4,), KochergaOptions),
    "petukh": PresetSpec("petukh", "petukh", (2, 3, 4, 5, 6), PetukhOptions),
    # RULES.md 5a says "as petukh" (2-6 players); [decision] 2-4 here: with 5 tricks a
    # deal, five or six players leave someone trickless nearly every deal, and "no trick
    # +5" then keeps every record above 0 - matches between rules players did not end in
    # 500 deals (docs/families.md)
    "petukh-25": PresetSpec("petukh-25", "petukh", (2, 3, 4), Petukh25Options),
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
    trump_mode: str  # "turn" (card after the deal, drawn last), "middle" (kozel-4), "halves",
    # "fixed" (permanent trumps), "last" (the dealer's last card, Petukh)
    jacks: bool  # kozel-60: the four jacks over every trump
    scoring: str  # "penalty" (to 12) | "sixty" (accumulate to 60) | "halves" | "eyes" (to 12,
    # high is good) | "record" (Petukh: counts down to 0)
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


def players_allowed(preset: str, options: Mapping[str, Any] | None = None) -> tuple[int, ...]:
    """The table sizes ``preset`` allows with ``options`` (RULES.md 3: kozel-60 played in
    ``halves`` is for four players only)."""
    if preset == "kozel-60" and (options or {}).get("deal") == "halves":
        return (4,)
    return PRESETS[preset].players


def preset_names() -> list[str]:
    return list(PRESETS)


def option_help(preset: str) -> str:
    """``shokha: true|false (default true); tie: both_two|eggs|eggs_double (...)``."""
    spec = PRESETS[preset]
    parts = []
    for field_name, f in spec.options.model_fields.items():
        name = f.alias or field_name
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
        model = spec.options.model_validate(_coerce(spec.options, dict(options or {})))
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
    return model.model_dump(by_alias=True)


def _coerce(model: type[_Options], options: dict[str, Any]) -> dict[str, Any]:
    """Text from a button or a command (``"36"``) read as the literal it names (``36``)."""
    out = dict(options)
    for field_name, f in model.model_fields.items():
        name = f.alias or field_name
        value = out.get(name)
        if not isinstance(value, str):
            continue
        for allowed in getattr(f.annotation, "__args__", ()):
            if not isinstance(allowed, bool) and str(allowed).lower() == value.strip().lower():
                out[name] = allowed
    return out


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
    if spec.family == "trump":
        # RULES.md 4: every card dealt, 4 players in two partnerships
        small = preset == "kozel-kocherga" or opts.get("deck") == 32
        deck = tuple(deck_32() if preset == "kozel-kocherga" else deck_36())
        if preset == "kozel-hvalenyi" and small:
            deck = tuple(c for c in deck_36() if c % 9 != SEVEN)  # RULES.md 4a: no 7s
        return Rules(
            preset=preset, family="trump", players=players, options=opts, partnership=True,
            deck=deck, hand_size=len(deck) // 4, multi=False, shokha=False, combos=False,
            pull=False, trump_mode="fixed", jacks=False,
            scoring="penalty" if preset == "kozel-nn" else "eyes",
            tie="eggs_double" if preset == "kozel-nn" else "eggs", next_leader="left",
        )
    if spec.family == "petukh":
        # RULES.md 5: 6 players play the 30-card deck, all dealt
        if players == 6:
            deck = tuple(deck_30())
        else:
            deck = tuple(deck_36() if opts["deck"] == 36 else deck_32())
        return Rules(
            preset=preset, family="petukh", players=players, options=opts, partnership=False,
            deck=deck, hand_size=5 if players < 6 else 5, multi=False, shokha=False,
            combos=False, pull=False, trump_mode="last" if players == 6 or preset == "petukh-25"
            else "turn", jacks=False, scoring="record", tie="rooster", next_leader="left",
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
