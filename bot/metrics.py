"""What the service and the adapters count, for an operator (and for benches).

``Metrics`` is the interface with no-op methods: the service works without any metrics
library. ``bot.metrics_prometheus`` fills it with Prometheus counters and histograms when the
operator asks for a metrics port; a bench may record into lists.
"""

from __future__ import annotations


class Metrics:
    """Every method is a no-op here."""

    def move_committed(self, platform: str) -> None:
        """A change of a room was written (a move, a lobby change, a due move)."""

    def refused(self, reason: str) -> None:
        """A call was refused with ``reason`` (stale buttons, out of turn, ...)."""

    def cas_conflict(self) -> None:
        """A compare-and-set lost to another writer and was tried again."""

    def timer_lag(self, seconds: float) -> None:
        """A due move was made ``seconds`` after its due time."""

    def think_time(self, level: str, seconds: float) -> None:
        """A computer player of ``level`` took ``seconds`` to choose."""

    def platform_429(self, platform: str, retry_after: float) -> None:
        """The platform asked us to wait (a 429) for ``retry_after`` seconds."""

    def painter_queue(self, platform: str, depth: int) -> None:
        """Drawings waiting for their turn (rooms dirty, posts queued)."""

    def store_error(self, kind: str) -> None:
        """Redis refused a write (``oom``: out of memory under ``noeviction``)."""
