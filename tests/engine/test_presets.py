"""Presets at the edge: every wrong preset, option, value or player count is one
``PresetError`` whose single-line message says what is allowed."""

from __future__ import annotations

from typing import Any

import pytest

from engine.families.drawing.match import Match
from engine.presets import PRESETS, PresetError, make_rules, preset_names, validate_options

KOZEL_ALLOWED = ("shokha: true|false (default true)", "tie: both_two|eggs|eggs_double (default both_two)")


def fails(preset: Any, players: Any, options: Any = None) -> str:
    with pytest.raises(PresetError) as info:
        make_rules(preset, players, options)
    message = str(info.value)
    assert message and "\n" not in message and "\r" not in message, message
    # Match.new goes through the same check
    with pytest.raises(PresetError) as again:
        Match.new(preset, players, options)
    assert str(again.value) == message
    return message


def test_the_presets() -> None:
    assert preset_names() == [
        "kozel",
        "kozel-4",
        "kozel-60",
        "kozel-hvalenyi",
        "kozel-nn",
        "kozel-kocherga",
        "petukh",
        "petukh-25",
    ]
    for name, spec in PRESETS.items():
        for n in spec.players:
            rules = make_rules(name, n)
            assert rules.players == n and rules.preset == name


@pytest.mark.parametrize("preset", ["", "Kozel", "kozel-5", "petukh-x", "kozel\nrm", "None"])
def test_unknown_preset(preset: str) -> None:
    message = fails(preset, 4)
    assert message.startswith("unknown preset")
    assert repr(preset) in message
    assert "Allowed: kozel, kozel-4, kozel-60" in message


@pytest.mark.parametrize(
    "preset,players,options,allowed",
    [
        ("kozel", 4, {"shoha": True}, KOZEL_ALLOWED),
        ("kozel", 2, {"deal": "halves"}, KOZEL_ALLOWED),
        ("kozel-4", 4, {"shokha": False}, ("Allowed: no options",)),
        ("kozel-60", 3, {"tie": "eggs"}, ("deal: draw|halves (default draw)",)),
    ],
)
def test_unknown_option(preset: str, players: int, options: dict[str, Any], allowed: tuple[str, ...]) -> None:
    message = fails(preset, players, options)
    (name,) = options
    assert f"unknown option {name!r}" in message
    for text in allowed:
        assert text in message


@pytest.mark.parametrize(
    "preset,players,options,allowed",
    [
        ("kozel", 4, {"tie": "double"}, KOZEL_ALLOWED),
        ("kozel", 3, {"tie": 3}, KOZEL_ALLOWED),
        ("kozel", 2, {"shokha": "maybe"}, KOZEL_ALLOWED),
        ("kozel", 2, {"shokha": None}, KOZEL_ALLOWED),
        ("kozel", 4, {"tie": "eggs\nshokha"}, KOZEL_ALLOWED),
        ("kozel-60", 4, {"deal": "quarters"}, ("deal: draw|halves (default draw)",)),
    ],
)
def test_bad_option_value(
    preset: str, players: int, options: dict[str, Any], allowed: tuple[str, ...]
) -> None:
    message = fails(preset, players, options)
    (name,) = options
    assert f"bad value for {name!r}" in message
    for text in allowed:
        assert text in message


def test_two_problems_in_one_line() -> None:
    message = fails("kozel", 4, {"tie": "x", "foo": 1})
    assert "bad value for 'tie'" in message and "unknown option 'foo'" in message
    assert "Allowed: " + "; ".join(KOZEL_ALLOWED) in message


@pytest.mark.parametrize("options", ["tie=eggs", ["tie"], 3])
def test_options_not_a_mapping(options: Any) -> None:
    message = fails("kozel", 4, options)
    assert "options must be a mapping" in message
    assert "; ".join(KOZEL_ALLOWED) in message


@pytest.mark.parametrize(
    "preset,players,allowed",
    [
        ("kozel", 1, "2 or 3 or 4 players"),
        ("kozel", 5, "2 or 3 or 4 players"),
        ("kozel", 0, "2 or 3 or 4 players"),
        ("kozel", "4", "2 or 3 or 4 players"),
        ("kozel-4", 2, "for 4 players"),
        ("kozel-4", 3, "for 4 players"),
        ("kozel-60", 5, "2 or 3 or 4 players"),
        ("kozel-60", -1, "2 or 3 or 4 players"),
    ],
)
def test_bad_player_count(preset: str, players: Any, allowed: str) -> None:
    message = fails(preset, players)
    assert f"preset {preset!r} is for" in message
    assert allowed in message
    assert message.endswith(f"not {players!r}")


@pytest.mark.parametrize("players", [2, 3])
def test_halves_only_with_four(players: int) -> None:
    message = fails("kozel-60", players, {"deal": "halves"})
    assert "halves" in message and "4 players only" in message
    assert make_rules("kozel-60", 4, {"deal": "halves"}).trump_mode == "halves"


def test_defaults_filled_in() -> None:
    assert validate_options("kozel", None) == {"shokha": True, "tie": "both_two"}
    assert validate_options("kozel", {"tie": "eggs"}) == {"shokha": True, "tie": "eggs"}
    assert validate_options("kozel-4", {}) == {}
    assert validate_options("kozel-60", None) == {"deal": "draw"}


def test_presets_are_data_and_families_are_registered() -> None:
    """Issue 16.1: each preset builds its family's frozen settings from its validated
    options; the match class and the computer player come from the family registry, never
    from a comparison of names anywhere outside a family's package."""
    import dataclasses
    from pathlib import Path

    from engine.presets import DrawingSettings, PetukhSettings, TrumpSettings
    from engine.registry import FAMILIES, new_match

    for name, spec in PRESETS.items():
        rules = make_rules(name, spec.players[0])
        assert isinstance(new_match(rules, seed=1), FAMILIES[spec.family].match)
        expected = {"drawing": DrawingSettings, "trump": TrumpSettings, "petukh": PetukhSettings}
        assert isinstance(rules.settings, expected[spec.family])
        first = dataclasses.fields(rules.settings)[0].name
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(rules.settings, first, None)
    p = make_rules("petukh", 3, {"must_beat": True, "no_trick_cap": 10, "pass": False})
    assert isinstance(p.settings, PetukhSettings)
    assert (p.settings.answer, p.settings.cap, p.settings.may_pass) == ("beat", 10, False)
    assert make_rules("petukh-25", 2).settings.answer == "beat_or_trump"  # type: ignore[union-attr]
    d = make_rules("kozel", 3, {"shokha": False, "tie": "eggs"}).settings
    assert isinstance(d, DrawingSettings) and (d.shokha, d.tie, d.combos, d.pull) == (
        False,
        "eggs",
        True,
        False,
    )
    k = make_rules("kozel-kocherga", 4, {"trump_suit": "hearts"}).settings
    assert isinstance(k, TrumpSettings) and k.suit == 2 and not k.nn
    root = Path(__file__).resolve().parents[2] / "engine"
    for path in sorted(root.rglob("*.py")):
        text = path.read_text()
        assert "preset ==" not in text or path.name == "presets.py", path
        if "families" not in path.parts:  # issue 35.2: everything else asks the family's record
            assert "family ==" not in text and "family !=" not in text, path
