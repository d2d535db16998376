"""Is the bot alive? The running process touches a heartbeat file from its timer loop;
``python -m bot health`` (the image's HEALTHCHECK) says yes when that file is fresh and
Redis answers, with exit 0, else one line and exit 1."""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path

STALE_SECONDS = 60.0  # a heartbeat older than this: the process is stuck or gone


async def beat(path: Path, stop: asyncio.Event, every: float = 10.0) -> None:
    """Touch ``path`` every ``every`` seconds until ``stop``; remove it on the way out."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        while not stop.is_set():
            path.write_text(f"{time.time():.0f}\n")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), every)
    finally:
        with contextlib.suppress(OSError):
            path.unlink()


def fresh(path: Path, now: float | None = None) -> bool:
    try:
        age = (now or time.time()) - path.stat().st_mtime
    except OSError:
        return False
    return age <= STALE_SECONDS


async def check(settings: object, heartbeat: Path) -> str | None:
    """None when healthy, else what is wrong (one line)."""
    from redis.asyncio import Redis
    from redis.asyncio.retry import Retry
    from redis.backoff import NoBackoff

    if not fresh(heartbeat):
        return f"no fresh heartbeat at {heartbeat}: the bot process is not running its loop"
    url = getattr(settings, "redis_url", None)
    if url:
        r = Redis.from_url(url, socket_connect_timeout=3, retry=Retry(NoBackoff(), 0))
        try:
            await asyncio.wait_for(r.ping(), 5)
        except Exception as e:
            from bot.logs import mask_url

            return f"Redis at {mask_url(url)} does not answer: {type(e).__name__}"
        finally:
            await r.aclose()
    return None
