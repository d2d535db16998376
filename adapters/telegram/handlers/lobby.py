"""Opening a table and everything before the deal (and after the end): seats, computer
players, settings, start, kick, cancel, the queue, invitations, another match."""

from __future__ import annotations

from typing import Any

from aiogram import Bot, F, Router
from aiogram.filters import Command, CommandObject
from aiogram.methods import (
    DeleteEphemeralMessage,
    DeleteMessage,
    EditEphemeralMessageText,
    EditMessageReplyMarkup,
    EditMessageText,
    SendMessage,
    TelegramMethod,
)
from aiogram.types import CallbackQuery, EphemeralMessageParameters, InlineKeyboardMarkup, Message
from aiogram.utils.callback_answer import CallbackAnswer
from aiogram.utils.deep_linking import create_start_link, create_startgroup_link
from aiogram.utils.keyboard import InlineKeyboardBuilder

from adapters.common import lobby as common_lobby
from adapters.common.render import Text
from adapters.telegram import callbacks as cb
from adapters.telegram import keyboards, texts
from adapters.telegram.handlers import community
from adapters.telegram.handlers.common import (
    GROUPS,
    answer_outcome,
    answer_press,
    as_admin,
    game_of,
    person_named,
)
from adapters.telegram.handlers.common import remember_username as remember_in_chat
from adapters.telegram.handlers.private import start_practice
from adapters.telegram.painter import Painter
from adapters.telegram.posts import Post
from adapters.telegram.replies import is_admin, offer, tell
from bot import invites
from bot.changes import Reason
from bot.platform import PlatformData
from bot.records import ChatSettings
from bot.room import FINISHED, LOBBY, User
from bot.service import GameService, Outcome

INVITE = "j"  # the start payload of an invitation: "j" and the table's link payload


def bot_names(t: Text) -> tuple[str, ...]:
    return tuple(t._(n) for n in common_lobby.BOT_NAMES)


async def open_table(
    service: GameService,
    platform_data: PlatformData,
    chats: ChatSettings,
    painter: Painter,
    msg: Message,
    user: User,
    preset: str,
    update_key: str | None,
    chat_t: Text,
) -> Outcome:
    """A new lobby in the chat (topic) of ``msg``: drawn as a new message at the bottom;
    the people who asked are told, once (issue 36.2)."""
    thread = str(msg.message_thread_id) if msg.is_topic_message and msg.message_thread_id else None
    out = await service.create("tg", str(msg.chat.id), thread, user, preset, update_id=update_key)
    if out.ok and out.room is not None and msg.chat.title:
        await platform_data.set_room_data(out.room.id, tg_title=msg.chat.title)
    if out.ok and not out.repeat and out.room is not None:
        await community.send_notice(chats, painter, out.room, chat_t)  # issue 36.2
    return out


async def newgame(
    message: Message,
    command: CommandObject,
    service: GameService,
    chats: ChatSettings,
    platform_data: PlatformData,
    painter: Painter,
    user: User,
    chat_t: Text,
    t: Text,
    update_key: str | None,
) -> None:
    word = command.args.split()[0] if command.args else None
    name = command.command.lower()
    preset = game_of(word) or (game_of(name) if name != "newgame" else None)
    if preset is None:
        # no game named: the list of games as buttons (or the unknown word refused)
        text = t._("Unknown game: {word}.").format(word=word) + "\n" if word else ""
        await offer(message, painter, text + t._("Which game?"), keyboards.games_markup(t))
        return
    out = await open_table(service, platform_data, chats, painter, message, user, preset, update_key, chat_t)
    await answer_outcome(message, painter, t, out)


async def picked_game(
    query: CallbackQuery,
    callback_data: cb.Game,
    service: GameService,
    chats: ChatSettings,
    platform_data: PlatformData,
    painter: Painter,
    user: User,
    t: Text,
    chat_t: Text,
    update_key: str,
    callback_answer: CallbackAnswer,
) -> None:
    msg = query.message
    preset = game_of(callback_data.preset)
    if not isinstance(msg, Message) or preset is None:
        answer_press(callback_answer, t, Outcome(False, Reason.BAD_TOKEN))
        return
    if msg.chat.type == "private":
        out = await start_practice(service, painter, msg.chat.id, user, t, preset, update_key)
    else:
        out = await open_table(service, platform_data, chats, painter, msg, user, preset, update_key, chat_t)
        if out.ok and not out.repeat:
            # the list has done its work: the lobby is drawn below it, the only buttons
            delete: TelegramMethod[Any] = DeleteMessage(chat_id=msg.chat.id, message_id=msg.message_id)
            if msg.ephemeral_message_id:
                delete = DeleteEphemeralMessage(
                    chat_id=msg.chat.id,
                    receiver_user_id=query.from_user.id,
                    ephemeral_message_id=msg.ephemeral_message_id,
                )
            await painter.outbox.post(Post(msg.chat.id, delete, budget=False))
    answer_press(callback_answer, t, out)


async def join(
    message: Message,
    service: GameService,
    chats: ChatSettings,
    painter: Painter,
    user: User,
    room_id: str,
    t: Text,
    update_key: str | None,
) -> None:
    out = await service.join(room_id, user, update_id=update_key)
    if out.ok and out.room is not None:  # /kick @name and /stats @name find him
        await remember_in_chat(chats, out.room.chat, message.from_user)
    await answer_outcome(message, painter, t, out)


async def leave(
    message: Message,
    service: GameService,
    painter: Painter,
    user: User,
    room_id: str,
    t: Text,
    update_key: str | None,
) -> None:
    out = await service.leave(room_id, user, update_id=update_key)
    if not out.ok and out.reason == Reason.NOT_SEATED:
        await tell(message, painter, t.reason("not_seated"))  # nothing to leave: no advice
        return
    await answer_outcome(message, painter, t, out)


async def wait(
    message: Message,
    service: GameService,
    painter: Painter,
    user: User,
    room_id: str,
    t: Text,
    update_key: str | None,
) -> None:
    out = await service.wait(room_id, user, update_id=update_key)
    await answer_outcome(message, painter, t, out)


async def unwait(
    message: Message,
    service: GameService,
    painter: Painter,
    user: User,
    room_id: str,
    t: Text,
    update_key: str | None,
) -> None:
    out = await service.unwait(room_id, user, update_id=update_key)
    await answer_outcome(message, painter, t, out)


async def addbot(
    message: Message,
    command: CommandObject,
    service: GameService,
    painter: Painter,
    user: User,
    room_id: str,
    t: Text,
    chat_t: Text,
    update_key: str | None,
) -> None:
    level = command.args.split()[0].lower() if command.args else None
    if level is not None and level not in common_lobby.LEVELS:
        await tell(message, painter, texts.refusal(t, Outcome(False, Reason.BAD_LEVEL)))
        return
    out = await as_admin(
        painter,
        message.chat.id,
        user,
        lambda admin: service.add_bot(
            room_id, user, level=level, names=bot_names(chat_t), update_id=update_key, is_admin=admin
        ),
    )
    await answer_outcome(message, painter, t, out)


async def startgame(
    message: Message,
    service: GameService,
    painter: Painter,
    user: User,
    room_id: str,
    t: Text,
    update_key: str | None,
) -> None:
    out = await as_admin(
        painter,
        message.chat.id,
        user,
        lambda admin: service.start(room_id, user, update_id=update_key, is_admin=admin),
    )
    await answer_outcome(message, painter, t, out)


async def cancel(
    message: Message,
    service: GameService,
    painter: Painter,
    user: User,
    room_id: str,
    t: Text,
    chat_t: Text,
    update_key: str | None,
) -> None:
    """End the game; once a deal is played, a player's /cancel asks the others to agree
    (the table shows it, with their button, and his own "give up")."""
    out = await as_admin(
        painter,
        message.chat.id,
        user,
        lambda admin: service.cancel(room_id, user, admin, update_id=update_key),
    )
    if out.ok and any(ln.key == "cancel_asked" for ln in out.lines):
        await tell(message, painter, t._(common_lobby.END_ASKED))
        return
    if out.ok and not out.repeat:
        # one confirmation for everyone (a result, not an answer to one person); the table
        # itself becomes a one-line "cancelled"
        thread = message.message_thread_id if message.is_topic_message else None
        await painter.outbox.say(message.chat.id, "❌ " + chat_t._("The game is cancelled."), thread=thread)
    await answer_outcome(message, painter, t, out)


def user_tg_id(user: User) -> int:
    return int(user.id.split(":", 1)[1])


async def kick(
    message: Message,
    command: CommandObject,
    service: GameService,
    chats: ChatSettings,
    painter: Painter,
    user: User,
    room_id: str,
    t: Text,
    update_key: str | None,
) -> None:
    room = await service.room(room_id)
    target = await person_named(chats, message, command.args or "", room.size if room else 0)
    if target is None:
        await tell(
            message,
            painter,
            t._(
                "Whom? Reply to the player's message with /kick, or give a seat number "
                "(/kick 2) or a @username."
            ),
        )
        return
    out = await as_admin(
        painter,
        message.chat.id,
        user,
        lambda admin: service.kick(room_id, user, target, admin, update_id=update_key),
    )
    if not out.ok and out.reason == Reason.NOT_SEATED:  # the one he named, not he himself
        await tell(message, painter, t._("That player is not at this table."))
        return
    await answer_outcome(message, painter, t, out)


async def settings(message: Message, service: GameService, painter: Painter, room_id: str, t: Text) -> None:
    table = await service.table(room_id)
    if table is None or table.state != "lobby":
        reason = "no_room" if table is None else "already_started"
        await tell(message, painter, t.reason(reason))
        return
    await offer(message, painter, texts.settings_text(t, table), keyboards.settings_markup(t, table))


async def invite(
    message: Message, bot: Bot, service: GameService, painter: Painter, room_id: str, t: Text
) -> None:
    """A link that seats a friend at this table: it carries the table's secret (knowing the
    group's id is not enough), dies with the table, and seats members of the group only."""
    room = await service.room(room_id)
    if room is None or room.state != LOBBY or not room.secret:
        reason = "no_room" if room is None or room.state == FINISHED else "already_started"
        await tell(message, painter, t.reason(reason))
        return
    join_url = await create_start_link(bot, INVITE + invites.payload_of(room))
    group_url = await create_startgroup_link(bot, "new")
    kb = InlineKeyboardBuilder()
    kb.button(text="🪑 " + t._("Join this table"), url=join_url)
    kb.button(text="➕ " + t._("Add the bot to another group"), url=group_url)
    kb.adjust(1)
    await tell(
        message,
        painter,
        t._("Invite friends: the first link seats them at this table.\n{url}").format(url=join_url),
        kb.as_markup(),
    )


# --- buttons ---------------------------------------------------------------------------


async def lobby_button(
    query: CallbackQuery,
    callback_data: cb.Lobby,
    service: GameService,
    chats: ChatSettings,
    painter: Painter,
    user: User,
    room_id: str,
    t: Text,
    chat_t: Text,
    update_key: str,
    callback_answer: CallbackAnswer,
) -> None:
    msg = query.message
    if not isinstance(msg, Message):
        return
    action = callback_data.action
    if action is common_lobby.LobbyAction.SETTINGS:
        await show_settings(query, msg, service, painter, room_id, t, callback_answer)
        return

    async def pressed(admin: bool) -> Outcome:
        out = await common_lobby.press(
            service, action, room_id, user, update_id=update_key, bot_names=bot_names(chat_t), is_admin=admin
        )
        return out if out is not None else Outcome(True)

    out = await as_admin(painter, msg.chat.id, user, pressed)
    if out is not None and out.ok and out.room is not None and action is common_lobby.LobbyAction.JOIN:
        await remember_in_chat(chats, out.room.chat, query.from_user)
    if out is not None and not out.ok and out.reason == Reason.NO_ROOM:
        await strip_buttons(painter, msg)  # a lobby gone (expired): its buttons go too
    answer_press(callback_answer, t, out)


async def strip_buttons(painter: Painter, msg: Message) -> None:
    await painter.outbox.post(
        Post(
            msg.chat.id,
            EditMessageReplyMarkup(chat_id=msg.chat.id, message_id=msg.message_id, reply_markup=None),
        )
    )


async def show_settings(
    query: CallbackQuery,
    msg: Message,
    service: GameService,
    painter: Painter,
    room_id: str,
    t: Text,
    callback_answer: CallbackAnswer,
) -> None:
    """The settings for the one who pressed: an ephemeral message in the group."""
    table = await service.table(room_id)
    if table is None or table.state != "lobby":
        answer_press(callback_answer, t, Outcome(False, Reason.ALREADY_STARTED if table else Reason.NO_ROOM))
        return
    thread = msg.message_thread_id if msg.is_topic_message else None
    await painter.outbox.post(
        Post(
            msg.chat.id,
            SendMessage(
                chat_id=msg.chat.id,
                message_thread_id=thread,
                text=texts.settings_text(t, table),
                reply_markup=keyboards.settings_markup(t, table),
                ephemeral_message_parameters=EphemeralMessageParameters(
                    receiver_user_id=query.from_user.id, callback_query_id=query.id
                ),
            ),
            budget=False,
        )
    )


async def option_button(
    query: CallbackQuery,
    callback_data: cb.Option,
    service: GameService,
    painter: Painter,
    user: User,
    room_id: str,
    t: Text,
    update_key: str,
    callback_answer: CallbackAnswer,
) -> None:
    msg = query.message
    table = await service.table(room_id)
    if not isinstance(msg, Message) or table is None or table.state != "lobby":
        answer_press(callback_answer, t, Outcome(False, Reason.ALREADY_STARTED if table else Reason.NO_ROOM))
        return
    name, raw = callback_data.name, callback_data.value
    if raw in ("", "<"):  # open a setting's values, or go back to the list
        await edit_settings(
            painter,
            msg,
            query,
            t,
            keyboards.settings_markup(t, table, opened=name if raw == "" else None),
            None,
        )
        return
    value = keyboards.parse_value(name, raw, table)
    if value is None:
        answer_press(callback_answer, t, Outcome(False, Reason.BAD_OPTION))
        return
    admin = await is_admin(painter, msg.chat.id, query.from_user.id)
    if name == "size":
        out = await service.set_size(room_id, user, int(str(value)), admin, update_id=update_key)
    else:
        out = await service.set_option(room_id, user, name, value, admin, update_id=update_key)
    if not out.ok:
        answer_press(callback_answer, t, out)
        return
    table = await service.table(room_id) or table
    await edit_settings(
        painter, msg, query, t, keyboards.settings_markup(t, table), texts.settings_text(t, table)
    )


async def edit_settings(
    painter: Painter,
    msg: Message,
    query: CallbackQuery,
    t: Text,
    markup: InlineKeyboardMarkup,
    text: str | None,
) -> None:
    """The pressed settings message, edited (ephemeral: only its owner sees it)."""
    if msg.ephemeral_message_id:
        await painter.outbox.post(
            Post(
                msg.chat.id,
                EditEphemeralMessageText(
                    chat_id=msg.chat.id,
                    receiver_user_id=query.from_user.id,
                    ephemeral_message_id=msg.ephemeral_message_id,
                    text=text or msg.text or "⚙️",
                    reply_markup=markup,
                ),
                budget=False,
            )
        )
    elif text is None:
        await painter.outbox.post(
            Post(
                msg.chat.id,
                EditMessageReplyMarkup(chat_id=msg.chat.id, message_id=msg.message_id, reply_markup=markup),
            )
        )
    else:
        await painter.outbox.post(
            Post(
                msg.chat.id,
                EditMessageText(
                    chat_id=msg.chat.id, message_id=msg.message_id, text=text, reply_markup=markup
                ),
            )
        )


async def again(
    query: CallbackQuery,
    service: GameService,
    painter: Painter,
    user: User,
    room_id: str,
    t: Text,
    update_key: str,
    callback_answer: CallbackAnswer,
) -> None:
    out = await service.rematch(room_id, user, update_id=update_key)
    if not out.ok and out.reason == Reason.NO_ROOM and isinstance(query.message, Message):
        await strip_buttons(painter, query.message)  # the room expired: its button goes
    answer_press(callback_answer, t, out)


async def agree(
    query: CallbackQuery,
    service: GameService,
    user: User,
    room_id: str,
    t: Text,
    update_key: str,
    callback_answer: CallbackAnswer,
) -> None:
    """Agree to end the match another player asked to end."""
    out = await service.agree_to_end(room_id, user, update_id=update_key)
    if out.ok and not out.repeat:
        callback_answer.text = t._("Agreed.")
    answer_press(callback_answer, t, out)


async def give_up(
    query: CallbackQuery,
    service: GameService,
    user: User,
    room_id: str,
    t: Text,
    update_key: str,
    callback_answer: CallbackAnswer,
) -> None:
    """Concede the match (lost for the presser's side)."""
    out = await service.give_up(room_id, user, update_id=update_key)
    answer_press(callback_answer, t, out)


async def queue(
    query: CallbackQuery,
    service: GameService,
    user: User,
    room_id: str,
    t: Text,
    update_key: str,
    callback_answer: CallbackAnswer,
) -> None:
    out = await service.wait(room_id, user, update_id=update_key)
    if out.ok:
        callback_answer.text = t._("You are in the queue for a seat.")
    answer_press(callback_answer, t, out)


def router() -> Router:
    """A fresh router with this module's handlers (a dispatcher each: tests run several
    bots in one process, and aiogram attaches a router to one parent only)."""
    r = Router(name=__name__)
    r.message.filter(F.chat.type.in_(GROUPS))
    r.message.register(newgame, Command("newgame", "kozel", "kozel4", "kozel60", "petukh"))
    r.callback_query.register(picked_game, cb.Game.filter())
    r.message.register(join, Command("join"))
    r.message.register(leave, Command("leave"))
    r.message.register(wait, Command("wait"))
    r.message.register(unwait, Command("unwait"))
    r.message.register(addbot, Command("addbot"))
    r.message.register(startgame, Command("startgame"))
    r.message.register(cancel, Command("cancel"))
    r.message.register(kick, Command("kick"))
    r.message.register(settings, Command("settings"))
    r.message.register(invite, Command("invite"))
    r.callback_query.register(lobby_button, cb.Lobby.filter())
    r.callback_query.register(option_button, cb.Option.filter())
    r.callback_query.register(again, cb.Table.filter(F.action == cb.TableAction.AGAIN))
    r.callback_query.register(queue, cb.Table.filter(F.action == cb.TableAction.QUEUE))
    r.callback_query.register(agree, cb.Table.filter(F.action == cb.TableAction.AGREE))
    r.callback_query.register(give_up, cb.Table.filter(F.action == cb.TableAction.GIVE_UP))
    return r
