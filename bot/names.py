"""People's names as every table draws them: clean, short, and never a computer player's.

A display name is whatever a member typed into his profile. Left as it is, a right-to-left
override turns "Anna" into a reversed line that swallows the text after it, zero-width
characters make two different people look alike, a newline breaks the table's layout, and
"🤖 Sam" reads as one of our computer players. So a name keeps its letters, digits,
punctuation, symbols and plain spaces, loses every control and format character (bidi
controls, zero-width joiners and spaces, soft hyphens), loses the 🤖 mark (reserved for
computer players), collapses its spaces and is cut to ``MAX_NAME`` characters.
"""

from __future__ import annotations

import unicodedata

MAX_NAME = 32
ROBOT = "\U0001f916"  # 🤖: the mark of a computer player
# categories dropped: controls, format characters (bidi, zero-width, soft hyphen...),
# surrogates, private use, unassigned, and line/paragraph separators
_DROPPED = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def clean_name(raw: str | None, fallback: str = "?") -> str:
    """``raw`` as a table may draw it; ``fallback`` when nothing printable is left."""
    text = unicodedata.normalize("NFC", raw or "")
    kept = []
    for ch in text:
        if ch.isspace():  # a newline or tab is a space, like any other
            kept.append(" ")
        elif ch != ROBOT and unicodedata.category(ch) not in _DROPPED:
            kept.append(ch)
    name = " ".join("".join(kept).split())
    if len(name) > MAX_NAME:
        name = name[: MAX_NAME - 1].rstrip() + "…"
    return name or fallback
