"""The store's records beside the rooms: a chat's usernames and settings, and the
statistics of finished matches (per chat and per person), read back for the commands that
show them. A mixin of ``Store`` (``bot/store.py``): the same connection and scripts."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from redis.asyncio import Redis
from redis.commands.core import AsyncScript

from bot import keys

# A person's list of rooms and a chat's usernames outlive their last use by this much.
PEOPLE_TTL = 30 * 24 * 3600


class Records:
    redis: Redis
    _user_stats: AsyncScript

    # --- usernames ------------------------------------------------------------------------

    async def remember_username(self, chat: str, username: str, user_id: str, ttl: int = PEOPLE_TTL) -> None:
        pipe = self.redis.pipeline(transaction=False)
        pipe.hset(keys.usernames(chat), username, user_id)
        pipe.expire(keys.usernames(chat), ttl)
        await pipe.execute()

    async def username(self, chat: str, username: str) -> str | None:
        v = await self.redis.hget(keys.usernames(chat), username)
        return None if v is None else _s(v)

    # --- chat settings --------------------------------------------------------------------

    async def chat_pref(self, chat: str, name: str) -> str | None:
        v = await self.redis.hget(keys.chat_prefs(chat), name)
        return None if v is None else _s(v)

    async def set_chat_pref(self, chat: str, name: str, value: str) -> None:
        await self.redis.hset(keys.chat_prefs(chat), name, value)

    async def chat_prefs(self, chat: str, names: Sequence[str]) -> list[str | None]:
        return [
            None if v is None else _s(v) for v in await self.redis.hmget(keys.chat_prefs(chat), list(names))
        ]

    async def drop_chat_prefs(self, chat: str, names: Sequence[str]) -> None:
        if names:
            await self.redis.hdel(keys.chat_prefs(chat), *names)

    # --- notices (issue 36.2) ---------------------------------------------------------------

    async def set_notify(self, chat: str, user_id: str, on: bool, ttl: int) -> None:
        pipe = self.redis.pipeline(transaction=False)
        (pipe.sadd if on else pipe.srem)(keys.notify(chat), user_id)
        pipe.expire(keys.notify(chat), ttl)
        await pipe.execute()

    async def notify_on(self, chat: str, user_id: str) -> bool:
        return bool(await self.redis.sismember(keys.notify(chat), user_id))

    async def claim_notice(self, chat: str, room_id: str, mark: str, ttl: int) -> list[str]:
        """The chat's people who asked for notices, once a table (``mark``): the first
        caller gets them, any other nothing. The list's expiry starts again."""
        if not await self.redis.set(keys.notice(room_id, mark), 1, nx=True, ex=24 * 3600):
            return []
        pipe = self.redis.pipeline(transaction=False)
        pipe.smembers(keys.notify(chat))
        pipe.expire(keys.notify(chat), ttl)
        members, _ = await pipe.execute()
        return sorted(_s(m) for m in members)

    # --- statistics -----------------------------------------------------------------------

    async def apply_user_stats(self, item: str, ttl: int = 30 * 24 * 3600) -> None:
        """Add one finished match to each person's own counters (once each), then drop
        the to-do entry. A worker that dies half way leaves the entry for the timer loop."""
        todo = json.loads(item)
        moved = todo.get("moved", {})
        for user in sorted(set(todo["people"]) | set(moved)):
            move = moved.get(user)
            args: list[Any] = [
                ttl,
                int(move is not None),
                repr(move["mu"]) if move else "0",
                repr(move["sigma"]) if move else "0",
                int(bool(move and move["won"])),
            ]
            for name, n in todo["people"].get(user, {}).items():
                args += [name, n]
            await self._user_stats(
                keys=[keys.user_stats(user), keys.user_stats_done(user, todo["id"])], args=args
            )

    async def finish_user_stats(self, shard: int, item: str) -> None:
        await self.apply_user_stats(item)
        await self.redis.lrem(keys.user_stats_todo(shard), 1, item)

    async def user_stats_todo(self, shard: int, limit: int = 20) -> list[str]:
        return [_s(i) for i in await self.redis.lrange(keys.user_stats_todo(shard), 0, limit - 1)]

    async def matches(self, chat: str, limit: int = 20) -> list[dict[str, Any]]:
        raw = await self.redis.lrange(keys.chat_matches(chat), 0, limit - 1)
        return [json.loads(r) for r in raw]

    async def series(self, chat: str) -> dict[str, int]:
        raw = await self.redis.hgetall(keys.chat_series(chat))
        return {_s(k): int(v) for k, v in raw.items()}

    async def players(self, chat: str) -> tuple[dict[str, int], dict[str, str]]:
        pipe = self.redis.pipeline(transaction=False)
        pipe.hgetall(keys.chat_players(chat))
        pipe.hgetall(keys.chat_names(chat))
        raw, names = await pipe.execute()
        return ({_s(k): int(v) for k, v in raw.items()}, {_s(k): _s(v) for k, v in names.items()})

    async def user_stats(self, user_id: str) -> dict[str, float]:
        raw = await self.redis.hgetall(keys.user_stats(user_id))
        return {_s(k): float(v) for k, v in raw.items()}

    async def chat_ratings(self, chat: str) -> dict[str, str]:
        raw = await self.redis.hgetall(keys.chat_ratings(chat))
        return {_s(k): _s(v) for k, v in raw.items()}

    async def chat_and_season_ratings(self, chat: str, month: str) -> tuple[dict[str, str], dict[str, str]]:
        """The chat's ratings and its month's, in one step (a write moves both and the
        chat's version: checking the version checks both)."""
        pipe = self.redis.pipeline(transaction=True)
        pipe.hgetall(keys.chat_ratings(chat))
        pipe.hgetall(keys.chat_season(chat, month))
        both, season = await pipe.execute()
        return {_s(k): _s(v) for k, v in both.items()}, {_s(k): _s(v) for k, v in season.items()}

    async def season_ratings(self, chat: str, month: str) -> dict[str, str]:
        raw = await self.redis.hgetall(keys.chat_season(chat, month))
        return {_s(k): _s(v) for k, v in raw.items()}

    async def overall_ratings(self, names: Sequence[str]) -> dict[str, tuple[float, float]]:
        pipe = self.redis.pipeline(transaction=False)
        for name in names:
            pipe.hmget(keys.user_stats(name), ["mu", "sigma"])
        out = {}
        for name, (mu, sigma) in zip(names, await pipe.execute(), strict=True):
            if mu is not None and sigma is not None:
                out[name] = (float(mu), float(sigma))
        return out


def _s(v: bytes | str) -> str:
    return v.decode() if isinstance(v, bytes) else v
