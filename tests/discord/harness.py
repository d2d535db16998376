"""Driving the real Discord adapter (real discord.py over HTTP and a websocket) against
FakeDiscord, with the real service on the real Redis and a manual clock.

``Harness`` presses buttons and runs commands as the fake's users; ``LeakGuard`` checks every
REST body the bot sends while a test plays: a card may appear in a payload the channel sees
only once it is public (face up on the table, declared, the trump card), and in an ephemeral
payload only if it is public or in its recipient's own hand.
"""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from redis.asyncio import Redis

from adapters.discord.app import KozelClient
from bot.clock import ManualClock
from bot.config import Settings
from bot.room import PLAYING, Room
from bot.service import GameService
from bot.tokens import select_stem
from bot.views import Choice, Line
from tests.fakes.discord import (
    FLAG_EPHEMERAL,
    HANG,
    FakeChannel,
    FakeDiscord,
    FakeInteraction,
    FakeMessage,
    FakeUser,
    start_client,
    stop_client,
    walk_components,
)
from tests.pieces import pieces

DELAY = 1.0
TURN = 60.0
PACE = 1.5  # seconds a person takes between two presses (the clock moves that much)

CARD_SYMBOLS = re.compile(r"(10|[6-9JQKA])([♣♠♥♦])")
CARD_LETTERS = re.compile(r"(?<![0-9A-Za-z])(10|[6-9JQKA])([CSHD])(?![0-9A-Za-z])")
SUIT_OF_SYMBOL = {"♣": "C", "♠": "S", "♥": "H", "♦": "D"}


def make_settings(**over: Any) -> Settings:
    base: dict[str, Any] = {
        "turn_seconds": TURN,
        "bot_delay_seconds": DELAY,
        "missed_turns_to_bot": 2,
        "idle_seconds": 3600,
        "update_ttl_seconds": 24 * 3600,
        "default_language": "en",
        "redis_url": None,
        "discord_token": None,
    }
    base.update(over)
    return Settings(**base)


def uid(user: FakeUser) -> str:
    return f"dc:{user.id}"


def rid(channel: FakeChannel) -> str:
    return f"dc:{channel.id}"


# --- what a payload says -------------------------------------------------------------------


def payload_strings(body: Any) -> Iterator[str]:
    """Every string a message body shows or carries: content, embeds, component labels,
    custom ids, text displays, select options and placeholders."""
    if not isinstance(body, Mapping):
        return
    if body.get("content"):
        yield str(body["content"])
    for embed in body.get("embeds") or []:
        yield from (str(v) for k, v in embed.items() if isinstance(v, str))
        for f in embed.get("fields", []):
            yield f"{f.get('name', '')} {f.get('value', '')}"
    for comp in walk_components(body.get("components") or []):
        for key in ("label", "custom_id", "content", "placeholder", "url"):
            if comp.get(key):
                yield str(comp[key])
        for opt in comp.get("options") or []:
            yield from (str(opt.get(k, "")) for k in ("label", "value", "description"))


def _rule_phrases() -> list[str]:
    """Texts that name a card as a rule, not as anybody's card: the shokha option, the
    rules cards (/rules), the lead's rule of the shokha presets (longest first, so a
    phrase inside another is not cut out of it first)."""
    from adapters.common.i18n import LANGUAGES
    from adapters.common.render import OPTION_TITLES, RULES_SUMMARIES, Text
    from adapters.discord.handlers import SHOKHA_LEAD

    sources = [
        OPTION_TITLES["shokha"],
        SHOKHA_LEAD,
        *RULES_SUMMARIES.values(),
        "Lead several cards: one suit, or the 6♠ with any suit…",
    ]
    phrases = {Text(lang)._(x) for lang in LANGUAGES for x in sources}
    return sorted(phrases, key=len, reverse=True)


RULE_PHRASES = _rule_phrases()


def cards_in(strings: Iterable[str]) -> set[str]:
    out: set[str] = set()
    for s in strings:
        for phrase in RULE_PHRASES:
            s = s.replace(phrase, "")
        out |= {r + SUIT_OF_SYMBOL[su] for r, su in CARD_SYMBOLS.findall(s)}
        out |= {r + su for r, su in CARD_LETTERS.findall(s)}
    return out


def _card_params(value: Any) -> Iterator[str]:
    if isinstance(value, str) and CARD_LETTERS.fullmatch(value):
        yield value
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _card_params(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _card_params(v)


@dataclass
class Leak:
    call: str
    cards: set[str]
    recipient: str | None


class LeakGuard:
    """Knows what is public in each room (from the service's public events) and checks
    every REST body the bot sent since the last check."""

    def __init__(self, fake: FakeDiscord, service: GameService) -> None:
        self.fake = fake
        self.service = service
        self.public: dict[str, set[str]] = {}
        self.previous: dict[str, set[str]] = {}
        self.hands_seen: dict[str, set[str]] = {}
        self.checked = 0
        self.public_bodies = 0
        self.ephemeral_bodies = 0
        self.leaks: list[Leak] = []
        service.on_change(self.listener)

    async def listener(self, room: Room, lines: list[Line]) -> None:
        # what was sent until now was drawn from the changes before this one: judged by what
        # they made public, before this one moves the deals on (the guard keeps two deals)
        self._scan()
        pub = self.public.setdefault(room.id, set())
        for ln in lines:
            if ln.key == "deal_started":
                self.previous[room.id], pub = pub, set()
                self.public[room.id] = pub
            pub.update(_card_params(ln.params))
        if room.match is not None:
            table = self.service.table_of(room)
            if table.trump_card:
                pub.add(table.trump_card)
        self._remember_hands(room)

    def _remember_hands(self, room: Room) -> None:
        if room.match is None:
            return
        for s in room.seats:
            if s is not None and s.user:
                hand = self.service.hand_of(room, s.user)
                if hand is not None:
                    self.hands_seen.setdefault(s.user, set()).update(hand.cards)

    def _known_public(self) -> set[str]:
        out: set[str] = set()
        for cards in (*self.public.values(), *self.previous.values()):
            out |= cards
        return out

    def _classify(self, method: str, path: str, body: Any) -> tuple[bool, str | None, Any]:
        """(ephemeral?, recipient user id, the message body) of one REST call."""
        parts = path.strip("/").split("/")
        if parts[0] == "channels":
            return False, None, body
        if parts[0] == "interactions":
            return self._classify_response(int(parts[1]), body)
        if parts[0] == "webhooks":
            return self._classify_followup(method, parts, body)
        return False, None, None

    def _classify_response(self, interaction: int, body: Any) -> tuple[bool, str | None, Any]:
        """``_classify`` of an interaction's response."""
        inter = self.fake.world.interactions.get(interaction)
        assert inter is not None
        data = (body or {}).get("data") or {}
        kind = (body or {}).get("type")
        if kind in (4, 5):
            return bool(int(data.get("flags") or 0) & FLAG_EPHEMERAL), uid(inter.user), data
        source = self.fake.messages.get(inter.source_message_id or 0)
        return bool(source and source.ephemeral), uid(inter.user), data

    def _classify_followup(self, method: str, parts: list[str], body: Any) -> tuple[bool, str | None, Any]:
        """``_classify`` of a webhook call: a follow-up, or an edit of a message."""
        token = parts[2]
        inter = next((i for i in self.fake.world.interactions.values() if i.token == token), None)
        assert inter is not None
        who = uid(inter.user)
        if method == "POST":
            return bool(int((body or {}).get("flags") or 0) & FLAG_EPHEMERAL), who, body
        mid = parts[-1]
        target = inter.original_message_id if mid == "@original" else int(mid)
        msg = self.fake.messages.get(target or 0)
        return bool(msg and msg.ephemeral), who, body

    def check(self) -> None:
        self._scan()
        assert not self.leaks, self.leaks

    def _scan(self) -> None:
        """Every REST body sent since the last scan, against what is public now."""
        known = self._known_public()
        for call in self.fake.calls[self.checked :]:
            if call.method not in ("POST", "PATCH") or call.json is None:
                continue
            if not call.path.startswith(("/channels", "/interactions", "/webhooks")):
                continue
            ephemeral, who, body = self._classify(call.method, call.path, call.json)
            cards = cards_in(payload_strings(body))
            if ephemeral:
                self.ephemeral_bodies += 1
                allowed = known | (self.hands_seen.get(who or "", set()))
            else:
                self.public_bodies += 1
                allowed = known
            if cards - allowed:
                self.leaks.append(Leak(repr(call), cards - allowed, who if ephemeral else None))
        self.checked = len(self.fake.calls)


# --- driving the client --------------------------------------------------------------------


class ClockSleeper:
    """``asyncio.sleep`` on a manual clock: a sleeper wakes when the test has moved the
    clock past its time (``wake``), never by real time passing. A woken sleeper counts as
    pending until its task has resumed (``resumed``): only then does the bot count it as
    running again, so "quiet" is never read in between."""

    def __init__(self, clock: ManualClock) -> None:
        self.clock = clock
        self.sleepers: list[tuple[float, asyncio.Future[None]]] = []
        self.woken: set[asyncio.Future[None]] = set()
        self.resumed = asyncio.Event()
        self.resumed.set()
        self.asleep = asyncio.Event()  # someone went to sleep (since it was cleared)

    async def sleep(self, seconds: float) -> None:
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.sleepers.append((self.clock.now() + max(0.0, seconds), fut))
        self.asleep.set()
        self.wake()
        try:
            await fut
        finally:
            self.woken.discard(fut)
            if not self.woken:
                self.resumed.set()

    def wake(self) -> None:
        now = self.clock.now()
        keep = []
        for due, fut in self.sleepers:
            if fut.done():
                continue
            if due <= now:
                fut.set_result(None)
                self.woken.add(fut)
                self.resumed.clear()
            else:
                keep.append((due, fut))
        self.sleepers = keep

    def next_due(self) -> float | None:
        due = [d for d, f in self.sleepers if not f.done()]
        return min(due) if due else None


@dataclass
class Harness:
    fake: FakeDiscord
    redis: Redis
    settings: Settings
    clock: ManualClock
    service: GameService
    client: KozelClient
    task: asyncio.Task[None]
    guard: LeakGuard
    sleeper: ClockSleeper
    hands: dict[int, FakeMessage] = field(default_factory=dict)  # user id -> open hand
    used: dict[str, int] = field(default_factory=dict)  # what moves went through: kind -> n

    @classmethod
    async def start(
        cls,
        fake: FakeDiscord,
        redis: Redis,
        settings: Settings,
        clock: ManualClock,
        service: GameService,
        after: Harness | None = None,
        sleeper: ClockSleeper | None = None,
        **options: Any,
    ) -> Harness:
        """``after``: the harness of an earlier process (its leak guard's knowledge goes on);
        ``sleeper``: one shared with another process of the same test (one clock);
        ``options``: the client's (a shard, say)."""
        guard = LeakGuard(fake, service)
        if after is not None:
            old = after.guard
            guard.public, guard.previous = old.public, old.previous
            guard.hands_seen, guard.checked = old.hands_seen, old.checked
        sleeper = sleeper or ClockSleeper(clock)
        client = KozelClient(
            pieces(service), settings, guild_ready_timeout=0.01, sleep=sleeper.sleep, **options
        )
        task = await start_client(client, fake)
        return cls(fake, redis, settings, clock, service, client, task, guard, sleeper)

    async def stop(self) -> None:
        """Stop this process (once: a test may stop it before its fixture does)."""
        if self.client.is_closed():
            return
        try:
            await self.flush()
            self.guard.check()  # every test: no hidden card in anything the bot sent
        finally:
            await stop_client(self.client, self.task)

    async def advance(self, seconds: float) -> None:
        """Time passes: the clock moves, drawings waiting for that time go on."""
        self.clock.advance(seconds)
        await self.settle()

    async def flush(self, limit: int = 100) -> None:
        """Time passes until nothing waits for a later time (every paced drawing done):
        what people see a moment after the last change."""
        await self.settle()
        for _ in range(limit):
            due = self.sleeper.next_due()
            if due is None:
                return
            self.clock.advance(max(0.0, due - self.clock.now()))
            await self.settle()
        raise AssertionError("drawings kept waiting")

    async def settle(self, timeout: float = HANG) -> None:
        """Until the bot is quiet: no request in flight at the fake, no handler or drawing
        running in the bot (a paced drawing may sleep until the clock moves). Both are
        signals the two sides give; ``timeout`` only turns a hang into a failure."""
        activity = self.client.doing
        self.sleeper.wake()  # the clock may have been moved by hand
        try:
            async with asyncio.timeout(timeout):
                while not (self.fake.log.is_idle and activity.is_quiet and not self.sleeper.woken):
                    await self.fake.log.idle()
                    await self.sleeper.resumed.wait()
                    await activity.quiet()
        except TimeoutError:
            raise AssertionError(
                f"the bot did not settle: {activity.running} running, {len(self.fake.calls)} calls"
            ) from None

    # --- people's actions -----------------------------------------------------------------

    async def command(
        self,
        user: FakeUser,
        channel: FakeChannel,
        name: str,
        options: Mapping[str, Any] | None = None,
        *,
        look: bool = True,
    ) -> FakeInteraction:
        """A person runs a slash command: a moment after his last action (``PACE``), and
        (``look``) looks at the channel a moment later, when every drawing is done."""
        await self.advance(PACE)
        inter = await self.fake.interaction_command(user, channel, name, options)
        await self.fake.wait_for_response(inter)
        await (self.flush() if look else self.settle())
        return inter

    async def press(
        self,
        user: FakeUser,
        message: FakeMessage | int,
        custom_id: str,
        values: list[str] | None = None,
        *,
        check: bool = True,
        pace: float = PACE,
        look: bool = True,
    ) -> FakeInteraction:
        """A person presses a button (or picks in a select) ``pace`` seconds after his last
        action (0: a second press at once), and (``look``) looks a moment later."""
        if pace:
            await self.advance(pace)
        inter = await self.fake.interaction_component(user, message, custom_id, values, check_component=check)
        await self.fake.wait_for_response(inter)
        await (self.flush() if look else self.settle())
        return inter

    async def new_server(self, name: str, locale: str) -> FakeChannel:
        """A server the bot joins now (its own language setting), with a channel: once the
        bot has it (discord.py's own "guild_join" event)."""
        # discord.py registers the listener right away (before the server appears)
        joined = self.client.wait_for("guild_join", check=lambda g: g.name == name, timeout=HANG)
        guild = self.fake.add_guild(name, locale=locale)
        channel = self.fake.add_text_channel(guild, "cards")
        await self.fake.gateway.flush()
        await joined
        await self.settle()
        return channel

    def reply(self, inter: FakeInteraction) -> FakeMessage:
        msg = self.fake.world.original_message(inter)
        assert msg is not None, inter
        return msg

    async def room(self, channel: FakeChannel) -> Room:
        room = await self.service.room(rid(channel))
        assert room is not None
        return room

    async def table(self, channel: FakeChannel) -> FakeMessage:
        room = await self.room(channel)
        rec = room.pdata.get("dc_table")
        assert rec, "no table message yet"
        return self.fake.messages[int(rec[1])]

    async def open_hand(self, user: FakeUser, channel: FakeChannel) -> FakeMessage:
        """Press "Show my hand" on the table: a fresh ephemeral message."""
        inter = await self.press(user, await self.table(channel), "kz:t:hand")
        assert inter.response_type == 4, inter.response_type
        msg = self.reply(inter)
        assert msg.ephemeral and msg.ephemeral_for == user.id
        self.hands[user.id] = msg
        return msg

    @staticmethod
    def control_for(msg: FakeMessage, choice: Choice) -> tuple[str, list[str] | None]:
        """The hand message's own control that makes ``choice``: its button, or the select
        of its kind with the cards' values (or the whole combination's)."""
        button = f"kz:a:{choice.token}"
        if button in msg.custom_ids():
            return button, None
        select = f"kz:s:{select_stem(choice.token)}"
        comp = msg.component(select)
        assert comp is not None, (choice, msg.custom_ids())
        offered = {o["value"] for o in comp["options"]}
        if str(choice.mask) in offered and comp.get("max_values", 1) == 1:
            return select, [str(choice.mask)]  # the whole combination is one option
        return select, [str(1 << i) for i in range(12) if choice.mask >> i & 1]

    async def play(
        self,
        user: FakeUser,
        channel: FakeChannel,
        choice: Choice,
        message: FakeMessage | None = None,
        *,
        look: bool = True,
    ) -> FakeInteraction:
        """Make ``choice`` with the hand message's own components."""
        msg = message or self.hands.get(user.id) or await self.open_hand(user, channel)
        custom_id, values = self.control_for(msg, choice)
        inter = await self.press(user, msg, custom_id, values, look=look)
        how = choice.kind + (":button" if values is None else ":select")
        self.used[how] = self.used.get(how, 0) + 1
        return inter

    async def play_match(
        self,
        channel: FakeChannel,
        people: list[FakeUser],
        seed: int,
        fresh_every: int = 9,
        max_steps: int = 3000,
        on_step: Any = None,
        until_deal: int | None = None,
    ) -> Room:
        """Play until the match ends (or deal ``until_deal`` begins): people through their
        ephemeral hands, computer players through the timer loop (the clock moved on by the
        bot delay)."""
        rng = random.Random(seed)
        by_id = {uid(u): u for u in people}
        for step in range(max_steps):
            room = await self.room(channel)
            if room.state != PLAYING or (until_deal is not None and room.load_match().deal_no >= until_deal):
                await self.flush()  # a moment later: everything drawn
                return room
            mover = room.load_match().to_act()[0]
            seat = room.seats[mover]
            assert seat is not None
            if seat.computer:
                self.clock.advance(DELAY)
                assert await pieces(self.service).timers.run_timers() >= 1
                await self.settle()
            else:
                await self._person_moves(room, channel, by_id[seat.user or ""], rng, step % fresh_every == 0)
            self.guard.check()
            if on_step is not None:
                await on_step(step)
        raise AssertionError("the match did not end")

    async def _person_moves(
        self, room: Room, channel: FakeChannel, user: FakeUser, rng: random.Random, fresh: bool
    ) -> None:
        """``play_match``'s move of a person: through his ephemeral hand (opened anew when
        ``fresh``), a declaration half the time it may be made."""
        hand = self.service.hand_of(room, uid(user))
        assert hand is not None and hand.on_move
        if user.id not in self.hands or fresh:
            await self.open_hand(user, channel)
        msg = self.hands[user.id]
        # the open hand was kept up to date by the painter: it offers this move
        moves = [c for c in hand.choices if c.kind != "declare"]
        declares = [c for c in hand.choices if c.kind == "declare"]
        choice = rng.choice(declares if declares and rng.random() < 0.5 else moves)
        inter = await self.play(user, channel, choice, msg)
        assert inter.response_type == 7, (inter.response_type, self.reply(inter).text())


# --- helpers for the shorter stories -------------------------------------------------------


async def people_and_bots(h: Harness, fake: FakeDiscord, ch: FakeChannel, bots: int = 2) -> None:
    """Alice and Bob with computer players, dealt; played on until a person is on move."""
    await h.command(fake.alice, ch, "newgame", {"preset": "kozel", "players": 2 + bots})
    await h.command(fake.bob, ch, "join")
    table = await h.table(ch)
    for _ in range(bots):
        await h.press(fake.alice, table, "kz:t:bot")
    await h.press(fake.alice, table, "kz:t:start")
    await until_person_moves(h, ch)


async def until_person_moves(h: Harness, ch: FakeChannel) -> Room:
    for _ in range(50):
        room = await h.room(ch)
        if room.state != "playing":
            return room
        seat = room.seats[room.load_match().to_act()[0]]
        if seat is not None and not seat.computer:
            return room
        h.clock.advance(DELAY)
        await pieces(h.service).timers.run_timers()
        await h.settle()
    raise AssertionError("computer players did not move")


def mover(room: Room, fake: FakeDiscord) -> FakeUser | None:
    """The person on move (None: a computer player)."""
    seat = room.seats[room.load_match().to_act()[0]]
    assert seat is not None
    if seat.computer:
        return None
    return next(u for u in fake.world.users.values() if uid(u) == seat.user)


def person(room: Room, fake: FakeDiscord) -> FakeUser:
    user = mover(room, fake)
    assert user is not None
    return user


def refusal_text(h: Harness, inter: FakeInteraction) -> str:
    assert inter.response_type == 4, inter.response_type
    msg = h.reply(inter)
    assert msg.ephemeral and msg.ephemeral_for == inter.user.id
    return msg.text()


async def snapshot(redis: Redis) -> dict[bytes, Any]:
    """Every key's value (DUMP) and whether it expires: to prove that nothing changed."""
    out: dict[bytes, Any] = {}
    async for k in redis.scan_iter(count=1000):
        out[k] = (await redis.dump(k), await redis.ttl(k) > 0)
    return out


def check_limits(message: FakeMessage) -> None:
    """Discord's component limits, on the message as it is and on every edit of it."""
    bodies: list[dict[str, Any]] = [{"components": message.components, "flags": message.flags}]
    bodies += [e for e in message.edits if "components" in e]
    v2 = message.is_components_v2
    for body in bodies:
        comps = body.get("components") or []
        _check_layout(comps, v2)
        for c in walk_components(comps):
            _check_component(c)
    assert len(message.content) <= 2000


def _check_layout(comps: list[dict[str, Any]], v2: bool) -> None:
    """The limits of a message's components as a whole (components v2 or the rows)."""
    if v2:
        assert sum(1 for _ in walk_components(comps)) <= 40
        text = sum(len(str(c.get("content", ""))) for c in walk_components(comps) if c.get("type") == 10)
        assert text <= 4000
    else:
        assert len(comps) <= 5
        assert all(c["type"] == 1 and len(c["components"]) <= 5 for c in comps)


def _check_component(c: dict[str, Any]) -> None:
    """The limits of one component: a row, a button, a select menu."""
    if c.get("type") == 1:
        assert 1 <= len(c["components"]) <= 5
    if "custom_id" in c:
        assert len(c["custom_id"]) <= 100, c["custom_id"]
    if c.get("type") == 2:
        assert 1 <= len(c.get("label") or "x") <= 80, c.get("label")
    if c.get("type") == 3:
        opts = c.get("options") or []
        assert 1 <= len(opts) <= 25
        assert all(len(o["label"]) <= 100 and len(o["value"]) <= 100 for o in opts)
        assert len(c.get("placeholder") or "") <= 150
        assert 0 <= c.get("min_values", 1) <= c.get("max_values", 1) <= len(opts)
