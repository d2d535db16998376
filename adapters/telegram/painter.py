"""Drawing what the service changed, within Telegram's limits.

Telegram lets a bot write about 20 messages a minute to a group, edits included, and says
``retry_after`` past that. Every group write of this adapter goes through one budget per
chat, kept in Redis by the service so that every worker spends the same one:

- the **table** (one message per room, edited in place) is marked dirty at each change and
  drawn from the freshest room when its turn comes: a routine redraw waits for the pace's
  gap (the budget spread evenly over the minute) and leaves a reserve alone, so a match's
  result and people's replies pass at once;
- **posts** (replies to commands, an old table message rewritten to one line) wait in a
  queue per chat for the budget; a 429 blocks the chat for ``retry_after`` and the write is
  tried again, never dropped (what Telegram refuses outright is logged and dropped);
- **hands** (one live hand message per person: ephemeral in the group or in the private
  chat) are edited when what they show changes, and stripped when the match ends.

Deal and match results are the room's own record (``Room.results``, written with the move
that produced them): the table shows them whichever worker draws it, however late, and a
listener that failed loses nothing. A long match's result is a photo of its score chart
instead (``tg_photo``: the platform's note of which match's photo went out). A new lobby
or match is a new message at the bottom and the old one becomes a one-line result.
Nothing is drawn from a room older than one drawn before (the service's paint leases and
drawn versions), so several workers may serve one chat. The clock is injectable: tests
advance it and call ``flush``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import secrets
from typing import Any

from aiogram import Bot
from aiogram.exceptions import TelegramBadRequest, TelegramForbiddenError, TelegramRetryAfter
from aiogram.methods import DeleteMessage, EditMessageText, SendMessage, SendPhoto
from aiogram.types import BufferedInputFile

from adapters.common.chart import worth_a_chart
from adapters.common.hands import hand_signature
from adapters.common.painting import Dirty, drain, paint_loop, take
from adapters.common.render import Text, clip_lines, match_chart
from adapters.telegram import delivery, keyboards, texts
from adapters.telegram.limits import budget_key, chat_of, pace_of
from adapters.telegram.lobbies import LobbyExpiry
from adapters.telegram.members import Members
from adapters.telegram.outbox import BAD_RETRY, Outbox
from adapters.telegram.posts import Post
from adapters.telegram.webapp import web_table_button
from adapters.telegram.words import Words
from bot.clock import Clock
from bot.platform import Platform
from bot.records import ChatSettings
from bot.results import ENDING_EXTRA
from bot.room import FINISHED, LOBBY, PLAYING, Room
from bot.service import GameService
from bot.views import Line

log = logging.getLogger(__name__)

REPOST_AFTER = 25  # messages since the table: it has scrolled away, post it again below
LEASE_RETRY = 1.0  # seconds: another worker is drawing this thing now
CAPTION_LIMIT = 1024  # a photo's caption, in UTF-16 units as Telegram counts


class Painter:
    """The tables and hands of Telegram rooms, drawn within the chats' budgets: it takes
    the rooms (``games``), the platform's records (leases, budgets, message records) and the
    chats' settings; lobby expiry is ``LobbyExpiry``'s."""

    def __init__(
        self,
        bot: Bot,
        games: GameService,
        platform: Platform,
        chats: ChatSettings,
        clock: Clock,
        words: Words,
        idle_seconds: float,
    ) -> None:
        self.bot = bot
        self.service = games
        self.leases = platform.leases
        self.budgets = platform.budgets
        self.platform_data = platform.data
        self.chats = chats
        self.clock = clock
        self.words = words
        self.idle_seconds = idle_seconds
        self.owner = f"tg-{secrets.token_hex(4)}"  # this process, for the paint leases
        self.tables: Dirty[str] = Dirty()
        self.hands: Dirty[tuple[str, str]] = Dirty()
        self.hand_seen: dict[tuple[str, str], str] = {}
        self.tails: dict[int, int] = {}  # chat -> the newest message id seen there
        self.wake = asyncio.Event()
        # the writes, queued per chat and lane within the chats' budgets
        self.outbox = Outbox(bot, self.budgets, clock, games, self.saw, self.wake)
        self.lobbies = LobbyExpiry(games, words, self.outbox.post, idle_seconds)
        self.members = Members(bot, clock)  # getChatMember, remembered a few seconds
        self._lock = asyncio.Lock()

    # --- what the service tells us -----------------------------------------------------

    async def changed(self, room: Room, lines: list[Line]) -> None:
        """The service's listener: a long match's chart, the table and hands marked dirty."""
        if room.platform != "tg":
            return
        await self._chart_of_result(room, lines)
        self.tables.mark(room.id, room.version, urgent=not routine(room, lines))
        if any(ln.key in ("cancelled", "abandoned") for ln in lines):
            self.outbox.drop(room.id, room.gen)
        for user in room.sdata:
            if room.sdata[user].get("tg_hand"):
                self.hands.mark((room.id, user), room.version)
        self.wake.set()

    async def _chart_of_result(self, room: Room, lines: list[Line]) -> None:
        """A long match's result is a photo of its score chart, captioned with the result
        (one write); the table then leaves the result out. A listener that fails before
        the note is written leaves the result on the table instead."""
        ended = next((ln for ln in lines if ln.key == "match_ended"), None)
        end = room.results.get("end")
        if ended is None or not isinstance(end, dict):
            return
        png = await self._chart(room)
        if png is None:
            return
        await self.platform_data.set_room_data(room.id, tg_photo=end["gen"])
        room.pdata["tg_photo"] = end["gen"]
        extra = [x for x in lines if x.key in ENDING_EXTRA]
        await self._post_result(room, ended, extra, png)

    async def _chart(self, room: Room) -> bytes | None:
        """The score chart of the match that just ended, if it was long and the chat has
        not turned charts off (``/chart off``)."""
        if not worth_a_chart(room.result_progress()):
            return None
        chat, _thread = chat_of(room.id)
        if await self.chats.chat_setting("tg", str(chat), "chart") == "off":
            return None
        return match_chart(self.service.table_of(room), room.result_progress())

    async def _post_result(self, room: Room, line: Line, extra: list[Line], png: bytes) -> None:
        """The match's result as the caption of its score chart: one photo, one write of
        the group's budget (the whole result as text instead, if the photo is refused)."""
        chat, thread = chat_of(room.id)
        t = await self.words.chat(chat)
        text = t.match_result(line, self.service.table_of(room), extra, legend=True)
        photo = SendPhoto(
            chat_id=chat,
            message_thread_id=thread,
            photo=BufferedInputFile(png, filename="score.png"),
            caption=clip_lines(text, CAPTION_LIMIT, utf16_len),
        )
        await self.outbox.post(
            Post(
                chat,
                photo,
                room=room.id,
                gen=room.gen,
                fallback=SendMessage(chat_id=chat, message_thread_id=thread, text=text),
            )
        )

    def redraw(self, room: Room) -> None:
        """Draw the table again although the room has not changed (a new language, a
        start-up redraw)."""
        self.tables.mark(room.id, room.version + 1)
        self.wake.set()

    def hand_again(self, room: Room, user: str, after: float) -> None:
        """Draw a person's hand again once ``after`` seconds have passed (an edit Telegram
        asked to retry later), whatever it showed before."""
        key = (room.id, user)
        self.hand_seen.pop(key, None)
        self.hands.mark(key, room.version)
        self.hands.later(key, self.clock.now() + after)
        self.wake.set()

    def saw(self, chat: int, message_id: int) -> None:
        """The chat has reached this message id (a command, the bot's own send)."""
        if message_id > self.tails.get(chat, 0):
            self.tails[chat] = message_id

    # --- the loop ----------------------------------------------------------------------

    async def flush(self) -> float | None:
        """Do every write that is due and allowed now; the seconds until the next one is
        due (None: nothing held)."""
        async with self._lock:
            now = self.clock.now()
            dues = await self.outbox.flush(now)
            for room_id, mark in self.tables.due(now):
                await self._paint_table(room_id, mark.version, mark.urgent, now)
            for key, mark in self.hands.due(now):
                await self._paint_hand(key[0], key[1], mark.version, now)
            await self.lobbies.expire(now)
            for dirty in (self.tables, self.hands):
                due = dirty.next_due()
                if due is not None:
                    dues.append(due)
            due = self.lobbies.next_due()
            if due is not None:
                dues.append(due)
            self.service.metrics.painter_queue(
                "tg", len(self.tables) + len(self.hands) + self.outbox.queued()
            )
            return max(0.0, min(dues) - now) if dues else None

    async def paint_now(self, room_id: str) -> None:
        """Draw one room's table at once if it is dirty (a practice game: the table goes
        before the hand that is sent next)."""
        async with self._lock:
            mark = self.tables.marks.get(room_id)
            if mark is not None:
                await self._paint_table(room_id, mark.version, True, self.clock.now())

    def pending(self) -> bool:
        """Anything held but lobby watches (which may wait for hours)."""
        return bool(self.outbox.queues or self.tables or self.hands)

    async def run(self, stop: asyncio.Event) -> None:
        await paint_loop(self.flush, self.wake, stop)

    async def drain(self, limit: float = 10.0) -> bool:
        """At shutdown: write what is held, for at most ``limit`` seconds."""

        async def flush_held() -> float | None:
            due = await self.flush()
            return due if self.pending() else None

        done = await drain(flush_held, limit)
        if not done:
            log.warning(
                "shutdown: %d tables, %d hands, %d chats of posts left undrawn",
                len(self.tables),
                len(self.hands),
                len(self.outbox.queues),
            )
        return done

    async def redraw_stale(self) -> int:
        """At start: the tables of playing rooms drawn from an older version than theirs."""
        rooms = await self.leases.rooms_to_redraw("tg")
        for room in rooms:
            self.redraw(room)
        return len(rooms)

    # --- the table ---------------------------------------------------------------------

    async def _paint_table(self, room_id: str, version: int, urgent: bool, now: float) -> None:
        drawn = await self.leases.drawn_version(room_id, "table")
        if drawn >= version:
            self.tables.drawn(room_id, drawn)
            return
        chat, _thread = chat_of(room_id)
        wait = await take(self.budgets, budget_key(chat), pace_of(chat), routine=not urgent)
        if wait > 0:
            self.tables.later(room_id, now + wait)
            return
        claim = await self.leases.begin_paint(room_id, "table", self.owner)
        if claim.busy:
            self.tables.later(room_id, now + LEASE_RETRY)
            return
        room = claim.room
        if room is None:
            self.tables.drawn(room_id, version)  # another worker drew it meanwhile
            return
        ok = False
        try:
            ok = await self._draw_table(room, now)
        finally:
            again = await self.leases.end_paint(
                room_id, "table", owner=self.owner, version=room.version if ok else drawn
            )
        if ok:
            self.tables.drawn(room_id, room.version)
            if again:
                self.tables.mark(room_id, room.version + 1)
        else:
            self.tables.later(room_id, now + BAD_RETRY)

    async def _draw_table(self, room: Room, now: float) -> bool:
        """Edit the room's table message, or post a new one at the bottom (a new lobby or
        match, or the old one scrolled far away). False: try again later."""
        chat, thread = chat_of(room.id)
        t = await self.words.chat(chat)
        table = self.service.table_of(room)
        text = self._table_text(t, room, now)
        web = await web_table_button(self.bot, self.service.settings, room, t)
        markup = None if _closed(room) else keyboards.table_markup(t, table, web)
        msg = room.pdata.get("tg_table")
        old_gen = room.pdata.get("tg_table_gen")
        fresh = msg is not None and old_gen == room.gen
        far = msg is not None and fresh and self.tails.get(chat, 0) - int(msg) > REPOST_AFTER
        try:
            if fresh and not far:
                await self.bot(EditMessageText(chat_id=chat, message_id=msg, text=text, reply_markup=markup))
            else:
                sent = await self.bot(
                    SendMessage(chat_id=chat, message_thread_id=thread, text=text, reply_markup=markup)
                )
                self.saw(chat, sent.message_id)
                await self.platform_data.set_room_data(
                    room.id, tg_table=sent.message_id, tg_table_gen=room.gen
                )
                room.pdata.update(tg_table=sent.message_id, tg_table_gen=room.gen)
                if msg is not None:
                    await self._retire_table(room, t, chat, int(msg), old_gen, moved=bool(far))
            if room.state == LOBBY:
                self.lobbies.watch(room, chat)
            return True
        except TelegramRetryAfter as e:
            await self.outbox.blocked(chat, e.retry_after)
            return False
        except TelegramBadRequest as e:
            if "not modified" in str(e):
                return True
            if "not found" in str(e) and msg is not None:
                # deleted by someone: the next draw posts a new one
                await self.platform_data.set_room_data(room.id, tg_table=None)
                return False
            log.warning("table of %s: %s", room.id, e)
            return True
        except TelegramForbiddenError as e:
            log.warning("table of %s: %s", room.id, e)
            return True

    def _table_text(self, t: Text, room: Room, now: float) -> str:
        table = self.service.table_of(room)
        end = ending(room)
        if room.state == LOBBY:
            return texts.lobby_text(t, table)
        if _closed(room):
            mine = end if isinstance(end, dict) and end.get("gen") == room.gen else None
            return texts.one_line_result(t, room.preset, mine)
        result = None
        if (
            table.finished and isinstance(end, dict) and end.get("gen") == room.gen and not photo(room, end)
        ):  # else the result is the chart's caption
            line = Line("match_ended", end.get("params", {}))
            extra = [Line(x["key"], x["params"]) for x in end.get("extra", [])]
            result = t.match_result(line, table, extra)
            # the result names the winners with their scores: not a line of the table too
            table = dataclasses.replace(table, finished=False)
        text = t.table(table, now if room.state == PLAYING else None)
        deal = texts.deal_summary(t, table, last_deal(room))
        if deal and room.state == PLAYING:
            text += "\n\n" + deal
        return text + "\n\n" + result if result else text

    async def _retire_table(
        self, room: Room, t: Text, chat: int, msg: int, old_gen: Any, moved: bool
    ) -> None:
        """The previous table message: deleted when the same table moved below (its buttons
        would be doubles), else rewritten to its match's one-line result."""
        if moved:
            await self.outbox.post(Post(chat, DeleteMessage(chat_id=chat, message_id=msg), budget=False))
            return
        end = ending(room)
        mine = end if isinstance(end, dict) and end.get("gen") == old_gen else None
        await self.outbox.post(
            Post(
                chat,
                EditMessageText(
                    chat_id=chat, message_id=msg, text=texts.one_line_result(t, room.preset, mine)
                ),
            )
        )

    # --- hands -------------------------------------------------------------------------

    async def _paint_hand(self, room_id: str, user: str, version: int, now: float) -> None:
        what = f"hand:{user}"
        claim = await self.leases.begin_paint(room_id, what, self.owner)
        if claim.busy:
            self.hands.later((room_id, user), now + LEASE_RETRY)
            return
        room = claim.room
        if room is None:
            self.hands.drawn((room_id, user), version)
            return
        ok = False
        try:
            ok = await self._draw_hand(room, user, now)
        finally:
            drawn = room.version if ok else await self.leases.drawn_version(room_id, what)
            again = await self.leases.end_paint(room_id, what, owner=self.owner, version=drawn)
        if ok:
            self.hands.drawn((room_id, user), room.version)
            if again:
                self.hands.mark((room_id, user), room.version + 1)
        else:
            self.hands.later((room_id, user), now + BAD_RETRY)

    async def _draw_hand(self, room: Room, user: str, now: float) -> bool:
        """Edit a person's live hand when what it shows changed; strip it at the end."""
        rec = room.sdata.get(user, {}).get("tg_hand")
        if not isinstance(rec, dict):
            return True
        hand = self.service.hand_of(room, user)
        key = (room.id, user)
        ended = room.state != PLAYING or hand is None
        sig = hand_signature(hand, room.state, trick_when_waiting=False)
        if not ended and self.hand_seen.get(key) == sig:
            return True
        t = self.words.of(room.sdata.get(user, {}).get("lang"))
        result = await delivery.edit_hand(self, room, user, rec, hand, t)
        if result is None:
            return False
        if ended or result is False:
            await self.platform_data.set_seat_data(room.id, user, tg_hand=None)
            self.hand_seen.pop(key, None)
        else:
            self.hand_seen[key] = sig
        return True


def ending(room: Room) -> dict[str, Any] | None:
    """How the room's match (or table) ended, as the service recorded it; a room written
    before results were the room's own has the painter's old note (``tg_end``)."""
    end = room.results.get("end", room.pdata.get("tg_end"))
    return end if isinstance(end, dict) else None


def last_deal(room: Room) -> dict[str, Any] | None:
    """The last deal's result, as the service recorded it (or the painter's old note)."""
    deal = room.results.get("deal", room.pdata.get("tg_deal"))
    return deal if isinstance(deal, dict) else None


def photo(room: Room, end: dict[str, Any]) -> bool:
    """Whether this ending's result went out as the caption of its score chart."""
    return bool(end.get("photo")) or room.pdata.get("tg_photo") == end.get("gen")


def utf16_len(text: str) -> int:
    """Length as Telegram counts it (UTF-16 code units: an emoji is two)."""
    return len(text.encode("utf-16-le")) // 2


def routine(room: Room, lines: list[Line]) -> bool:
    """A redraw of play, paced: not the lobby (people wait for it, and it changes at their
    pace), not a match's start, end or cancel (results pass at once)."""
    if room.state != PLAYING:
        return False
    return not any(
        ln.key in ("match_ended", "cancelled", "abandoned", "eliminated")
        or (ln.key in START_KEYS and ln.params.get("deal_no") == 1)
        for ln in lines
    )


START_KEYS = frozenset({"deal_started", "shuffled"})


def _closed(room: Room) -> bool:
    """A room that ended without a match to show: cancelled, given up, or a lobby closed."""
    return room.state == FINISHED and (
        room.match is None
        or bool(room.result and (room.result.get("cancelled") or room.result.get("abandoned")))
    )
