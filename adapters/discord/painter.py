"""Drawing what the service changed: the table message edited in place, summaries posted,
open hands refreshed.

Two kinds of jobs, independent of each other:

- **a table job per room**: posts the deal and match summaries (a long match's result
  with its score chart attached, unless the server turned charts off), then edits the
  table message with the newest room it knows. Petukh's deals, dozens a match, are no posts:
  the last one's summary is part of the table message, one scoreboard edited per deal.
  Table writes are paced per channel (about one edit per 1.2 s, never more than Discord's
  five a channel in five seconds), so a quick run of moves collapses into few edits; a
  429 blocks that channel's budget for its ``retry_after``, and only its table waits.
- **a hand job per person**: edits his open hand (an ephemeral message, through the
  interaction token that showed it) when what it shows has changed. Interaction webhooks
  have limits of their own, so a waiting table never holds a hand back.

Waiting is on the service's clock (``Activity.sleep``): tests move a manual clock, the bot
never sleeps in real time for its own pacing.

Open hands: ``adapters.discord.live`` keeps each person's one live hand (the token that may
edit it, for 15 minutes) in the room's platform data.
"""

from __future__ import annotations

import io
import logging
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any

import discord

from adapters.common.chart import worth_a_chart
from adapters.common.i18n import pick_language
from adapters.common.render import Text, clip_lines, match_chart
from adapters.discord import texts, views
from adapters.discord.activity import Activity
from adapters.discord.live import LiveHands, signature
from bot.platform import Platform
from bot.records import ChatSettings
from bot.room import FINISHED, LOBBY, Room
from bot.service import GameService
from bot.views import Line

log = logging.getLogger(__name__)

# Discord: five message writes per channel in five seconds (edits and posts each); a table
# edit at most every 1.2 s keeps well inside it, and a post always finds room
EDITS, POSTS, WINDOW, GAP = 5, 5, 5.0, 1.2
# an interaction token: five calls in two seconds; a hand edit at most every 0.5 s
HAND_EDITS, HAND_WINDOW, HAND_GAP = 4, 2.0, 0.5
BUSY_RETRY = 1.0  # another worker draws this thing: look again after this long
CONTENT_LIMIT = 2000  # a message's content


@dataclass
class TableMessage:
    channel: int
    message: int
    gen: int


@dataclass
class TableJob:
    room: Room | None = None  # the newest room this process knows
    drawn: int = -1  # the room version this process knows to be on screen
    posts: deque[tuple[Line, Room, int]] = field(default_factory=deque)
    told: int = 0  # the last of the room's results (``seq``) queued here as a post
    running: bool = False
    dirty: bool = False
    force: bool = False  # draw even if no newer version (a new language)


@dataclass
class HandJob:
    room: Room | None = None
    running: bool = False
    dirty: bool = False


class Painter:
    def __init__(
        self,
        client: discord.Client,
        games: GameService,
        platform: Platform,
        chats: ChatSettings,
        activity: Activity,
    ) -> None:
        self.client = client
        self.service = games
        self.leases = platform.leases
        self.budgets = platform.budgets
        self.platform_data = platform.data
        self.chats = chats
        self.activity = activity
        self.jobs: dict[str, TableJob] = {}
        self.tables: dict[str, TableMessage] = {}
        self.live = LiveHands(client, games, platform)
        self.hand_jobs: dict[tuple[str, str], HandJob] = {}
        self.busy: set[tuple[str, str]] = set()
        self.drawn: Counter[str] = Counter()  # what this process drew: table, hand, post

    # --- what the service tells us -----------------------------------------------------

    async def changed(self, room: Room, lines: list[Line]) -> None:
        if room.platform != "dc":
            return
        job = self.jobs.setdefault(room.id, TableJob())
        if job.room is None or room.version >= job.room.version:
            job.room = room
        self._queue_posts(room, job)
        self._kick_table(room.id, job)
        for user_id in self.live.people(room):
            self._kick_hand((room.id, user_id), room)

    def _queue_posts(self, room: Room, job: TableJob) -> None:
        """The room's results (``bot/results.py``) not yet posted: a Kozel deal's summary and
        a match's result, read from the room, not from the change's lines, so a result whose
        change this process never heard of (a failed listener, a restart) is posted all the
        same, once: ``dc_told`` records the last one posted."""
        done = max(job.told, int(room.pdata.get("dc_told") or 0))
        owed = []
        deal, end = room.results.get("deal"), room.results.get("end")
        if deal is not None and deal.get("key") == "deal_ended" and deal.get("seq", 0) > done:
            owed.append((deal["seq"], Line("deal_ended", deal["params"])))
        if end is not None and "extra" in end and end.get("seq", 0) > done:
            owed.append((end["seq"], Line("match_ended", end["params"])))
        for seq, line in sorted(owed, key=lambda o: o[0]):
            job.posts.append((line, room, seq))
            job.told = seq

    def redraw(self, room: Room) -> None:
        """Draw the table again even if the room has not changed (a new language)."""
        job = self.jobs.setdefault(room.id, TableJob())
        job.force = True
        if job.room is None or room.version >= job.room.version:
            job.room = room
        self._kick_table(room.id, job)

    async def redraw_stale(self) -> int:
        """At start: the playing tables whose message is older than the room (a restart, a
        worker that died between its commit and its drawing), with their live hands."""
        rooms = await self.leases.rooms_to_redraw("dc")
        for room in rooms:
            await self.changed(room, [])
        return len(rooms)

    def _kick_table(self, room_id: str, job: TableJob) -> None:
        job.dirty = True
        if not job.running:
            job.running = True
            self.activity.spawn(self._run_table(room_id, job), name=f"dc-table-{room_id}")
            self._report_queue()

    def _report_queue(self) -> None:
        """The painter queue's depth for the metrics: the table and hand jobs at work."""
        self.service.metrics.painter_queue(
            "dc", sum(j.running for j in self.jobs.values()) + sum(j.running for j in self.hand_jobs.values())
        )

    def _kick_hand(self, key: tuple[str, str], room: Room) -> None:
        job = self.hand_jobs.setdefault(key, HandJob())
        if job.room is None or room.version >= job.room.version:
            job.room = room
        job.dirty = True
        if not job.running and key not in self.busy:
            job.running = True
            self.activity.spawn(self._run_hand(key, job), name=f"dc-hand-{key[0]}-{key[1]}")
            self._report_queue()

    # --- the table job -----------------------------------------------------------------------

    async def _run_table(self, room_id: str, job: TableJob) -> None:
        try:
            while job.dirty or job.posts:
                job.dirty = False
                try:
                    await self._table_step(room_id, job)
                except Exception:  # a drawing must never stop the room's next drawing
                    log.exception("drawing room %s", room_id)
        finally:
            job.running = False
            self._report_queue()
            if (
                job.room is not None
                and job.room.state == FINISHED
                and not job.posts
                and not job.dirty
                and self.jobs.get(room_id) is job
            ):
                # an ended room needs no memory here: a rematch reads its table from pdata
                del self.jobs[room_id]
                self.tables.pop(room_id, None)
                self.live.drop_room(room_id)

    async def _table_step(self, room_id: str, job: TableJob) -> None:
        """One step: the next summary, or the table (or a wait for the channel's budget,
        or for another worker drawing it)."""
        room = job.room
        if room is None:
            return
        if job.posts:
            if await self._paced(f"dc:{room.chat}:post", POSTS, 0.0):
                line, snapshot, seq = job.posts.popleft()
                await self._post(snapshot, line)
                await self.platform_data.set_room_data(room_id, dc_told=seq)
            job.dirty = True  # the table after the posts
            return
        if room.version <= job.drawn and not job.force:
            return
        if not await self._paced(f"dc:{room.chat}:edit", EDITS, GAP):
            job.dirty = True
            return
        claim = await self.leases.begin_paint(room_id, "table")
        if claim.busy:  # another worker draws it now: look again in a moment
            job.dirty = True
            await self.activity.sleep(BUSY_RETRY)
            return
        # never older than what begin_paint read; for a forced redraw (nothing newer than
        # what is on screen, but new words) the room as it is now
        drawing = claim.room or (await self.service.room(room_id) if job.force else None)
        job.force = False
        if drawing is None:
            job.drawn = max(job.drawn, room.version)  # another worker drew it
            return
        try:
            drawn = await self.draw_table(drawing)
        except discord.RateLimited as e:
            self.service.metrics.platform_429("dc", e.retry_after)
            await self.budgets.flood_block(f"dc:{room.chat}:edit", e.retry_after)
            drawn = False
        # the version on screen (0 records nothing: the lease is simply given back)
        again = await self.leases.end_paint(room_id, "table", drawing.version if drawn else 0)
        if drawn:
            job.drawn = max(job.drawn, drawing.version)
        if again or not drawn:
            job.dirty = True

    async def _paced(self, key: str, limit: int, gap: float, window: float = WINDOW) -> bool:
        """Whether a write under ``key`` may go now (counted in the budget every worker
        shares); if not, wait for the time it may (on the clock) and say no: the caller
        looks again at what is newest."""
        wait = await self.budgets.flood_take(key, limit=limit, window=window, gap=gap)
        if wait <= 0:
            return True
        await self.activity.sleep(wait)
        return False

    # --- the table -------------------------------------------------------------------------

    def server(self, room: Room) -> tuple[str, discord.Guild | None]:
        """The key of the room's server's settings (as ``Handlers.chat_key``) and the server
        if this process has it (else its id as noted at /newgame)."""
        channel = self.client.get_channel(int(room.chat))
        guild = getattr(channel, "guild", None)
        key = str(guild.id) if guild is not None else str(room.pdata.get("dc_guild") or room.chat)
        return key, guild

    async def language(self, room: Room) -> str:
        """The server's language (as ``Handlers.chat_lang``): chosen with /lang, else the
        server's own locale (from this process's cache, or as noted at /newgame), else the
        bot's default."""
        key, guild = self.server(room)
        if await self.chats.chat_language_set("dc", key):
            return await self.chats.chat_language("dc", key)
        locale = str(guild.preferred_locale) if guild is not None else str(room.pdata.get("dc_locale") or "")
        return pick_language(locale or None, self.service.settings.default_language)

    async def draw_table(self, room: Room) -> bool:
        """Edit the table message (or post one for a new match); False: not drawn now (the
        channel's post budget is spent: try again once it is not)."""
        t = Text(await self.language(room))
        table = self.service.table_of(room)
        layout = views.table_layout(t, table, texts.deal_summary(t, table, petukh_deal(room)))
        channel = self.client.get_partial_messageable(int(room.chat))
        known = self.table_message(room)
        if known is not None:
            self.tables[room.id] = known
        if known is not None and known.gen == room.gen:
            try:
                await channel.get_partial_message(known.message).edit(view=layout)
                self.drawn["table"] += 1
                return True
            except discord.NotFound:
                pass  # deleted by someone: a new one below
            except discord.RateLimited:
                raise
            except discord.HTTPException as e:
                log.warning("table of %s: %s", room.id, e)
                return True  # refused for good: drawing it again would be refused again
        if room.state == FINISHED and known is None:
            return True  # nothing on screen and nothing to play: no message for an ended room
        if not await self._paced(f"dc:{room.chat}:post", POSTS, 0.0):
            return False
        try:
            sent = await channel.send(view=layout)
        except discord.HTTPException as e:
            log.warning("cannot post the table of %s: %s", room.id, e)
            return True
        self.tables[room.id] = TableMessage(int(room.chat), sent.id, room.gen)
        await self.platform_data.set_room_data(room.id, dc_table=[int(room.chat), sent.id, room.gen])
        if known is not None and known.gen != room.gen:
            while not await self._paced(f"dc:{room.chat}:edit", EDITS, 0.0):
                pass  # an edit like any other: within the channel's budget
            await self.retire_table(channel, known.message, t)
        return True

    async def retire_table(self, channel: discord.PartialMessageable, message_id: int, t: Text) -> None:
        """An earlier match's table, once the next match has its own message: its words
        stay, its buttons go (they would act on the new match), and it points below."""
        old: discord.Message | None = None
        try:
            old = await channel.fetch_message(message_id)
        except discord.HTTPException:
            pass  # gone, or no history to read: the pointer alone says enough
        try:
            await channel.get_partial_message(message_id).edit(view=views.retired_layout(t, old))
        except discord.HTTPException as e:
            log.info("old table %s: %s", message_id, e)

    def table_message(self, room: Room) -> TableMessage | None:
        known = self.tables.get(room.id)
        if known is None and isinstance(room.pdata.get("dc_table"), list):
            ch, msg, gen = room.pdata["dc_table"]
            known = TableMessage(int(ch), int(msg), int(gen))
        return known

    async def _post(self, room: Room, line: Line) -> None:
        """A Kozel deal's summary, or a match's result: with its score chart attached when
        the match was long (one message)."""
        t = Text(await self.language(room))
        table = self.service.table_of(room)
        png = None
        if line.key == "deal_ended":
            text = "📋 " + t.deal_result(line, table)
        else:
            png = await self._chart(room)
            end = room.results.get("end") or {}
            extra = [Line(x["key"], x.get("params", {})) for x in end.get("extra", [])]
            text = t.match_result(line, table, extra, legend=png is not None)
        channel = self.client.get_partial_messageable(int(room.chat))
        content = clip_lines(texts.escape(text), CONTENT_LIMIT)
        try:
            if png is not None:
                await channel.send(content, file=discord.File(io.BytesIO(png), "score.png"))
            else:
                await channel.send(content)
            self.drawn["post"] += 1
        except discord.HTTPException as e:
            log.warning("summary for %s: %s", room.id, e)

    async def _chart(self, room: Room) -> bytes | None:
        """The score chart of the match that just ended, if it was long and the server has
        not turned charts off (``/chart``)."""
        if not worth_a_chart(room.result_progress()):
            return None
        key, _guild = self.server(room)
        if await self.chats.chat_setting("dc", key, "chart") == "off":
            return None
        return match_chart(self.service.table_of(room), room.result_progress())

    # --- open hands --------------------------------------------------------------------------

    def hold(self, room_id: str, user_id: str) -> None:
        """A move of this person is being answered: its answer draws the hand."""
        self.busy.add((room_id, user_id))

    def release(self, room: Room | None, room_id: str, user_id: str) -> None:
        """The answer is sent (``room``: the room it showed): the hand job looks again, the
        room may have moved on meanwhile."""
        key = (room_id, user_id)
        self.busy.discard(key)
        job = self.hand_jobs.get(key)
        newest = job.room if job is not None and job.room is not None else room
        if newest is not None and room is not None and room.version > newest.version:
            newest = room
        if newest is not None:
            self._kick_hand(key, newest)

    async def _run_hand(self, key: tuple[str, str], job: HandJob) -> None:
        try:
            while job.dirty and key not in self.busy:
                job.dirty = False
                try:
                    await self._draw_hand(key, job)
                except Exception:
                    log.exception("drawing the hand of %s in %s", key[1], key[0])
        finally:
            job.running = False
            self._report_queue()
            if (
                job.room is not None
                and job.room.state == FINISHED
                and not job.dirty
                and self.hand_jobs.get(key) is job
            ):
                del self.hand_jobs[key]  # the final hand is drawn: nothing more to follow

    async def _draw_hand(self, key: tuple[str, str], job: HandJob) -> None:
        """One look at a person's live hand: drawn when what it shows has changed, within
        its token's budget, by one worker at a time, never older than what it shows."""
        room_id, user_id = key
        local = job.room
        if local is None or local.state == LOBBY or not self._owed(local, user_id):
            return
        if not await self._paced(f"dc:hand:{room_id}:{user_id}", HAND_EDITS, HAND_GAP, HAND_WINDOW):
            job.dirty = True  # a moment later, with whatever is newest then
            return
        what = f"hand:{user_id}"
        claim = await self.leases.begin_paint(room_id, what)
        if claim.busy:
            job.dirty = True
            await self.activity.sleep(BUSY_RETRY)
            return
        if claim.room is None:
            return  # nothing newer than what it shows
        drawn = 0
        try:
            drawn = await self._draw_live_hand(claim.room, user_id)
        finally:
            if await self.leases.end_paint(room_id, what, drawn):
                job.dirty = True

    def _owed(self, room: Room, user_id: str) -> bool:
        """Whether the person's live hand shows something other than ``room`` would."""
        rec = self.live.current(room, user_id)
        hand = self.service.hand_of(room, user_id) if rec is not None else None
        return rec is not None and hand is not None and signature(hand, self.live.expiring(rec)) != rec.sig

    async def _draw_live_hand(self, room: Room, user_id: str) -> int:
        """Draw the person's live hand as of ``room``: the version settled (drawn, or
        nothing to draw for it), 0 if it is still owed (Discord refused)."""
        rec = self.live.current(room, user_id)
        hand = self.service.hand_of(room, user_id)
        if rec is None or hand is None:
            return room.version
        if not rec.usable(self.service.clock.now()):
            await self.live.forget(room.id, user_id, rec)  # its token ran out: left alone
            return room.version
        if signature(hand, self.live.expiring(rec)) != rec.sig:
            try:
                await self.live.draw(room, user_id, rec, hand)
                self.drawn["hand"] += 1
            except discord.HTTPException as e:
                # gone, or its token refused: "Show my hand" gives a new one
                log.info("hand of %s in %s: %s", user_id, room.id, e)
                await self.live.forget(room.id, user_id, rec)
        return room.version


def petukh_deal(room: Room) -> dict[str, Any] | None:
    """A Petukh deal's result, shown on the table (whichever worker draws it): the room's
    own record (Kozel's deals are posts of their own); a room written before results were
    the room's has the painter's old note (``dc_deal``)."""
    deal = room.results.get("deal")
    if isinstance(deal, dict) and deal.get("key") == "deal_scored":
        return deal
    old = room.pdata.get("dc_deal")
    return old if isinstance(old, dict) and "deal" not in room.results else None
