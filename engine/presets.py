"""Presets: named readings of the source texts, with their house-rule options (RULES.md).

Pydantic validates at the edge (``make_rules``); the hot path only sees the plain, frozen
``Rules`` it returns.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from engine.cards import (
    ACE,
    CLUBS,
    DIAMONDS,
    EIGHT,
    HEARTS,
    JACK,
    KING,
    NINE,
    QUEEN,
    SEVEN,
    SIX,
    SPADES,
    TEN,
    Card,
    deck_30,
    deck_32,
    deck_36,
    make,
)


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


# --- per-family settings: frozen rule objects built from the validated option models ------

Family = Literal["drawing", "trump", "petukh"]
# where the trump comes from: "turn" (the card after the deal, drawn last), "middle"
# (kozel-4), "halves" (kozel-60 halves), "fixed" (permanent trumps), "last" (the dealer's
# last card, Petukh)
TrumpMode = Literal["turn", "middle", "halves", "fixed", "last"]
# "penalty" (to 12) | "sixty" (accumulate to 60) | "halves" | "eyes" (to 12, high is good) |
# "record" (Petukh: counts down to 0)
Scoring = Literal["penalty", "sixty", "halves", "eyes", "record"]
Tie = Literal["both_two", "eggs", "eggs_double"]  # 60:60 in a drawing penalty game


NextLeader = Literal["left", "last_trick"]  # of the dealer | the previous deal's last trick winner


@dataclass(frozen=True, slots=True)
class DrawingSettings:
    """RULES.md 1-3: one drawing preset's rules."""

    shokha: bool  # the 6S over every card (RULES.md 1)
    combos: bool  # Moscow and Molodka (RULES.md 1)
    pull: bool  # the kozel-4 pull (RULES.md 2)
    jacks: bool  # kozel-60: the four jacks over every trump
    tie: Tie  # 60:60 in a penalty game
    next_leader: NextLeader


@dataclass(frozen=True, slots=True)
class TrumpSettings:
    """RULES.md 4: one permanent-trump preset's rules."""

    suit: int  # the suit whose plain cards are trumps
    # the trumps high -> low over the 36 cards: the top, the queens, the jacks, the suit
    order: tuple[Card, ...]
    nn: bool  # RULES.md 4b's game: the cut, the boast, the A-diamonds lead, penalties to 12
    ace_rule: bool  # RULES.md 4a always, 4c by option
    lyusya: Literal["match", "reset"] | None  # None: no Lyusya (kozel-nn)


# How a Petukh trick is answered (RULES.md 5, 5a):
# - "follow": the led suit, else a trump, else any card (petukh);
# - "beat": the led suit, higher than the table if he can; else a trump, higher than the
#   trumps on the table if he can; else any card (petukh ``must_beat``);
# - "beat_or_trump": a card of the led suit higher than every card of it on the table; else,
#   on a plain lead, a trump (even holding lower cards of the led suit); else the led suit;
#   else any card (petukh-25, RULES.md 5a "Answering").
Answer = Literal["follow", "beat", "beat_or_trump"]


@dataclass(frozen=True, slots=True)
class PetukhSettings:
    """RULES.md 5, 5a: one Petukh preset's rules."""

    start: int
    swap: Literal["may", "must", "never"]
    may_pass: bool
    answer: Answer
    lead_trump_ace: bool
    cap: int | None  # +5 for no trick while the record is at most this; None: always
    boys: bool
    boys_table: Literal["standard", "thirty"]
    crooked: int
    boys_finish: bool
    spade_ace: bool
    skips: int
    exchange: bool


FamilySettings = DrawingSettings | TrumpSettings | PetukhSettings | None  # None: no rules built


@dataclass(frozen=True, slots=True)
class Rules:
    """Everything the hot path needs to know about a preset, as plain data."""

    preset: str
    family: Family
    players: int
    options: Mapping[str, Any] = field(hash=False)
    partnership: bool
    deck: tuple[Card, ...]
    hand_size: int
    multi: bool  # multi-card leads with beat/throw answers (kozel, kozel-4)
    trump_mode: TrumpMode
    scoring: Scoring
    # the family's own rules (``DrawingSettings``, ``TrumpSettings``, ``PetukhSettings``):
    # each family reads them through its ``settings_of``
    settings: FamilySettings = field(default=None, hash=False)

    @property
    def sides(self) -> int:
        return 2 if self.partnership else self.players

    def side_of(self, seat: int) -> int:
        return seat % 2 if self.partnership else seat

    def side_seats(self, side: int) -> tuple[int, ...]:
        if self.partnership:
            return tuple(s for s in range(self.players) if s % 2 == side)
        return (side,)


def _kozel(o: KozelOptions, players: int) -> Rules:
    """RULES.md 1."""
    return Rules(
        preset="kozel",
        family="drawing",
        players=players,
        options=o.model_dump(by_alias=True),
        partnership=players == 4,
        deck=tuple(deck_36()),
        hand_size=4,
        multi=True,
        trump_mode="turn",
        scoring="penalty",
        settings=DrawingSettings(
            shokha=o.shokha, combos=True, pull=False, jacks=False, tie=o.tie, next_leader="left"
        ),
    )


def _kozel4(o: Kozel4Options, players: int) -> Rules:
    """RULES.md 2."""
    return Rules(
        preset="kozel-4",
        family="drawing",
        players=players,
        options=o.model_dump(by_alias=True),
        partnership=True,
        deck=tuple(deck_36()),
        hand_size=4,
        multi=True,
        trump_mode="middle",
        scoring="penalty",
        settings=DrawingSettings(
            shokha=False, combos=False, pull=True, jacks=False, tie="eggs", next_leader="last_trick"
        ),
    )


def _kozel60(o: Kozel60Options, players: int) -> Rules:
    """RULES.md 3."""
    halves = o.deal == "halves"
    if halves and players != 4:
        raise PresetError("kozel-60 option deal=halves is for 4 players only")
    return Rules(
        preset="kozel-60",
        family="drawing",
        players=players,
        options=o.model_dump(by_alias=True),
        partnership=False,
        deck=tuple(deck_30() if players == 3 else deck_32()),
        hand_size=4,
        multi=False,
        trump_mode="halves" if halves else "turn",
        scoring="halves" if halves else "sixty",
        settings=DrawingSettings(
            shokha=False, combos=False, pull=False, jacks=True, tie="eggs", next_leader="left"
        ),
    )


_SUITS = {"clubs": CLUBS, "spades": SPADES, "hearts": HEARTS, "diamonds": DIAMONDS}
_QUEENS = tuple(make(QUEEN, s) for s in (CLUBS, SPADES, HEARTS, DIAMONDS))
_JACKS = tuple(make(JACK, s) for s in (CLUBS, SPADES, HEARTS, DIAMONDS))


def _hvalenyi_ladder(suit: int) -> tuple[Card, ...]:
    """RULES.md 4a: 6C, the queens, the jacks, then A 10 K 9 8 7 6 of the suit."""
    return _ladder(make(SIX, CLUBS), suit, (ACE, TEN, KING, NINE, EIGHT, SEVEN, SIX))


def _nn_ladder(suit: int) -> tuple[Card, ...]:
    """RULES.md 4b: shamok (6C), the queens, the jacks, then A 10 K 9 8 7 of the suit."""
    return _ladder(make(SIX, CLUBS), suit, (ACE, TEN, KING, NINE, EIGHT, SEVEN))


def _kocherga_ladder(suit: int) -> tuple[Card, ...]:
    """RULES.md 4c: kocherga (7C), the queens, the jacks, then A 10 K 9 8 (7) of the suit."""
    ranks = (ACE, TEN, KING, NINE, EIGHT) + (() if suit == CLUBS else (SEVEN,))
    return _ladder(make(SEVEN, CLUBS), suit, ranks)


def _ladder(top: Card, suit: int, ranks: tuple[int, ...]) -> tuple[Card, ...]:
    return (top, *_QUEENS, *_JACKS, *(make(r, suit) for r in ranks))


_LADDERS = {
    "kozel-hvalenyi": _hvalenyi_ladder,
    "kozel-nn": _nn_ladder,
    "kozel-kocherga": _kocherga_ladder,
}


def trump_ladder(preset: str, suit: int) -> tuple[Card, ...]:
    """A permanent-trump preset's trumps with ``suit`` as its trump suit, high -> low, over
    the 36 cards (filter by the deck)."""
    return _LADDERS[preset](suit)


def _trump_rules(
    preset: str, o: _Options, deck: list[Card], scoring: Scoring, settings: TrumpSettings
) -> Rules:
    """RULES.md 4: every card dealt, 4 players in two partnerships."""
    return Rules(
        preset=preset,
        family="trump",
        players=4,
        options=o.model_dump(by_alias=True),
        partnership=True,
        deck=tuple(deck),
        hand_size=len(deck) // 4,
        multi=False,
        trump_mode="fixed",
        scoring=scoring,
        settings=settings,
    )


def _hvalenyi(o: HvalenyiOptions, players: int) -> Rules:
    """RULES.md 4a: trumps over diamonds; the ace rule; 32 cards are 36 without the 7s."""
    deck = deck_36() if o.deck == 36 else [c for c in deck_36() if c % 9 != SEVEN]
    return _trump_rules(
        "kozel-hvalenyi",
        o,
        deck,
        "eyes",
        TrumpSettings(
            suit=DIAMONDS, order=_hvalenyi_ladder(DIAMONDS), nn=False, ace_rule=True, lyusya=o.lyusya
        ),
    )


def _nn(o: NNOptions, players: int) -> Rules:
    """RULES.md 4b: trumps over clubs; penalties to 12."""
    return _trump_rules(
        "kozel-nn",
        o,
        deck_36(),
        "penalty",
        TrumpSettings(suit=CLUBS, order=_nn_ladder(CLUBS), nn=True, ace_rule=False, lyusya=None),
    )


def _kocherga(o: KochergaOptions, players: int) -> Rules:
    """RULES.md 4c: 32 cards, trumps over the chosen suit."""
    suit = _SUITS[o.trump_suit]
    return _trump_rules(
        "kozel-kocherga",
        o,
        deck_32(),
        "eyes",
        TrumpSettings(
            suit=suit, order=_kocherga_ladder(suit), nn=False, ace_rule=o.ace_rule, lyusya=o.lyusya
        ),
    )


# RULES.md 5a: "no trick +5" (the source: a trickless player "crowed" and is fined 5), with
# petukh's cap: start - 5 (RULES.md 5, "as petukh").
P25_NO_TRICK_CAP = 20
P25_SKIPS = 2  # RULES.md 5a: skips per player per match


def _petukh_rules(
    preset: str, o: PetukhOptions | Petukh25Options, players: int, last: bool, settings: PetukhSettings
) -> Rules:
    # RULES.md 5: 6 players play the 30-card deck, all dealt; five cards each
    if players == 6:
        deck = deck_30()
    else:
        deck = deck_36() if o.deck == 36 else deck_32()
    return Rules(
        preset=preset,
        family="petukh",
        players=players,
        options=o.model_dump(by_alias=True),
        partnership=False,
        deck=tuple(deck),
        hand_size=5,
        multi=False,
        trump_mode="last" if players == 6 or last else "turn",
        scoring="record",
        settings=settings,
    )


def _petukh(o: PetukhOptions, players: int) -> Rules:
    """RULES.md 5."""
    six = players == 6
    return _petukh_rules(
        "petukh",
        o,
        players,
        False,
        PetukhSettings(
            start=o.start,
            swap="never" if six else o.trump_swap,
            may_pass=o.pass_,
            answer="beat" if o.must_beat else "follow",
            lead_trump_ace=o.lead_trump_ace,
            cap=o.start - 5 if o.no_trick_cap == "auto" else o.no_trick_cap,
            boys=True,
            boys_table=o.boys_table,
            crooked=o.crooked_boys,
            boys_finish=o.boys_finish,
            spade_ace=o.spade_ace,
            skips=0,
            exchange=not six,
        ),
    )


def _petukh25(o: Petukh25Options, players: int) -> Rules:
    """RULES.md 5a. [decision] passing (sitting a deal out) stays allowed, as in petukh.
    "no trick +5" read with the source's fourth text ("прокукарекал": a trickless player is
    fined 5) and, as petukh, capped at start - 5."""
    return _petukh_rules(
        "petukh-25",
        o,
        players,
        True,
        PetukhSettings(
            start=25,
            swap="never",
            may_pass=True,
            answer="beat_or_trump",
            lead_trump_ace=True,
            cap=P25_NO_TRICK_CAP,
            boys=False,
            boys_table="standard",
            crooked=0,
            boys_finish=False,
            spade_ace=False,
            skips=P25_SKIPS,
            exchange=players != 6,
        ),
    )


@dataclass(frozen=True)
class PresetSpec:
    name: str
    family: Family
    players: tuple[int, ...]
    options: type[_Options]
    build: Callable[[Any, int], Rules]  # (the validated options, players) -> Rules


PRESETS: dict[str, PresetSpec] = {
    "kozel": PresetSpec("kozel", "drawing", (2, 3, 4), KozelOptions, _kozel),
    "kozel-4": PresetSpec("kozel-4", "drawing", (4,), Kozel4Options, _kozel4),
    "kozel-60": PresetSpec("kozel-60", "drawing", (2, 3, 4), Kozel60Options, _kozel60),
    "kozel-hvalenyi": PresetSpec("kozel-hvalenyi", "trump", (4,), HvalenyiOptions, _hvalenyi),
    "kozel-nn": PresetSpec("kozel-nn", "trump", (4,), NNOptions, _nn),
    "kozel-kocherga": PresetSpec("kozel-kocherga", "trump", (4,), KochergaOptions, _kocherga),
    "petukh": PresetSpec("petukh", "petukh", (2, 3, 4, 5, 6), PetukhOptions, _petukh),
    # RULES.md 5a says "as petukh" (2-6 players); [decision] 2-4 here: with 5 tricks a
    # deal, five or six players leave someone trickless nearly every deal, and "no trick
    # +5" then keeps every record above 0 - matches between rules players did not end in
    # 500 deals (docs/families.md)
    "petukh-25": PresetSpec("petukh-25", "petukh", (2, 3, 4), Petukh25Options, _petukh25),
}

# the tables the search is tested and measured at (tests/engine/test_search.py,
# bench/engine.py, bench/strength.py): every preset at 4 players, kozel and kozel-60 at 2 too
SEARCH_TABLES: tuple[tuple[str, int], ...] = (
    ("kozel", 4),
    ("kozel", 2),
    ("kozel-4", 4),
    ("kozel-60", 2),
    ("kozel-hvalenyi", 4),
    ("kozel-nn", 4),
    ("kozel-kocherga", 4),
    ("petukh", 4),
    ("petukh-25", 4),
)


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
    return _validated(preset, options).model_dump(by_alias=True)


def _validated(preset: str, options: Mapping[str, Any] | None) -> _Options:
    spec = _spec(preset)
    if options is not None and not isinstance(options, Mapping):
        raise PresetError(
            f"preset {preset!r}: options must be a mapping of option names to values, "
            f"not {options!r}. Allowed: {option_help(preset)}"
        )
    try:
        return spec.options.model_validate(_coerce(spec.options, dict(options or {})))
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
        raise PresetError(f"unknown preset {preset!r}. Allowed: {', '.join(PRESETS)}") from None


@lru_cache(maxsize=64)
def default_rules(preset: str, players: int) -> Rules:
    """The preset's rules with its default options (what a computer player may assume of
    a rule no option changes)."""
    return make_rules(preset, players)


def make_rules(preset: str, players: int, options: Mapping[str, Any] | None = None) -> Rules:
    """Validate a preset, a player count and options; return the plain ``Rules``."""
    spec = _spec(preset)
    model = _validated(preset, options)
    if players not in spec.players:
        allowed = " or ".join(map(str, spec.players))
        raise PresetError(f"preset {preset!r} is for {allowed} players, not {players!r}")
    return spec.build(model, players)
