"""Hands: where a person's cards are shown, one live hand message per person and table.

A hand is an ephemeral message in the group (only its owner sees it) or a message in the
private chat with the bot (the person's choice, and the fallback when an ephemeral send
fails); in a practice game (a table in the private chat) it is a message of that chat. The
live one is recorded in the room's per-person platform data (``tg_hand``); showing a new
one retires the previous (deleted, else stripped of its buttons), and a press on an old
one makes the pressed message the live one.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Protocol

from aiogram import Bot
from aiogram.exceptions import TelegramBadRequest, TelegramForbiddenError, TelegramRetryAfter
from aiogram.methods import (
    DeleteEphemeralMessage,
    DeleteMessage,
    EditEphemeralMessageText,
    EditMessageText,
    SendMessage,
    TelegramMethod,
)
from aiogram.types import EphemeralMessageParameters, Message, ReplyParameters

from adapters.common.hands import hand_signature
from adapters.common.painting import take
from adapters.common.render import Text
from adapters.telegram import keyboards, texts
from adapters.telegram.limits import PRIVATE_PACE, budget_key
from adapters.telegram.outbox import Outbox
from adapters.telegram.posts import Post
from bot.clock import Clock
from bot.platform import FloodBudgets, PlatformData
from bot.room import FINISHED, LOBBY, PLAYING, Room
from bot.service import GameService
from bot.views import HandView

log = logging.getLogger(__name__)


class Painter(Protocol):
    """What hands need of the painter (``adapters/telegram/painter.py``): the bot, the
    rooms, its outbox and budgets, the hands' records."""

    bot: Bot
    service: GameService
    budgets: FloodBudgets
    platform_data: PlatformData
    clock: Clock
    outbox: Outbox
    hand_seen: dict[tuple[str, str], str]

    def hand_again(self, room: Room, user: str, after: float) -> None: ...


@dataclass(frozen=True)
class Where:
    """A hand message: ``mode`` "ephemeral" (in ``chat``, the group) or "private" (the
    person's private chat, which is also a practice game's chat); ``msg`` its id."""

    mode: str
    chat: int
    msg: int

    def record(self) -> dict[str, Any]:
        return {"mode": self.mode, "chat": self.chat, "msg": self.msg}

    @classmethod
    def of(cls, rec: Any, room: Room | None = None, user: str | None = None) -> Where | None:
        """A record of platform data; one written by the adapter before this one has no
        chat: the room's group for an ephemeral hand, the person's private chat else."""
        if not isinstance(rec, dict) or "msg" not in rec:
            return None
        mode = str(rec.get("mode", "ephemeral"))
        chat = rec.get("chat")
        if not chat and room is not None and user is not None:
            chat = int(room.chat) if mode == "ephemeral" else user_id(user)
        return cls(mode, int(chat or 0), int(rec["msg"]))

    @classmethod
    def pressed(cls, message: object, user: str) -> Where | None:
        """The pressed message as the presser's own hand: an ephemeral message shown to him
        (Telegram shows one to its receiver alone), or a message in his own private chat
        with the bot. None for a message other people see: a hand's button pressed there
        was forged (copied from one's own game), and counts for nothing."""
        if not isinstance(message, Message):
            return None
        uid = user_id(user)
        if message.ephemeral_message_id:
            receiver = message.receiver_user
            if receiver is not None and receiver.id != uid:
                return None
            return cls("ephemeral", message.chat.id, message.ephemeral_message_id)
        if message.chat.type == "private" and message.chat.id == uid:
            return cls("private", message.chat.id, message.message_id)
        return None

    def holds(self, room_id: str) -> bool:
        """Whether a hand of ``room_id`` may be here: an ephemeral hand only in its own
        group (its room's chat); a private chat holds the hands of every table."""
        return self.mode == "private" or room_id.split(":", 1)[1].split("/", 1)[0] == str(self.chat)


def user_id(user: str) -> int:
    return int(user.split(":", 1)[1])


def practice(room: Room) -> bool:
    """A table in someone's private chat (against computer players)."""
    return not room.chat.startswith("-")


def placement(room: Room, where: Where) -> str | None:
    """What the hand's switch button offers (None: nothing, in a practice game)."""
    if practice(room):
        return None
    return "private" if where.mode == "private" else "group"


def hand_content(
    room: Room, hand: HandView | None, t: Text, where: Where, notice: str | None = None, selected: int = 0
) -> tuple[str, Any]:
    """The text and keyboard of a hand message (no keyboard once the match is over)."""
    group = room.pdata.get("tg_title") if where.mode == "private" and not practice(room) else None
    if hand is None or room.state != PLAYING:
        cancelled = bool(room.result and room.result.get("cancelled"))
        table = hand.table if hand is not None else None
        return texts.hand_over_text(t, table, cancelled, group), None
    hint = hand.hint_allowed and hand.on_move
    markup = keyboards.hand_markup(t, hand, selected, placement(room, where), hint)
    return texts.hand_text(t, hand, group, notice), markup


async def edit_hand(
    painter: Painter,
    room: Room,
    user: str,
    rec: Any,
    hand: HandView | None,
    t: Text,
    notice: str | None = None,
    selected: int = 0,
    paced: bool = True,
) -> bool | None:
    """Edit a person's hand message. True: done; False: the message is gone (forget it);
    None: wait (the private chat's budget, or Telegram asked to). Not ``paced``: the answer
    to the person's own tap, which paces itself."""
    where = Where.of(rec, room, user)
    if where is None:
        return False
    text, markup = hand_content(room, hand, t, where, notice, selected)
    uid = user_id(user)
    try:
        if where.mode == "ephemeral":
            await painter.bot(
                EditEphemeralMessageText(
                    chat_id=where.chat,
                    receiver_user_id=uid,
                    ephemeral_message_id=where.msg,
                    text=text,
                    reply_markup=markup,
                )
            )
        else:
            if paced and await take(painter.budgets, budget_key(where.chat), PRIVATE_PACE, False) > 0:
                return None
            await painter.bot(
                EditMessageText(chat_id=where.chat, message_id=where.msg, text=text, reply_markup=markup)
            )
        return True
    except TelegramRetryAfter as e:
        # Telegram asks to wait: the hand is drawn again then, as it is by that time
        painter.service.metrics.platform_429("tg", float(e.retry_after))
        await painter.budgets.flood_block(budget_key(where.chat), float(e.retry_after))
        painter.hand_again(room, user, float(e.retry_after))
        return None
    except TelegramBadRequest as e:
        if "not modified" in str(e):
            return True
        log.info("hand of %s in %s: %s", user, room.id, e)
        return False
    except TelegramForbiddenError as e:
        log.info("hand of %s in %s: %s", user, room.id, e)
        return False


async def retire(painter: Painter, where: Where, user: str, t: Text) -> None:
    """An old hand message: deleted, or if that fails, left without buttons. Telegram's
    "retry after" queues the deletion (and the stripping, should it fail) for then."""
    uid = user_id(user)
    delete: TelegramMethod[Any] = DeleteMessage(chat_id=where.chat, message_id=where.msg)
    old = t._("Old cards: the newest message shows your hand.")
    strip: TelegramMethod[Any] = EditMessageText(chat_id=where.chat, message_id=where.msg, text=old)
    if where.mode == "ephemeral":
        delete = DeleteEphemeralMessage(
            chat_id=where.chat, receiver_user_id=uid, ephemeral_message_id=where.msg
        )
        strip = EditEphemeralMessageText(
            chat_id=where.chat, receiver_user_id=uid, ephemeral_message_id=where.msg, text=old
        )
    for method in (delete, strip):
        try:
            await painter.bot(method)
            return
        except TelegramRetryAfter as e:
            log.info("old hand of %s: 429, retry after %s", user, e.retry_after)
            painter.outbox.hold(
                Post(
                    where.chat,
                    method,
                    budget=False,
                    fallback=strip if method is delete else None,
                    not_before=painter.clock.now() + e.retry_after,
                )
            )
            return
        except (TelegramBadRequest, TelegramForbiddenError) as e:
            log.info("could not retire an old hand of %s: %s", user, e)


async def make_live(
    painter: Painter, room: Room, user: str, where: Where, t: Text, hand: HandView | None
) -> None:
    """Record ``where`` as the person's live hand and retire the one before it."""
    old = Where.of(room.sdata.get(user, {}).get("tg_hand"), room, user)
    await painter.platform_data.set_seat_data(room.id, user, tg_hand=where.record(), lang=t.lang)
    room.sdata.setdefault(user, {})["tg_hand"] = where.record()
    painter.hand_seen[(room.id, user)] = hand_signature(hand, room.state, trick_when_waiting=False)
    if old is not None and old != where:
        await retire(painter, old, user, t)


async def send_hand(
    painter: Painter,
    room: Room,
    user: str,
    t: Text,
    *,
    ephemeral: bool,
    callback_id: str | None = None,
    reply_to_ephemeral: int | None = None,
) -> Where | None:
    """Send a new hand message: ephemeral in the room's group, else in the private chat.
    None when the send failed (the caller falls back or explains)."""
    hand = painter.service.hand_of(room, user)
    uid = user_id(user)
    chat = int(room.chat)
    thread = int(room.thread) if room.thread else None
    mode = "ephemeral" if ephemeral else "private"
    target = chat if ephemeral else uid
    text, markup = hand_content(room, hand, t, Where(mode, target, 0))
    method = SendMessage(chat_id=target, text=text, reply_markup=markup)
    if ephemeral:
        method.message_thread_id = thread
        method.ephemeral_message_parameters = EphemeralMessageParameters(
            receiver_user_id=uid, callback_query_id=callback_id
        )
        if reply_to_ephemeral:
            method.reply_parameters = ReplyParameters(ephemeral_message_id=reply_to_ephemeral)
    try:
        sent = await painter.bot(method)
    except TelegramRetryAfter as e:
        # Telegram asks to wait: the hand goes out then (it is not a reason to fall back)
        log.info("hand of %s: 429, retry after %s", user, e.retry_after)
        painter.service.metrics.platform_429("tg", float(e.retry_after))
        await queue_hand(painter, room, user, t, method, e.retry_after)
        return Where(mode, target, 0)
    except (TelegramBadRequest, TelegramForbiddenError) as e:
        log.info("%s hand of %s failed: %s", mode, user, e)
        return None
    where = Where(mode, target, sent.ephemeral_message_id or sent.message_id)
    await make_live(painter, room, user, where, t, hand)
    return where


async def queue_hand(
    painter: Painter, room: Room, user: str, t: Text, method: SendMessage, retry_after: int
) -> None:
    """A hand send refused with a 429, queued for after the wait; live once it is sent."""
    mode = "private" if method.ephemeral_message_parameters is None else "ephemeral"

    async def sent(message: Any) -> None:
        if isinstance(message, Message):
            fresh = await painter.service.room(room.id)
            if fresh is not None:
                where = Where(mode, int(method.chat_id), message.ephemeral_message_id or message.message_id)
                await make_live(painter, fresh, user, where, t, painter.service.hand_of(fresh, user))

    await painter.outbox.post(
        Post(
            int(method.chat_id),
            method,
            budget=mode == "private",
            on_sent=sent,
            not_before=painter.clock.now() + retry_after,
        )
    )


def why_no_hand(room: Room | None, user: str) -> str | None:
    """The reason code when there is no hand to show (None: there is one)."""
    if room is None:
        return "no_room"
    if room.state == LOBBY:
        return "not_started" if room.seat_of(user) is not None else "not_seated"
    if room.seat_of(user) is None:
        return "not_your_seat"
    if room.state == FINISHED:
        return "game_over"
    return None
