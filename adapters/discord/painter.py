"""Drawing what the service changed: the table message edited in place, summaries posted,
open hands refreshed.

One job per room at a time: a change while the job runs only marks it to run once more, and
the job always draws the newest room it knows, so a quick run of moves collapses into a few
edits. Discord allows about five message edits per five seconds in a channel; discord.py's
own rate limiter waits out any 429, and since a room's job is sequential, only that room
waits. (There is no other coalescing: the limits are generous and honest waiting is enough.)

Open hands: the last interaction that showed a person's hand (a "Show my hand" answer or a
move edited into it) can edit that ephemeral message for 15 minutes; the painter edits it
when what it shows has changed. Those interactions live in this process only: after a
restart (or after 15 minutes) "Show my hand" gives a fresh one.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import discord

from adapters.common.render import DEAL_END_KEYS, Text
from adapters.discord import views
from adapters.discord.activity import Activity
from bot.room import FINISHED, LOBBY, Room
from bot.service import GameService
from bot.views import HandView, Line

log = logging.getLogger(__name__)

HAND_TTL = 14 * 60.0  # an interaction token is good for 15 minutes


@dataclass
class OpenHand:
    interaction: discord.Interaction[Any]
    lang: str
    since: float  # time.monotonic(): the token's life is real time, whatever the game clock
    sig: str


@dataclass
class TableMessage:
    channel: int
    message: int
    gen: int


@dataclass
class Job:
    room: Room | None = None
    drawn: int = -1  # the room version on screen
    posts: deque[tuple[Line, Room]] = field(default_factory=deque)
    task: asyncio.Task[None] | None = None
    again: bool = False


def hand_signature(room: Room, hand: HandView) -> str:
    return repr((room.state, hand.cards, [c.token for c in hand.choices], hand.prompt,
                 [(p.seat, p.count, p.cards) for p in hand.table.trick], hand.table.to_move))


class Painter:
    def __init__(self, client: discord.Client, service: GameService, activity: Activity) -> None:
        self.client = client
        self.service = service
        self.activity = activity
        self.jobs: dict[str, Job] = {}
        self.tables: dict[str, TableMessage] = {}
        self.hands: dict[tuple[str, str], OpenHand] = {}
        self.busy: set[tuple[str, str]] = set()

    # --- what the service tells us -----------------------------------------------------

    async def changed(self, room: Room, lines: list[Line]) -> None:
        if room.platform != "dc":
            return
        job = self.jobs.setdefault(room.id, Job())
        if job.room is None or room.version >= job.room.version:
            job.room = room
        for ln in lines:
            if ln.key in (*DEAL_END_KEYS, "match_ended"):
                job.posts.append((ln, room))
        self._kick(room.id, job)

    def redraw(self, room: Room) -> None:
        """Draw the table again even if the room has not changed (a new language)."""
        job = self.jobs.setdefault(room.id, Job())
        job.drawn = -1
        if job.room is None or room.version >= job.room.version:
            job.room = room
        self._kick(room.id, job)

    def _kick(self, room_id: str, job: Job) -> None:
        if job.task is not None:
            job.again = True
            return
        job.task = self.activity.spawn(self._run(room_id, job), name=f"dc-paint-{room_id}")

    async def drain(self) -> None:
        """Wait until every room's drawing is done (tests, shutdown)."""
        while True:
            tasks = [j.task for j in self.jobs.values() if j.task is not None]
            if not tasks:
                return
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _run(self, room_id: str, job: Job) -> None:
        try:
            while True:
                job.again = False
                try:
                    while job.posts:
                        line, snapshot = job.posts.popleft()
                        await self._post(snapshot, line)
                    room = job.room
                    if room is not None and room.version > job.drawn:
                        job.drawn = room.version
                        await self.draw_table(room)
                    if room is not None:
                        await self._push_hands(room)
                except Exception:  # a drawing must never stop the room's next drawing
                    log.exception("drawing room %s", room_id)
                if not job.again and not job.posts:
                    break
        finally:
            job.task = None
            if job.room is not None and job.room.state == FINISHED and not job.posts \
                    and self.jobs.get(room_id) is job:
                # an ended room needs no memory here: a rematch reads its table from pdata
                del self.jobs[room_id]
                self.tables.pop(room_id, None)

    # --- the table -------------------------------------------------------------------------

    async def language(self, room: Room) -> str:
        channel = self.client.get_channel(int(room.chat))
        guild = getattr(channel, "guild", None)
        key = str(guild.id) if guild is not None else str(room.pdata.get("dc_guild") or room.chat)
        return await self.service.chat_language("dc", key)

    async def draw_table(self, room: Room) -> None:
        t = Text(await self.language(room))
        layout = views.table_layout(t, self.service.table_of(room))
        channel = self.client.get_partial_messageable(int(room.chat))
        known = self.tables.get(room.id)
        if known is None and isinstance(room.pdata.get("dc_table"), list):
            ch, msg, gen = room.pdata["dc_table"]
            known = self.tables[room.id] = TableMessage(int(ch), int(msg), int(gen))
        if known is not None and known.gen == room.gen:
            try:
                await channel.get_partial_message(known.message).edit(view=layout)
                return
            except discord.NotFound:
                pass  # deleted by someone: a new one below
            except discord.HTTPException as e:
                log.warning("table of %s: %s", room.id, e)
                return
        if room.state == FINISHED and known is None:
            return  # nothing on screen and nothing to play: no new message for an ended room
        try:
            sent = await channel.send(view=layout)
        except discord.HTTPException as e:
            log.warning("cannot post the table of %s: %s", room.id, e)
            return
        self.tables[room.id] = TableMessage(int(room.chat), sent.id, room.gen)
        await self.service.set_room_data(room.id, dc_table=[int(room.chat), sent.id, room.gen])
        if known is not None and known.gen != room.gen:
            await self.retire_table(channel, known.message, t)

    async def retire_table(self, channel: discord.PartialMessageable, message_id: int,
                           t: Text) -> None:
        """An earlier match's table, once the next match has its own message: its words
        stay, its buttons go (they would act on the new match), and it points below."""
        old: discord.Message | None = None
        try:
            old = await channel.fetch_message(message_id)
        except discord.HTTPException:
            pass  # gone, or no history to read: the pointer alone says enough
        try:
            await channel.get_partial_message(message_id).edit(
                view=views.retired_layout(t, old))
        except discord.HTTPException as e:
            log.info("old table %s: %s", message_id, e)

    def table_message(self, room: Room) -> TableMessage | None:
        known = self.tables.get(room.id)
        if known is None and isinstance(room.pdata.get("dc_table"), list):
            ch, msg, gen = room.pdata["dc_table"]
            known = TableMessage(int(ch), int(msg), int(gen))
        return known

    async def _post(self, room: Room, line: Line) -> None:
        t = Text(await self.language(room))
        table = self.service.table_of(room)
        if line.key in DEAL_END_KEYS:
            text = "📋 " + t.deal_result(line, table)
        else:
            text = t.match_result(line, table, [
                Line(e["key"], e.get("params", {})) for e in room.events])
        channel = self.client.get_partial_messageable(int(room.chat))
        try:
            await channel.send(views.escape(text))
        except discord.HTTPException as e:
            log.warning("summary for %s: %s", room.id, e)

    # --- open hands --------------------------------------------------------------------------

    def track(self, room_id: str, user_id: str, interaction: discord.Interaction[Any],
              lang: str, room: Room, hand: HandView) -> None:
        """This interaction's message now shows the person's hand (as of ``room``)."""
        now = time.monotonic()
        for key in [k for k, v in self.hands.items() if now - v.since > HAND_TTL]:
            del self.hands[key]  # abandoned tables' hands
        self.hands[(room_id, user_id)] = OpenHand(interaction, lang, now,
                                                  hand_signature(room, hand))

    def hold(self, room_id: str, user_id: str) -> None:
        """A move of this person is being answered: its answer draws the hand."""
        self.busy.add((room_id, user_id))

    def release(self, room_id: str, user_id: str) -> None:
        self.busy.discard((room_id, user_id))
        job = self.jobs.get(room_id)
        if job is not None and job.room is not None:
            self._kick(room_id, job)  # the room may have moved on while we answered

    async def _push_hands(self, room: Room) -> None:
        if room.state == LOBBY:
            return
        now = time.monotonic()
        for seat in room.seats:
            if seat is None or seat.user is None:
                continue
            key = (room.id, seat.user)
            rec = self.hands.get(key)
            if rec is None or key in self.busy:
                continue
            if now - rec.since > HAND_TTL:
                del self.hands[key]
                continue
            hand = self.service.hand_of(room, seat.user)
            if hand is None:
                continue
            sig = hand_signature(room, hand)
            if sig == rec.sig:
                continue
            rec.sig = sig
            try:
                await rec.interaction.edit_original_response(
                    view=views.hand_layout(Text(rec.lang), hand))
            except discord.HTTPException as e:
                log.info("hand of %s in %s: %s", seat.user, room.id, e)
                self.hands.pop(key, None)
        if room.state == FINISHED:
            for key in [k for k in self.hands if k[0] == room.id]:
                del self.hands[key]
