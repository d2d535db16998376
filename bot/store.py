"""The one store: real Redis through ``redis.asyncio``.

Every room change is one compare-and-set (a Lua script) against the room's version. The
same script claims the platform update that caused it (a redelivered update changes
nothing), writes the room's entry in the deadline index (so no interleaving of writers and
timer loops can leave a room without its due time), and, when a match ends, records it in
the chat's statistics. All of those keys share the chat's shard tag (``bot/keys.py``): one
slot, so the same script runs on a Redis Cluster.

Connections are retried with backoff on connection errors (a Redis restart closes every
pooled connection): every command here is safe to send twice. A compare-and-set sent twice
finds the room one version on, written by a write of its own id: it reports that as
written (its effects and listeners then follow as for any commit).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import secrets
import zlib
from base64 import b64encode
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from redis.asyncio import ConnectionPool, Redis
from redis.asyncio.retry import Retry
from redis.backoff import EqualJitterBackoff, NoBackoff
from redis.exceptions import BusyLoadingError, ConnectionError, TimeoutError

from bot import keys, scripts
from bot.room import Room
from bot.store_history import HistoryStore
from bot.store_records import PEOPLE_TTL, Records, _s

# Claimed update ids kept per room: redeliveries come within minutes, a few at a time.
KEEP_CLAIMS = 48
# Finished matches kept per chat.
KEEP_MATCHES = 200
# A month's ratings are kept this long after their first match: the season, and the next
# one's first weeks to look back
SEASON_TTL = 62 * 24 * 3600
_DELETE = "\0"


@dataclass(frozen=True)
class Loaded:
    room: Room | None
    seen: bool  # the update id was already claimed


@dataclass(frozen=True)
class Written:
    """A compare-and-set's answer: ``version`` > 0 written; else the room as it is now
    (``seen``: the update was already claimed)."""

    version: int
    room: Room | None = None
    seen: bool = False


@dataclass(frozen=True)
class MatchRecord:
    """A finished match for the chat's statistics, written with the room's change."""

    id: str
    chat: str
    record: dict[str, Any]
    chat_ops: list[list[Any]]  # ["i"|"s", key (5-10), field, value]
    people: dict[str, dict[str, int]]  # user (or computer level) -> counter increments
    moved: dict[str, dict[str, Any]] = field(default_factory=dict)  # overall rating moves
    ratings_version: int = 0  # the chat's ratings as read
    season: str = ""  # the month whose ratings it moves ("": none, a match without people)

    def todo(self) -> str:
        """What each person's own statistics get from the match, once."""
        return json.dumps(
            {"id": self.id, "people": self.people, "moved": self.moved}, ensure_ascii=False, sort_keys=True
        )


@dataclass(frozen=True)
class PaintClaim:
    """``busy``: another worker paints it now. ``room``: this worker holds the lease and the
    room is newer than drawn. Neither: nothing new to draw."""

    room: Room | None
    busy: bool = False


def claim_of(update_id: str | None) -> str | None:
    """A short fixed-size claim for a platform update id (a room keeps dozens of them)."""
    if update_id is None:
        return None
    digest = hashlib.blake2s(update_id.encode(), digest_size=6).digest()
    return b64encode(digest).decode()


class Store(Records, HistoryStore):
    def __init__(self, redis: Redis, owner: Any = None) -> None:
        self.redis = redis
        self._owner = owner  # an embedded server to stop on close
        self._load = redis.register_script(scripts.LOAD)
        self._cas = redis.register_script(scripts.CAS)
        self._claim = redis.register_script(scripts.CLAIM)
        self._settle = redis.register_script(scripts.SETTLE)
        self._set_data = redis.register_script(scripts.SET_DATA)
        self._begin_paint = redis.register_script(scripts.BEGIN_PAINT)
        self._end_paint = redis.register_script(scripts.END_PAINT)
        self._flood_take = redis.register_script(scripts.FLOOD_TAKE)
        self._flood_block = redis.register_script(scripts.FLOOD_BLOCK)
        self._user_stats = redis.register_script(scripts.USER_STATS)

    @classmethod
    async def connect(cls, url: str | None, data_dir: Any = None, cluster: bool = False) -> Store:
        """``url`` (``REDIS_URL``; ``cluster``: a Redis Cluster seed node), or an embedded
        real Redis with its data in ``data_dir``."""
        if url and cluster:
            from redis.asyncio.cluster import RedisCluster

            return cls(RedisCluster.from_url(url, retry=_retry()))  # type: ignore[arg-type]
        if url:
            return cls(client(url))
        from pathlib import Path

        from bot.embedded_redis import start_embedded_redis

        server = await start_embedded_redis(Path(data_dir or "data"))
        return cls(client(server.url), owner=server)

    async def close(self) -> None:
        await self.redis.aclose()
        if self._owner is not None:
            await self._owner.close()

    async def server_info(self) -> dict[str, Any]:
        info: dict[str, Any] = await self.redis.info("server")
        return info

    async def ping(self) -> bool:
        return bool(await self.redis.ping())

    async def eviction_policy(self) -> str | None:
        """The server's ``maxmemory-policy`` (CONFIG GET, or INFO where a managed Redis
        refuses CONFIG; on a Cluster, the first node's); None when neither tells."""
        from redis.exceptions import ResponseError

        try:
            found: Any = await self.redis.config_get("maxmemory-policy")
            while isinstance(found, dict) and found:  # {name: value}, or per node on a Cluster
                found = found.get("maxmemory-policy", next(iter(found.values())))
            if isinstance(found, (str, bytes)):
                return _s(found)
        except ResponseError:
            pass  # CONFIG is refused on some managed servers: INFO tells too
        info: dict[str, Any] = await self.redis.info("memory")
        policy = info.get("maxmemory_policy")
        if isinstance(policy, dict):  # a Cluster answers per node
            policy = next(iter(policy.values()), None)
        return None if policy is None else str(policy)

    # --- rooms ----------------------------------------------------------------------------

    async def load(self, room_id: str, claim: str | None = None) -> Loaded:
        """The room with its platform data, and whether ``claim`` was already seen: one
        command."""
        seen, version, doc, flat = await self._load(
            keys=[keys.update_claims(room_id), keys.room(room_id), keys.platform_data(room_id)],
            args=[claim or ""],
        )
        if not doc:
            return Loaded(None, bool(seen))
        data = {flat[i]: flat[i + 1] for i in range(0, len(flat), 2)}
        return Loaded(_room(doc, int(version), data), bool(seen))

    async def room(self, room_id: str) -> Room | None:
        return (await self.load(room_id)).room

    async def rooms(self, room_ids: Sequence[str]) -> list[Room | None]:
        pipe = self.redis.pipeline(transaction=False)
        for rid in room_ids:
            pipe.hmget(keys.room(rid), ["v", "doc"])
            pipe.hgetall(keys.platform_data(rid))
        res = await pipe.execute()
        out: list[Room | None] = []
        for i in range(0, len(res), 2):
            (version, doc), data = res[i], res[i + 1]
            out.append(None if doc is None else _room(doc, int(version or 0), data))
        return out

    async def cas(
        self,
        room: Room,
        claim: str | None,
        claim_ttl: int,
        room_ttl: int,
        now: float,
        record: MatchRecord | None = None,
    ) -> Written:
        """Write ``room`` if its stored version is still ``room.version``; in the same step
        claim ``claim``, set the room's deadline entry (``room.deadline``) and write
        ``record`` to the chat's statistics."""
        chat = keys.chat_of(room.id)
        ks = [
            keys.room(room.id),
            keys.update_claims(room.id),
            keys.deadlines_of(room.id),
            keys.platform_data(room.id),
        ]
        write = secrets.token_hex(4)
        args: list[str | int | bytes] = [
            room.version,
            pack_doc(room),
            claim_ttl,
            room_ttl,
            claim or "",
            repr(float(now)),
            KEEP_CLAIMS,
            "" if room.deadline is None else repr(float(room.deadline)),
            room.id,
            write,
        ]
        if record is not None:  # the chat's statistics too: keys of the same shard
            ks += [
                keys.chat_matches(chat),
                keys.chat_series(chat),
                keys.chat_players(chat),
                keys.chat_names(chat),
                keys.user_stats_todo(keys.shard_of(chat)),
                keys.chat_ratings(chat),
            ]
            args += [
                json.dumps(record.record, ensure_ascii=False),
                json.dumps(record.chat_ops, ensure_ascii=False),
                KEEP_MATCHES,
                record.todo(),
                record.ratings_version,
            ]
            if record.season:  # the month's ratings: the same shard, expiring
                ks.append(keys.chat_season(chat, record.season))
                args.append(SEASON_TTL)
        res = await self._cas(keys=ks, args=args)
        status = int(res[0])
        if status == 1:
            return Written(int(res[1]))
        version, stored = int(res[1]), res[2]
        if version == room.version + 1 and _s(res[3]) == write:
            # this very write, sent again: its first answer was lost with a connection (a
            # Redis restart) and the client's retry found it done. It was written.
            return Written(version)
        current = _room(stored, version, {}) if stored else None
        return Written(0, current, seen=status == -1)

    async def publish_change(self, room_id: str, version: int) -> None:
        """Tell every follower of ``keys.changes()`` that ``room_id`` is at ``version``."""
        await self.redis.publish(keys.changes(self.db), f"{room_id} {version}")

    @property
    def db(self) -> int:
        """The database this store's keys live in (a Cluster has only database 0)."""
        pool = getattr(self.redis, "connection_pool", None)
        return int(pool.connection_kwargs.get("db") or 0) if pool is not None else 0

    def follow_changes(self) -> ChangeFeed:
        """A subscription to every committed change (its own connection; ``close()`` it)."""
        return ChangeFeed(self.redis, self.db)

    async def versions(self, room_ids: Sequence[str]) -> list[int]:
        """The stored version of each room (0: no such room), one round trip."""
        pipe = self.redis.pipeline(transaction=False)
        for rid in room_ids:
            pipe.hget(keys.room(rid), "v")
        return [int(v or 0) for v in await pipe.execute()]

    async def delete(self, room_id: str) -> None:
        await self.redis.delete(keys.room(room_id), keys.platform_data(room_id))

    async def room_keys(self, room_id: str) -> list[str]:
        """Every key that belongs to one room (for memory accounting)."""
        candidates = [
            keys.room(room_id),
            keys.update_claims(room_id),
            keys.platform_data(room_id),
            keys.paint_lease(room_id, "table"),
        ]
        room = await self.room(room_id)
        if room is not None:  # the ended dealings of its match, kept for its replay
            candidates.append(keys.match_dealings(room_id, room.match_id))
        pipe = self.redis.pipeline(transaction=False)
        for k in candidates:
            pipe.exists(k)
        found = await pipe.execute()
        return [k for k, n in zip(candidates, found, strict=True) if n]

    # --- platform data --------------------------------------------------------------------

    async def set_platform_data(self, room_id: str, fields: dict[str, Any]) -> bool:
        """Write fields of the room's platform data (None deletes); False: no such room."""
        args: list[str] = []
        for name, value in fields.items():
            args += [name, _DELETE if value is None else json.dumps(value, ensure_ascii=False)]
        return bool(await self._set_data(keys=[keys.room(room_id), keys.platform_data(room_id)], args=args))

    async def platform_data(self, room_id: str) -> dict[str, Any]:
        raw = await self.redis.hgetall(keys.platform_data(room_id))
        return {_s(k): _s(v) for k, v in raw.items()}

    # --- painting ------------------------------------------------------------------------

    async def begin_paint(self, room_id: str, what: str, owner: str, ttl: float) -> PaintClaim:
        res = await self._begin_paint(
            keys=[keys.paint_lease(room_id, what), keys.platform_data(room_id), keys.room(room_id)],
            args=[owner, max(1, int(ttl * 1000)), what],
        )
        status = int(res[0])
        if status != 1:
            return PaintClaim(None, busy=status == -1)
        flat = res[3]
        data = {flat[i]: flat[i + 1] for i in range(0, len(flat), 2)}
        return PaintClaim(_room(res[2], int(res[1]), data))

    async def end_paint(self, room_id: str, what: str, owner: str, version: int) -> bool:
        res = await self._end_paint(
            keys=[keys.paint_lease(room_id, what), keys.platform_data(room_id), keys.room(room_id)],
            args=[owner, what, version],
        )
        return bool(res)

    async def drawn_version(self, room_id: str, what: str) -> int:
        v = await self.redis.hget(keys.platform_data(room_id), f"draw:{what}")
        return int(v or 0)

    # --- flood budgets -------------------------------------------------------------------

    async def flood_take(
        self,
        key: str,
        now: float,
        limit: int,
        window: float,
        gap: float,
        reserve: int,
        once: str | None = None,
    ) -> float:
        member = once or f"{now!r}:{secrets.token_hex(4)}"
        res = await self._flood_take(
            keys=[keys.flood(key), keys.flood_block(key)],
            args=[repr(float(now)), limit, repr(float(window)), repr(float(gap)), reserve, member],
        )
        return max(0.0, float(_s(res)))

    async def flood_block(self, key: str, until: float, seconds: float) -> None:
        await self._flood_block(keys=[keys.flood_block(key)], args=[repr(float(until)), repr(float(seconds))])

    # --- deadlines ------------------------------------------------------------------------
    # Each room's document holds its deadline; the index holds the same time, written by
    # the same script, except while a worker holds the entry on a short lease.

    async def set_deadline(self, room_id: str, at: float) -> None:
        """Unconditionally (tests and repairs)."""
        await self.redis.zadd(keys.deadlines_of(room_id), {room_id: at})

    async def deadline_of(self, room_id: str) -> float | None:
        score = await self.redis.zscore(keys.deadlines_of(room_id), room_id)
        return None if score is None else float(score)

    async def settle_deadline(self, room_id: str, lease: float, at: float | None) -> bool:
        """Move the entry to ``at`` (None: drop it), but only while it still holds this
        worker's lease."""
        arg = "" if at is None else repr(float(at))
        return bool(
            await self._settle(keys=[keys.deadlines_of(room_id)], args=[room_id, repr(float(lease)), arg])
        )

    async def due(self, now: float, limit: int = 50) -> list[str]:
        """Due room ids of every shard, soonest first (one round trip)."""
        pipe = self.redis.pipeline(transaction=False)
        for k in keys.all_deadlines():
            pipe.zrangebyscore(k, "-inf", now, start=0, num=limit, withscores=True)
        found: list[tuple[float, str]] = []
        for rows in await pipe.execute():
            found.extend((float(score), _s(member)) for member, score in rows)
        found.sort()
        return [rid for _score, rid in found[:limit]]

    async def playing(self) -> list[str]:
        """Every room id in the deadline index (the playing rooms)."""
        pipe = self.redis.pipeline(transaction=False)
        for k in keys.all_deadlines():
            pipe.zrange(k, 0, -1)
        return [_s(m) for rows in await pipe.execute() for m in rows]

    async def claim_deadline(self, room_id: str, now: float, lease: float) -> float | None:
        """Lease a due entry to this worker until about ``now + lease``: that score, or
        None."""
        until = lease_until(now, lease)
        ok = await self._claim(
            keys=[keys.deadlines_of(room_id)], args=[room_id, repr(float(now)), repr(float(until))]
        )
        return until if ok else None

    # --- people's rooms -------------------------------------------------------------------

    async def add_user_room(self, user_id: str, room_id: str, ttl: int = PEOPLE_TTL) -> None:
        """The person's rooms expire when he has sat down nowhere for ``ttl`` seconds (a
        room that is gone is dropped from the set when read)."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.sadd(keys.user_rooms(user_id), room_id)
        pipe.expire(keys.user_rooms(user_id), ttl)
        await pipe.execute()

    async def remove_user_room(self, user_id: str, room_id: str) -> None:
        await self.redis.srem(keys.user_rooms(user_id), room_id)

    async def user_rooms(self, user_id: str) -> list[str]:
        ids = await self.redis.smembers(keys.user_rooms(user_id))
        return sorted(_s(i) for i in ids)


class ChangeFeed:
    """Committed changes as ``(room id, version)``, from every worker (Redis pub/sub).

    A message published while the connection was down is lost (redis-py subscribes again
    when it reconnects): a follower that must not miss one also compares versions now and
    then (``Store.versions``)."""

    def __init__(self, redis: Redis, db: int = 0) -> None:
        self._pubsub = redis.pubsub(ignore_subscribe_messages=True)
        self._subscribed = False
        self._channel = keys.changes(db)

    async def next(self, timeout: float = 1.0) -> tuple[str, int] | None:
        """The next change, or None after ``timeout`` seconds without one."""
        if not self._subscribed:
            await self._pubsub.subscribe(self._channel)
            self._subscribed = True
        msg = await self._pubsub.get_message(ignore_subscribe_messages=True, timeout=timeout)
        if msg is None or msg.get("type") != "message":
            return None
        room_id, _, version = _s(msg["data"]).rpartition(" ")
        try:
            return room_id, int(version)
        except ValueError:
            return None

    async def close(self) -> None:
        await self._pubsub.aclose()  # type: ignore[no-untyped-call]  # redis-py: unannotated


async def open_store(settings: Any) -> Store:
    """The store of ``settings`` (a ``bot.config.Settings``), answering: or one clear line
    (``ConfigError``) when Redis does not answer, never a traceback."""
    from redis.exceptions import RedisError

    from bot.config import ConfigError
    from bot.logs import mask_url

    where = mask_url(settings.redis_url) if settings.redis_url else "the embedded Redis"
    try:
        if settings.redis_url and not settings.redis_cluster:
            # once, without the retries a running bot uses to ride out a restart
            probe = Redis.from_url(settings.redis_url, socket_connect_timeout=5, retry=Retry(NoBackoff(), 0))
            try:
                await asyncio.wait_for(probe.ping(), 10.0)
            finally:
                await probe.aclose()
        store = await Store.connect(settings.redis_url, settings.data_dir, settings.redis_cluster)
    except (RedisError, OSError, RuntimeError, TimeoutError, ValueError) as e:
        raise ConfigError(f"cannot reach Redis at {where}: {mask_url(_first_line(e))}") from None
    try:
        await asyncio.wait_for(store.ping(), 15.0)
        policy = await store.eviction_policy()
    except (RedisError, OSError, TimeoutError) as e:
        await store.close()
        raise ConfigError(f"cannot reach Redis at {where}: {mask_url(_first_line(e))}") from None
    if policy not in (None, "noeviction") and not getattr(settings, "allow_eviction", False):
        await store.close()
        raise ConfigError(
            f"Redis at {where} may evict keys (maxmemory-policy {policy}): playing tables would "
            "vanish when it runs short of memory; set maxmemory-policy noeviction, or "
            "ALLOW_EVICTION=1 to start anyway"
        )
    return store


def lease_until(now: float, lease: float) -> float:
    """A lease's score: ``now + lease`` less a few random microseconds, so that it never
    equals a room's own due time (a commit at the same instant writing ``now + delay``): an
    entry that holds this score holds this lease."""
    return now + lease - (1 + secrets.randbelow(999)) * 1e-6


def _first_line(e: BaseException) -> str:
    text = str(e).strip() or type(e).__name__
    return text.splitlines()[0]


def _retry() -> Retry:
    # about 4-9 s of tries in all: a Redis restart (AOF loaded) is back well within that;
    # at most half a second between tries, so a worker is back soon after Redis is
    return Retry(
        EqualJitterBackoff(cap=0.5, base=0.05),
        retries=20,
        supported_errors=(ConnectionError, TimeoutError, BusyLoadingError),
    )


class _Pool(ConnectionPool):
    """A pool that makes a busy worker wait for a free connection (redis-py's default pool
    raises "Too many connections"), through a plain semaphore: its blocking pool pays a
    timer per command."""

    def __init__(self, max_connections: int, **kwargs: Any) -> None:
        super().__init__(max_connections=max_connections, **kwargs)
        self._free = asyncio.Semaphore(max_connections)

    async def get_connection(self, *args: Any, **kwargs: Any) -> Any:
        await self._free.acquire()
        try:
            return await super().get_connection(*args, **kwargs)  # type: ignore[no-untyped-call]  # redis-py: unannotated
        except BaseException:
            self._free.release()
            raise

    async def release(self, connection: Any) -> None:
        try:
            await super().release(connection)
        finally:
            self._free.release()


def client(url: str, max_connections: int = 64) -> Redis:
    """A client that retries a command on a fresh connection after a connection error."""
    pool = _Pool.from_url(url, max_connections=max_connections, retry=_retry(), health_check_interval=0)
    return Redis.from_pool(pool)


# A room's document is stored deflated (issue 12.7: a long Petukh room's JSON is 3.5 KB, about
# 1.2 KB deflated, and every room with its hands' records stays within 8 KB); a document
# written before this, plain JSON, is still read.
DEFLATED = b"z"


def pack_doc(room: Room) -> bytes:
    return DEFLATED + zlib.compress(room.to_json().encode(), 1)


def unpack_doc(doc: bytes | str) -> bytes | str:
    """The JSON text of a stored room document."""
    if isinstance(doc, bytes) and doc[:1] == DEFLATED:
        return zlib.decompress(doc[1:])
    return doc


def _room(doc: bytes | str, version: int, data: dict[Any, Any]) -> Room:
    room = Room.from_json(unpack_doc(doc), version)
    pdata: dict[str, Any] = {}
    sdata: dict[str, dict[str, Any]] = {}
    for k, v in data.items():
        name = _s(k)
        if name.startswith("r:"):
            pdata[name[2:]] = json.loads(v)
        elif name.startswith("s:"):
            user, _, field = name[2:].rpartition(":")
            sdata.setdefault(user, {})[field] = json.loads(v)
    room.pdata, room.sdata = pdata, sdata
    return room
