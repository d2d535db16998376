"""adapters/common/painting.py: what is drawn and when, without a platform."""

from __future__ import annotations

import asyncio

from adapters.common.painting import Dirty, Pace, drain, paint_loop


def test_pace_spreads_routine_writes_and_keeps_a_reserve() -> None:
    pace = Pace(limit=20, window=60.0, reserve=4)
    assert pace.gap == 3.75  # 16 routine writes a minute, evenly
    assert Pace(limit=20, window=60.0).gap == 3.0
    assert Pace(limit=20, window=60.0, reserve=2, spare=6).gap == 5.0  # 6 left for others


def test_dirty_coalesces_to_the_newest_version() -> None:
    dirty: Dirty[str] = Dirty()
    dirty.mark("room", 3)
    dirty.mark("room", 5)
    dirty.mark("room", 4)  # an older change arriving late does not lower it
    assert dirty.marks["room"].version == 5
    dirty.drawn("room", 4)  # drawn from an older room: still dirty
    assert "room" in dirty
    dirty.drawn("room", 5)
    assert "room" not in dirty and len(dirty) == 0


def test_dirty_waits_and_keeps_urgency() -> None:
    dirty: Dirty[str] = Dirty()
    dirty.mark("a", 1)
    dirty.mark("b", 1)
    dirty.later("a", 10.0)
    assert [k for k, _ in dirty.due(5.0)] == ["b"]
    assert [k for k, _ in dirty.due(10.0)] == ["a", "b"]
    assert dirty.next_due() == 0.0
    dirty.mark("a", 2, urgent=True)
    assert dirty.marks["a"].not_before == 0.0  # a result does not wait for the routine gap
    dirty.mark("a", 3)
    assert dirty.marks["a"].urgent  # a result stays a result when more moves follow


async def test_paint_loop_flushes_when_woken_and_stops() -> None:
    wake, stop = asyncio.Event(), asyncio.Event()
    flushed: list[int] = []
    first, second = asyncio.Event(), asyncio.Event()

    async def flush() -> float | None:
        flushed.append(len(flushed))
        (first if len(flushed) == 1 else second).set()
        return None

    task = asyncio.create_task(paint_loop(flush, wake, stop, idle=60.0))
    await first.wait()  # the flush at start
    wake.set()
    await second.wait()  # and one because something was marked
    stop.set()
    await task
    assert len(flushed) == 2


async def test_drain_ends_when_nothing_is_held_and_a_failure_is_survived() -> None:
    held = [2]

    async def flush() -> float | None:
        held[0] -= 1
        return 0.0 if held[0] > 0 else None

    assert await drain(flush, limit=5.0)
    calls: list[int] = []
    wake, stop = asyncio.Event(), asyncio.Event()
    failed = asyncio.Event()

    async def broken() -> float | None:
        calls.append(1)
        failed.set()
        raise RuntimeError("a broken room")

    task = asyncio.create_task(paint_loop(broken, wake, stop))
    await failed.wait()
    stop.set()
    await task  # the loop logged it and went on to wait, then stopped
    assert calls == [1]
