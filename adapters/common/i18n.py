"""Languages: gettext catalogs under ``locales/<lang>/LC_MESSAGES/messages.po``.

The install step, CI and the image compile them to ``.mo`` (``pybabel compile -d locales``);
a checkout without compiled catalogs still works: the ``.po`` is compiled in memory once.
"""

from __future__ import annotations

import gettext
import io
import os
from functools import cache
from pathlib import Path

LANGUAGES = ("ru", "en", "uk", "hr")
DOMAIN = "messages"


def locales_dir() -> Path:
    """``LOCALES_DIR``, else the catalogs shipped in the ``locales`` package."""
    env = os.environ.get("LOCALES_DIR")
    if env:
        return Path(env)
    import locales

    return Path(locales.__file__).resolve().parent


def pick_language(code: str | None, default: str = "ru") -> str:
    """A platform's language code (``en-US``, ``ru``, ``uk``, ``hr``) -> one of ours."""
    if code:
        base = code.split("-")[0].split("_")[0].lower()
        if base in LANGUAGES:
            return base
    return default


@cache
def translator(lang: str) -> gettext.NullTranslations:
    folder = locales_dir() / lang / "LC_MESSAGES"
    mo = folder / f"{DOMAIN}.mo"
    po = folder / f"{DOMAIN}.po"
    if mo.exists() and (not po.exists() or mo.stat().st_mtime >= po.stat().st_mtime):
        with mo.open("rb") as f:
            return gettext.GNUTranslations(f)
    if po.exists():
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po

        with po.open("rb") as f:
            catalog = read_po(f, locale=lang)
        buf = io.BytesIO()
        write_mo(buf, catalog)
        buf.seek(0)
        return gettext.GNUTranslations(buf)
    return gettext.NullTranslations()


def N_(text: str) -> str:
    """Marks a string for extraction without translating it here."""
    return text
