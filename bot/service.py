"""The platform-neutral game service: rooms, lobby, moves exactly once, timers, stats.

Data flows one way: an adapter calls the service; the service loads the room, applies the
engine, writes the room back with one compare-and-set, and tells its listeners what
changed; adapters draw the views. Nothing here knows a platform.

Start rule [decision]: the creator may start as soon as the seated players are a valid
count for the preset; anyone may start once every seat is taken.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from bot.clock import Clock, SystemClock
from bot.config import Settings
from bot.room import FINISHED, LOBBY, PLAYING, Room, Seat, User, room_id_for
from bot.store import Store
from bot.tokens import TokenError, bare, cards_of, hand_fingerprint, parse_token
from bot.views import (
    HandView,
    Line,
    TableView,
    event_lines,
    hand_view,
    table_view,
    token_secret,
)
from engine.actions import Action
from engine.bots import make_bot
from engine.codec import pack_action
from engine.errors import IllegalAction
from engine.game import Game, new_match
from engine.observe import observe
from engine.presets import PRESETS, PresetError, validate_options

log = logging.getLogger(__name__)

BOT_LEVELS = ("random", "rules")
MAX_LINES = 6  # event lines kept for the table
MAX_QUEUE = 12  # people waiting for a seat in one room (elimination)
LOG_CHARS = 3000  # packed actions a room keeps at most (older dealings are dropped first)
RETRIES = 20
LEASE = 30.0  # seconds a worker holds a claimed deadline


@dataclass
class Outcome:
    """What a service call did: ``ok`` or a ``reason`` code adapters turn into a message."""

    ok: bool
    reason: str | None = None
    room: Room | None = None
    lines: list[Line] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)


Listener = Callable[[Room, list[Line]], Awaitable[None]]


class Refused(Exception):
    def __init__(self, reason: str, **data: Any) -> None:
        super().__init__(reason)
        self.reason = reason
        self.data = data


class GameService:
    def __init__(self, store: Store, settings: Settings, clock: Clock | None = None) -> None:
        self.store = store
        self.settings = settings
        self.clock = clock or SystemClock()
        self.listeners: list[Listener] = []

    def on_change(self, listener: Listener) -> None:
        """Call ``listener(room, lines)`` after every committed change (any cause)."""
        self.listeners.append(listener)

    # --- the one write path -------------------------------------------------------------

    async def _mutate(
        self,
        room_id: str,
        change: Callable[[Room | None], tuple[Room | None, list[Line]]],
        update_id: str | None = None,
        notify: bool = True,
    ) -> Outcome:
        """Load, change, compare-and-set; retry on a conflict. ``change`` raises ``Refused``."""
        for attempt in range(RETRIES):
            if attempt == 0:
                # the claim check rides with the first read: one round trip
                loaded = await self.store.load_unless_seen(room_id, update_id)
                if loaded is True:
                    return Outcome(False, "duplicate")
                room = loaded if isinstance(loaded, Room) else None
            else:
                room = await self.store.load(room_id)
            before = None if room is None else (room.state, room.gen)
            try:
                new, lines = change(room)
            except Refused as r:
                return Outcome(False, r.reason, room, data=r.data)
            if new is None:
                return Outcome(True, None, room, lines)
            now = self.clock.now()
            new.updated = now
            if lines:
                new.events = [
                    {"key": ln.key, "params": ln.params} for ln in lines
                ][-MAX_LINES:]
            self._schedule(new, now)
            if new.deadline is not None:
                # the index first, never later than the room's own deadline: a crash after
                # the write below leaves no due move unfound (a spare early hint is harmless)
                await self.store.hint_deadline(new.id, new.deadline)
            ttl = 0 if new.state == PLAYING else self.settings.idle_seconds
            version = await self.store.cas(new, update_id, self.settings.update_ttl_seconds, ttl,
                                           now)
            if version == -1:
                return Outcome(False, "duplicate")
            if version == 0:
                await asyncio.sleep(0)
                continue
            new.version = version
            if notify:
                await self._after_commit(before, new, lines)
            return Outcome(True, None, new, lines)
        return Outcome(False, "busy")

    async def _after_commit(
        self, before: tuple[str, int] | None, new: Room, lines: list[Line]
    ) -> None:
        if new.state == FINISHED and before != (FINISHED, new.gen):
            await self._record(new)
        for seated in new.__dict__.pop("_seated", ()):
            await self.store.add_user_room(seated, new.id)  # the queue seated him
        stashed = new.__dict__.pop("_eliminated", None)
        if stashed is not None:
            # an elimination restarted the table: the match that ended is recorded as it was
            record, seated = stashed
            if record is not None:
                await self.store.record_match(chat_key(new.platform, new.chat), record)
            await self.store.add_user_room(seated, new.id)
        for listener in self.listeners:
            try:
                await listener(new, lines)
            except Exception:  # an adapter's drawing must never undo a committed move
                log.exception("listener failed for room %s", new.id)

    # --- lobby ----------------------------------------------------------------------------

    async def create(
        self, platform: str, chat: str, thread: str | None, user: User, preset: str,
        options: dict[str, Any] | None = None, size: int | None = None,
    ) -> Outcome:
        """A new lobby in this chat (topic), with the creator seated."""
        try:
            opts = validate_options(preset, options)
        except PresetError as e:
            return Outcome(False, "bad_preset", data={"message": str(e)})
        spec = PRESETS[preset]
        size = size or max(spec.players)
        if size not in spec.players:
            return Outcome(False, "bad_size", data={"allowed": list(spec.players)})
        rid = room_id_for(platform, chat, thread)
        lang = await self.store.chat_pref(chat_key(platform, chat), "lang")

        def change(room: Room | None) -> tuple[Room | None, list[Line]]:
            if room is not None and room.state != FINISHED:
                raise Refused("room_exists")
            now = self.clock.now()
            seats: list[Seat | None] = [None] * size
            seats[0] = Seat(user.id, user.name)
            new = Room(
                id=rid, platform=platform, chat=chat, thread=thread, preset=preset,
                options=opts, size=size, seats=seats, creator=user.id, created=now,
                gen=(room.gen + 1) if room else 1, lang=lang or self.settings.default_language,
                pdata=room.pdata if room else {}, sdata=room.sdata if room else {},
            )
            new.version = room.version if room else 0
            return new, [Line("room_created", {"name": user.name, "preset": preset})]

        out = await self._mutate(rid, change)
        if out.ok:
            await self.store.add_user_room(user.id, rid)
        return out

    async def join(self, room_id: str, user: User, seat: int | None = None) -> Outcome:
        def change(room: Room | None) -> tuple[Room | None, list[Line]]:
            room = _lobby(room)
            if room.seat_of(user.id) is not None:
                raise Refused("already_seated")
            free = [i for i, s in enumerate(room.seats) if s is None]
            if not free:
                raise Refused("table_full")
            at = seat if seat is not None and seat in free else free[0]
            room.seats[at] = Seat(user.id, user.name)
            room.queue = [q for q in room.queue if q["user"] != user.id]
            return room, [Line("joined", {"name": user.name, "seat": at})]

        out = await self._mutate(room_id, change)
        if out.ok:
            await self.store.add_user_room(user.id, room_id)
        return out

    async def leave(self, room_id: str, user: User) -> Outcome:
        def change(room: Room | None) -> tuple[Room | None, list[Line]]:
            room = _lobby(room)
            at = room.seat_of(user.id)
            if at is None:
                raise Refused("not_seated")
            room.seats[at] = None
            _seat_waiting(room)
            if room.creator == user.id:
                people = [s.user for s in room.seats if s is not None and s.user]
                if not people:
                    room.state = FINISHED  # the last person left: the lobby closes
                    return room, [Line("lobby_closed", {"name": user.name})]
                room.creator = people[0]
            return room, [Line("left", {"name": user.name})]

        out = await self._mutate(room_id, change)
        if out.ok:
            await self.store.remove_user_room(user.id, room_id)
        return out

    async def add_bot(self, room_id: str, user: User, level: str = "rules") -> Outcome:
        if level not in BOT_LEVELS:
            return Outcome(False, "bad_level", data={"allowed": list(BOT_LEVELS)})

        def change(room: Room | None) -> tuple[Room | None, list[Line]]:
            room = _lobby(room)
            if room.seat_of(user.id) is None and room.creator != user.id:
                raise Refused("not_seated")
            free = [i for i, s in enumerate(room.seats) if s is None]
            if not free:
                raise Refused("table_full")
            n = sum(1 for s in room.seats if s is not None and s.bot) + 1
            room.seats[free[0]] = Seat(None, f"Bot {n}", bot=level)
            return room, [Line("bot_added", {"level": level, "seat": free[0]})]

        return await self._mutate(room_id, change)

    async def remove_bot(self, room_id: str, user: User, seat: int | None = None) -> Outcome:
        def change(room: Room | None) -> tuple[Room | None, list[Line]]:
            room = _lobby(room)
            if room.seat_of(user.id) is None:
                raise Refused("not_seated")
            bots = [i for i, s in enumerate(room.seats) if s is not None and s.bot]
            at = seat if seat in bots else (bots[-1] if bots and seat is None else None)
            if at is None:
                raise Refused("no_bot")
            room.seats[at] = None
            _seat_waiting(room)
            return room, [Line("bot_removed", {"seat": at})]

        return await self._mutate(room_id, change)

    async def kick(self, room_id: str, user: User, target: str | int, is_admin: bool) -> Outcome:
        """Remove a person (user id) or a seat (index) from the lobby: creator or chat admin."""

        def change(room: Room | None) -> tuple[Room | None, list[Line]]:
            room = _lobby(room)
            if room.creator != user.id and not is_admin:
                raise Refused("not_allowed")
            at = target if isinstance(target, int) else room.seat_of(target)
            if at is None or not 0 <= at < room.size or room.seats[at] is None:
                raise Refused("not_seated")
            gone = room.seats[at]
            assert gone is not None
            if gone.user == user.id:
                raise Refused("not_allowed")
            room.seats[at] = None
            _seat_waiting(room)
            return room, [Line("kicked", {"name": gone.name})]

        return await self._mutate(room_id, change)

    async def set_option(
        self, room_id: str, user: User, name: str, value: Any, is_admin: bool = False
    ) -> Outcome:
        def change(room: Room | None) -> tuple[Room | None, list[Line]]:
            room = _lobby(room)
            if room.creator != user.id and not is_admin:
                raise Refused("not_allowed")
            try:
                room.options = validate_options(room.preset, {**room.options, name: value})
            except PresetError as e:
                raise Refused("bad_option", message=str(e)) from None
            return room, [Line("option_set", {"option": name, "value": value})]

        return await self._mutate(room_id, change)

    async def set_size(self, room_id: str, user: User, size: int, is_admin: bool = False) -> Outcome:
        def change(room: Room | None) -> tuple[Room | None, list[Line]]:
            room = _lobby(room)
            if room.creator != user.id and not is_admin:
                raise Refused("not_allowed")
            if size not in PRESETS[room.preset].players:
                raise Refused("bad_size", allowed=list(PRESETS[room.preset].players))
            seated = [s for s in room.seats if s is not None]
            if len(seated) > size:
                raise Refused("too_many_seated")
            room.seats = [*seated, *([None] * (size - len(seated)))]
            room.size = size
            _seat_waiting(room)
            return room, [Line("size_set", {"size": size})]

        return await self._mutate(room_id, change)

    async def start(self, room_id: str, user: User, seed: int | str | None = None) -> Outcome:
        def change(room: Room | None) -> tuple[Room | None, list[Line]]:
            room = _lobby(room)
            n = room.occupied
            if not room.valid_count(n):
                raise Refused("bad_count", allowed=list(PRESETS[room.preset].players))
            if room.creator != user.id and not room.full:
                raise Refused("not_allowed")
            if room.preset == "kozel-60" and room.options.get("deal") == "halves" and n != 4:
                raise Refused("bad_count", allowed=[4])
            room.seats = [s for s in room.seats if s is not None]
            room.size = n
            return _begin(room, seed, self.clock.now())

        return await self._mutate(room_id, change)

    async def rematch(self, room_id: str, user: User, seed: int | str | None = None) -> Outcome:
        """Another match with the same seats (from a finished room)."""

        def change(room: Room | None) -> tuple[Room | None, list[Line]]:
            if room is None:
                raise Refused("no_room")
            if room.state != FINISHED or room.match is None:
                raise Refused("not_finished")
            if room.seat_of(user.id) is None:
                raise Refused("not_seated")
            for s in room.seats:
                if s is not None:
                    s.auto, s.missed = False, 0
            if room.options.get("elimination") and room.queue:
                # people queued after the match ended: the rooster gives his seat now
                lines = self._eliminate(room, room.load_match(), recorded=True)
                if lines:
                    return room, lines
            room.gen += 1
            return _begin(room, seed, self.clock.now())

        return await self._mutate(room_id, change)

    async def cancel(self, room_id: str, user: User, is_admin: bool = False) -> Outcome:
        def change(room: Room | None) -> tuple[Room | None, list[Line]]:
            if room is None or room.state == FINISHED:
                raise Refused("no_room")
            if room.creator != user.id and not is_admin:
                raise Refused("not_allowed")
            room.state = FINISHED
            room.deadline = None
            room.result = {"cancelled": True}
            return room, [Line("cancelled", {"name": user.name})]

        return await self._mutate(room_id, change)

    # --- moves ----------------------------------------------------------------------------

    async def act(self, token: str, user: User, update_id: str | None = None,
                  room_id: str | None = None) -> Outcome:
        """A person's move from a button. ``room_id``: the chat's room, when the button was
        pressed in a group (a token of another room is then refused)."""
        try:
            tok = parse_token(token)
        except TokenError:
            return Outcome(False, "bad_token")
        if room_id is not None and tok.room != room_id:
            return Outcome(False, "foreign_token")
        if not _plausible_room(tok.room):
            return Outcome(False, "bad_token")

        def change(room: Room | None) -> tuple[Room | None, list[Line]]:
            if room is None:
                raise Refused("no_room")
            if room.state != PLAYING or room.match is None:
                raise Refused("game_over" if room.state == FINISHED else "not_started")
            seat = room.seat_of(user.id)
            if seat is None:
                raise Refused("not_your_seat")
            if tok.gen != room.gen:
                raise Refused("stale")
            match = room.load_match()
            obs = observe(match, seat)
            if tok.deal != match.deal_no or tok.trick != obs.trick_no:
                raise Refused("stale")
            s = room.seats[seat]
            assert s is not None
            comeback = s.auto or s.missed
            s.auto, s.missed = False, 0  # RULES: the owner is back
            if tok.kind == "declare":
                decl = next((a for a in match.legal_actions(seat) if a.kind == "declare"), None)
                if decl is None:
                    raise Refused("declaration_closed")
                action = decl
            elif tok.kind == "cut":
                action = Action("cut", (tok.mask,))
            elif bare(tok.kind):
                action = Action(tok.kind)
            else:
                if tok.hand != hand_fingerprint(room.id, room.gen, seat, obs.hand,
                                                token_secret(match)):
                    raise Refused("stale")
                cards = cards_of(tok.mask, obs.hand)
                if cards is None:
                    raise Refused("bad_token")
                action = Action(tok.kind, cards)
            lines = self._apply(room, match, seat, action)
            if comeback:
                lines.insert(0, Line("back", {"name": s.name}))
            return room, lines

        return await self._mutate(tok.room, change, update_id)

    def _apply(self, room: Room, match: Game, seat: int, action: Action) -> list[Line]:
        reason = match.check(seat, action)  # first: an illegal action may not even pack
        if reason is not None:
            raise Refused("stale" if reason in ("not_your_turn", "deal_over") else reason)
        try:
            packed = pack_action(seat, action)
            dealing = match.turn[0]
            events = match.apply(seat, action)
        except IllegalAction as e:
            raise Refused("stale" if e.code in ("not_your_turn", "deal_over") else e.code) from None
        _log_action(room, match, packed, dealing)
        room.keep_match(match)
        lines = event_lines(room, events)
        if match.finished:
            room.state = FINISHED
            room.result = {"winners": list(match.winners), "score": list(match.scores)}
            if room.options.get("elimination") and room.queue:
                lines.extend(self._eliminate(room, match))
        return lines

    def _eliminate(self, room: Room, match: Game, recorded: bool = False) -> list[Line]:
        """RULES.md 5 ``elimination``: the rooster gives his seat to the first person in the
        queue and a new match starts. [decision] A person who loses his seat this way goes
        to the end of the queue (the table rotates, as "на вылет" is played); a computer
        player simply leaves."""
        roosters: tuple[int, ...] = getattr(match, "roosters", ())
        if not roosters:
            return []
        room.queue = [q for q in room.queue if room.seat_of(q["user"]) is None]
        if not room.queue:
            return []
        record = None if recorded else self._record_of(room)
        seat = roosters[0]  # of tied roosters: the first clockwise from the dealer
        comer = room.queue.pop(0)
        old = room.seats[seat]
        if old is not None and old.user:
            room.queue.append({"user": old.user, "name": old.name})
        room.seats[seat] = Seat(comer["user"], comer["name"])
        if old is not None and old.user == room.creator:
            # the table's creator left it: the first person seated takes his rights
            room.creator = next(s.user for s in room.seats if s is not None and s.user)
        room.__dict__["_eliminated"] = (record, comer["user"])
        lines = [Line("eliminated", {"name": old.name if old else "?", "seat": seat,
                                     "comer": comer["name"]})]
        for s in room.seats:
            if s is not None:
                s.auto, s.missed = False, 0
        room.gen += 1
        seed = int.from_bytes(hashlib.blake2s(f"{match.seed}:{room.gen}".encode(),
                                              digest_size=8).digest(), "big")
        _room, started = _begin(room, seed, self.clock.now())
        return lines + started

    # --- the waiting queue (elimination) ----------------------------------------------------

    async def wait(self, room_id: str, user: User) -> Outcome:
        """Join the room's queue for a seat (RULES.md 5 ``elimination``)."""

        def change(room: Room | None) -> tuple[Room | None, list[Line]]:
            if room is None:
                raise Refused("no_room")
            if not room.options.get("elimination"):
                raise Refused("no_queue")
            if room.seat_of(user.id) is not None:
                raise Refused("already_seated")
            if any(q["user"] == user.id for q in room.queue):
                raise Refused("already_waiting")
            if room.state == LOBBY and not room.full:
                raise Refused("seat_free")
            if len(room.queue) >= MAX_QUEUE:
                raise Refused("queue_full")
            room.queue.append({"user": user.id, "name": user.name})
            return room, [Line("queued", {"name": user.name, "place": len(room.queue)})]

        return await self._mutate(room_id, change)

    async def unwait(self, room_id: str, user: User) -> Outcome:
        """Leave the room's queue."""

        def change(room: Room | None) -> tuple[Room | None, list[Line]]:
            if room is None:
                raise Refused("no_room")
            kept = [q for q in room.queue if q["user"] != user.id]
            if len(kept) == len(room.queue):
                raise Refused("not_waiting")
            room.queue = kept
            return room, [Line("unqueued", {"name": user.name})]

        return await self._mutate(room_id, change)

    # --- timers and computer players -------------------------------------------------------

    def _schedule(self, room: Room, now: float) -> None:
        """Set the room's next deadline: a computer move soon, or the person's time limit."""
        if room.state != PLAYING or room.match is None:
            room.deadline = None
            return
        match = room.load_match()
        turn = "{}.{}".format(*match.turn)
        if turn != room.turn_key:
            room.turn_key = turn
            room.turn_started = now
        acting = match.to_act()
        mover = acting[0]
        delay = self.settings.bot_delay_seconds
        mover_seat = room.seats[mover]
        if mover_seat is not None and mover_seat.computer:
            room.deadline = now + delay
            return
        off_turn = [s for s in acting[1:] if (st := room.seats[s]) is not None and st.computer]
        if off_turn and room.asked != turn:
            room.deadline = now + delay
            return
        assert room.turn_started is not None
        room.deadline = room.turn_started + self.settings.turn_seconds

    async def run_timers(self, limit: int = 50) -> int:
        """Make every due move (computer players, timed-out people). Returns moves made."""
        now = self.clock.now()
        done = 0
        for rid in await self.store.due(now, limit):
            lease = await self.store.claim_deadline(rid, now, LEASE)
            if lease is not None:
                out = await self._on_deadline(rid, lease)
                done += int(out.ok and out.room is not None)
        return done

    async def serve_timers(self, stop: asyncio.Event, interval: float = 0.25) -> None:
        """The worker's timer loop: make due moves until ``stop`` is set."""
        while not stop.is_set():
            try:
                while await self.run_timers():
                    pass
            except Exception:  # a broken room must not stop every other table's clock
                log.exception("timer loop")
            try:
                await asyncio.wait_for(stop.wait(), interval)
            except TimeoutError:
                pass

    async def _on_deadline(self, room_id: str, lease: float) -> Outcome:
        def change(room: Room | None) -> tuple[Room | None, list[Line]]:
            now = self.clock.now()
            if room is None or room.state != PLAYING or room.match is None:
                raise Refused("nothing_due")
            if room.deadline is None or room.deadline > now:
                raise Refused("not_due", deadline=room.deadline)
            match = room.load_match()
            acting = match.to_act()
            turn = room.turn_key
            # computer players that may declare out of turn get their chance first
            if room.asked != turn:
                room.asked = turn
                for seat in acting[1:]:
                    st = room.seats[seat]
                    if st is not None and st.computer:
                        act = self._bot_choice(room, match, seat, on_move=False)
                        if act is not None:
                            return room, self._apply(room, match, seat, act)
            mover = acting[0]
            st = room.seats[mover]
            assert st is not None
            lines: list[Line] = []
            if not st.computer:
                if room.turn_started is not None and \
                        now < room.turn_started + self.settings.turn_seconds:
                    return room, []
                st.missed += 1
                lines.append(Line("timeout", {"name": st.name, "seat": mover}))
                if st.missed >= self.settings.missed_turns_to_bot:
                    st.auto = True
                    lines.append(Line("handed_to_bot", {"name": st.name, "seat": mover}))
            act = self._bot_choice(room, match, mover, on_move=True)
            assert act is not None
            lines.extend(self._apply(room, match, mover, act))
            return room, lines

        out = await self._mutate(room_id, change)
        # give the entry back from this worker's lease: the room's deadline now, or none
        # (gone, over); a commit since the claim has written its own entry, which stays
        if out.ok and out.room is not None:
            await self.store.settle_deadline(room_id, lease, out.room.deadline)
        elif out.reason in ("nothing_due", "not_due"):
            await self.store.settle_deadline(room_id, lease, out.data.get("deadline"))
        return out

    def _bot_choice(self, room: Room, match: Game, seat: int, on_move: bool) -> Action | None:
        st = room.seats[seat]
        assert st is not None
        bot = make_bot(st.level)
        legal = match.legal_actions(seat)
        rng = random.Random(f"{room.id}:{room.gen}:{room.turn_key}:{seat}")
        obs = observe(match, seat) if bot.needs_observation else None
        act = bot.choose(obs, legal, rng, on_move)
        if act is None and on_move:
            act = legal[0]
        return act

    # --- views ----------------------------------------------------------------------------

    async def room(self, room_id: str) -> Room | None:
        return await self.store.load(room_id)

    async def table(self, room_id: str) -> TableView | None:
        room = await self.store.load(room_id)
        if room is None:
            return None
        return self.table_of(room)

    def table_of(self, room: Room) -> TableView:
        match = room.load_match() if room.match is not None else None
        return table_view(room, match, self.clock.now(), self._shown_deadline(room, match))

    def _shown_deadline(self, room: Room, match: Game | None) -> float | None:
        """The countdown a table shows: the person on move's own time. (The room's deadline
        may be sooner, when a computer player may act out of turn; showing that would tell
        the table of the computer's hand.)"""
        if match is None or room.deadline is None or room.turn_started is None:
            return room.deadline
        acting = match.to_act()
        mover = room.seats[acting[0]] if acting else None
        if mover is None or mover.computer:
            return room.deadline
        return room.turn_started + self.settings.turn_seconds

    async def hand(self, room_id: str, user_id: str) -> HandView | None:
        room = await self.store.load(room_id)
        if room is None:
            return None
        return self.hand_of(room, user_id)

    def hand_of(self, room: Room, user_id: str) -> HandView | None:
        seat = room.seat_of(user_id)
        if seat is None or room.match is None:
            return None
        match = room.load_match()
        return hand_view(room, match, seat, self.clock.now(), self._shown_deadline(room, match))

    async def rooms_of(self, user_id: str) -> list[Room]:
        """The rooms a person sits in now (playing first)."""
        out = []
        for rid in await self.store.user_rooms(user_id):
            room = await self.store.load(rid)
            if room is None or room.seat_of(user_id) is None:
                await self.store.remove_user_room(user_id, rid)
                continue
            out.append(room)
        out.sort(key=lambda r: (r.state != PLAYING, -r.updated))
        return out

    # --- platform data --------------------------------------------------------------------

    async def set_room_data(self, room_id: str, **values: Any) -> Outcome:
        """Adapters' per-room records (message ids ...), kept with the room."""

        def change(room: Room | None) -> tuple[Room | None, list[Line]]:
            if room is None:
                raise Refused("no_room")
            if all(room.pdata.get(k) == v for k, v in values.items()):
                return None, []
            room.pdata.update(values)
            return room, []

        return await self._mutate(room_id, change, notify=False)

    async def set_seat_data(self, room_id: str, user_id: str, **values: Any) -> Outcome:
        """Adapters' per-person records in a room (ephemeral ids, hand delivery choice)."""

        def change(room: Room | None) -> tuple[Room | None, list[Line]]:
            if room is None:
                raise Refused("no_room")
            rec = room.sdata.setdefault(user_id, {})
            if all(rec.get(k) == v for k, v in values.items()):
                return None, []
            rec.update(values)
            return room, []

        return await self._mutate(room_id, change, notify=False)

    async def set_chat_language(self, platform: str, chat: str, lang: str) -> None:
        await self.store.set_chat_pref(chat_key(platform, chat), "lang", lang)

    async def chat_language(self, platform: str, chat: str) -> str:
        return await self.store.chat_pref(chat_key(platform, chat), "lang") or \
            self.settings.default_language

    # --- statistics -----------------------------------------------------------------------

    async def _record(self, room: Room) -> None:
        record = self._record_of(room)
        if record is not None:
            await self.store.record_match(chat_key(room.platform, room.chat), record)

    def _record_of(self, room: Room) -> dict[str, Any] | None:
        """The stats record of the room's finished match (None: cancelled or none)."""
        if room.match is None or not room.result or room.result.get("cancelled"):
            return None
        rules = room.rules
        people = {s.user: s.name for s in room.seats if s is not None and s.user}
        sides = [[_member(room, seat) for seat in rules.side_seats(side)]
                 for side in range(rules.sides)]
        winners_seats = room.result["winners"]
        winning_sides = sorted({rules.side_of(s) for s in winners_seats})
        lineup, order = _lineup(room.preset, sides)
        record = {
            # the room's creation time too: a room that expired and was made again starts
            # again at generation 1, and its matches are new ones
            "id": f"{room.id}#{room.gen}#{room.created:.3f}",
            "preset": room.preset,
            "date": self.clock.now(),
            "sides": [[room.seats[s].name for s in rules.side_seats(side)]  # type: ignore[union-attr]
                      for side in range(rules.sides)],
            "members": sides,
            "score": room.result["score"],
            "winners": [m for s in winners_seats if (m := _member(room, s))],
            "winning_sides": [order.index(s) for s in winning_sides],
            "lineup": lineup,
            "people": people,
        }
        return record

    async def series(self, platform: str, chat: str) -> list[dict[str, Any]]:
        """Matches between the same line-ups in this chat: names and wins per side."""
        counters = await self.store.series(chat_key(platform, chat))
        _players, names = await self.store.players(chat_key(platform, chat))
        out: dict[str, dict[str, Any]] = {}
        for key, value in counters.items():
            lineup, _, what = key.rpartition("|")
            entry = out.setdefault(lineup, {"lineup": lineup, "played": 0, "wins": {}})
            if what == "n":
                entry["played"] = value
            else:
                entry["wins"][int(what[1:])] = value
        result = []
        for lineup, entry in out.items():
            preset, _, sides_text = lineup.partition(":")
            sides = [side.split("+") for side in sides_text.split(" vs ")]
            result.append({
                "preset": preset,
                "sides": [[names.get(m, "🤖" if m.startswith("bot") else m) for m in side]
                          for side in sides],
                "wins": [entry["wins"].get(i, 0) for i in range(len(sides))],
                "played": entry["played"],
            })
        result.sort(key=lambda e: -e["played"])
        return result

    async def leaderboard(self, platform: str, chat: str) -> list[dict[str, Any]]:
        counters, names = await self.store.players(chat_key(platform, chat))
        people: dict[str, dict[str, Any]] = {}
        for key, value in counters.items():
            user, _, what = key.rpartition("|")
            people.setdefault(user, {"user": user, "name": names.get(user, user),
                                     "played": 0, "won": 0})[what] = value
        rows = list(people.values())
        for r in rows:
            r["rate"] = r["won"] / r["played"] if r["played"] else 0.0
        rows.sort(key=lambda r: (-r["won"], -r["rate"], r["name"]))
        return rows

    async def player_stats(self, user_id: str) -> dict[str, int]:
        return await self.store.user_stats(user_id)

    async def recent_matches(self, platform: str, chat: str, limit: int = 10) -> list[dict[str, Any]]:
        return await self.store.matches(chat_key(platform, chat), limit)


# --- helpers ------------------------------------------------------------------------------


def chat_key(platform: str, chat: str) -> str:
    return f"{platform}:{chat}"


def _plausible_room(room_id: str) -> bool:
    return 0 < len(room_id) <= 48 and ":" in room_id and "{" not in room_id and "}" not in room_id


def _lobby(room: Room | None) -> Room:
    if room is None or room.state == FINISHED:
        raise Refused("no_room")
    if room.state != LOBBY:
        raise Refused("already_started")
    return room


def _begin(room: Room, seed: int | str | None, now: float) -> tuple[Room, list[Line]]:
    room.players = room.size
    if seed is None:
        seed = random.SystemRandom().randrange(1 << 62)
    match = new_match(room.rules, seed=seed)
    room.match = match.to_state()
    room.log = [""]
    room.state = PLAYING
    room.result = None
    room.asked = None
    room.turn_key = None
    return room, event_lines(room, match.start_events)


def _log_action(room: Room, match: Game, packed: str, dealing: int) -> None:
    """Keep the deal log compact: packed actions, one string per dealing of the cards (decks
    follow from the match seed and the dealing's number). A Kozel match keeps all of it; a
    long Petukh match (a hundred deals) keeps its last ``LOG_CHARS`` (a room stays small)."""
    room.log[-1] += packed + ","
    if match.turn[0] != dealing and not match.finished:
        room.log.append("")
        old = 0
        while sum(map(len, room.log)) > LOG_CHARS and old < len(room.log) - 1:
            room.log[old] = ""  # dropped, but still counted: the deal numbers stay right
            old += 1


def _seat_waiting(room: Room) -> None:
    """Free lobby seats go to the people waiting in the queue, first come first seated."""
    for at, seat in enumerate(room.seats):
        while seat is None and room.queue:
            comer = room.queue.pop(0)
            if room.seat_of(comer["user"]) is not None:
                continue
            seat = room.seats[at] = Seat(comer["user"], comer["name"])
            room.__dict__.setdefault("_seated", []).append(comer["user"])


def _member(room: Room, seat: int) -> str:
    s = room.seats[seat]
    if s is None:
        return "?"
    return s.user or f"bot:{s.level}:{seat}"


def _lineup(preset: str, sides: list[list[str]]) -> tuple[str, list[int]]:
    """A canonical line-up key: members sorted in a side, sides sorted."""
    keyed = sorted(range(len(sides)), key=lambda i: "+".join(sorted(sides[i])))
    text = " vs ".join("+".join(sorted(sides[i])) for i in keyed)
    return f"{preset}:{text}", keyed
