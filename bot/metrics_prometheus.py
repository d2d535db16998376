"""Prometheus metrics on an optional port (``METRICS_PORT``): what an operator watches.

moves committed, refusals by reason, compare-and-set conflicts, timer lag, platform 429s
and their waits, painter queue depth, computer players' think time, writes Redis refused.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server

from bot.metrics import Metrics

_LAG = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 30.0)
_THINK = (0.001, 0.005, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.0)
_WAIT = (0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0)


class PrometheusMetrics(Metrics):
    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry or CollectorRegistry()
        r = self.registry
        self.moves = Counter("kozel_changes_committed", "Room changes written", ["platform"], registry=r)
        self.refusals = Counter("kozel_refusals", "Calls refused, by reason", ["reason"], registry=r)
        self.conflicts = Counter("kozel_cas_conflicts", "Compare-and-set conflicts (retried)", registry=r)
        self.lag = Histogram(
            "kozel_timer_lag_seconds", "Due moves made after their due time", buckets=_LAG, registry=r
        )
        self.think = Histogram(
            "kozel_think_seconds", "Computer players' time to choose", ["level"], buckets=_THINK, registry=r
        )
        self.limited = Counter(
            "kozel_platform_429", "Platform rate-limit answers (429)", ["platform"], registry=r
        )
        self.waits = Histogram(
            "kozel_platform_retry_wait_seconds",
            "Waits a 429 asked for",
            ["platform"],
            buckets=_WAIT,
            registry=r,
        )
        self.queue = Gauge("kozel_painter_queue", "Drawings waiting for their turn", ["platform"], registry=r)
        self.store_errors = Counter(
            "kozel_store_errors", "Writes Redis refused (oom: out of memory)", ["kind"], registry=r
        )

    def move_committed(self, platform: str) -> None:
        self.moves.labels(platform).inc()

    def refused(self, reason: str) -> None:
        self.refusals.labels(reason).inc()

    def cas_conflict(self) -> None:
        self.conflicts.inc()

    def timer_lag(self, seconds: float) -> None:
        self.lag.observe(max(0.0, seconds))

    def think_time(self, level: str, seconds: float) -> None:
        self.think.labels(level).observe(seconds)

    def platform_429(self, platform: str, retry_after: float) -> None:
        self.limited.labels(platform).inc()
        self.waits.labels(platform).observe(retry_after)

    def painter_queue(self, platform: str, depth: int) -> None:
        self.queue.labels(platform).set(depth)

    def store_error(self, kind: str) -> None:
        self.store_errors.labels(kind).inc()

    def serve(self, port: int, host: str = "127.0.0.1") -> None:
        """The ``/metrics`` endpoint in a thread of its own."""
        start_http_server(port, addr=host, registry=self.registry)
