"""Scores, series, the leaderboard, rules cards, help and the language: commands that
answer with words and change no table."""

from __future__ import annotations

from aiogram import Bot, F, Router
from aiogram.filters import Command, CommandObject, CommandStart
from aiogram.types import Message

from adapters.common.i18n import LANGUAGES
from adapters.common.render import Text
from adapters.telegram import texts
from adapters.telegram.handlers.common import GROUPS, game_of
from adapters.telegram.painter import Painter
from adapters.telegram.replies import is_admin, tell
from adapters.telegram.words import Words
from bot.room import User
from bot.service import GameService


async def score(message: Message, service: GameService, painter: Painter, room_id: str,
                t: Text) -> None:
    room = await service.room(room_id)
    if room is None or room.match is None:
        await tell(message, painter, t.reason("not_started" if room else "no_room"))
        return
    table = service.table_of(room)
    rows = [f"🐐 {t.title(table)} · " + t._("deal {n}").format(n=table.deal_no),
            t._("Score: {score} (to {target})").format(
                score=" · ".join(f"{t.side_name(table, i)} {v}"
                                 for i, v in enumerate(table.scores)), target=table.target)]
    deal = texts.deal_summary(t, table, room.pdata.get("tg_deal"))
    if deal:
        rows.append(deal)
    await tell(message, painter, "\n".join(rows), match=(room.id, room.gen))


async def series(message: Message, service: GameService, painter: Painter, t: Text) -> None:
    rows = await service.series("tg", str(message.chat.id))
    if not rows:
        await tell(message, painter, t._("No finished matches in this chat yet."))
        return
    lines = [t._("Series in this chat:")]
    for r in rows[:10]:
        sides = [("+".join(side), w) for side, w in zip(r["sides"], r["wins"], strict=True)]
        if len(sides) == 2:
            (a, wa), (b, wb) = sides
            lines.append(f"{texts.game_title(t, r['preset'])}: {a} {wa} : {wb} {b}")
        else:
            lines.append(f"{texts.game_title(t, r['preset'])}: "
                         + " · ".join(f"{n} {w}" for n, w in sides))
    await tell(message, painter, "\n".join(lines))


async def top(message: Message, service: GameService, painter: Painter, t: Text) -> None:
    rows = await service.leaderboard("tg", str(message.chat.id))
    if not rows:
        await tell(message, painter, t._("No finished matches in this chat yet."))
        return
    lines = [t._("Leaderboard (won / played):")]
    for i, r in enumerate(rows[:15], start=1):
        lines.append(f"{i}. {r['name']} — {r['won']}/{r['played']} ({r['rate']:.0%})")
    await tell(message, painter, "\n".join(lines))


async def rules(message: Message, command: CommandObject, service: GameService,
                painter: Painter, room_id: str | None, t: Text) -> None:
    word = (command.args or "").strip()
    preset = game_of(word) if word else None
    if word and preset is None:
        await tell(message, painter, t._("Unknown game: {word}.").format(word=word) + "\n"
                   + texts.help_text(t))
        return
    if preset is None:
        room = await service.room(room_id) if room_id else None
        preset = room.preset if room is not None else "kozel"
    await tell(message, painter, texts.rules_text(t, preset))


async def help_(message: Message, painter: Painter, t: Text) -> None:
    """/help, and /start in a group (the bot was just added)."""
    await tell(message, painter, texts.help_text(t))


async def lang(message: Message, command: CommandObject, bot: Bot, service: GameService,
               painter: Painter, words: Words, user: User, room_id: str | None,
               t: Text) -> None:
    """A group's language (its admins), or in the private chat the person's own."""
    code = (command.args or "").strip().lower()
    if code not in LANGUAGES:
        await tell(message, painter, t._("Choose a language: /lang ru, /lang en, /lang uk or /lang hr"))
        return
    private = message.chat.type == "private"
    tg_user = message.from_user
    if private and tg_user is not None:
        await words.set_person(tg_user, code)
    elif not await is_admin(bot, message.chat.id, int(user.id.split(":", 1)[1])):
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
    r.message.register(rules, Command("rules"))
    r.message.register(help_, Command("help"))
    r.message.register(help_, CommandStart(), F.chat.type.in_(GROUPS))
    r.message.register(lang, Command("lang"))
    return r
