"""The updates the bot is to get: the queue getUpdates long-polls, the webhook that stops it,
and what was delivered and confirmed (``offset``), redelivered or filtered out."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tests.fakes.telegram.model import ApiError, FakeCallback, JsonDict, Params

# Update types a bot gets when ``allowed_updates`` is an empty list (Bot API default).
NOT_DEFAULT_UPDATES = frozenset({"chat_member", "message_reaction", "message_reaction_count"})


@dataclass
class _Update:
    update_id: int
    kind: str
    payload: JsonDict

    def to_api(self) -> JsonDict:
        return {"update_id": self.update_id, self.kind: self.payload}


class Updates:
    """The update queue and the getUpdates / webhook methods.

    :param notify: called on every change a test may wait for.
    :param max_poll_seconds: cap on how long one getUpdates waits (default: honour ``timeout``;
        a queued update or ``close()`` wakes it anyway).
    """

    def __init__(self, notify: Callable[[], None], max_poll_seconds: float | None = None) -> None:
        self.notify = notify
        self.max_poll_seconds = max_poll_seconds
        self.webhook_url = ""
        self.allowed_updates: list[str] | None = None
        self.skipped_updates: list[JsonDict] = []  # filtered out by allowed_updates
        self.last_update_id = 0
        self.delivered_up_to = 0
        self.confirmed_up_to = 0
        self.closing = False
        self._sent: dict[int, _Update] = {}
        self._again: list[_Update] = []
        self._pending: list[_Update] = []
        self._update_ids = itertools.count(1)
        self._new_update = asyncio.Event()

    def push(self, kind: str, payload: JsonDict) -> int:
        """Queue a raw update ``{"update_id": n, kind: payload}``; returns its update_id."""
        update = _Update(next(self._update_ids), kind, payload)
        self._pending.append(update)
        self.last_update_id = update.update_id
        self.wake_pollers()
        self.notify()
        return update.update_id

    def close(self) -> None:
        """Release every waiting getUpdates (the server stops)."""
        self.closing = True
        self.wake_pollers()

    def wake_pollers(self) -> None:
        new_update, self._new_update = self._new_update, asyncio.Event()
        new_update.set()

    def skipped(self, update_id: int) -> bool:
        return any(update.get("update_id") == update_id for update in self.skipped_updates)

    def pending_update_count(self) -> int:
        return len(self._pending)

    def redeliver(self, update_id: int) -> None:
        """Deliver an update again with the same id, as Telegram does when its webhook
        request failed or a polling worker died before confirming it."""
        update = self._sent.get(update_id)
        if update is None:
            raise KeyError(f"update {update_id} was never delivered")
        self._again.append(update)  # apart from _pending: a confirmed offset can't drop it
        self.wake_pollers()
        self.notify()

    def update_of(self, callback: FakeCallback) -> int:
        """The update id that carried a button press."""
        for update_id, update in self._sent.items():
            if update.kind == "callback_query" and update.payload.get("id") == callback.id:
                return update_id
        raise KeyError(callback.id)

    async def get_updates(self, params: Params) -> list[JsonDict]:
        if self.webhook_url:
            raise ApiError(
                409,
                "Conflict: can't use getUpdates method while webhook is active; "
                "use deleteWebhook to delete the webhook first",
            )
        allowed = params.get("allowed_updates")
        if isinstance(allowed, list):
            self.allowed_updates = [str(kind) for kind in allowed]
        self._confirm(params.get("offset"))
        limit = max(1, min(int(params.get("limit") or 100), 100))
        timeout = float(params.get("timeout") or 0)
        if self.max_poll_seconds is not None:
            timeout = min(timeout, self.max_poll_seconds)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            new_update = self._new_update
            batch = self._take(limit)
            if batch or self.closing:
                break
            remaining = deadline - loop.time()
            if remaining <= 0:
                break
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(new_update.wait(), remaining)
        if batch:
            self.delivered_up_to = max(self.delivered_up_to, batch[-1].update_id)
            for update in batch:
                self._sent[update.update_id] = update
        return [update.to_api() for update in batch]

    def _confirm(self, offset: Any) -> None:
        if offset is None:
            return
        offset = int(offset)
        if offset < 0:
            dropped = self._pending[:offset] if -offset < len(self._pending) else []
            self._pending = self._pending[len(dropped) :]
            if dropped:
                self.confirmed_up_to = max(self.confirmed_up_to, dropped[-1].update_id)
            return
        self._pending = [update for update in self._pending if update.update_id >= offset]
        self.confirmed_up_to = max(self.confirmed_up_to, offset - 1)

    def _take(self, limit: int) -> list[_Update]:
        if self._again:
            again, self._again = self._again[:limit], self._again[limit:]
            return again
        allowed = self.allowed_updates
        batch: list[_Update] = []
        for update in list(self._pending):
            wanted = (
                allowed is None
                or (not allowed and update.kind not in NOT_DEFAULT_UPDATES)
                or update.kind in allowed
            )
            if not wanted:
                self._pending.remove(update)
                self.skipped_updates.append(update.to_api())
                continue
            batch.append(update)
            if len(batch) >= limit:
                break
        return batch

    def delete_webhook(self, params: Params) -> bool:
        self.webhook_url = ""
        if params.get("drop_pending_updates"):
            if self._pending:
                self.confirmed_up_to = max(self.confirmed_up_to, self._pending[-1].update_id)
            self._pending.clear()
        return True

    def set_webhook(self, params: Params) -> bool:
        self.webhook_url = str(params.get("url") or "")
        if params.get("drop_pending_updates"):
            self._pending.clear()
        return True

    def get_webhook_info(self, params: Params) -> JsonDict:
        return {
            "url": self.webhook_url,
            "has_custom_certificate": False,
            "pending_update_count": len(self._pending),
        }
