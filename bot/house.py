"""A chat's house rules (issue 36.1): a table opened in a chat starts from the options,
table size and computer level that chat last dealt with for that game, or from those an
admin set with ``/defaults``. Kept in the chat's settings (``keys.chat_prefs``) as JSON;
read back through the game's current options, so an option since removed or a value no
longer allowed is dropped, never a crash."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from engine.presets import PRESETS, PresetError, players_allowed, validate_options

LEVELS = ("easy", "normal", "hard")


def field_of(preset: str, pinned: bool) -> str:
    """The chat setting's name: as last dealt, or as an admin set it."""
    return f"rules{'!' if pinned else ''}:{preset}"


def packed(options: Mapping[str, Any], size: int, level: str) -> str:
    return json.dumps({"options": dict(options), "size": size, "level": level}, sort_keys=True)


def settled(preset: str, text: str | None) -> dict[str, Any] | None:
    """Stored house rules, checked against the game as it is now: each option kept only if
    the game still takes it, the size if still allowed, the level if still offered; None
    when nothing stored (or nothing readable)."""
    if not text or preset not in PRESETS:
        return None
    try:
        raw = json.loads(text)
    except ValueError:
        return None
    if not isinstance(raw, dict):
        return None
    options: dict[str, Any] = {}
    stored = raw.get("options")
    for name, value in (stored if isinstance(stored, dict) else {}).items():
        try:
            validate_options(preset, {**options, name: value})
        except PresetError:
            continue  # an option since removed, or a value no longer allowed
        options[name] = value
    options = validate_options(preset, options)
    size = raw.get("size")
    level = raw.get("level")
    return {
        "options": options,
        "size": size if isinstance(size, int) and size in players_allowed(preset, options) else None,
        "level": level if level in LEVELS else None,
    }


def changed_options(preset: str, options: Mapping[str, Any]) -> list[str]:
    """The options whose value is not the game's own."""
    own = _own(preset)
    return [k for k, v in options.items() if own.get(k) != v]


@lru_cache(maxsize=32)
def _own(preset: str) -> dict[str, Any]:
    return validate_options(preset, {})
