"""How big the bigger tests are: small by default, so the whole CI run stays well under 8
minutes on a 2-core machine; ``FULL_TESTS=1`` runs them at full size (more seeds, more
examples, whole matches), as ``RACE_ROOMS`` does for tests/service/test_race.py.

A small size checks the same things on fewer random matches, never fewer things.
"""

from __future__ import annotations

import os

FULL = os.environ.get("FULL_TESTS", "") not in ("", "0")


def full_or(small: int, full: int) -> int:
    """``full`` with ``FULL_TESTS=1``, else ``small``."""
    return full if FULL else small
