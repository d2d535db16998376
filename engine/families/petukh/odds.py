"""A Petukh seat's chance to win the match from the records (RULES.md 5): the search's value
of a deal's end.

The first to bring his record to exactly 0 wins, and a record's worth is far from linear:
from 15, coming down to 10 changes little, while 5 or less opens the boys finish, 2 or less
shuts the exchange, and an overshoot sends a record back to the start. So the value of a
deal's end is not how far the seat's own record came down but its chance of winning from
every seat's record after it: each record has a weight, and a seat's chance is its weight
over the sum of all seats' (a record of 0 has won: 1 if it is the seat's, else 0). Another
seat's overshoot is then worth as much to the search as its own progress.

The weights' logarithms (``ODDS``) were fitted by ``bench/petukh_odds.py`` from matches of
four rules players (six for the 30-card deck without exchange), keyed by the start
record, whether boys may finish and whether there is an exchange: the presets' own
settings. Other player counts and options (the boys table, the spade ace, the no-trick cap,
passing) share the table of their key; a key without a table gets log-weights falling
evenly from the start (``LINEAR``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache

from engine.presets import PetukhSettings

# (start, boys finish, exchange) -> log-weights of the records 1..start (the start's is 0);
# bench/petukh_odds.py, 2026-12-02: petukh 4p (20,000 matches), petukh 6p (10,000),
# petukh-25 4p (5,000)
# fmt: off
ODDS: dict[tuple[int, bool, bool], tuple[float, ...]] = {
    (15, True, True): (
        1.63, 1.23, 1.50, 1.46, 1.42, 0.76, 0.54, 0.38, 0.20, 0.08,
        0.18, 0.18, 0.14, 0.08, 0.00,
    ),
    (25, False, True): (
        1.78, 1.54, 1.44, 1.32, 1.20, 1.02, 0.91, 0.82, 0.70, 0.62,
        0.53, 0.43, 0.40, 0.32, 0.26, 0.22, 0.18, 0.14, 0.11, 0.07,
        0.08, 0.05, 0.06, 0.03, 0.00,
    ),
    (15, True, False): (
        1.95, 1.78, 1.54, 1.38, 1.25, 0.76, 0.56, 0.36, 0.21, 0.10,
        0.19, 0.18, 0.13, 0.09, 0.00,
    ),
}
# fmt: on
# the fallback: log-weight -record / (LINEAR * start); a straight line fitted to petukh 4p's
# positions (the same matches) gave -record / 8.5, 0.57 of the start
LINEAR = 0.55


@cache
def weights(start: int, boys_finish: bool, exchange: bool) -> tuple[float, ...]:
    """The weight of each record 0..start (a record above the start weighs as the start)."""
    logs = ODDS.get((start, boys_finish, exchange))
    if logs is None or len(logs) != start:
        logs = tuple(-r / (LINEAR * start) for r in range(1, start + 1))
    return (0.0, *(math.exp(x - logs[-1]) for x in logs))


def win_chance(records: Sequence[int], seat: int, cfg: PetukhSettings) -> float:
    """The seat's chance to win from ``records`` (every seat's, after a deal), 0..1."""
    if min(records) < 0:
        raise ValueError(f"records below 0 (an overshoot not set back): {list(records)}")
    if 0 in records:
        return 1.0 if records[seat] == 0 else 0.0
    table = weights(cfg.start, cfg.boys_finish, cfg.exchange)
    top = len(table) - 1
    mine = table[min(records[seat], top)]
    return mine / sum(table[min(r, top)] for r in records)
