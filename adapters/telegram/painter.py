"""Redraws with flood control: one table message per room edited in place, coalesced.

Telegram lets a bot write about 20 messages a minute to a group (a sliding window here).
Every change of a room marks its table dirty; ``flush`` edits a dirty table only when the
chat's budget allows,
so a fast match collapses into a few edits. Deal and match summaries are queued and never
dropped. ``TelegramRetryAfter`` blocks the chat for the time Telegram asks. The clock is
injectable: tests advance it instead of waiting.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiogram import Bot
from aiogram.exceptions import TelegramBadRequest, TelegramForbiddenError, TelegramRetryAfter
from aiogram.types import InlineKeyboardMarkup

from adapters.common.render import DEAL_END_KEYS, Text
from adapters.telegram import ui
from bot.clock import Clock
from bot.room import Room
from bot.service import GameService
from bot.views import Line

log = logging.getLogger(__name__)

GROUP_PER_MINUTE = 20
HAND_PER_MINUTE = 40


class Gate:
    """At most ``per_minute`` writes per key in any 60 seconds (a sliding window)."""

    def __init__(self, clock: Clock, per_minute: int) -> None:
        self.clock = clock
        self.limit = per_minute
        self.writes: dict[str, deque[float]] = {}
        self.blocked: dict[str, float] = {}  # key -> until (RetryAfter)

    def wait(self, key: str) -> float:
        """Seconds until a write is allowed (0: allowed now; nothing consumed)."""
        now = self.clock.now()
        until = self.blocked.get(key, 0.0)
        if until > now:
            return until - now
        log = self._window(key, now)
        return 0.0 if len(log) < self.limit else log[0] + 60.0 - now

    def take(self, key: str) -> None:
        now = self.clock.now()
        self._window(key, now).append(now)

    def block(self, key: str, seconds: float) -> None:
        self.blocked[key] = self.clock.now() + seconds

    def _window(self, key: str, now: float) -> deque[float]:
        log = self.writes.setdefault(key, deque())
        while log and log[0] <= now - 60.0:
            log.popleft()
        return log


@dataclass
class Pending:
    room: Room
    lines: list[Line] = field(default_factory=list)


@dataclass
class Post:
    chat: int
    thread: int | None
    text: str
    markup: InlineKeyboardMarkup | None = None


class Painter:
    def __init__(self, bot: Bot, service: GameService, clock: Clock,
                 text_for: Callable[[Room], Text],
                 group_per_minute: int = GROUP_PER_MINUTE) -> None:
        self.bot = bot
        self.service = service
        self.clock = clock
        self.text_for = text_for
        self.group = Gate(clock, group_per_minute)
        self.hands = Gate(clock, HAND_PER_MINUTE)
        self.dirty: dict[str, Room] = {}
        self.posts: dict[str, deque[Post]] = {}
        self.hand_seen: dict[tuple[str, str], str] = {}
        self.wake = asyncio.Event()
        self.group_writes: dict[str, list[float]] = {}  # chat -> write times (for tests)
        self._lock = asyncio.Lock()

    # --- what the service tells us -------------------------------------------------------

    async def changed(self, room: Room, lines: list[Line]) -> None:
        if room.platform != "tg":
            return
        t = self.text_for(room)
        table = self.service.table_of(room)
        chat = int(room.chat)
        thread = int(room.thread) if room.thread else None
        for ln in lines:
            if ln.key in DEAL_END_KEYS and not any(x.key == "match_ended" for x in lines):
                self._post(room.id, Post(chat, thread, "📋 " + t.deal_result(ln, table)))
            elif ln.key == "match_ended":
                self._post(room.id, Post(chat, thread, t.match_result(ln, table, lines),
                                         ui.table_markup(t, table) if table.finished else None))
        current = self.dirty.get(room.id)
        if current is None or current.version <= room.version:
            self.dirty[room.id] = room
        await self.update_hands(room)
        self.wake.set()

    def _post(self, room_id: str, post: Post) -> None:
        self.posts.setdefault(room_id, deque()).append(post)

    # --- drawing --------------------------------------------------------------------------

    async def flush(self) -> float | None:
        """Do every write the budgets allow now; the seconds until the next one is due."""
        async with self._lock:
            next_due: float | None = None
            for room_id in list(self.posts):
                queue = self.posts[room_id]
                while queue:
                    post = queue[0]
                    key = str(post.chat)
                    wait = self.group.wait(key)
                    if wait > 0:
                        next_due = wait if next_due is None else min(next_due, wait)
                        break
                    if not await self._send_post(post):
                        w = self.group.wait(key)
                        next_due = w if next_due is None else min(next_due, w)
                        break
                    queue.popleft()
                if not queue:
                    del self.posts[room_id]
            for room_id, room in list(self.dirty.items()):
                if self.posts.get(room_id):
                    continue  # summaries first, in order
                key = room.chat
                wait = self.group.wait(key)
                if wait > 0:
                    next_due = wait if next_due is None else min(next_due, wait)
                    continue
                if self.dirty.get(room_id) is room:
                    del self.dirty[room_id]
                if not await self.draw_table(room):
                    self.dirty.setdefault(room_id, room)
                    w = self.group.wait(key)
                    next_due = w if next_due is None else min(next_due, w)
            return next_due

    async def _write(self, key: str, call: Any) -> Any:
        """One group write through the budget; False when Telegram asked us to wait."""
        try:
            result = await call
        except TelegramRetryAfter as e:
            self.group.block(key, float(e.retry_after))
            return False
        self.group.take(key)
        self.group_writes.setdefault(key, []).append(self.clock.now())
        return result if result is not None else True

    async def _send_post(self, post: Post) -> bool:
        try:
            res = await self._write(str(post.chat), self.bot.send_message(
                post.chat, post.text, message_thread_id=post.thread, reply_markup=post.markup))
        except (TelegramBadRequest, TelegramForbiddenError) as e:
            log.warning("post to %s failed: %s", post.chat, e)
            return True  # a chat we cannot write to: drop it, never loop on it
        return res is not False

    async def draw_table(self, room: Room) -> bool:
        """Edit the room's table message in place (or send it if there is none)."""
        t = self.text_for(room)
        table = self.service.table_of(room)
        text = t.table(table, self.clock.now())
        markup = ui.table_markup(t, table)
        chat = int(room.chat)
        thread = int(room.thread) if room.thread else None
        msg_id = room.pdata.get("tg_table")
        try:
            if msg_id:
                res = await self._write(room.chat, self.bot.edit_message_text(
                    text=text, chat_id=chat, message_id=msg_id, reply_markup=markup))
                return res is not False
            sent = await self._write(room.chat, self.bot.send_message(
                chat, text, message_thread_id=thread, reply_markup=markup))
            if sent is False:
                return False
            await self.service.set_room_data(room.id, tg_table=sent.message_id)
            return True
        except TelegramBadRequest as e:
            if "not modified" in str(e):
                return True
            if msg_id and "not found" in str(e):
                await self.service.set_room_data(room.id, tg_table=None)
                room.pdata["tg_table"] = None
                return await self.draw_table(room)
            log.warning("table of %s: %s", room.id, e)
            return True
        except TelegramForbiddenError:
            return True

    # --- hands ----------------------------------------------------------------------------

    async def update_hands(self, room: Room) -> None:
        """Edit each person's hand message in place when what it shows has changed."""
        for seat in room.seats:
            if seat is None or seat.user is None or not seat.user.startswith("tg:"):
                continue
            rec = room.sdata.get(seat.user, {}).get("tg_hand")
            if not rec:
                continue
            hand = self.service.hand_of(room, seat.user)
            if hand is None:
                continue
            sig = repr((hand.cards, [c.token for c in hand.choices], hand.prompt,
                        [(p.seat, p.count) for p in hand.table.trick], room.state))
            if self.hand_seen.get((room.id, seat.user)) == sig:
                continue
            self.hand_seen[(room.id, seat.user)] = sig
            await self.edit_hand(room, seat.user, rec, hand)

    async def edit_hand(self, room: Room, user: str, rec: dict[str, Any], hand: Any) -> bool:
        t = self.text_for_user(room, user)
        private = rec.get("mode") == "private"
        text = ui.hand_text(t, hand, None)
        markup = ui.hand_markup(t, hand, 0, private)
        uid = int(user[3:])
        try:
            if private:
                await self.bot.edit_message_text(text=text, chat_id=uid, message_id=rec["msg"],
                                                 reply_markup=markup)
            else:
                await self.bot.edit_ephemeral_message_text(
                    chat_id=int(room.chat), receiver_user_id=uid,
                    ephemeral_message_id=rec["msg"], text=text, reply_markup=markup)
            self.hands.take(user)
            return True
        except TelegramRetryAfter as e:
            self.hands.block(user, float(e.retry_after))
            self.hand_seen.pop((room.id, user), None)
            return False
        except (TelegramBadRequest, TelegramForbiddenError) as e:
            if "not modified" in str(e):
                return True
            log.info("hand of %s in %s: %s", user, room.id, e)
            return False

    def text_for_user(self, room: Room, user: str) -> Text:
        lang = room.sdata.get(user, {}).get("lang")
        return Text(lang) if lang else self.text_for(room)

    # --- the loop -------------------------------------------------------------------------

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            self.wake.clear()
            try:
                due = await self.flush()
            except Exception:
                log.exception("painter")
                due = 1.0
            timeout = 5.0 if due is None else max(0.05, due)
            try:
                await asyncio.wait_for(self.wake.wait(), timeout)
            except TimeoutError:
                pass
