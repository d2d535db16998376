"""Fixtures of the Discord adapter's tests: the fake Discord, a manual clock, the harness."""

from __future__ import annotations

import logging
import random
from collections.abc import AsyncIterator, Iterator

import pytest
from redis.asyncio import Redis

from bot.clock import ManualClock
from bot.config import Settings
from bot.service import GameService
from bot.store import Store
from tests.fakes.discord import FakeDiscord

from .harness import Harness, make_settings


@pytest.fixture(autouse=True)
def _no_swallowed_errors(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """discord.py and the painter log (and swallow) exceptions: fail the test instead."""
    yield
    errors = [
        r
        for when in ("setup", "call", "teardown")
        for r in caplog.get_records(when)
        if r.levelno >= logging.ERROR and r.name.startswith(("discord", "adapters", "bot"))
    ]
    assert not errors, [r.getMessage() for r in errors]


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
async def fake(clock: ManualClock) -> AsyncIterator[FakeDiscord]:
    """The fake Discord keeps its limits (rate limits, token lives) on the tests' clock."""
    async with FakeDiscord(clock=clock.now) as server:
        with server.patch_discord_py():
            yield server


@pytest.fixture
def settings() -> Settings:
    return make_settings()


@pytest.fixture(autouse=True)
def seeded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Matches started from Discord get a fixed seed (the service draws one otherwise):
    every test deals the same cards every run (a test may seed its own)."""
    monkeypatch.setattr(random, "SystemRandom", lambda: random.Random(20240611))


@pytest.fixture
async def h(
    fake: FakeDiscord, redis: Redis, store: Store, settings: Settings, clock: ManualClock
) -> AsyncIterator[Harness]:
    service = GameService(store, settings, clock)
    harness = await Harness.start(fake, redis, settings, clock, service)
    try:
        yield harness
    finally:
        await harness.stop()
