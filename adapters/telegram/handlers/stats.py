"""Scores, series, the leaderboard, rules cards, help and the language: commands that
answer with words and change no table."""

from __future__ import annotations

from aiogram import F, Router
from aiogram.filters import Command, CommandObject, CommandStart
from aiogram.types import Message

from adapters.common import community
from adapters.common.i18n import LANGUAGES
from adapters.common.render import Text
from adapters.telegram import texts
from adapters.telegram.handlers.common import GROUPS, game_of, person_named, remember_username
from adapters.telegram.painter import Painter, last_deal
from adapters.telegram.replies import is_admin, tell
from adapters.telegram.words import Words
from bot.records import ChatSettings, Statistics
from bot.room import User
from bot.service import GameService


async def score(message: Message, service: GameService, painter: Painter, room_id: str, t: Text) -> None:
    room = await service.room(room_id)
    if room is None or room.match is None:
        await tell(message, painter, t.reason("not_started" if room else "no_room"))
        return
    table = service.table_of(room)
    rows = [
        f"🐐 {t.title(table)} · " + t._("deal {n}").format(n=table.deal_no),
        t._("Score: {score} (to {target})").format(
            score=" · ".join(f"{t.side_name(table, i)} {v}" for i, v in enumerate(table.scores)),
            target=table.target,
        ),
    ]
    deal = texts.deal_summary(t, table, last_deal(room))
    if deal:
        rows.append(deal)
    await tell(message, painter, "\n".join(rows), match=(room.id, room.gen))


async def series(
    message: Message, service: GameService, statistics: Statistics, painter: Painter, t: Text
) -> None:
    """/series: a series per game and line-up (kozel and petukh between the same people
    are two)."""
    await tell(message, painter, t.series(await statistics.series("tg", str(message.chat.id))))


async def top(
    message: Message,
    command: CommandObject,
    service: GameService,
    chats: ChatSettings,
    statistics: Statistics,
    painter: Painter,
    t: Text,
) -> None:
    """/top: the chat's people by rating in matches with two people or more, then how each
    stands against computer players alone; /top season: this month's (issue 36.5)."""
    chat = str(message.chat.id)
    await remember_username(chats, chat, message.from_user)
    if (command.args or "").strip().lower() == "season":
        month, rows = await statistics.season_leaderboard("tg", chat)
        await tell(message, painter, community.season_text(t, month, rows))
        return
    rows = await statistics.leaderboard("tg", chat)
    vs = await statistics.vs_computers("tg", chat)
    await tell(message, painter, community.top_text(t, rows, vs))


async def stats(
    message: Message,
    command: CommandObject,
    service: GameService,
    chats: ChatSettings,
    statistics: Statistics,
    painter: Painter,
    user: User,
    t: Text,
) -> None:
    """/stats: one's own numbers; replying to someone's message, or ``/stats @username``
    (someone who played here), that person's."""
    chat = str(message.chat.id)
    await remember_username(chats, chat, message.from_user)
    who = await stats_target(message, command, chats, statistics, user)
    if who is None:
        await tell(
            message,
            painter,
            t._("I don't know {name} here: reply to their message with /stats.").format(
                name=(command.args or "").strip()
            ),
        )
        return
    user_id, name = who
    await tell(message, painter, t.stats(name, await statistics.profile("tg", chat, user_id)))


async def stats_target(
    message: Message, command: CommandObject, chats: ChatSettings, statistics: Statistics, user: User
) -> tuple[str, str] | None:
    """Whose numbers /stats means (user id, name): the author of the message it replies
    to, a mentioned person, a @username of someone seen here or a user id (never a display
    name: anyone may take anyone's), else the sender's own; None: nobody known."""
    arg = (command.args or "").strip()
    if not arg and message.reply_to_message is None and not _mentions(message):
        return user.id, user.name
    who = await person_named(chats, message, arg)
    if not isinstance(who, str):
        return None
    reply = message.reply_to_message
    if reply is not None and reply.from_user is not None and who == f"tg:{reply.from_user.id}":
        return who, reply.from_user.full_name
    for ent in message.entities or []:
        if ent.type == "text_mention" and ent.user is not None and who == f"tg:{ent.user.id}":
            return who, ent.user.full_name
    rows = await statistics.leaderboard("tg", str(message.chat.id))
    names = {r["user"]: r["name"] for r in rows}
    return who, names.get(who, arg)


def _mentions(message: Message) -> bool:
    return any(e.type == "text_mention" for e in message.entities or [])


async def chart(
    message: Message,
    command: CommandObject,
    service: GameService,
    chats: ChatSettings,
    painter: Painter,
    user: User,
    t: Text,
) -> None:
    """/chart on|off: whether a long match's result comes with its score chart (chat
    admins); /chart alone says which."""
    chat = str(message.chat.id)
    word = (command.args or "").strip().lower()
    if word not in ("on", "off"):
        on = await chats.chat_setting("tg", chat, "chart") != "off"
        await tell(
            message,
            painter,
            t.chart_setting(on) + "\n" + t._("Turn it on or off: /chart on, /chart off (chat admins)."),
        )
        return
    if not await is_admin(painter, message.chat.id, int(user.id.split(":", 1)[1])):
        await tell(message, painter, t._("Only a chat admin may turn the chart on or off."))
        return
    await chats.set_chat_setting("tg", chat, "chart", word)
    await tell(message, painter, t.chart_setting(word == "on"))


async def rules(
    message: Message,
    command: CommandObject,
    service: GameService,
    painter: Painter,
    room_id: str | None,
    t: Text,
) -> None:
    word = (command.args or "").strip()
    preset = game_of(word) if word else None
    if word and preset is None:
        await tell(
            message, painter, t._("Unknown game: {word}.").format(word=word) + "\n" + texts.help_text(t)
        )
        return
    if preset is None:
        room = await service.room(room_id) if room_id else None
        preset = room.preset if room is not None else "kozel"
    await tell(message, painter, texts.rules_text(t, preset))


async def help_(message: Message, painter: Painter, t: Text) -> None:
    """/help, and /start in a group (the bot was just added)."""
    await tell(message, painter, texts.help_text(t))


async def lang(
    message: Message,
    command: CommandObject,
    service: GameService,
    painter: Painter,
    words: Words,
    user: User,
    room_id: str | None,
    t: Text,
) -> None:
    """A group's language (its admins), or in the private chat the person's own."""
    code = (command.args or "").strip().lower()
    if code not in LANGUAGES:
        await tell(message, painter, t._("Choose a language: /lang ru, /lang en, /lang uk or /lang hr"))
        return
    private = message.chat.type == "private"
    tg_user = message.from_user
    if private and tg_user is not None:
        await words.set_person(tg_user, code)
    elif not await is_admin(painter, message.chat.id, int(user.id.split(":", 1)[1])):
        await tell(message, painter, t._("Only a chat admin may change the chat's language."))
        return
    else:
        await words.set_chat(message.chat.id, code)
    room = await service.room(room_id) if room_id else None
    if room is not None:
        painter.redraw(room)  # the table in the new words
    await tell(message, painter, words.of(code)._("Language: English"))


def router() -> Router:
    """A fresh router with this module's handlers (a dispatcher each: tests run several
    bots in one process, and aiogram attaches a router to one parent only)."""
    r = Router(name=__name__)
    r.message.register(score, Command("score"), F.chat.type.in_(GROUPS))
    r.message.register(series, Command("series"), F.chat.type.in_(GROUPS))
    r.message.register(top, Command("top"), F.chat.type.in_(GROUPS))
    r.message.register(stats, Command("stats"))
    r.message.register(chart, Command("chart"), F.chat.type.in_(GROUPS))
    r.message.register(rules, Command("rules"))
    r.message.register(help_, Command("help"))
    r.message.register(help_, CommandStart(), F.chat.type.in_(GROUPS))
    r.message.register(lang, Command("lang"))
    return r
