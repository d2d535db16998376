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
from tests.fakes.discord_api import FakeDiscord

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


async def test_a_long_429_its_wait_and_the_painter_queue_are_counted(
        h: Harness, fake: FakeDiscord) -> None:
    metrics = Recorded()
    h.service.metrics = metrics
    ch = fake.games
    await people_and_bots(h, fake, ch)
    value = metrics.registry.get_sample_value
    fake.fail_next("PATCH", TABLE_EDIT, status=429, retry_after=40.0)
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
        h: Harness, fake: FakeDiscord, caplog: pytest.LogCaptureFixture,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """/top reads and writes nothing of a room (the service names none): the adapter does."""
    caplog.handler.addFilter(logs.Context())
    read = h.service.leaderboard
    said = logging.getLogger("adapters.discord.test")

    async def leaderboard(*args: Any, **kwargs: Any) -> Any:
        said.info("reading the leaderboard")
        return await read(*args, **kwargs)

    monkeypatch.setattr(h.service, "leaderboard", leaderboard)
    ch = fake.games
    with caplog.at_level(logging.INFO, logger="adapters.discord.test"):
        first = await h.command(fake.alice, ch, "top")
        second = await h.command(fake.bob, ch, "top")
    lines = [r for r in caplog.records if r.getMessage() == "reading the leaderboard"]
    assert [(r.room, r.update) for r in lines] == [  # type: ignore[attr-defined]
        (f"dc:{ch.id}", f"dc{first.id}"), (f"dc:{ch.id}", f"dc{second.id}")]
    assert logs.ROOM.get() is None and logs.UPDATE.get() is None
