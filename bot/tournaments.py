"""Tournaments in a chat (issue 36.3): the service's half, a piece beside the rooms service.

A tournament's record lives in Redis beside the chat's room (``bot/tournament_store.py``),
changed only by compare-and-set. It moves on from what the rooms say: when a room that is
one of its tables has ended (the service's hook at a match's end, ``table_finished``, and
the timer loop now and then, so a worker that died half way or a restart loses nothing)
``advance_tournament`` scores that table and deals the next at the chat's room.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from bot import invites, tournament
from bot.changes import Outcome, Reason, Refused, Repeat, Transition
from bot.clock import Clock
from bot.records import chat_key
from bot.room import FINISHED, Room, User, room_id_for
from bot.tournament import ON, PLAYING, WAITING, Tournament
from bot.tournament_store import TournamentStore

log = logging.getLogger(__name__)

RETRIES = 20
PLAYING_TTL = 3 * 24 * 3600  # a tournament on is kept this long after its last change
# a tournament's id, on its buttons: letters that spell no card ("8d" would read as one)
TID_LETTERS = "befgimnoprtuvwxyz"
STEPS = 8  # tables scored / dealt in one call of ``advance_tournament`` at most

TournamentListener = Callable[[Tournament], Awaitable[None]]
TChange = Callable[[Tournament | None], Tournament]


@dataclass
class TOutcome:
    """What a tournament call did (``reason``: a ``Reason`` code adapters word)."""

    ok: bool
    reason: str | None = None
    tournament: Tournament | None = None
    data: dict[str, Any] = field(default_factory=dict)
    repeat: bool = False


class Rooms(Protocol):
    """What tournaments need of the rooms service (``bot/service.py``)."""

    store: Any
    settings: Any
    clock: Clock

    async def change(self, room_id: str, transition: Transition, update_id: str | None = None) -> Outcome: ...

    async def room(self, room_id: str) -> Room | None: ...

    def on_commit(self, hook: Callable[[Room], Awaitable[None]]) -> None: ...


class Tournaments:
    """A chat's tournaments: opened, joined, started, moved on from their tables' rooms
    (dealt and committed through the rooms service)."""

    def __init__(self, games: Rooms) -> None:
        self.games = games
        self.store = games.store
        self.settings = games.settings
        self.clock = games.clock
        self.saved = TournamentStore(games.store.redis)
        self._listeners: list[TournamentListener] = []
        # a tournament's table ended: the next is dealt (issue 36.3)
        games.on_commit(lambda room: self.table_finished(room))

    def on_tournament(self, listener: TournamentListener) -> None:
        """Call ``listener(tournament)`` after every committed change of a tournament."""
        self._listeners.append(listener)

    async def tournament(self, room_id: str) -> Tournament | None:
        return await self.saved.load(room_id)

    async def tournament_data(self, room_id: str, name: str) -> str | None:
        """An adapter's record of the tournament (its message's id...)."""
        return await self.saved.data(room_id, name)

    async def set_tournament_data(self, room_id: str, name: str, value: str) -> None:
        await self.saved.set_data(room_id, name, value)

    # --- the one write path ---------------------------------------------------------------

    async def _tmutate(self, room_id: str, change: TChange, fresh: bool = False) -> TOutcome:
        t = await self.saved.load(room_id)
        for _attempt in range(RETRIES):
            try:
                new = change(Tournament.from_json(t.to_json(), t.version) if t else None)
            except Refused as r:
                return TOutcome(False, r.reason, t, r.data)
            except Repeat:
                return TOutcome(True, None, t, repeat=True)
            ttl = PLAYING_TTL if new.state == PLAYING else int(self.settings.idle_seconds)
            version, now = await self.saved.cas(new, ttl, fresh)
            if version:
                new.version = version
                for listener in self._listeners:
                    try:
                        await listener(new)
                    except Exception:  # drawing never undoes a committed change
                        log.exception("tournament listener for %s", room_id)
                return TOutcome(True, None, new)
            t = now
        return TOutcome(False, Reason.BUSY, t)

    # --- what people do -------------------------------------------------------------------

    async def open_tournament(
        self,
        platform: str,
        chat: str,
        thread: str | None,
        user: User,
        preset: str,
        rounds: int | None = None,
        bot_names: Sequence[str] = (),
        lang: str | None = None,
    ) -> TOutcome:
        """A sign-up in this chat (topic), its opener signed up: one at a time a chat.
        ``lang``: the chat's language as the adapter knows it (else the chat's setting)."""
        rid = room_id_for(platform, chat, thread)
        lang = (
            lang
            or await self.store.chat_pref(chat_key(platform, chat), "lang")
            or self.settings.default_language
        )
        tid = "".join(secrets.choice(TID_LETTERS) for _ in range(8))
        now = float(self.clock.now())

        def opened(old: Tournament | None) -> Tournament:
            new = tournament.open_(
                old, tid, rid, (platform, chat, thread), user, preset, rounds, lang, list(bot_names), now
            )
            new.version = old.version if old else 0
            return new

        return await self._tmutate(rid, opened, fresh=True)

    async def join_tournament(self, room_id: str, tid: str, user: User) -> TOutcome:
        return await self._tmutate(room_id, lambda t: tournament.join(tournament.checked(t, tid), user))

    async def leave_tournament(self, room_id: str, tid: str, user: User) -> TOutcome:
        """Off the sign-up; once it is on, out: a computer player takes his seat at once."""
        out = await self._tmutate(room_id, lambda t: tournament.leave(tournament.checked(t, tid), user))
        t = out.tournament
        playing = t.current if out.ok and t is not None else None
        if t is not None and playing is not None and playing.state == ON and user.id in playing.people:
            marker = t.marker()
            await self.games.change(room_id, lambda room: tournament.hand_over(room, marker, user.id))
        return out

    async def start_tournament(self, room_id: str, tid: str, user: User, is_admin: bool = False) -> TOutcome:
        """The opener (or a chat admin) starts it: the first round is paired and its first
        table dealt."""
        out = await self._tmutate(
            room_id, lambda t: tournament.start(tournament.checked(t, tid), user, is_admin)
        )
        if out.ok and not out.repeat:
            await self.advance_tournament(room_id)
            out.tournament = await self.tournament(room_id)
        return out

    async def cancel_tournament(self, room_id: str, tid: str, user: User, is_admin: bool = False) -> TOutcome:
        """The opener or a chat admin ends it (a table being played goes on as a game of
        its own)."""
        return await self._tmutate(
            room_id, lambda t: tournament.cancel(tournament.checked(t, tid), user, is_admin)
        )

    # --- moving on --------------------------------------------------------------------------

    async def table_finished(self, room: Room) -> None:
        """The hook at a match's end: a tournament's table ended, the next is dealt."""
        if room.tournament and room.state == FINISHED:
            try:
                await self.advance_tournament(room.id)
            except Exception:  # the timer loop tries again
                log.exception("tournament of %s", room.id)

    async def advance_tournaments(self) -> int:
        """Every tournament on moves on as far as its rooms allow (the timer loop's)."""
        moved = 0
        for rid in await self.saved.on():
            try:
                moved += await self.advance_tournament(rid)
            except Exception:
                log.exception("tournament of %s", rid)
        return moved

    async def advance_tournament(self, room_id: str) -> int:
        """Score the tables that ended and deal the next; returns the steps made."""
        steps = 0
        while steps < STEPS:
            t = await self.saved.load(room_id)
            if t is None or t.state != PLAYING:
                if t is None:
                    await self.saved.forget(room_id)
                return steps
            table = t.current
            assert table is not None
            marker = t.marker()
            if table.state == WAITING:
                if not await self._deal_table(room_id, t, marker):
                    return steps
            else:
                room = await self.games.room(room_id)
                if room is not None and room.tournament == marker and room.state != FINISHED:
                    return steps  # being played
                mine = room if room is not None and room.tournament == marker else None
                await self._tmutate(room_id, _ended(marker, mine))
            steps += 1
        return steps

    async def _deal_table(self, room_id: str, t: Tournament, marker: str) -> bool:
        """Deal the table at the chat's room; False: the room is busy with another game."""
        secret = invites.new_secret()
        out = await self.games.change(
            room_id, lambda room: tournament.open_table(room, t, secret, now=self.clock.now())
        )
        room = out.room
        if not out.ok or room is None or room.tournament != marker:
            return False
        gen = room.gen
        await self._tmutate(room_id, lambda t: tournament.table_opened(_on(t), marker, gen))
        return True


def _ended(marker: str, room: Room | None) -> TChange:
    return lambda t: tournament.table_ended(_on(t), marker, room)


def _on(t: Tournament | None) -> Tournament:
    if t is None or t.state != PLAYING:
        raise Repeat
    return t
