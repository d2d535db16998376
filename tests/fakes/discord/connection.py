"""One gateway websocket from discord.py (optionally zlib-compressed), and the session it
identified or resumed: its intents, its shard, the events sent to it (for a RESUME)."""

from __future__ import annotations

import asyncio
import json
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web


@dataclass
class SessionState:
    session_id: str
    intents: int
    identify: dict[str, Any]
    seq: int = 0
    backlog: list[dict[str, Any]] = field(default_factory=list)

    @property
    def shard(self) -> tuple[int, int]:
        shard = self.identify.get("shard") or [0, 1]
        return int(shard[0]), max(1, int(shard[1]))

    def serves(self, guild_id: int | None) -> bool:
        """Whether this session's shard receives that server's events (DMs: shard 0)."""
        shard_id, count = self.shard
        if guild_id is None:
            return shard_id == 0
        return (guild_id >> 22) % count == shard_id


def guild_of(data: Mapping[str, Any]) -> int | None:
    """The server an event belongs to, if it names one."""
    gid = data.get("guild_id")
    if gid is None and "members" in data and "channels" in data:  # GUILD_CREATE
        gid = data.get("id")
    return int(gid) if gid is not None else None


class GatewayConnection:
    """One websocket connection from discord.py."""

    def __init__(self, ws: web.WebSocketResponse, query: Mapping[str, str]) -> None:
        self.ws = ws
        self.query: dict[str, str] = dict(query)
        self.compress: str | None = query.get("compress")
        self._compressor = zlib.compressobj() if self.compress == "zlib-stream" else None
        self._lock = asyncio.Lock()
        self.session: SessionState | None = None
        self.received: list[dict[str, Any]] = []
        self.sent: list[dict[str, Any]] = []
        self.heartbeats = 0
        self.closed = False

    async def send(self, payload: dict[str, Any]) -> None:
        async with self._lock:
            if self.closed or self.ws.closed:
                return
            raw = json.dumps(payload, separators=(",", ":"))
            self.sent.append(payload)
            if self._compressor is not None:
                data = self._compressor.compress(raw.encode()) + self._compressor.flush(zlib.Z_SYNC_FLUSH)
                await self.ws.send_bytes(data)
            else:
                await self.ws.send_str(raw)

    async def close(self, code: int = 1000, message: str = "") -> None:
        self.closed = True
        if not self.ws.closed:
            await self.ws.close(code=code, message=message.encode())
