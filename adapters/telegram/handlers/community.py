"""Issue 36 in Telegram: the chat's house rules (``/defaults``), notices when a table opens
(``/notify``), and the notice itself: one message a table, mentioning by id the members who
asked (never one who left the chat, nor the one who opened it), within the chat's budget."""

from __future__ import annotations

import html

from aiogram import Bot, F, Router
from aiogram.exceptions import TelegramAPIError, TelegramBadRequest, TelegramForbiddenError
from aiogram.filters import Command, CommandObject
from aiogram.methods import SendMessage
from aiogram.types import Message

from adapters.common import community
from adapters.common.render import Text
from adapters.telegram.handlers.common import GROUPS, game_of
from adapters.telegram.members import GONE
from adapters.telegram.painter import Painter
from adapters.telegram.posts import Post
from adapters.telegram.replies import is_admin, tell
from bot.records import ChatSettings
from bot.room import FINISHED, Room, User
from bot.service import GameService
from engine.presets import PRESETS


async def notify(
    message: Message,
    command: CommandObject,
    service: GameService,
    chats: ChatSettings,
    painter: Painter,
    user: User,
    t: Text,
) -> None:
    """/notify on|off: the sender, told (or not) when a table opens in this chat; /notify
    alone says which. Answered to him alone."""
    chat = str(message.chat.id)
    word = (command.args or "").strip().lower()
    if word in ("on", "off"):
        await chats.set_notify("tg", chat, user.id, word == "on")
    on = await chats.notify_on("tg", chat, user.id)
    hint = "" if word in ("on", "off") else "\n" + t._("Turn it on or off: /notify on, /notify off.")
    await tell(message, painter, community.notify_text(t, on) + hint)


async def defaults(
    message: Message,
    command: CommandObject,
    service: GameService,
    chats: ChatSettings,
    painter: Painter,
    user: User,
    room_id: str | None,
    t: Text,
) -> None:
    """/defaults [game]: what a new table starts from here; /defaults save: the chat's
    table's rules become the chat's for its game; /defaults reset [game]: back to the
    game's own (both for chat admins)."""
    chat = str(message.chat.id)
    action, named = _defaults_words(command.args)
    preset = game_of(named) if named else None
    if named and preset is None:
        await tell(message, painter, t._("Unknown game: {word}.").format(word=named[:40]))
        return
    room = await service.room(room_id) if room_id else None
    if action is not None and not await is_admin(painter, message.chat.id, int(user.id.split(":", 1)[1])):
        await tell(message, painter, t._("Only a chat admin may set the chat's defaults."))
        return
    if action == "save":
        if room is None or not _has_rules(room):
            await tell(message, painter, t._("Open a table and set its rules first: /newgame."))
            return
        await chats.pin_rules(room)
        preset = room.preset
    elif action == "reset":
        await chats.reset_rules("tg", chat, [preset] if preset else list(PRESETS))
    await tell(message, painter, await shown(chats, chat, t, preset or (room.preset if room else None)))


def _defaults_words(args: str | None) -> tuple[str | None, str | None]:
    """/defaults' words: its action (``save``, ``reset`` or none) and the game named."""
    words = (args or "").lower().split()
    action = words[0] if words and words[0] in ("save", "reset") else None
    at = 1 if action else 0
    return action, words[at] if len(words) > at else None


def _has_rules(room: Room) -> bool:
    """Whether the chat's table has rules that /defaults save can keep."""
    return not (room.state == FINISHED and room.match is None)


async def shown(chats: ChatSettings, chat: str, t: Text, preset: str | None) -> str:
    """What each game (or ``preset``) starts from here, and how to change it."""
    rows = await community.house_rules_rows(chats, "tg", chat, t, preset)
    rows.append(
        t._(
            "A table starts from the rules last dealt here. Chat admins: /defaults save (this "
            "table's rules, kept), /defaults reset [game] (the game's own)."
        )
    )
    return "\n\n".join(rows)


async def send_notice(chats: ChatSettings, painter: Painter, room: Room, t: Text) -> None:
    """The one notice of a new table: the members who asked, mentioned by id (at most
    ``NOTICE_CAP``; a person no longer in the chat is dropped from the list for good)."""
    users = await chats.notice_for(room)
    if not users:
        return
    chat = int(room.chat)
    mentions, gone = [], []
    for user in users[: community.NOTICE_CHECKS]:
        name = await _member_name(painter.bot, chat, int(user.split(":", 1)[1]))
        if name is None:
            gone.append(user)
        elif name:
            mentions.append(f'<a href="tg://user?id={user.split(":", 1)[1]}">{html.escape(name)}</a>')
        if len(mentions) >= community.NOTICE_CAP:
            break
    await chats.drop_notify("tg", room.chat, gone)
    if not mentions:
        return
    text = "🔔 " + html.escape(t._("A table is open: {game}.").format(game=t.preset_title(room.preset)))
    method = SendMessage(
        chat_id=chat,
        message_thread_id=int(room.thread) if room.thread else None,
        text=text + "\n" + ", ".join(mentions),
        parse_mode="HTML",
    )
    await painter.outbox.post(Post(chat, method, room=room.id, gen=room.gen))


async def _member_name(bot: Bot, chat: int, user: int) -> str | None:
    """The member's first name; None: not a member (left, removed, unknown); "": Telegram
    could not be asked now (skipped this time, kept)."""
    try:
        member = await bot.get_chat_member(chat, user)
    except (TelegramBadRequest, TelegramForbiddenError):
        return None
    except TelegramAPIError:
        return ""
    if member.status in GONE or (member.status == "restricted" and not getattr(member, "is_member", True)):
        return None
    return member.user.first_name or str(user)


def router() -> Router:
    r = Router(name=__name__)
    r.message.register(notify, Command("notify"), F.chat.type.in_(GROUPS))
    r.message.register(defaults, Command("defaults"), F.chat.type.in_(GROUPS))
    return r
