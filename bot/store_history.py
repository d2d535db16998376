"""The store's side of a chat's history (``bot/history.py``): a capped list of match
summaries and a hash of their compact logs, written together by one script, and the
dealings of matches still on. A mixin of ``Store`` (``bot/store.py``)."""

from __future__ import annotations

import json
from typing import Any

from redis.asyncio import Redis
from redis.commands.core import AsyncScript

from bot import keys

# KEYS: 1 the summaries (a list), 2 the logs (a hash). ARGV: 1 the match key, 2 its
# summary, 3 its log ("" none), 4 how many to keep, 5 the expiry. A match already kept is
# not kept twice; the logs of the summaries that fall off the list go with them.
PUSH = """
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('LPUSH', KEYS[1], ARGV[2])
local keep = tonumber(ARGV[4])
for _, old in ipairs(redis.call('LRANGE', KEYS[1], keep, -1)) do
  local ok, entry = pcall(cjson.decode, old)
  if ok and type(entry) == 'table' and entry['key'] then redis.call('HDEL', KEYS[2], entry['key']) end
end
redis.call('LTRIM', KEYS[1], 0, keep - 1)
redis.call('EXPIRE', KEYS[1], ARGV[5])
redis.call('EXPIRE', KEYS[2], ARGV[5])
return 1
"""


class HistoryStore:
    redis: Redis
    _push_history: AsyncScript | None = None

    async def push_history(
        self, chat: str, summary: dict[str, Any], blob: bytes, keep: int, ttl: int
    ) -> bool:
        """Keep a match at the head of the chat's history (False: it was kept already)."""
        if self._push_history is None:
            self._push_history = self.redis.register_script(PUSH)
        text = json.dumps(summary, ensure_ascii=False)
        done = await self._push_history(
            keys=[keys.chat_history(chat), keys.chat_history_logs(chat)],
            args=[summary["key"], text, blob, keep, ttl],
        )
        return bool(done)

    async def history(self, chat: str) -> list[dict[str, Any]]:
        return [json.loads(r) for r in await self.redis.lrange(keys.chat_history(chat), 0, -1)]

    async def history_log(self, chat: str, key: str) -> bytes | None:
        blob = await self.redis.hget(keys.chat_history_logs(chat), key)
        return blob.encode() if isinstance(blob, str) else blob

    async def keep_dealings(self, room_id: str, match_id: str, dealings: dict[int, str], ttl: int) -> None:
        key = keys.match_dealings(room_id, match_id)
        pipe = self.redis.pipeline(transaction=False)
        pipe.hset(key, mapping={str(i): d for i, d in dealings.items()})
        pipe.expire(key, ttl)
        await pipe.execute()

    async def kept_dealings(self, room_id: str, match_id: str) -> dict[int, str]:
        raw = await self.redis.hgetall(keys.match_dealings(room_id, match_id))
        return {int(k): v.decode() if isinstance(v, bytes) else v for k, v in raw.items()}

    async def drop_dealings(self, room_id: str, match_id: str) -> None:
        await self.redis.delete(keys.match_dealings(room_id, match_id))
