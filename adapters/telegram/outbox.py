"""The painter's outbox (an object it holds): writes waiting for their chat's budget, one
queue per chat and lane.

A lane is a chat's budgeted writes (what its members all see) apart from the others
(ephemeral ones), so that neither waits behind the other. Writes go out oldest first
while the chat's budget allows; a 429 holds the chat for its ``retry_after`` and the
write is tried again, never dropped; what Telegram refuses outright is logged and dropped
(or said another way: ``Post.fallback``). One flush of a lane at a time (``post()`` and
the paint loop both flush). Answers meant for one person that end up as group writes
(``Post.info``) take a small share of the budget of their own and only a few wait: a
member who spams commands never holds back the table.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from aiogram import Bot
from aiogram.exceptions import TelegramBadRequest, TelegramForbiddenError, TelegramRetryAfter
from aiogram.methods import SendMessage
from aiogram.types import InlineKeyboardMarkup, Message, ReplyParameters

from adapters.common.painting import take
from adapters.telegram.limits import INFO_PACE, INFO_QUEUED, budget_key, info_key, pace_of
from adapters.telegram.posts import Post
from bot.clock import Clock
from bot.platform import FloodBudgets
from bot.service import GameService

log = logging.getLogger(__name__)

BAD_RETRY = 5.0  # seconds: a write failed for a reason of our own; try again later
MAX_TRIES = 5  # of a post refused with something else than a 429


@dataclass
class Stats:
    """What the painter did (logs, the bench)."""

    dropped: list[str] = field(default_factory=list)
    retry_after: int = 0


class Outbox:
    """The painter's writes, queued per chat and lane and written within the chats'
    budgets. ``saw(chat, message_id)``: told of every message the bot sent; ``wake``: set
    when something is queued (the paint loop then learns when it is due)."""

    def __init__(
        self,
        bot: Bot,
        budgets: FloodBudgets,
        clock: Clock,
        games: GameService,
        saw: Callable[[int, int], None],
        wake: asyncio.Event,
    ) -> None:
        self.bot = bot
        self.budgets = budgets
        self.clock = clock
        self.service = games  # its metrics (read at each count: a test may swap them)
        self.saw = saw
        self.wake = wake
        self.stats = Stats()
        # queued writes in order, per chat and lane: the chat's budgeted writes apart from
        # the others (ephemeral ones), so that neither waits behind the other
        self.queues: dict[tuple[int, bool], deque[Post]] = {}
        self._flushing: set[tuple[int, bool]] = set()  # lanes being written: one flush each

    async def flush(self, now: float) -> list[float]:
        """Write every lane's posts the budgets allow now; when each held one is due."""
        dues = []
        for lane in list(self.queues):
            due = await self._flush_posts(lane, now)
            if due is not None:
                dues.append(due)
        return dues

    def queued(self) -> int:
        """Posts waiting, in every lane."""
        return sum(len(q) for q in self.queues.values())

    async def post(self, post: Post) -> None:
        """Queue a write for its chat's budget and write what the budget allows now."""
        lane = (post.chat, post.budget)
        queue = self.queues.setdefault(lane, deque())
        if post.info and post.chat < 0:
            self._make_room_for_info(queue)
        if post.supersedes is not None:
            for old in [p for p in queue if p.supersedes == post.supersedes]:
                queue.remove(old)  # an older state of the same message, not written yet
        queue.append(post)
        await self._flush_posts(lane, self.clock.now())
        self.wake.set()  # the paint loop learns when what is left is due

    def hold(self, post: Post) -> None:
        """Queue a write for later (its ``not_before``) without writing anything now: safe
        from within a write's own ``on_sent``."""
        queue = self.queues.setdefault((post.chat, post.budget), deque())
        if post.info and post.chat < 0:
            self._make_room_for_info(queue)
        queue.append(post)
        self.wake.set()

    async def say(
        self,
        chat: int,
        text: str,
        *,
        thread: int | None = None,
        markup: InlineKeyboardMarkup | None = None,
        reply_to: int | None = None,
        room: str | None = None,
        gen: int | None = None,
        on_sent: Callable[[Any], Awaitable[None]] | None = None,
        info: bool = False,
    ) -> None:
        """A message to the chat (a reply to a command when ``reply_to``); ``info``: an
        answer for one person (``Post.info``)."""
        method = SendMessage(
            chat_id=chat,
            text=text,
            message_thread_id=thread,
            reply_markup=markup,
            reply_parameters=ReplyParameters(message_id=reply_to, allow_sending_without_reply=True)
            if reply_to
            else None,
        )
        await self.post(Post(chat, method, room=room, gen=gen, on_sent=on_sent, info=info))

    def _make_room_for_info(self, queue: deque[Post]) -> None:
        """At most ``INFO_QUEUED`` info answers wait in a group's lane: the oldest goes (a
        result, a table's edit, a hand never does). A private chat's answers are bounded by
        its person's own command limit."""
        infos = [p for p in queue if p.info]
        for old in infos[: max(0, len(infos) - INFO_QUEUED + 1)]:
            queue.remove(old)
            self.stats.dropped.append(f"info {type(old.method).__name__} {old.chat}")
            log.warning("dropped a waiting answer to %s: too many queued", old.chat)

    def drop(self, room_id: str, gen: int) -> None:
        """Forget the queued posts of a room's game ``gen`` (it was cancelled)."""
        for queue in self.queues.values():
            kept = [p for p in queue if not (p.room == room_id and p.gen == gen)]
            if len(kept) != len(queue):
                log.info("dropped %d queued posts of cancelled %s", len(queue) - len(kept), room_id)
                queue.clear()
                queue.extend(kept)

    async def _flush_posts(self, lane: tuple[int, bool], now: float) -> float | None:
        """Write a lane's queued posts, oldest first, while its budget allows; the time
        the next one is due (None: none held). One flush of a lane at a time: ``post()``
        and the paint loop both flush, and two at once would both write the head."""
        if lane in self._flushing:
            return None  # the flush in progress writes what was queued meanwhile too
        self._flushing.add(lane)
        try:
            return await self._flush_lane(lane, now)
        finally:
            self._flushing.discard(lane)

    async def _flush_lane(self, lane: tuple[int, bool], now: float) -> float | None:
        chat = lane[0]
        queue = self.queues.get(lane)
        while queue:
            post = queue[0]
            if post.not_before > now:
                return post.not_before
            if post.budget and post.info and chat < 0:
                # an answer for one person in the group: its own small share, first
                wait = await take(self.budgets, info_key(chat), INFO_PACE, routine=False)
                if wait > 0:
                    post.not_before = now + wait
                    return post.not_before
            if post.budget:
                wait = await take(self.budgets, budget_key(chat), pace_of(chat), routine=False)
                if wait > 0:
                    post.not_before = now + wait
                    return post.not_before
            done = await self._send(post, now)
            if not done:
                return post.not_before
            # the queue may have changed while the write was out (a cancel drops posts)
            if queue and queue[0] is post:
                queue.popleft()
            elif post in queue:
                queue.remove(post)
        if not queue:
            self.queues.pop(lane, None)
        return None

    async def _send(self, post: Post, now: float) -> bool:
        """One write; False when it must be tried again later (``post.not_before``)."""
        try:
            result = await self.bot(post.method)
        except TelegramRetryAfter as e:
            await self.blocked(post.chat, e.retry_after)
            post.not_before = now + e.retry_after
            return False
        except (TelegramBadRequest, TelegramForbiddenError) as e:
            if "not modified" in str(e):
                return True
            post.tries += 1
            final = isinstance(e, TelegramForbiddenError) or "not found" in str(e) or post.info
            if post.tries >= MAX_TRIES or final:
                self.stats.dropped.append(f"{type(post.method).__name__} {post.chat}: {e}")
                log.log(
                    logging.INFO if post.info else logging.WARNING, "dropped a write to %s: %s", post.chat, e
                )
                if isinstance(post.fallback, Post):  # another write, in its own lane
                    self.hold(post.fallback)
                elif post.fallback is not None:  # said another way (a photo's words alone)
                    self.queues.setdefault((post.chat, post.budget), deque()).append(
                        Post(post.chat, post.fallback, room=post.room, gen=post.gen, budget=post.budget)
                    )
                return True
            post.not_before = now + BAD_RETRY
            return False
        if isinstance(result, Message):
            self.saw(post.chat, result.message_id)
        if post.on_sent is not None:
            await post.on_sent(result)
        return True

    async def blocked(self, chat: int, seconds: int) -> None:
        """Telegram said 429: every worker waits that long before writing to the chat."""
        self.stats.retry_after += 1
        self.service.metrics.platform_429("tg", float(seconds))
        log.info("429 in %s: retry after %s s", chat, seconds)
        await self.budgets.flood_block(budget_key(chat), float(seconds))
