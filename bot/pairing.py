"""Swiss pairing of a tournament's people into tables (issue 36.3). Pure: no Redis.

A round seats the people still in the tournament at as few tables as their number needs
(tables of the preset's size, their people spread evenly: sizes differ by one at most);
the seats left over are computer players'. Swiss: people are taken by standing (points,
then card points, then sign-up order), so the leaders meet each other; among the ways
to seat them, one where the fewest pairs of people meet again is chosen (a bounded
search: the greedy seating first, then better ones while the budget lasts).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations, islice

MAX_ORDERINGS = 24  # orders of the tables' sizes the search tries
SEARCH_BUDGET = 20_000  # steps of the search for a better seating, a round at most


@dataclass(frozen=True)
class Standing:
    """A person in the pairing: his points and card points so far and whom he has met."""

    user: str
    points: int = 0
    cards: int = 0
    met: frozenset[str] = frozenset()


def table_sizes(people: int, size: int) -> list[int]:
    """People per table: as few tables as ``size`` allows, filled evenly."""
    if people <= 0:
        return []
    tables = -(-people // size)
    base, extra = divmod(people, tables)
    return [base + (1 if i < extra else 0) for i in range(tables)]


def by_standing(standings: Sequence[Standing]) -> list[Standing]:
    """Best first; equal points and card points keep the order given (sign-up order)."""
    return sorted(standings, key=lambda s: (-s.points, -s.cards))


def repeats(table: Sequence[Standing]) -> int:
    """Pairs at the table who have met before."""
    return sum(1 for i, a in enumerate(table) for b in table[i + 1 :] if b.user in a.met or a.user in b.met)


def pair(standings: Sequence[Standing], size: int) -> list[list[str]]:
    """The round's tables: each a list of user ids (computer players take the rest of its
    ``size`` seats)."""
    order = by_standing(standings)
    sizes = table_sizes(len(order), size)
    best = _greedy(order, sizes)
    cost = sum(repeats(t) for t in best)
    if cost:
        search = _Search(sizes, cost)
        # the bigger tables first, then the other ways round (who sits where the computer
        # players do matters when someone must meet someone again)
        for ordering in orderings(sizes):
            search.sizes = ordering
            search.run(order, [])
            if search.budget <= 0 or search.best_cost == 0:
                break
        if search.found is not None:
            best = search.found
    return [[s.user for s in table] for table in best]


def orderings(sizes: list[int], most: int = MAX_ORDERINGS) -> list[list[int]]:
    """Ways to order the tables' sizes (they differ by one at most), the bigger tables
    first in the first one; at most ``most`` of them."""
    big, tables = sizes.count(max(sizes)), len(sizes)
    if big == tables:
        return [list(sizes)]
    ways = islice(combinations(range(tables), big), most)
    return [[max(sizes) if i in at else min(sizes) for i in range(tables)] for at in map(set, ways)]


def _greedy(order: list[Standing], sizes: list[int]) -> list[list[Standing]]:
    left = list(order)
    tables: list[list[Standing]] = []
    for n in sizes:
        table = [left.pop(0)]
        while len(table) < n:
            pick = min(range(len(left)), key=lambda i: (repeats([*table, left[i]]), i))
            table.append(left.pop(pick))
        tables.append(table)
    return tables


class _Search:
    """Depth first over seatings (tables in order, each opened by the best placed person
    left, its others chosen in standing order), keeping one with fewer repeats."""

    def __init__(self, sizes: list[int], cost: int) -> None:
        self.sizes = sizes
        self.best_cost = cost
        self.found: list[list[Standing]] | None = None
        self.budget = SEARCH_BUDGET

    def run(self, left: list[Standing], done: list[list[Standing]]) -> None:
        if not left:
            cost = sum(repeats(t) for t in done)
            if cost < self.best_cost:
                self.best_cost, self.found = cost, [list(t) for t in done]
            return
        n = self.sizes[len(done)]
        self._fill(left[1:], [left[0]], n, done, sum(repeats(t) for t in done))

    def _fill(
        self,
        rest: list[Standing],
        table: list[Standing],
        n: int,
        done: list[list[Standing]],
        cost: int,
        start: int = 0,
    ) -> None:
        self.budget -= 1  # every step counts: a table of six has many ways to fill
        if self.budget <= 0 or cost + repeats(table) >= self.best_cost:
            return
        if len(table) == n:
            self.run(rest, [*done, table])
            return
        # the others in standing order from ``start``: no seating is tried twice
        for i in range(start, len(rest)):
            self._fill(rest[:i] + rest[i + 1 :], [*table, rest[i]], n, done, cost, i)
            if self.budget <= 0 or self.best_cost == 0:
                return
