"""The platform's rate limits and the test's injected failures: what answers a request
before any route does (``fail_next``; Discord's per-route buckets, on the fake's clock)."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass

from tests.fakes.discord.model import RecordedCall, route_regex


@dataclass
class Fault:
    method: str
    pattern: re.Pattern[str]
    status: int
    remaining: int
    retry_after: float
    code: int
    message: str
    is_global: bool


class Limits:
    """Injected faults and the rate limits per route bucket: five message posts per channel
    in five seconds, five message edits (or deletes) per channel in five seconds, five
    interaction-webhook calls per token in two seconds (``rate_limits=False``: none).
    ``limited``: every write the rate limits refused (429), in order."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, *, rate_limits: bool = True) -> None:
        self.clock = clock
        self.rate_limits = rate_limits
        self.limited: list[RecordedCall] = []
        self._buckets: dict[str, list[float]] = {}
        self._faults: list[Fault] = []

    def fail_next(
        self,
        method: str,
        route: str | re.Pattern[str],
        *,
        status: int = 429,
        times: int = 1,
        retry_after: float = 0.001,
        code: int = 0,
        message: str | None = None,
        is_global: bool = False,
    ) -> None:
        """Make the next ``times`` calls of ``method route`` fail with ``status``.

        ``route`` is a template such as ``"/channels/{channel_id}/messages"`` or a regex.
        429s carry ``retry_after`` (+ the ``Via`` header discord.py requires to treat it as a
        Discord rate limit rather than a Cloudflare ban) and are retried by discord.py
        internally (at most 5 tries in total).  Note discord.py sleeps ``1 + 2*try`` seconds on
        500/502/504/524 -- prefer 503 or 4xx for fast tests.
        """
        default_messages = {
            400: "Bad Request",
            401: "401: Unauthorized",
            403: "Missing Permissions",
            404: "404: Not Found",
            429: "You are being rate limited.",
        }
        self._faults.append(
            Fault(
                method=method.upper(),
                pattern=route_regex(route),
                status=status,
                remaining=times,
                retry_after=retry_after,
                code=code if code or status != 403 else 50013,
                message=message or default_messages.get(status, "Injected failure"),
                is_global=is_global,
            )
        )

    def clear_faults(self) -> None:
        self._faults.clear()

    def refusal(self, call: RecordedCall) -> Fault | None:
        """The fault or the 429 that answers ``call`` instead of its route, if any."""
        fault = self._take_fault(call.method, call.path)
        if fault is not None:
            call.injected = True
            return fault
        wait = self._take_rate(call.method, call.path)
        if wait > 0:
            self.limited.append(call)
            return Fault(call.method, re.compile(""), 429, 0, wait, 0, "You are being rate limited.", False)
        return None

    def _take_fault(self, method: str, path: str) -> Fault | None:
        for fault in self._faults:
            if fault.remaining > 0 and fault.method in ("*", method) and fault.pattern.fullmatch(path):
                fault.remaining -= 1
                if fault.remaining == 0:
                    self._faults.remove(fault)
                return fault
        return None

    def _bucket_of(self, method: str, path: str) -> tuple[str, int, float] | None:
        """The rate-limit bucket a request falls in (key, limit, window), if any."""
        parts = path.strip("/").split("/")
        if parts[0] == "channels" and len(parts) == 3 and parts[2] == "messages" and method == "POST":
            return f"post:{parts[1]}", 5, 5.0
        if (
            parts[0] == "channels"
            and len(parts) == 4
            and parts[2] == "messages"
            and method in ("PATCH", "DELETE")
        ):
            return f"edit:{parts[1]}", 5, 5.0
        if parts[0] == "webhooks" and len(parts) >= 3 and method != "GET":
            return f"hook:{parts[2]}", 5, 2.0
        return None

    def _take_rate(self, method: str, path: str) -> float:
        """0: the request may go (and is counted); else seconds until its bucket has room."""
        bucket = self._bucket_of(method, path) if self.rate_limits else None
        if bucket is None:
            return 0.0
        key, limit, window = bucket
        now = self.clock()
        times = [t for t in self._buckets.get(key, []) if t > now - window]
        self._buckets[key] = times
        if len(times) >= limit:
            return round(times[0] + window - now, 3) or 0.001
        times.append(now)
        return 0.0
