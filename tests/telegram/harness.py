"""Driving the real Telegram adapter (real aiogram, polling) against FakeTelegram and real Redis.

The bot is built exactly as ``python -m bot telegram`` builds it, with ``TELEGRAM_API_URL``
pointing at the fake. Time is one ManualClock shared by the service, the painter and the
fake's flood limit: computer moves, budgets and 429s move only when a test says so.

Waits are explicit signals, never sleeps: aiogram polls with ``handle_as_tasks=False``, so
an update is confirmed (the fake sees the next ``offset``) only once its handler returned;
the painter writes when the test calls ``flush``.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import random
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from redis.asyncio import Redis

from adapters.common.painting import Pace
from adapters.common.render import Text
from adapters.telegram.app import TelegramApp, build, make_bot
from adapters.telegram.limits import Asking
from bot.clock import ManualClock
from bot.config import Settings
from bot.room import Room
from bot.service import GameService
from bot.store import Store
from bot.views import Choice
from engine.cards import CARD_TEXT, SUIT_LETTERS, SUIT_SYMBOLS
from engine.codec import unpack_action
from engine.families.petukh.view import PetukhExtras
from tests.fakes.telegram import FakeChat, FakeMessage, FakeTelegram, FakeUser, run_polling
from tests.pieces import pieces

GROUP_ID = -1001000000001
# the bot's own limits on asking, for tests that press at once on a still clock
WIDE = Asking(Pace(10_000, 1.0), Pace(10_000, 1.0), Pace(10_000, 1.0))
# real seconds a test waits for a signal (an update confirmed) before it calls it lost: a
# bound for a broken bot, never a pause (a loaded 2-core machine may be slow to get there)
SIGNAL_LIMIT = 60.0
NAMES = ["Anna", "Boris", "Vera", "Gleb"]
TABLE_PREFIXES = ("L:", "T:")  # the lobby's and the table's buttons
HAND_PREFIXES = ("S~", "A~", "D~", "HN~")


def card_spellings(card: str) -> list[str]:
    rank, suit = card[:-1], card[-1]
    sym = SUIT_SYMBOLS[SUIT_LETTERS.index(suit)]
    return [card, rank + sym, rank + sym + "\ufe0f"]


_SPELL = {
    c: re.compile(
        "|".join(
            r"(?<![0-9A-Za-z])" + re.escape(s) + (r"(?![0-9A-Za-z])" if s == c else "")
            for s in card_spellings(c)
        )
    )
    for c in CARD_TEXT
}


def cards_named(text: str, cards: set[str]) -> set[str]:
    return {c for c in cards if _SPELL[c].search(text)}


@dataclass
class Env:
    fake: FakeTelegram
    group: FakeChat
    users: list[FakeUser]
    service: GameService
    clock: ManualClock
    app: TelegramApp
    settings: Settings
    redis: Redis
    leaks: list[str] = field(default_factory=list)
    checked: int = 0

    @property
    def room_id(self) -> str:
        return f"tg:{GROUP_ID}"

    @property
    def painter(self) -> Any:
        return self.app.painter

    async def room(self, room_id: str | None = None) -> Room:
        room = await self.service.room(room_id or self.room_id)
        assert room is not None
        return room

    # --- talking to the bot -----------------------------------------------------------

    async def say(
        self, user: FakeUser, text: str, chat: FakeChat | int | None = None, flush: bool = True, **kw: Any
    ) -> FakeMessage:
        """A person writes; returns once the bot's handler has finished with it. A command
        the bot registered as ephemeral in groups is sent as one, as Telegram's clients do
        (``ephemeral=False``: an old client, or one typed past the menu)."""
        where = chat if chat is not None else self.group
        if "ephemeral" not in kw:
            kw["ephemeral"] = self.client_sends_ephemeral(where, user, text)
        msg = self.fake.user_message(where, user, text, **kw)
        await self.fake.wait_confirmed(self.fake.updates.last_update_id, timeout=SIGNAL_LIMIT)
        if flush:
            await self.flush()
        return msg

    def client_sends_ephemeral(self, chat: FakeChat | int, user: FakeUser, text: str) -> bool:
        """Whether a client sends ``text`` as an ephemeral command: a group command the bot
        registered with ``is_ephemeral`` for groups (in the user's language, else the
        default list)."""
        chat_id = chat.id if isinstance(chat, FakeChat) else chat
        if chat_id > 0 or not text.startswith("/"):
            return False
        name = text[1:].split()[0].split("@")[0].lower() if len(text) > 1 else ""
        scope = json.dumps({"type": "all_group_chats"}, sort_keys=True)
        listed = self.fake.world.commands.get(
            (scope, user.language_code or "")
        ) or self.fake.world.commands.get((scope, ""), [])
        return any(c.get("command") == name and c.get("is_ephemeral") for c in listed)

    async def press(
        self, user: FakeUser, message: FakeMessage, data: str, check_button: bool = True, flush: bool = True
    ) -> dict[str, Any]:
        """Press a button; returns the answer the bot gave (it always must) once its
        handler has finished."""
        cb = self.fake.press(user, message, data, check_button=check_button)
        await self.fake.wait_confirmed(self.fake.updates.last_update_id, timeout=SIGNAL_LIMIT)
        assert cb.answered, f"press {data!r} was not answered"
        if flush:
            await self.flush()
        return dict(cb.answer or {})

    async def flush(self) -> None:
        await self.app.painter.flush()

    def table_message(self, chat: FakeChat | int | None = None) -> FakeMessage:
        """The newest table message (a lobby's or a match's), as people find it."""
        msgs = [
            m
            for m in self.fake.messages(chat or self.group, from_bot=True, ephemeral=False)
            if any(d.startswith(TABLE_PREFIXES) for d in m.callback_data)
        ]
        assert msgs, "no table message"
        return msgs[-1]

    def hand_message(self, user: FakeUser) -> FakeMessage | None:
        """The newest hand message the user sees with buttons: ephemeral in the group, or
        in his private chat."""
        found = [
            m
            for m in self.fake.messages(self.group, from_bot=True, ephemeral=True)
            if m.receiver is not None and m.receiver.id == user.id
        ]
        found += self.fake.messages(user.id, from_bot=True)
        found = [m for m in found if any(d.startswith(HAND_PREFIXES) for d in m.callback_data)]
        return max(found, key=lambda m: m.seq) if found else None

    async def open_hand(self, user: FakeUser) -> FakeMessage:
        msg = self.hand_message(user)
        if msg is None:
            await self.press(user, self.table_message(), "T:hand")
            msg = self.hand_message(user)
        assert msg is not None, f"{user.first_name} has no hand message"
        return msg

    async def look(self, user: FakeUser, choice: Choice) -> FakeMessage:
        """The person's newest hand, once it shows the move he means: if it does not yet
        (its edit waits for a budget), he waits a moment and looks again."""
        labels = {Text("ru").card(c) for c in choice.cards}
        for _ in range(30):
            msg = await self.open_hand(user)
            hand = self.service.hand_of(await self.room(choice.token.split("|")[0]), f"tg:{user.id}")
            now = f"~{hand.moment}~" if hand is not None else "-"
            shown = {b.get("text", "").replace("✅", "") for row in msg.buttons for b in row}
            if "A~" + choice.token in msg.callback_data or (
                choice.mask and labels <= shown and any(now in d for d in msg.callback_data)
            ):
                return msg
            self.clock.advance(1.0)
            await self.flush()
        raise AssertionError(f"{user.first_name}'s hand never showed {choice}")

    async def play(self, user: FakeUser, choice: Choice) -> dict[str, Any]:
        """Make a move the way a person does: tick its cards (and untick others), then the
        move's button (a lone legal card is one tap: its button is the move)."""
        msg = await self.look(user, choice)
        move = "A~" + choice.token
        wanted = {Text("ru").card(c) for c in choice.cards}
        for _ in range(12):
            if move in msg.callback_data:
                break
            button = next(
                (
                    b
                    for row in msg.buttons
                    for b in row
                    if b.get("callback_data", "").startswith("S~")
                    and b["text"].startswith("✅") != (b["text"].lstrip("✅") in wanted)
                ),
                None,
            )
            if button is None:
                break
            await self.press(user, msg, button["callback_data"])
        assert move in msg.callback_data, (
            f"{choice} not offered in {msg.callback_data}; recent calls:\n"
            + "\n".join(repr(c)[:400] for c in self.fake.api_calls()[-8:])
        )
        return await self.press(user, msg, move)

    # --- time -------------------------------------------------------------------------

    async def tick(self, seconds: float = 1.5) -> int:
        """Advance the clock, make due computer moves, let the painter write."""
        self.clock.advance(seconds)
        moves = await pieces(self.service).timers.run_timers()
        await self.flush()
        return moves

    async def drain(self) -> None:
        """Let time pass until the painter has written everything it holds."""
        for _ in range(200):
            if not self.app.painter.pending():
                break
            self.clock.advance(5)
            await self.flush()
        assert not self.app.painter.pending(), "the painter still holds writes"

    # --- the leak check -----------------------------------------------------------------

    async def hidden_cards(self) -> tuple[dict[int, set[str]], dict[int, set[str]]]:
        """Per user id: the cards in his hand now (but a face-up trump card), and those he
        put face down this deal (thrown, laid for a boast, discarded in an exchange, given
        for the trump card)."""
        room = await self.service.room(self.room_id)
        if room is None or room.match is None:
            return {}, {}
        match = room.load_match()
        seen = match.observe(None)
        public = {CARD_TEXT[seen.trump_card]} if seen.trump_card is not None else set()
        boys = seen.extras.boys if isinstance(seen.extras, PetukhExtras) else ()
        public |= {c for b in boys for c in b.cards}
        ids = {i: int(s.user[3:]) if s is not None and s.user else -1 - i for i, s in enumerate(room.seats)}
        hands = {
            ids[s]: {CARD_TEXT[c] for c in match.observe(s).hand} - public for s in range(len(room.seats))
        }
        thrown: dict[int, set[str]] = {}
        for packed in filter(None, (room.log[-1] if room.log else "").split(",")):
            seat, act = unpack_action(packed)
            if act.kind in ("throw", "lay", "exchange", "swap"):
                thrown.setdefault(ids[seat], set()).update(CARD_TEXT[c] for c in act.cards)
        return hands, thrown

    def install_leak_check(self) -> None:
        """Check every outgoing message at the moment the bot sends it: a group-visible one
        names no hidden card (a card in any hand, a card thrown this deal) in its text,
        button labels or callback data; a message for one person (ephemeral or private)
        names no card hidden from him."""
        fake = self.fake
        for method in (
            "sendMessage",
            "sendPhoto",
            "editMessageText",
            "editMessageReplyMarkup",
            "editEphemeralMessageText",
            "editEphemeralMessageReplyMarkup",
        ):
            original = fake.responder(method)

            async def wrapped(params: dict[str, Any], _orig: Any = original, _method: str = method) -> Any:
                await self._check(_method, params)
                result = _orig(params)
                if inspect.isawaitable(result):
                    result = await result
                return result

            fake.on(method, wrapped)

    async def _check(self, method: str, params: dict[str, Any]) -> None:
        hands, thrown = await self.hidden_cards()
        payload = [str(params.get("text") or ""), str(params.get("caption") or "")]
        markup = params.get("reply_markup") or {}
        if isinstance(markup, str):
            markup = json.loads(markup)
        for row in markup.get("inline_keyboard", []):
            for b in row:
                payload += [b.get("text", ""), b.get("callback_data", "")]
        text = "\n".join(payload)
        eph = params.get("ephemeral_message_parameters") or {}
        if isinstance(eph, str):
            eph = json.loads(eph)
        receiver = eph.get("receiver_user_id") or params.get("receiver_user_id")
        chat = int(params.get("chat_id") or 0)
        if receiver is None and chat > 0:
            receiver = chat  # a private chat
        mine: set[str] = set()
        if receiver is not None:
            receiver = int(receiver)
            mine = hands.get(receiver, set()) | thrown.get(receiver, set())
        hidden = set().union(*hands.values(), *thrown.values()) - mine
        bad = cards_named(text, hidden)
        if bad:
            self.leaks.append(f"{method} to {receiver or chat}: {sorted(bad)} in {text!r}")
        self.checked += 1


@asynccontextmanager
async def telegram(
    redis: Redis,
    fake: FakeTelegram | None = None,
    clock: ManualClock | None = None,
    real_limits: bool = False,
    **settings: Any,
) -> AsyncIterator[Env]:
    """A bot process: its own service, dispatcher and painter. Pass ``fake`` (and its
    ``clock``) to start a new process against the same Telegram (a restart).
    ``real_limits``: the bot's own limits on commands and presses as they ship; without it
    they are wide, since tests press at once on a clock that stands still (the platform's
    own limits, the fake's, are real either way)."""
    clock = clock or ManualClock()
    async with contextlib.AsyncExitStack() as stack:
        if fake is None:
            fake = await stack.enter_async_context(FakeTelegram(clock=clock.now))
        if GROUP_ID in fake.world.chats:
            group = fake.world.chats[GROUP_ID].chat
            users = [fake.world.users[1000 + i] for i in range(len(NAMES))]
        else:
            group = fake.group(GROUP_ID, "Пятничный покер")
            users = [
                fake.add_user(1000 + i, name, language_code="ru", username=name.lower())
                for i, name in enumerate(NAMES)
            ]
        conf = Settings(
            bot_token=fake.token,
            telegram_api_url=fake.base_url,
            bot_delay_seconds=1.0,
            turn_seconds=60.0,
            default_language="ru",
            **settings,
        )
        service = GameService(Store(redis), conf, clock)
        bot = make_bot(conf)
        app = await build(bot, pieces(service), conf, clock)
        if not real_limits:
            app.context.asking = WIDE
        env = Env(fake, group, users, service, clock, app, conf, redis)
        env.install_leak_check()
        async with run_polling(app.dispatcher, bot, fake, handle_as_tasks=False):
            yield env


def pick(choices: list[Choice], rng: random.Random, on_move: bool) -> Choice | None:
    moves = [c for c in choices if c.kind != "declare"]
    declares = [c for c in choices if c.kind == "declare"]
    if declares and rng.random() < 0.5:
        return declares[0]
    if not on_move and moves and rng.random() < 0.2:
        return rng.choice(moves)  # an out-of-turn move: a redeal request
    if on_move and moves:
        return rng.choice(moves)
    return None


async def play_steps(
    env: Env, humans: list[FakeUser], rng: random.Random, steps: int, until_deal: int | None = None
) -> Room:
    """Up to ``steps`` steps of play: a person's move through buttons, else time passing
    for the computer players; stops at the match's end (or when deal ``until_deal`` begins)."""
    room = await env.room()
    for _ in range(steps):
        room = await env.room()
        if room.state != "playing":
            return room
        if until_deal is not None and room.load_match().deal_no >= until_deal:
            return room
        moved = False
        for user in humans:
            hand = env.service.hand_of(room, f"tg:{user.id}")
            if hand is None or not hand.choices:
                continue
            choice = pick(hand.choices, rng, hand.on_move)
            if choice is None:
                continue
            answer = await env.play(user, choice)
            assert not answer.get("show_alert"), answer
            moved = True
            break
        if not moved:
            await env.tick()
    return await env.room()


async def play_to_end(
    env: Env, humans: list[FakeUser], seed: int, max_steps: int = 5000, until_deal: int | None = None
) -> Room:
    """Every person moves through buttons; computer players through the timers (until the
    match ends, or deal ``until_deal`` begins)."""
    room = await play_steps(env, humans, random.Random(seed), max_steps, until_deal)
    if room.state != "playing" or until_deal is not None and room.load_match().deal_no >= until_deal:
        return room
    raise AssertionError("the match did not end")
