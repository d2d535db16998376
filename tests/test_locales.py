"""The catalogs: ru and en complete for everything a user can see, in step with the code."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[1]


def _catalog(lang: str):  # type: ignore[no-untyped-def]
    with (ROOT / "locales" / lang / "LC_MESSAGES" / "messages.po").open("rb") as f:
        return read_po(f, locale=lang)


def _placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_catalog_complete_no_empty_or_fuzzy(lang: str) -> None:
    catalog = _catalog(lang)
    assert len([m for m in catalog if m.id]) > 50
    for m in catalog:
        if not m.id:
            continue
        assert not m.fuzzy, f"{lang}: fuzzy entry {m.id!r}"
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        assert strings and all(strings), f"{lang}: empty entry {m.id!r}"
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        for s in strings:
            assert _placeholders(s) == _placeholders(ids[-1]), f"{lang}: placeholders {m.id!r}"


def test_russian_plural_forms() -> None:
    catalog = _catalog("ru")
    assert catalog.num_plurals == 3
    from adapters.common.i18n import translator

    t = translator("ru")
    words = [t.ngettext("{n} player", "{n} players", n).format(n=n) for n in (1, 3, 5, 21)]
    assert words == ["1 игрок", "3 игрока", "5 игроков", "21 игрок"]


def test_catalogs_hold_every_string_of_the_code(tmp_path: Path) -> None:
    pot = tmp_path / "messages.pot"
    subprocess.run(
        [sys.executable, "-m", "babel.messages.frontend", "extract", "-F", "babel.cfg",
         "-k", "_", "-k", "N_", "-k", "n:1,2", "-k", "ngettext:1,2", "-o", str(pot),
         "--no-location", "adapters", "bot"],
        cwd=ROOT, check=True, capture_output=True,
    )
    with pot.open("rb") as f:
        wanted = {m.id for m in read_po(f) if m.id}
    for lang in ("ru", "en"):
        have = {m.id for m in _catalog(lang) if m.id}
        missing = wanted - have
        assert not missing, f"{lang} lacks {sorted(map(str, missing))[:5]} (python tools/locales.py)"


def test_every_preset_option_and_event_has_words() -> None:
    """A new preset, option or engine event without a title or a line would reach players
    as a raw name (or as nothing at all)."""
    import engine.petukh
    import engine.trump
    from adapters.common.render import LINES, OPTION_TITLES, PRESET_TITLES, RULES_SUMMARIES
    from adapters.common.render import option_values as values
    from engine import events
    from engine.presets import PRESETS

    for preset in PRESETS:
        assert preset in PRESET_TITLES and preset in RULES_SUMMARIES, preset
        for name, _ in values(preset):
            assert name in OPTION_TITLES, (preset, name)
    kinds = [events, engine.trump, engine.petukh]
    for module in kinds:
        for obj in vars(module).values():
            if isinstance(obj, type) and issubclass(obj, events.Event) and obj is not events.Event:
                name = "".join("_" + ch.lower() if ch.isupper() else ch
                               for ch in obj.__name__).lstrip("_")
                assert name in LINES, name


def test_every_reason_of_the_service_has_words() -> None:
    from adapters.common.render import REASONS
    from bot.changes import INTERNAL, Reason

    for reason in Reason:
        if reason not in INTERNAL:
            assert reason.value in REASONS, reason
