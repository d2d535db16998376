"""The platform's records: what adapters keep through the service beside the rooms, and
nothing of the game.

- ``PaintLeases``: who draws which thing of a room now, and which version is on screen,
  shared by every worker (``begin_paint`` / ``end_paint``);
- ``FloodBudgets``: the write budgets of the platforms' limits (a group's 20 messages a
  minute), shared by every worker;
- ``PlatformData``: an adapter's per-room and per-seat records (message ids to edit, a
  person's live hand, his delivery choice).

Each is small and stands alone; ``Platform`` holds the three for the composition root.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from bot.changes import Outcome, Reason
from bot.clock import Clock, SystemClock
from bot.room import PLAYING, Room
from bot.store import PaintClaim, Store


class PaintLeases:
    """Drawing across workers: one worker draws a thing of a room at a time, from a room
    newer than the version last drawn by any of them."""

    def __init__(self, store: Store, worker_id: str | None = None) -> None:
        self.store = store
        self.worker_id = worker_id or secrets.token_hex(6)  # who paints: one id a process

    async def begin_paint(
        self, room_id: str, what: str, owner: str | None = None, ttl: float = 15.0
    ) -> PaintClaim:
        """Take the lease to draw ``what`` ("table", "hand:<user>") of the room: the
        freshest room when it is newer than the version last drawn (by any worker)."""
        return await self.store.begin_paint(room_id, what, owner or self.worker_id, ttl)

    async def end_paint(self, room_id: str, what: str, version: int, owner: str | None = None) -> bool:
        """``version`` of ``what`` is on screen; True: the room has moved on, paint again."""
        return await self.store.end_paint(room_id, what, owner or self.worker_id, version)

    async def drawn_version(self, room_id: str, what: str) -> int:
        return await self.store.drawn_version(room_id, what)

    async def rooms_to_redraw(self, platform: str) -> list[Room]:
        """Playing rooms of ``platform`` whose table on screen is older than the room (a
        restart, or a worker that died between its commit and its drawing)."""
        ids = [rid for rid in await self.store.playing() if rid.startswith(f"{platform}:")]
        out = []
        for room in await self.store.rooms(ids):
            if (
                room is not None
                and room.state == PLAYING
                and await self.store.drawn_version(room.id, "table") < room.version
            ):
                out.append(room)
        return out


class FloodBudgets:
    """Write budgets shared by every worker (a platform's flood limits, a person's hint
    searches, a chat's notices)."""

    def __init__(self, store: Store, clock: Clock | None = None) -> None:
        self.store = store
        self.clock = clock or SystemClock()

    async def flood_take(
        self,
        key: str,
        *,
        limit: int,
        window: float,
        gap: float = 0.0,
        reserve: int = 0,
        once: str | None = None,
    ) -> float:
        """One write under ``key``'s budget, shared by every worker: 0.0 when allowed now
        (and counted), else the seconds to wait (nothing counted). ``once``: what is asked
        (an update's id): asked again, it is counted once and allowed again."""
        return await self.store.flood_take(key, self.clock.now(), limit, window, gap, reserve, once)

    async def flood_block(self, key: str, seconds: float) -> None:
        """The platform asked us to wait (a 429): every worker waits that long on ``key``."""
        await self.store.flood_block(key, self.clock.now() + seconds, seconds)


class PlatformData:
    """Adapters' records kept beside a room: no version change, no listener, no conflict
    with moves. A room's own copy arrives with it (``Room.pdata`` / ``Room.sdata``)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def set_room_data(self, room_id: str, **values: Any) -> Outcome:
        """Per-room records (message ids ...). None deletes a record."""
        ok = await self.store.set_platform_data(room_id, {f"r:{k}": v for k, v in values.items()})
        return Outcome(ok, None if ok else Reason.NO_ROOM)

    async def set_seat_data(self, room_id: str, user_id: str, **values: Any) -> Outcome:
        """Per-person records in a room (hand messages, delivery choice)."""
        ok = await self.store.set_platform_data(room_id, {f"s:{user_id}:{k}": v for k, v in values.items()})
        return Outcome(ok, None if ok else Reason.NO_ROOM)

    async def platform_data(self, room_id: str) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        room = await self.store.room(room_id)
        if room is None:
            return {}, {}
        return room.pdata, room.sdata


@dataclass(frozen=True)
class Platform:
    """The platform's records of one process: leases, budgets, data."""

    leases: PaintLeases
    budgets: FloodBudgets
    data: PlatformData

    @classmethod
    def on(cls, store: Store, clock: Clock | None = None, worker_id: str | None = None) -> Platform:
        return cls(PaintLeases(store, worker_id), FloodBudgets(store, clock), PlatformData(store))
