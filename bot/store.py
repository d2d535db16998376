"""The one store: real Redis through ``redis.asyncio``.

Every room change is one compare-and-set (a Lua script) against the room's version; the
platform update that caused it is claimed in the same script, so a redelivered update
changes nothing. Turn deadlines live in a sorted set that any worker may claim from.
"""

from __future__ import annotations

import json
from typing import Any

from redis.asyncio import BlockingConnectionPool, Redis

from bot import keys
from bot.room import Room

# KEYS[1] room, KEYS[2] the room's claimed update ids (a sorted set): one hash tag, one slot
# ARGV[1] expected version, ARGV[2] document, ARGV[3] claim ttl, ARGV[4] room ttl (0: keep),
# ARGV[5] update id ('' for none), ARGV[6] now, ARGV[7] claims kept
# returns the new version, 0 on a version conflict, -1 for an update already seen
_CAS = """
if ARGV[5] ~= '' and redis.call('ZSCORE', KEYS[2], ARGV[5]) then return -1 end
local v = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if v ~= tonumber(ARGV[1]) then return 0 end
v = v + 1
redis.call('HSET', KEYS[1], 'v', v, 'doc', ARGV[2])
if tonumber(ARGV[4]) > 0 then
  redis.call('EXPIRE', KEYS[1], ARGV[4])
else
  redis.call('PERSIST', KEYS[1])
end
if ARGV[5] ~= '' then
  -- the newest claims, for as long as a platform may redeliver: small and bounded
  redis.call('ZADD', KEYS[2], ARGV[6], ARGV[5])
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', tonumber(ARGV[6]) - tonumber(ARGV[3]))
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -(tonumber(ARGV[7]) + 1))
  redis.call('EXPIRE', KEYS[2], ARGV[3])
end
return v
"""

# KEYS[1] deadlines; ARGV[1] room id, ARGV[2] now, ARGV[3] lease until
# A worker claims a due deadline by pushing it a lease into the future: two workers never
# both get it, and a worker that dies mid-move leaves it to be claimed again later.
_CLAIM = """
local s = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not s or tonumber(s) > tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
return 1
"""

# KEYS[1] deadlines; ARGV[1] room id, ARGV[2] the lease this worker set, ARGV[3] new score
# ('' drops the entry). Only while the entry still holds this worker's lease: a commit in
# between has written an earlier deadline of its own, and that one must stay.
_SETTLE = """
local s = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not s or tonumber(s) ~= tonumber(ARGV[2]) then return 0 end
if ARGV[3] == '' then
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
end
return 1
"""


# Claimed update ids kept per room: redeliveries come within minutes, a few at a time.
KEEP_CLAIMS = 64


class Store:
    def __init__(self, redis: Redis, owner: Any = None) -> None:
        self.redis = redis
        self._owner = owner  # an embedded server to stop on close
        self._cas = redis.register_script(_CAS)
        self._claim = redis.register_script(_CLAIM)
        self._settle = redis.register_script(_SETTLE)

    @classmethod
    async def connect(cls, url: str | None, data_dir: Any = None, cluster: bool = False) -> Store:
        """``url`` (``REDIS_URL``; ``cluster``: a Redis Cluster seed node), or an embedded
        real Redis with its data in ``data_dir``."""
        if url and cluster:
            from redis.asyncio.cluster import RedisCluster

            return cls(RedisCluster.from_url(url))  # type: ignore[arg-type]
        if url:
            return cls(_client(url))
        from pathlib import Path

        from bot.embedded_redis import start_embedded_redis

        server = await start_embedded_redis(Path(data_dir or "data"))
        return cls(_client(server.url), owner=server)

    async def close(self) -> None:
        await self.redis.aclose()
        if self._owner is not None:
            await self._owner.close()

    async def server_info(self) -> dict[str, Any]:
        info: dict[str, Any] = await self.redis.info("server")
        return info

    # --- rooms ----------------------------------------------------------------------------

    async def load(self, room_id: str) -> Room | None:
        version, doc = await self.redis.hmget(keys.room(room_id), ["v", "doc"])
        if doc is None:
            return None
        return Room.from_json(doc, int(version or 0))

    async def load_unless_seen(self, room_id: str, update_id: str | None) -> Room | None | bool:
        """The room, or True if ``update_id`` was already claimed (one round trip)."""
        if update_id is None:
            return await self.load(room_id)
        pipe = self.redis.pipeline(transaction=False)
        pipe.zscore(keys.update_claims(room_id), update_id)
        pipe.hmget(keys.room(room_id), ["v", "doc"])
        claimed, (version, doc) = await pipe.execute()
        if claimed is not None:
            return True
        return None if doc is None else Room.from_json(doc, int(version or 0))

    async def cas(
        self, room: Room, update_id: str | None, claim_ttl: int, room_ttl: int,
        now: float = 0.0,
    ) -> int:
        """Write ``room`` if its stored version is still ``room.version``, claiming
        ``update_id`` in the same step (the room's keys only: one Cluster slot).

        Returns the new version, 0 on a conflict, -1 if ``update_id`` was already claimed.
        """
        ks = [keys.room(room.id), keys.update_claims(room.id)]
        result = await self._cas(keys=ks, args=[room.version, room.to_json(), claim_ttl,
                                                room_ttl, update_id or "", repr(float(now)),
                                                KEEP_CLAIMS])
        return int(result)

    async def delete(self, room_id: str) -> None:
        await self.redis.delete(keys.room(room_id))

    async def room_keys(self, room_id: str) -> list[str]:
        """Every key that belongs to one room (for memory accounting)."""
        found = [keys.room(room_id)]
        if await self.redis.exists(keys.update_claims(room_id)):
            found.append(keys.update_claims(room_id))
        return found

    # --- deadlines ------------------------------------------------------------------------
    # The deadline set is an index of hints; each room's own document holds its deadline.
    # Invariant: an entry is never later than its room's deadline (but while a worker holds
    # it on lease), so no due move is missed, and no script touches keys of two slots.

    async def set_deadline(self, room_id: str, at: float) -> None:
        """Unconditionally (tests and repairs)."""
        await self.redis.zadd(keys.DEADLINES, {room_id: at})

    async def hint_deadline(self, room_id: str, at: float) -> None:
        """Before a room is written with deadline ``at``: add it, or move it earlier (LT)."""
        await self.redis.zadd(keys.DEADLINES, {room_id: at}, lt=True)

    async def settle_deadline(self, room_id: str, lease: float, at: float | None) -> bool:
        """After a claim found nothing due: move the entry to ``at`` (None: drop it), but
        only while it still holds this worker's lease."""
        arg = "" if at is None else repr(float(at))
        return bool(await self._settle(keys=[keys.DEADLINES],
                                       args=[room_id, repr(float(lease)), arg]))

    async def due(self, now: float, limit: int = 50) -> list[str]:
        ids = await self.redis.zrangebyscore(keys.DEADLINES, "-inf", now, start=0, num=limit)
        return [_s(i) for i in ids if isinstance(i, bytes | str)]

    async def claim_deadline(self, room_id: str, now: float, lease: float) -> float | None:
        """Lease a due entry to this worker until ``now + lease``: that score, or None."""
        until = now + lease
        ok = await self._claim(keys=[keys.DEADLINES], args=[room_id, repr(float(now)),
                                                            repr(float(until))])
        return until if ok else None

    # --- people's rooms -------------------------------------------------------------------

    async def add_user_room(self, user_id: str, room_id: str) -> None:
        await self.redis.sadd(keys.user_rooms(user_id), room_id)

    async def remove_user_room(self, user_id: str, room_id: str) -> None:
        await self.redis.srem(keys.user_rooms(user_id), room_id)

    async def user_rooms(self, user_id: str) -> list[str]:
        ids = await self.redis.smembers(keys.user_rooms(user_id))
        return sorted(i.decode() if isinstance(i, bytes) else i for i in ids)

    # --- chat settings --------------------------------------------------------------------

    async def chat_pref(self, chat: str, name: str) -> str | None:
        v = await self.redis.hget(keys.chat_prefs(chat), name)
        return v.decode() if isinstance(v, bytes) else v

    async def set_chat_pref(self, chat: str, name: str, value: str) -> None:
        await self.redis.hset(keys.chat_prefs(chat), name, value)

    # --- statistics -----------------------------------------------------------------------

    async def record_match(self, chat: str, record: dict[str, Any], keep: int = 200) -> bool:
        """Record a finished match once (``record["id"]`` makes it idempotent)."""
        marker = keys.match_recorded(chat, record["id"])
        if not await self.redis.set(marker, 1, nx=True, ex=30 * 24 * 3600):
            return False
        pipe = self.redis.pipeline(transaction=False)
        pipe.lpush(keys.chat_matches(chat), json.dumps(record, ensure_ascii=False))
        pipe.ltrim(keys.chat_matches(chat), 0, keep - 1)
        lineup = record["lineup"]
        pipe.hincrby(keys.chat_series(chat), f"{lineup}|n", 1)
        for side in record["winning_sides"]:
            pipe.hincrby(keys.chat_series(chat), f"{lineup}|w{side}", 1)
        winners = set(record["winners"])
        for user, name in record["people"].items():
            pipe.hset(keys.chat_names(chat), user, name)
            pipe.hincrby(keys.chat_players(chat), f"{user}|played", 1)
            pipe.hincrby(keys.user_stats(user), "played", 1)
            pipe.hincrby(keys.user_stats(user), f"played:{record['preset']}", 1)
            if user in winners:
                pipe.hincrby(keys.chat_players(chat), f"{user}|won", 1)
                pipe.hincrby(keys.user_stats(user), "won", 1)
                pipe.hincrby(keys.user_stats(user), f"won:{record['preset']}", 1)
        await pipe.execute()
        return True

    async def matches(self, chat: str, limit: int = 20) -> list[dict[str, Any]]:
        raw = await self.redis.lrange(keys.chat_matches(chat), 0, limit - 1)
        return [json.loads(r) for r in raw]

    async def series(self, chat: str) -> dict[str, int]:
        raw = await self.redis.hgetall(keys.chat_series(chat))
        return {_s(k): int(v) for k, v in raw.items()}

    async def players(self, chat: str) -> tuple[dict[str, int], dict[str, str]]:
        raw = await self.redis.hgetall(keys.chat_players(chat))
        names = await self.redis.hgetall(keys.chat_names(chat))
        return ({_s(k): int(v) for k, v in raw.items()}, {_s(k): _s(v) for k, v in names.items()})

    async def user_stats(self, user_id: str) -> dict[str, int]:
        raw = await self.redis.hgetall(keys.user_stats(user_id))
        return {_s(k): int(v) for k, v in raw.items()}


def _client(url: str) -> Redis:
    """A client whose pool makes a busy worker wait for a free connection: redis-py's
    default pool raises "Too many connections" once 100 commands are in flight."""
    return Redis.from_pool(BlockingConnectionPool.from_url(url, max_connections=100, timeout=30))


def _s(v: bytes | str) -> str:
    return v.decode() if isinstance(v, bytes) else v
