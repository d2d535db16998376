"""The catalogs: every language complete for everything a user can see, in step with the code."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[1]
LANGS = ("ru", "en", "uk", "hr")


def _catalog(lang: str):  # type: ignore[no-untyped-def]
    with (ROOT / "locales" / lang / "LC_MESSAGES" / "messages.po").open("rb") as f:
        return read_po(f, locale=lang)


def _placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", text))


@pytest.mark.parametrize("lang", LANGS)
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


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("ru", ["1 игрок", "3 игрока", "5 игроков", "21 игрок", "12 игроков"]),
        ("uk", ["1 гравець", "3 гравці", "5 гравців", "21 гравець", "12 гравців"]),
        ("hr", ["1 igrač", "3 igrača", "5 igrača", "21 igrač", "12 igrača"]),
    ],
)
def test_plural_forms(lang: str, words: list[str]) -> None:
    catalog = _catalog(lang)
    assert catalog.num_plurals == 3
    from adapters.common.i18n import translator

    t = translator(lang)
    said = [t.ngettext("{n} player", "{n} players", n).format(n=n) for n in (1, 3, 5, 21, 12)]
    assert said == words


@pytest.mark.parametrize("lang", ["ru", "uk", "hr"])
def test_plural_forms_header_is_the_east_slavic_rule(lang: str) -> None:
    """ru, uk and hr share one rule: the header's expression picks the same form as it."""
    import gettext

    rule = gettext.c2py("n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2")
    header = gettext.c2py(_catalog(lang).plural_expr)
    assert all(header(n) == rule(n) for n in range(1000))


def test_plural_forms_of_tricks() -> None:
    from adapters.common.i18n import translator

    def tricks(lang: str) -> list[str]:
        t = translator(lang)
        return [t.ngettext("{n} trick", "{n} tricks", n).format(n=n) for n in (1, 2, 11, 22, 25)]

    assert tricks("uk") == ["1 взятка", "2 взятки", "11 взяток", "22 взятки", "25 взяток"]
    assert tricks("hr") == ["1 štih", "2 štiha", "11 štihova", "22 štiha", "25 štihova"]


def test_catalogs_hold_every_string_of_the_code(tmp_path: Path) -> None:
    pot = tmp_path / "messages.pot"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "babel.messages.frontend",
            "extract",
            "-F",
            "babel.cfg",
            "-k",
            "_",
            "-k",
            "N_",
            "-k",
            "n:1,2",
            "-k",
            "ngettext:1,2",
            "-o",
            str(pot),
            "--no-location",
            "adapters",
            "bot",
        ],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    with pot.open("rb") as f:
        wanted = {m.id for m in read_po(f) if m.id}
    for lang in LANGS:
        have = {m.id for m in _catalog(lang) if m.id}
        missing = wanted - have
        assert not missing, f"{lang} lacks {sorted(map(str, missing))[:5]} (python tools/locales.py)"


def test_every_preset_option_and_event_has_words() -> None:
    """A new preset, option or engine event without a title or a line would reach players
    as a raw name (or as nothing at all)."""
    import engine.families.petukh.match
    import engine.families.trump.match
    from adapters.common.render import LINES, OPTION_TITLES, PRESET_TITLES, RULES_SUMMARIES
    from adapters.common.render import option_values as values
    from engine import events
    from engine.presets import PRESETS

    for preset in PRESETS:
        assert preset in PRESET_TITLES and preset in RULES_SUMMARIES, preset
        for name, _ in values(preset):
            assert name in OPTION_TITLES, (preset, name)
    kinds = [events, engine.families.trump.match, engine.families.petukh.match]
    for module in kinds:
        for obj in vars(module).values():
            if isinstance(obj, type) and issubclass(obj, events.Event) and obj is not events.Event:
                name = "".join("_" + ch.lower() if ch.isupper() else ch for ch in obj.__name__).lstrip("_")
                assert name in LINES, name


def test_every_reason_of_the_service_has_words() -> None:
    """Every ``Reason`` a person may be told has words, translated in every catalog."""
    from adapters.common.render import REASONS
    from bot.changes import INTERNAL, Reason

    told = [reason for reason in Reason if reason not in INTERNAL]
    for reason in told:
        assert reason.value in REASONS, reason
    for lang in LANGS:
        words = {m.id: m.string for m in _catalog(lang) if m.id}
        for reason in told:
            assert words.get(REASONS[reason.value]), f"{lang}: no words for {reason.value!r}"


@pytest.mark.parametrize("lang", LANGS)
def test_every_language_is_offered_and_may_be_the_default(lang: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from adapters.common.i18n import LANGUAGES, pick_language
    from bot.config import load_settings

    assert lang in LANGUAGES
    assert pick_language(lang.upper() + "-XX", "en") == lang  # Telegram / Discord codes
    monkeypatch.setenv("DEFAULT_LANGUAGE", lang)
    assert load_settings().default_language == lang


# entries that read the same in a language as in English (a word both use)
SAME_AS_ENGLISH = {"hr": {"+ Bot", "{name}, {seconds} s"}}


@pytest.mark.parametrize("lang", ["ru", "uk", "hr"])
def test_no_entry_is_left_in_english(lang: str) -> None:
    """Complete means translated: an entry copied from English would pass as non-empty."""
    left = set()
    for m in _catalog(lang):
        if not m.id:
            continue
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        if any(s in ids for s in strings):
            left.add(ids[0])
    assert left == SAME_AS_ENGLISH.get(lang, set()), sorted(left)


@pytest.mark.parametrize("lang", LANGS)
def test_rules_cards_and_command_descriptions_in_every_language(lang: str) -> None:
    """Issue 18: every preset's rules card, every Telegram menu entry and every Discord
    command description is in the language (English is the source text)."""
    from adapters.common.render import RULES_SUMMARIES, Text
    from adapters.telegram.app import GROUP_COMMANDS, PRIVATE_COMMANDS

    t = Text(lang)
    texts = [*RULES_SUMMARIES.values(), *(d for _c, d in GROUP_COMMANDS + PRIVATE_COMMANDS)]
    have = {m.id for m in _catalog(lang) if m.id}
    for text in texts:
        assert text in have, (lang, text)
        assert (t._(text) == text) == (lang == "en"), (lang, text)
