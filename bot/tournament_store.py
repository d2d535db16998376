"""Tournaments in Redis (issue 36.3): one hash a chat (topic), written by compare-and-set,
and a set per shard of the chats whose tournament is on. Both keys of a write share the
chat's hash tag (``bot/keys.py``): one script, on one Redis or a Cluster."""

from __future__ import annotations

from typing import Any

from redis.asyncio import Redis

from bot import keys
from bot.tournament import PLAYING, SIGNUP, Tournament

# KEYS: 1 the tournament, 2 the shard's set of tournaments on; ARGV: 1 expected version,
# 2 document, 3 ttl (s), 4 on (1/0), 5 room id, 6 a new tournament (1: the old one's
# adapter records go). Returns {1, version} | {0, version, doc}.
CAS = """
local v = redis.call('HMGET', KEYS[1], 'v', 'doc')
if tonumber(v[1] or '0') ~= tonumber(ARGV[1]) then return {0, v[1] or '0', v[2] or ''} end
if ARGV[6] == '1' then redis.call('DEL', KEYS[1]) end
local version = tonumber(ARGV[1]) + 1
redis.call('HSET', KEYS[1], 'v', version, 'doc', ARGV[2])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
if ARGV[4] == '1' then redis.call('SADD', KEYS[2], ARGV[5]) else redis.call('SREM', KEYS[2], ARGV[5]) end
return {1, version}
"""


class TournamentStore:
    def __init__(self, redis: Redis) -> None:
        self.redis = redis
        self._cas = redis.register_script(CAS)

    async def load(self, room_id: str) -> Tournament | None:
        v, doc = await self.redis.hmget(keys.tournament(room_id), ["v", "doc"])
        return None if doc is None else Tournament.from_json(doc, int(v or 0))

    async def cas(self, t: Tournament, ttl: int, fresh: bool = False) -> tuple[int, Tournament | None]:
        """Write ``t`` if its version is still the stored one: (new version, None), or
        (0, the tournament as it is now)."""
        on = t.state in (SIGNUP, PLAYING)
        shard = keys.shard_of(keys.chat_of(t.room))
        out: list[Any] = await self._cas(
            keys=[keys.tournament(t.room), keys.tournaments(shard)],
            args=[t.version, t.to_json(), ttl, int(on), t.room, int(fresh)],
        )
        if int(out[0]) == 1:
            return int(out[1]), None
        doc = out[2]
        return 0, (Tournament.from_json(doc, int(out[1])) if doc else None)

    async def on(self) -> list[str]:
        """Room ids of every tournament on."""
        pipe = self.redis.pipeline(transaction=False)
        for shard in range(keys.SHARDS):
            pipe.smembers(keys.tournaments(shard))
        found: list[str] = []
        for members in await pipe.execute():
            found.extend(m.decode() if isinstance(m, bytes) else str(m) for m in members)
        return sorted(found)

    async def forget(self, room_id: str) -> None:
        """A tournament gone (expired) stops being looked at."""
        await self.redis.srem(keys.tournaments(keys.shard_of(keys.chat_of(room_id))), room_id)

    async def set_data(self, room_id: str, name: str, value: str) -> None:
        await self.redis.hset(keys.tournament(room_id), f"d:{name}", value)

    async def data(self, room_id: str, name: str) -> str | None:
        v = await self.redis.hget(keys.tournament(room_id), f"d:{name}")
        return None if v is None else (v.decode() if isinstance(v, bytes) else str(v))
