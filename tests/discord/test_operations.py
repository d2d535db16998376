"""Issue 17 from the Discord adapter, on the real discord.py against the fake: a long 429
(which discord.py raises rather than sleeps out) with the wait it asks for, and the
painter's queue depth, which falls back to nothing once every drawing is done, reach the
metrics; a line logged while an interaction is served names its room and interaction."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from bot import logs
from bot.metrics_prometheus import PrometheusMetrics
from tests.fakes.discord import FakeDiscord
from tests.pieces import pieces

from .harness import Harness, people_and_bots, person, uid, until_person_moves

TABLE_EDIT = "/channels/{channel_id}/messages/{message_id}"


class Recorded(PrometheusMetrics):
    """The Prometheus metrics, with every depth the painter reported kept in order."""

    def __init__(self) -> None:
        super().__init__()
        self.depths: list[int] = []

    def painter_queue(self, platform: str, depth: int) -> None:
        self.depths.append(depth)
        super().painter_queue(platform, depth)


async def test_a_long_429_its_wait_and_the_painter_queue_are_counted(h: Harness, fake: FakeDiscord) -> None:
    metrics = Recorded()
    h.service.metrics = metrics
    ch = fake.games
    await people_and_bots(h, fake, ch)
    value = metrics.registry.get_sample_value
    fake.limits.fail_next("PATCH", TABLE_EDIT, status=429, retry_after=40.0)
    room = await until_person_moves(h, ch)
    user = person(room, fake)
    hand = h.service.hand_of(room, uid(user))
    assert hand is not None
    choice = next(c for c in hand.choices if c.kind != "declare")
    await h.play(user, ch, choice, await h.open_hand(user, ch), look=False)
    await h.flush()
    assert value("kozel_platform_429_total", {"platform": "dc"}) == 1
    assert value("kozel_platform_retry_wait_seconds_sum", {"platform": "dc"}) == 40.0
    assert max(metrics.depths) >= 1  # drawings were at work...
    assert value("kozel_painter_queue", {"platform": "dc"}) == 0  # ...and all are done


async def test_a_line_logged_while_serving_a_command_names_the_room_and_the_interaction(
    h: Harness, fake: FakeDiscord, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/top reads and writes nothing of a room (the service names none): the adapter does."""
    caplog.handler.addFilter(logs.Context())
    read = pieces(h.service).stats.leaderboard
    said = logging.getLogger("adapters.discord.test")

    async def leaderboard(*args: Any, **kwargs: Any) -> Any:
        said.info("reading the leaderboard")
        return await read(*args, **kwargs)

    monkeypatch.setattr(pieces(h.service).stats, "leaderboard", leaderboard)
    ch = fake.games
    with caplog.at_level(logging.INFO, logger="adapters.discord.test"):
        first = await h.command(fake.alice, ch, "top")
        second = await h.command(fake.bob, ch, "top")
    lines = [r for r in caplog.records if r.getMessage() == "reading the leaderboard"]
    assert [(r.room, r.update) for r in lines] == [  # type: ignore[attr-defined]
        (f"dc:{ch.id}", f"dc{first.id}"),
        (f"dc:{ch.id}", f"dc{second.id}"),
    ]
    assert logs.ROOM.get() is None and logs.UPDATE.get() is None


async def test_a_short_429_discord_py_sleeps_out_is_counted_too(h: Harness, fake: FakeDiscord) -> None:
    """discord.py waits a short 429 out inside the request (it only logs it): counted with
    its wait all the same, and the edit goes through."""
    metrics = Recorded()
    h.service.metrics = metrics
    ch = fake.games
    await people_and_bots(h, fake, ch)
    table = await h.table(ch)
    fake.limits.fail_next("PATCH", TABLE_EDIT, status=429, retry_after=0.01)
    room = await until_person_moves(h, ch)
    user = person(room, fake)
    hand = h.service.hand_of(room, uid(user))
    assert hand is not None
    choice = next(c for c in hand.choices if c.kind != "declare")
    await h.play(user, ch, choice, await h.open_hand(user, ch), look=False)
    await h.flush()
    limited = [c for c in fake.calls if c.status == 429]
    assert len(limited) == 1 and limited[0].path.endswith(f"/messages/{table.id}")
    value = metrics.registry.get_sample_value
    assert value("kozel_platform_429_total", {"platform": "dc"}) == 1
    assert value("kozel_platform_retry_wait_seconds_sum", {"platform": "dc"}) == 0.01


class Kept(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.mark.parametrize(("level", "written"), [(logging.ERROR, False), (logging.WARNING, True)])
def test_discord_py_429_lines_are_counted_at_any_log_level_and_written_at_its_own(
    level: int, written: bool
) -> None:
    """LOG_LEVEL=ERROR: discord.py's 429 line is still made (and counted), not written."""
    from types import SimpleNamespace
    from typing import cast

    from adapters.discord.app import RateLimits
    from bot.service import GameService

    root, http = logging.getLogger(), logging.getLogger("discord.http")
    kept = Kept()
    old_root, old_http = root.level, http.level
    root.addHandler(kept)
    root.setLevel(level)
    metrics = Recorded()
    limits = RateLimits(cast(GameService, SimpleNamespace(metrics=metrics)))
    try:
        limits.install()
        http.warning(RateLimits.WAITED, "PATCH", "https://discord.com/api/x", 0.25)
        limits.remove()
        assert http.level == old_http
    finally:
        root.removeHandler(kept)
        root.setLevel(old_root)
    assert metrics.registry.get_sample_value("kozel_platform_429_total", {"platform": "dc"}) == 1
    assert bool([r for r in kept.records if r.name == "discord.http"]) == written
