"""The platform-neutral game service: rooms, lobby, moves exactly once.

Data flows one way: an adapter calls the service; the service loads the room, runs a pure
transition (``bot/lobby.py``, ``bot/queue.py``, ``bot/play.py``, ``bot/deadlines.py``),
writes the room back with one compare-and-set, carries out the change's effects and tells
its listeners what changed; adapters draw the views. Nothing here knows a platform.

What callers need beside the rooms and moves is in pieces of its own, handed to the
adapters that use them: a chat's settings and its statistics (``bot/records.py``), the
platform's records — paint leases, flood budgets, message and hand records
(``bot/platform.py``), a chat's history (``bot/history.py``, kept at every commit), its
tournaments (``bot/tournaments.py``) and the due moves (``bot/timers.py``); the last two
commit through ``change`` and hear of commits through ``on_commit``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from redis.exceptions import OutOfMemoryError

from bot import invites, keys, lobby, logs, play, queue
from bot.changes import Change, Now, Outcome, Reason, Refused, Repeat, Seated, Transition, Unseated
from bot.clock import Clock, SystemClock
from bot.config import Settings
from bot.history import ChatHistory
from bot.metrics import Metrics
from bot.platform import FloodBudgets, PaintLeases, Platform, PlatformData
from bot.ratings import rated
from bot.records import ChatSettings, Statistics, chat_key
from bot.room import FINISHED, LOBBY, PLAYING, Room, User, room_id_for
from bot.settle import settle
from bot.stats import Ratings, match_record, season_of
from bot.store import ChangeFeed, MatchRecord, Store, claim_of, open_store
from bot.thinking import HINT, Busy, Thinker
from bot.timers import Timers
from bot.timers import idea as think
from bot.tournaments import Tournaments
from bot.views import HandView, Hint, Line, TableView, hand_view, table_view
from engine.actions import Action
from engine.game import Game
from engine.presets import PRESETS, PresetError, players_allowed, validate_options

log = logging.getLogger(__name__)

BOT_LEVELS = lobby.BOT_LEVELS
RETRIES = 20
EXPIRY_SLACK = 3600  # a room's key outlives the moment its lobby closes by this much
MAX_LINES = play.MAX_LINES
MAX_LOBBIES = 3  # open lobbies one person may have created at once
HINTS_PER_MINUTE = 20  # new hint searches a person may ask for
KEEP_HINTS = 256  # moments whose hint is remembered


Listener = Callable[[Room, list[Line]], Awaitable[None]]


class GameService:
    """The rooms and their moves."""

    def __init__(
        self,
        store: Store,
        settings: Settings,
        clock: Clock | None = None,
        metrics: Metrics | None = None,
        thinker: Thinker | None = None,
        *,
        budgets: FloodBudgets | None = None,
        chats: ChatSettings | None = None,
        history: ChatHistory | None = None,
    ) -> None:
        self.store = store
        self.settings = settings
        self.clock = clock or SystemClock()
        self.metrics = metrics or Metrics()
        # the pool hard computer players think in (its processes start at the first search);
        # the service closes it with the store
        self.thinker = thinker or thinker_for(settings)
        self.listeners: list[Listener] = []
        # a person's hint searches are budgeted; a new table starts from its chat's rules
        self.budgets = budgets or FloodBudgets(store, self.clock)
        self.chats = chats or ChatSettings(store, settings, self.budgets)
        # a match that ended joins its chat's history at its commit
        self.history = history or ChatHistory(store, self.clock)
        # hooks after every commit, after the listeners (a tournament's table ended)
        self._commit_hooks: list[Callable[[Room], Awaitable[None]]] = []
        self._in_flight: set[asyncio.Task[Any]] = set()
        # hints of the last moments: (room, seat, version) -> the one search of that moment
        self._hints: dict[tuple[str, int, int], asyncio.Future[Hint | None]] = {}

    @classmethod
    async def open(
        cls,
        settings: Settings,
        clock: Clock | None = None,
        metrics: Metrics | None = None,
        thinker: Thinker | None = None,
    ) -> GameService:
        """A service on the store ``settings`` name (one clear ConfigError if Redis does
        not answer); ``close()`` closes the store."""
        return cls(await open_store(settings), settings, clock, metrics, thinker)

    def on_change(self, listener: Listener) -> None:
        """Call ``listener(room, lines)`` after every committed change (any cause)."""
        self.listeners.append(listener)

    def on_commit(self, hook: Callable[[Room], Awaitable[None]]) -> None:
        """Call ``hook(room)`` after every committed change, after the listeners (a piece
        that moves on from rooms: ``bot/tournaments.py``)."""
        self._commit_hooks.append(hook)

    def now(self) -> Now:
        s = self.settings
        return Now(
            self.clock.now(),
            s.turn_seconds,
            s.bot_delay_seconds,
            s.missed_turns_to_bot,
            float(s.idle_seconds),
        )

    # --- the one write path -------------------------------------------------------------

    async def change(self, room_id: str, transition: Transition, update_id: str | None = None) -> Outcome:
        """Commit ``transition`` on the room (the pieces' way in: due moves, tournaments)."""
        return await self._mutate(room_id, transition, update_id)

    async def _mutate(
        self, room_id: str, transition: Transition, update_id: str | None = None, notify: bool = True
    ) -> Outcome:
        """Load, change, compare-and-set (room, update claim, deadline entry and the chat's
        record of an ended match, in one script); on a conflict, again on the room the
        script answered with. ``transition`` raises ``Refused`` or ``Repeat``. A Redis out of
        memory (``noeviction``: it refuses writes) refuses the change, and the room stays as
        it was."""
        logs.ROOM.set(room_id)  # every line logged on the way names the room and update
        logs.UPDATE.set(update_id)
        try:
            return await self._mutate_once(room_id, transition, update_id, notify)
        except OutOfMemoryError:
            log.error("Redis is out of memory: a change of room %s was refused", room_id)
            self.metrics.store_error("oom")
            self.metrics.refused(Reason.STORE_FULL)
            return Outcome(False, Reason.STORE_FULL)

    async def _mutate_once(
        self, room_id: str, transition: Transition, update_id: str | None, notify: bool
    ) -> Outcome:
        claim = claim_of(update_id)
        loaded = await self.store.load(room_id, claim)
        if loaded.seen:
            return Outcome(True, None, loaded.room, repeat=True)
        room = loaded.room
        pdata, sdata = (room.pdata, room.sdata) if room is not None else ({}, {})
        for _attempt in range(RETRIES):
            try:
                change = transition(room)
            except Refused as r:
                self.metrics.refused(r.reason)
                return Outcome(False, r.reason, room, data=r.data)
            except Repeat:
                return Outcome(True, None, room, repeat=True)
            if change is None:
                return Outcome(True, None, room)
            now = self.now()
            new = settle(change, now).room  # events, results, deadline: in the change
            # a lobby closes by its own deadline (its table is told); the key's expiry is a
            # backstop a little later
            ttl = 0 if new.state == PLAYING else self.settings.idle_seconds + EXPIRY_SLACK
            record = None
            if change.record is not None:
                record = await self._match_record(keys.chat_of(new.id), change.record)
            written = await self.store.cas(new, claim, self.settings.update_ttl_seconds, ttl, now.t, record)
            if written.version:
                self.metrics.move_committed(new.platform)
                new.version = written.version
                new.pdata, new.sdata = pdata, sdata
                await self._after_commit(new, change, record, notify)
                return Outcome(True, None, new, change.lines)
            if written.seen:
                return Outcome(True, None, written.room, repeat=True)
            self.metrics.cas_conflict()
            room = written.room
            if room is not None:
                room.pdata, room.sdata = pdata, sdata
            await asyncio.sleep(0)
        return Outcome(False, Reason.BUSY, room)

    async def _after_commit(
        self, new: Room, change: Change, record: MatchRecord | None, notify: bool
    ) -> None:
        try:  # every worker's web sockets follow the room (one PUBLISH a commit)
            await self.store.publish_change(new.id, new.version)
        except Exception:  # the move is written: a follower catches up by comparing versions
            log.exception("publishing the change of %s", new.id)
        for effect in change.after:
            match effect:
                case Seated(user):
                    await self.store.add_user_room(user, new.id)
                case Unseated(user):
                    await self.store.remove_user_room(user, new.id)
        if record is not None:
            await self._finish_user_stats(keys.shard_of(keys.chat_of(new.id)), record)
        await self.history.keep(new, change)
        if notify:
            for listener in self.listeners:
                try:
                    await listener(new, change.lines)
                except Exception:  # an adapter's drawing must never undo a committed move
                    log.exception("listener failed for room %s", new.id)
        for hook in self._commit_hooks:
            await hook(new)

    async def _match_record(self, chat: str, record: dict[str, Any]) -> MatchRecord:
        """The match's record with the ratings it moves (the chat's as read now: the write
        checks nobody rated the chat meanwhile)."""
        both, month = await self.store.chat_and_season_ratings(chat, season_of(record["date"]))
        names = sorted({rated(m) for side in record["members"] for m in side})
        overall = await self.store.overall_ratings(names)
        return match_record(chat, record, Ratings.parse(both), overall, Ratings.parse(month))

    async def _finish_user_stats(self, shard: int, record: MatchRecord) -> None:
        try:
            await self.store.finish_user_stats(shard, record.todo())
        except Exception:  # the to-do entry stays: the timer loop finishes it
            log.exception("person statistics of %s", record.id)

    # --- lobby ----------------------------------------------------------------------------

    async def create(
        self,
        platform: str,
        chat: str,
        thread: str | None,
        user: User,
        preset: str,
        options: dict[str, Any] | None = None,
        size: int | None = None,
        update_id: str | None = None,
        house: bool = True,
    ) -> Outcome:
        """A new lobby in this chat (topic), with the creator seated; with no ``options``
        given, from the chat's house rules for the game (``house``: issue 36.1)."""
        level = None
        if options is None and house and preset in PRESETS:
            rules = await self.chats.house_rules(platform, chat, preset)
            if rules is not None:
                options, size, level = rules["options"], size or rules["size"], rules["level"]
        try:
            opts = validate_options(preset, options)
        except PresetError as e:
            return Outcome(False, Reason.BAD_PRESET, data={"message": str(e)})
        spec = PRESETS[preset]
        size = size or max(players_allowed(preset, opts))
        if size not in spec.players:
            return Outcome(False, Reason.BAD_SIZE, data={"allowed": list(spec.players)})
        rid = room_id_for(platform, chat, thread)
        waiting = [r for r in await self.rooms_of(user.id) if r.state == LOBBY and r.creator == user.id]
        if len(waiting) >= MAX_LOBBIES and all(r.id != rid for r in waiting):
            # one person opening tables in every chat he can reach: each is a message to edit
            return Outcome(False, Reason.TOO_MANY_LOBBIES, data={"limit": MAX_LOBBIES})
        secret = invites.new_secret()
        lang = await self.store.chat_pref(chat_key(platform, chat), "lang") or self.settings.default_language
        now = self.now()
        return await self._mutate(
            rid,
            lambda room: lobby.at_level(
                lobby.create(room, rid, platform, chat, thread, user, preset, opts, size, lang, now, secret),
                level,
            ),
            update_id,
        )

    async def join(
        self, room_id: str, user: User, seat: int | None = None, update_id: str | None = None
    ) -> Outcome:
        return await self._mutate(room_id, lambda room: lobby.join(room, user, seat), update_id)

    async def leave(self, room_id: str, user: User, update_id: str | None = None) -> Outcome:
        return await self._mutate(room_id, lambda room: lobby.leave(room, user), update_id)

    async def add_bot(
        self,
        room_id: str,
        user: User,
        level: str | None = None,
        names: Sequence[str] = (),
        update_id: str | None = None,
        is_admin: bool = False,
    ) -> Outcome:
        """Seat a computer player (the creator or a chat admin); ``names``: names in the
        chat's language, the first one unused at the table is taken (else "Bot N")."""
        return await self._mutate(
            room_id, lambda room: lobby.add_bot(room, user, level, names, is_admin), update_id
        )

    async def remove_bot(
        self,
        room_id: str,
        user: User,
        seat: int | None = None,
        update_id: str | None = None,
        is_admin: bool = False,
    ) -> Outcome:
        return await self._mutate(
            room_id, lambda room: lobby.remove_bot(room, user, seat, is_admin), update_id
        )

    async def kick(
        self, room_id: str, user: User, target: str | int, is_admin: bool, update_id: str | None = None
    ) -> Outcome:
        """Remove a person (user id) or a seat (index) from the lobby: creator or chat admin."""
        return await self._mutate(room_id, lambda room: lobby.kick(room, user, target, is_admin), update_id)

    async def set_option(
        self,
        room_id: str,
        user: User,
        name: str,
        value: Any,
        is_admin: bool = False,
        update_id: str | None = None,
    ) -> Outcome:
        return await self._mutate(
            room_id, lambda room: lobby.set_option(room, user, name, value, is_admin), update_id
        )

    async def set_size(
        self, room_id: str, user: User, size: int, is_admin: bool = False, update_id: str | None = None
    ) -> Outcome:
        return await self._mutate(room_id, lambda room: lobby.set_size(room, user, size, is_admin), update_id)

    async def swap_seats(
        self, room_id: str, user: User, a: int, b: int, is_admin: bool = False, update_id: str | None = None
    ) -> Outcome:
        return await self._mutate(
            room_id, lambda room: lobby.swap_seats(room, user, a, b, is_admin), update_id
        )

    async def start(
        self,
        room_id: str,
        user: User,
        seed: int | str | None = None,
        update_id: str | None = None,
        is_admin: bool = False,
    ) -> Outcome:
        now = self.now()
        out = await self._mutate(
            room_id, lambda room: lobby.start(room, user, seed, now, is_admin), update_id
        )
        if out.ok and not out.repeat and out.room is not None and out.room.state == PLAYING:
            await self.chats.remember_rules(out.room)  # the chat's house rules (issue 36.1)
        return out

    async def rematch(
        self, room_id: str, user: User, seed: int | str | None = None, update_id: str | None = None
    ) -> Outcome:
        """Another match with the same seats (from a finished room)."""
        now = self.now()
        return await self._mutate(room_id, lambda room: lobby.rematch(room, user, seed, now), update_id)

    async def cancel(
        self, room_id: str, user: User, is_admin: bool = False, update_id: str | None = None
    ) -> Outcome:
        """End the game; once a deal has been played, a player's cancel asks the other
        people to agree instead (``Outcome.lines``: ``cancel_asked``; ``bot/lobby.py``)."""
        now = self.now()
        return await self._mutate(room_id, lambda room: lobby.cancel(room, user, is_admin, now), update_id)

    async def agree_to_end(self, room_id: str, user: User, update_id: str | None = None) -> Outcome:
        """Agree to end the match another player asked to end (the last agreement ends it)."""
        now = self.now()
        return await self._mutate(room_id, lambda room: lobby.agree(room, user, now), update_id)

    async def give_up(self, room_id: str, user: User, update_id: str | None = None) -> Outcome:
        """Concede the match: it ends now, recorded as lost for the player's side."""
        return await self._mutate(room_id, lambda room: lobby.give_up(room, user), update_id)

    async def wait(self, room_id: str, user: User, update_id: str | None = None) -> Outcome:
        """Join the room's queue for a seat (RULES.md 5 ``elimination``)."""
        return await self._mutate(room_id, lambda room: queue.wait(room, user), update_id)

    async def unwait(self, room_id: str, user: User, update_id: str | None = None) -> Outcome:
        return await self._mutate(room_id, lambda room: queue.unwait(room, user), update_id)

    # --- moves ----------------------------------------------------------------------------

    async def act(
        self, token: str, user: User, update_id: str | None = None, room_id: str | None = None
    ) -> Outcome:
        """A person's move from a button. ``room_id``: the chat's room, when the button was
        pressed in a group (a token of another room is then refused)."""
        try:
            tok = play.check_token(token, room_id)
        except Refused as r:
            return Outcome(False, r.reason)
        mark = play.token_mark(token)
        return await self._mutate(tok.room, lambda room: play.act(room, user.id, tok, mark), update_id)

    async def come_back(self, room_id: str, user: User, update_id: str | None = None) -> Outcome:
        """ "I'm back": a person takes his seat back from the computer player at once."""
        now = self.now()
        return await self._mutate(room_id, lambda room: play.come_back(room, user.id, now), update_id)

    # --- views ----------------------------------------------------------------------------

    async def room(self, room_id: str) -> Room | None:
        return await self.store.room(room_id)

    def follow_changes(self) -> ChangeFeed:
        """Every committed change, from any worker sharing this Redis: ``(room id, version)``
        (``ChangeFeed.next``); close it when done."""
        return self.store.follow_changes()

    async def versions(self, room_ids: Sequence[str]) -> list[int]:
        """The current version of each room (0: gone): a follower's check for a change it
        may have missed."""
        return await self.store.versions(room_ids)

    async def room_by_link(self, platform: str, payload: str) -> Room | None:
        """The table an invitation or web-table link names, if its secret is the table's
        (``bot/invites.py``); None for a forged link or one of a table no longer open."""
        link = invites.parse_payload(platform, payload)
        if link is None:
            return None
        room = await self.store.room(link.room_id)
        return room if invites.opens(room, link) else None

    async def table(self, room_id: str) -> TableView | None:
        room = await self.store.room(room_id)
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
        room = await self.store.room(room_id)
        if room is None:
            return None
        return self.hand_of(room, user_id)

    def hand_of(self, room: Room, user_id: str) -> HandView | None:
        seat = room.seat_of(user_id)
        if seat is None or room.match is None:
            return None
        match = room.load_match()
        return hand_view(room, match, seat, self.clock.now(), self._shown_deadline(room, match))

    async def hint(self, room_id: str, user_id: str) -> Hint | None:
        """What a strong computer player would do in this person's place (a practice game:
        every other seat is a computer player); None: no hint now. One search a moment of
        a seat, its answer shared by every press of that moment; ``HINTS_PER_MINUTE`` new
        searches a person (else ``Refused(too_many_hints)``); a hint waits behind computer
        players' moves for the pool, and is refused when too many wait (``Refused(busy)``).
        """
        room = await self.store.room(room_id)
        hand = self.hand_of(room, user_id) if room is not None else None
        if room is None or hand is None or not hand.hint_allowed or not hand.on_move:
            return None
        key = (room.id, hand.seat, room.version)
        thought = self._hints.get(key)
        if thought is None:  # (set before any await: every press of the moment shares it)
            thought = asyncio.ensure_future(self._limited_hint(room, hand, user_id))
            self._hints[key] = thought
            while len(self._hints) > KEEP_HINTS:  # the oldest moments' answers go first
                self._hints.pop(next(iter(self._hints)))
        try:
            return await asyncio.shield(thought)
        except Busy:
            self._hints.pop(key, None)
            raise Refused(Reason.BUSY) from None
        except Exception:
            self._hints.pop(key, None)  # not an answer to keep
            raise

    async def _limited_hint(self, room: Room, hand: HandView, user_id: str) -> Hint | None:
        wait = await self.budgets.flood_take(f"hint:{user_id}", limit=HINTS_PER_MINUTE, window=60.0)
        if wait > 0:
            raise Refused(Reason.TOO_MANY_HINTS, wait=wait)
        return await self._hint_of(room, hand)

    async def _hint_of(self, room: Room, hand: HandView) -> Hint | None:
        idea = await think(self.thinker, room, hand.seat, HINT)  # the hard player's move (bot/thinking.py)
        act = idea.move
        for c in hand.choices:
            if c.kind == act.kind and sorted(c.cards) == sorted(_card_texts(act)):
                return Hint(c, idea.reason, {"share": round(idea.value * 100)})
        return None

    async def rooms_of(self, user_id: str) -> list[Room]:
        """The rooms a person sits in now (playing first)."""
        ids = await self.store.user_rooms(user_id)
        out = []
        for rid, room in zip(ids, await self.store.rooms(ids), strict=True):
            if room is None or room.seat_of(user_id) is None:
                await self.store.remove_user_room(user_id, rid)
                continue
            out.append(room)
        out.sort(key=lambda r: (r.state != PLAYING, -r.updated))
        return out

    async def ping(self) -> None:
        """Raises when Redis does not answer (a worker's readiness)."""
        await self.store.ping()

    # --- life -------------------------------------------------------------------------------

    async def close(self) -> None:
        self.thinker.close()
        await self.store.close()


def thinker_for(settings: Settings) -> Thinker:
    """The search pool ``settings`` ask for (``SEARCH_WORKERS``, ``SEARCH_MS``,
    ``SEARCH_ITERATIONS``)."""
    return Thinker(settings.search_workers, settings.search_ms, settings.search_iterations)


def _card_texts(action: Action) -> list[str]:
    from engine.cards import CARD_TEXT

    return [CARD_TEXT[c] for c in action.cards]


@dataclass(frozen=True)
class Services:
    """Everything the service side offers one process, in its pieces: the composition root
    (``bot/__main__.py``) and the test fixtures build it; each adapter takes the pieces it
    uses."""

    games: GameService
    chats: ChatSettings
    stats: Statistics
    platform: Platform
    history: ChatHistory
    tournaments: Tournaments
    timers: Timers

    @classmethod
    def on(cls, games: GameService) -> Services:
        """The pieces around ``games``, sharing its store, clock and budgets."""
        platform = Platform(PaintLeases(games.store), games.budgets, PlatformData(games.store))
        tournaments = Tournaments(games)
        return cls(
            games,
            games.chats,
            Statistics(games.store, games.clock),
            platform,
            games.history,
            tournaments,
            Timers(games, tournaments),
        )


__all__ = [
    "FINISHED",
    "LOBBY",
    "PLAYING",
    "GameService",
    "Outcome",
    "Refused",
    "Services",
    "chat_key",
]
