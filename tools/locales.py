"""Keep the catalogs in step with the code.

    python tools/locales.py extract    # code -> locales/messages.pot -> update every .po
    python tools/locales.py compile    # .po -> .mo (the install step, CI and the image)

English is the source language: its catalog is filled with the source strings.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[1]
LOCALES = ROOT / "locales"
KEYWORDS = ["-k", "_", "-k", "N_", "-k", "n:1,2", "-k", "ngettext:1,2"]


def extract() -> None:
    subprocess.run(
        [
            "pybabel",
            "extract",
            "-F",
            "babel.cfg",
            *KEYWORDS,
            "-o",
            "locales/messages.pot",
            "--no-location",
            "--sort-output",
            "--omit-header",
            "--project",
            "kozel-bot",
            "adapters",
            "bot",
        ],
        cwd=ROOT,
        check=True,
    )
    subprocess.run(
        [
            "pybabel",
            "update",
            "-i",
            "locales/messages.pot",
            "-d",
            "locales",
            "-D",
            "messages",
            "--no-fuzzy-matching",
            "--ignore-obsolete",
        ],
        cwd=ROOT,
        check=True,
    )
    po = LOCALES / "en" / "LC_MESSAGES" / "messages.po"
    with po.open("rb") as f:
        catalog = read_po(f, locale="en")
    for m in catalog:
        if m.id and not m.string or (isinstance(m.string, tuple) and not all(m.string)):
            m.string = m.id
        if m.fuzzy and m.string == m.id:
            m.flags.discard("fuzzy")  # English is the source: its text is never a guess
    with po.open("wb") as f:
        write_po(f, catalog, no_location=True, sort_output=True)


def compile_() -> None:
    subprocess.run(["pybabel", "compile", "-d", "locales", "-D", "messages"], cwd=ROOT, check=True)


if __name__ == "__main__":
    {"extract": extract, "compile": compile_}[sys.argv[1] if len(sys.argv) > 1 else "extract"]()
