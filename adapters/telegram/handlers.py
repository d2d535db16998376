"""Telegram updates -> service calls. Every callback is answered; nothing here knows a rule."""

from __future__ import annotations

import logging
from typing import Any

from aiogram import Bot, F, Router
from aiogram.exceptions import TelegramBadRequest, TelegramForbiddenError
from aiogram.filters import Command, CommandObject, CommandStart
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message
from aiogram.types import User as TgUser

from adapters.common.i18n import LANGUAGES, pick_language
from adapters.common.render import Text
from adapters.telegram import ui
from adapters.telegram.painter import Painter
from bot.room import PLAYING, User, room_id_for
from bot.service import GameService, Outcome
from engine.presets import PRESETS

log = logging.getLogger(__name__)

ALIASES = {"kozel": "kozel", "kozel4": "kozel-4", "kozel60": "kozel-60", "petukh": "petukh"}


class Context:
    """What handlers share: the service, the painter, the bot's username."""

    def __init__(self, service: GameService, painter: Painter, username: str,
                 default_language: str) -> None:
        self.service = service
        self.painter = painter
        self.username = username
        self.default_language = default_language

    def user(self, u: TgUser) -> User:
        return User(f"tg:{u.id}", u.full_name or str(u.id), pick_language(u.language_code,
                                                                         self.default_language))

    async def chat_text(self, chat_id: int) -> Text:
        return Text(await self.service.chat_language("tg", str(chat_id)))

    def user_text(self, u: TgUser) -> Text:
        return Text(pick_language(u.language_code, self.default_language))


def room_of(message: Message) -> str:
    thread = message.message_thread_id if message.is_topic_message else None
    return room_id_for("tg", str(message.chat.id), str(thread) if thread else None)


def _group(message: Message) -> bool:
    return message.chat.type in ("group", "supergroup")


async def _is_admin(bot: Bot, chat_id: int, user_id: int) -> bool:
    try:
        member = await bot.get_chat_member(chat_id, user_id)
    except (TelegramBadRequest, TelegramForbiddenError):
        return False
    return member.status in ("creator", "administrator")


def build_router(ctx: Context) -> Router:
    router = Router(name=__name__)
    svc = ctx.service

    async def reply(message: Message, text: str, **kw: Any) -> None:
        await message.answer(text, **kw)  # answer() keeps the forum topic

    async def refuse(message: Message, out: Outcome) -> None:
        t = await ctx.chat_text(message.chat.id)
        extra = out.data.get("message")
        await reply(message, t.reason(out.reason) + (f"\n{extra}" if extra else ""))

    async def group_only(message: Message) -> bool:
        if _group(message):
            return True
        t = ctx.user_text(message.from_user) if message.from_user else Text("ru")
        await message.answer(t._("This command works in a group chat: add me to a group."))
        return False

    # --- group commands -------------------------------------------------------------------

    @router.message(Command("newgame", "kozel", "kozel4", "kozel60", "petukh"))
    async def newgame(message: Message, command: CommandObject) -> None:
        if not await group_only(message) or message.from_user is None:
            return
        t = await ctx.chat_text(message.chat.id)
        name = command.command.lower()
        preset = ALIASES.get(name) or (command.args or "kozel").split()[0].lower()
        if name == "petukh" and command.args and command.args.split()[0].lower() in PRESETS:
            preset = command.args.split()[0].lower()  # /petukh petukh-25
        if preset not in PRESETS:
            await reply(message, t._("Unknown game. Available: {games}").format(
                games=", ".join(PRESETS)))
            return
        thread = message.message_thread_id if message.is_topic_message else None
        out = await svc.create("tg", str(message.chat.id), str(thread) if thread else None,
                               ctx.user(message.from_user), preset)
        if not out.ok:
            await refuse(message, out)

    @router.message(Command("join"))
    async def join(message: Message) -> None:
        if await group_only(message) and message.from_user:
            out = await svc.join(room_of(message), ctx.user(message.from_user))
            if not out.ok:
                await refuse(message, out)

    @router.message(Command("leave"))
    async def leave(message: Message) -> None:
        if await group_only(message) and message.from_user:
            out = await svc.leave(room_of(message), ctx.user(message.from_user))
            if not out.ok:
                await refuse(message, out)

    @router.message(Command("wait"))
    async def wait(message: Message) -> None:
        if await group_only(message) and message.from_user:
            out = await svc.wait(room_of(message), ctx.user(message.from_user))
            if not out.ok:
                await refuse(message, out)

    @router.message(Command("unwait"))
    async def unwait(message: Message) -> None:
        if await group_only(message) and message.from_user:
            out = await svc.unwait(room_of(message), ctx.user(message.from_user))
            if not out.ok:
                await refuse(message, out)

    @router.message(Command("addbot"))
    async def addbot(message: Message, command: CommandObject) -> None:
        if await group_only(message) and message.from_user:
            level = (command.args or "rules").split()[0].lower()
            out = await svc.add_bot(room_of(message), ctx.user(message.from_user), level)
            if not out.ok:
                await refuse(message, out)

    @router.message(Command("startgame"))
    async def startgame(message: Message) -> None:
        if await group_only(message) and message.from_user:
            out = await svc.start(room_of(message), ctx.user(message.from_user))
            if not out.ok:
                await refuse(message, out)

    @router.message(Command("cancel"))
    async def cancel(message: Message, bot: Bot) -> None:
        if await group_only(message) and message.from_user:
            admin = await _is_admin(bot, message.chat.id, message.from_user.id)
            out = await svc.cancel(room_of(message), ctx.user(message.from_user), admin)
            if not out.ok:
                await refuse(message, out)

    @router.message(Command("kick"))
    async def kick(message: Message, bot: Bot, command: CommandObject) -> None:
        if not await group_only(message) or message.from_user is None:
            return
        t = await ctx.chat_text(message.chat.id)
        target: str | int | None = None
        if message.reply_to_message and message.reply_to_message.from_user:
            target = f"tg:{message.reply_to_message.from_user.id}"
        else:
            for ent in message.entities or []:
                if ent.type == "text_mention" and ent.user:
                    target = f"tg:{ent.user.id}"
            if target is None and command.args:
                arg = command.args.strip().lstrip("@")
                room = await svc.room(room_of(message))
                if arg.isdigit() and room is not None:
                    target = int(arg) - 1
                elif room is not None:
                    for i, s in enumerate(room.seats):
                        if s is not None and s.name.lower() == arg.lower():
                            target = i
        if target is None:
            await reply(message, t._("Reply to the player's message with /kick, or give the seat "
                                     "number: /kick 2"))
            return
        admin = await _is_admin(bot, message.chat.id, message.from_user.id)
        out = await svc.kick(room_of(message), ctx.user(message.from_user), target, admin)
        if not out.ok:
            await refuse(message, out)

    @router.message(Command("settings"))
    async def settings(message: Message) -> None:
        if not await group_only(message):
            return
        t = await ctx.chat_text(message.chat.id)
        table = await svc.table(room_of(message))
        if table is None or table.state != "lobby":
            await reply(message, t.reason("no_room" if table is None else "already_started"))
            return
        await reply(message, t._("Rules of this table:"), reply_markup=ui.settings_markup(t, table))

    @router.message(Command("invite"))
    async def invite(message: Message) -> None:
        if not await group_only(message):
            return
        t = await ctx.chat_text(message.chat.id)
        room = room_of(message)
        payload = "j" + room.split(":", 1)[1].replace("/", "_")
        join_url = f"https://t.me/{ctx.username}?start={payload}"
        group_url = f"https://t.me/{ctx.username}?startgroup=new"
        kb = InlineKeyboardMarkup(inline_keyboard=[
            [InlineKeyboardButton(text="🪑 " + t._("Join this table"), url=join_url)],
            [InlineKeyboardButton(text="➕ " + t._("Add the bot to another group"),
                                  url=group_url)],
        ])
        await reply(message, t._("Invite friends: the first link seats them at this table.\n"
                                 "{url}").format(url=join_url), reply_markup=kb)

    @router.message(Command("score"))
    async def score(message: Message) -> None:
        if not await group_only(message):
            return
        t = await ctx.chat_text(message.chat.id)
        table = await svc.table(room_of(message))
        if table is None or table.state == "lobby":
            await reply(message, t.reason("not_started" if table else "no_room"))
            return
        rows = [t._("Score: {score} (to {target})").format(
            score=" · ".join(f"{t.side_name(table, i)} {v}" for i, v in enumerate(table.scores)),
            target=table.target), t._("deal {n}").format(n=table.deal_no)]
        await reply(message, "\n".join(rows))

    @router.message(Command("series"))
    async def series(message: Message) -> None:
        if not await group_only(message):
            return
        t = await ctx.chat_text(message.chat.id)
        rows = await svc.series("tg", str(message.chat.id))
        if not rows:
            await reply(message, t._("No finished matches in this chat yet."))
            return
        lines = [t._("Series in this chat:")]
        for r in rows[:10]:
            sides = [("+".join(side), w) for side, w in zip(r["sides"], r["wins"], strict=True)]
            lines.append(" : ".join(f"{n} {w}" if i == 0 else f"{w} {n}"
                                    for i, (n, w) in enumerate(sides)) if len(sides) == 2 else
                         " · ".join(f"{n} {w}" for n, w in sides))
        await reply(message, "\n".join(lines))

    @router.message(Command("top"))
    async def top(message: Message) -> None:
        if not await group_only(message):
            return
        t = await ctx.chat_text(message.chat.id)
        rows = await svc.leaderboard("tg", str(message.chat.id))
        if not rows:
            await reply(message, t._("No finished matches in this chat yet."))
            return
        lines = [t._("Leaderboard (won / played):")]
        for i, r in enumerate(rows[:15], start=1):
            lines.append(f"{i}. {r['name']} — {r['won']}/{r['played']} ({r['rate']:.0%})")
        await reply(message, "\n".join(lines))

    @router.message(Command("rules"))
    async def rules(message: Message, command: CommandObject) -> None:
        t = await ctx.chat_text(message.chat.id) if _group(message) else (
            ctx.user_text(message.from_user) if message.from_user else Text("ru"))
        preset = (command.args or "").strip().lower() or None
        if preset is None and _group(message):
            room = await svc.room(room_of(message))
            preset = room.preset if room else "kozel"
        preset = ALIASES.get(preset or "kozel", preset or "kozel")
        if preset not in PRESETS:
            await reply(message, t._("Unknown game. Available: {games}").format(
                games=", ".join(PRESETS)))
            return
        await reply(message, ui.rules_text(t, preset))

    @router.message(Command("lang"))
    async def lang(message: Message, command: CommandObject) -> None:
        code = (command.args or "").strip().lower()
        if code not in LANGUAGES:
            t = await ctx.chat_text(message.chat.id)
            await reply(message, t._("Choose a language: /lang ru or /lang en"))
            return
        await svc.set_chat_language("tg", str(message.chat.id), code)
        await reply(message, Text(code)._("Language: English"))

    @router.message(Command("help"))
    async def help_(message: Message) -> None:
        t = await ctx.chat_text(message.chat.id) if _group(message) else (
            ctx.user_text(message.from_user) if message.from_user else Text("ru"))
        await reply(message, help_text(t))

    @router.message(Command("hand"))
    async def hand_cmd(message: Message, bot: Bot) -> None:
        if message.from_user is None:
            return
        user = ctx.user(message.from_user)
        if _group(message):
            note = await show_hand(bot, room_of(message), message.from_user, None,
                                   message.chat.id, message.ephemeral_message_id)
            if note == "deeplink":
                t = ctx.user_text(message.from_user)
                payload = "h" + room_of(message).split(":", 1)[1].replace("/", "_")
                kb = InlineKeyboardMarkup(inline_keyboard=[[InlineKeyboardButton(
                    text="📩 " + t._("Open the bot"),
                    url=f"https://t.me/{ctx.username}?start={payload}")]])
                await reply(message, t._("I can't show your cards here: open the bot."),
                            reply_markup=kb)
        else:
            await show_private_hands(bot, message.from_user, user)

    # --- private chat ---------------------------------------------------------------------

    @router.message(CommandStart())
    async def start(message: Message, bot: Bot, command: CommandObject) -> None:
        if message.from_user is None:
            return
        t = ctx.user_text(message.from_user)
        user = ctx.user(message.from_user)
        arg = command.args or ""
        if message.chat.type != "private":
            await reply(message, help_text(t))
            return
        if arg.startswith("j") or arg.startswith("h"):
            rest = arg[1:]
            chat, _, thread = rest.partition("_")
            rid = room_id_for("tg", chat, thread or None)
            if arg.startswith("j"):
                out = await svc.join(rid, user)
                if not out.ok and out.reason != "already_seated":
                    await message.answer(t.reason(out.reason))
                    return
                await message.answer(t._("You are at the table. Go back to the group to play."))
                return
            await svc.set_seat_data(rid, user.id, tg_mode="private", lang=user.lang)
            await show_private_hand(bot, rid, message.from_user, t)
            return
        await message.answer(help_text(t))

    async def show_private_hands(bot: Bot, tg_user: TgUser, user: User) -> None:
        t = ctx.user_text(tg_user)
        rooms = [r for r in await svc.rooms_of(user.id) if r.state == PLAYING]
        if not rooms:
            await bot.send_message(tg_user.id, t._("You are not in a game now."))
            return
        for room in rooms[:3]:
            await show_private_hand(bot, room.id, tg_user, t)

    async def show_private_hand(bot: Bot, rid: str, tg_user: TgUser, t: Text) -> bool:
        room = await svc.room(rid)
        user_id = f"tg:{tg_user.id}"
        hand = svc.hand_of(room, user_id) if room else None
        if room is None or hand is None:
            await bot.send_message(tg_user.id, t._("You are not in a game now."))
            return True
        try:
            sent = await bot.send_message(tg_user.id, ui.hand_text(t, hand),
                                          reply_markup=ui.hand_markup(t, hand, 0, True))
        except (TelegramForbiddenError, TelegramBadRequest):
            return False
        await svc.set_seat_data(rid, user_id, tg_hand={"mode": "private", "msg": sent.message_id},
                                lang=t.lang)
        ctx.painter.hand_seen.pop((rid, user_id), None)
        return True

    async def show_hand(bot: Bot, rid: str, tg_user: TgUser, callback_id: str | None,
                        group_chat: int, reply_to_ephemeral: int | None = None) -> str | None:
        """Show the hand ephemerally in the group; fall back to the private chat; else say
        how. Returns a text for the callback answer, or None."""
        user_id = f"tg:{tg_user.id}"
        t = ctx.user_text(tg_user)
        room = await svc.room(rid)
        if room is None or room.state != PLAYING:
            return t.reason("not_started" if room else "no_room")
        hand = svc.hand_of(room, user_id)
        if hand is None:
            return t.reason("not_your_seat")
        mode = room.sdata.get(user_id, {}).get("tg_mode", "ephemeral")
        if mode == "ephemeral":
            try:
                from aiogram.types import EphemeralMessageParameters, ReplyParameters

                sent = await bot.send_message(
                    group_chat, ui.hand_text(t, hand),
                    message_thread_id=int(room.thread) if room.thread else None,
                    reply_markup=ui.hand_markup(t, hand, 0, False),
                    ephemeral_message_parameters=EphemeralMessageParameters(
                        receiver_user_id=tg_user.id, callback_query_id=callback_id),
                    reply_parameters=ReplyParameters(ephemeral_message_id=reply_to_ephemeral)
                    if reply_to_ephemeral else None,
                )
                eid = sent.ephemeral_message_id or sent.message_id
                await svc.set_seat_data(rid, user_id, tg_hand={"mode": "ephemeral", "msg": eid},
                                        lang=t.lang)
                ctx.painter.hand_seen.pop((rid, user_id), None)
                return None
            except (TelegramBadRequest, TelegramForbiddenError) as e:
                log.info("ephemeral hand for %s failed: %s", user_id, e)
        if await show_private_hand(bot, rid, tg_user, t):
            return t._("Your cards are in our private chat.")
        return "deeplink"

    # --- callbacks ------------------------------------------------------------------------

    @router.callback_query(F.data.startswith("L:"))
    async def lobby_button(query: CallbackQuery, bot: Bot) -> None:
        msg = query.message
        if not isinstance(msg, Message):
            await query.answer()
            return
        rid = room_of(msg)
        user = ctx.user(query.from_user)
        what = (query.data or "")[2:]
        t = ctx.user_text(query.from_user)
        if what == "join":
            out = await svc.join(rid, user)
        elif what == "leave":
            out = await svc.leave(rid, user)
        elif what == "bot":
            out = await svc.add_bot(rid, user)
        elif what == "start":
            out = await svc.start(rid, user)
        elif what == "set":
            table = await svc.table(rid)
            if table is None or table.state != "lobby":
                await query.answer(t.reason("already_started" if table else "no_room"),
                                   show_alert=True)
                return
            ct = await ctx.chat_text(msg.chat.id)
            await msg.answer(ct._("Rules of this table:"),
                             reply_markup=ui.settings_markup(ct, table))
            await query.answer()
            return
        else:
            await query.answer(t.reason("bad_token"), show_alert=True)
            return
        await query.answer(None if out.ok else t.reason(out.reason), show_alert=not out.ok)

    @router.callback_query(F.data.startswith("O:"))
    async def option_button(query: CallbackQuery, bot: Bot) -> None:
        msg = query.message
        t = ctx.user_text(query.from_user)
        parts = (query.data or "").split(":")
        if not isinstance(msg, Message) or len(parts) != 3:
            await query.answer(t.reason("bad_token"), show_alert=True)
            return
        rid = room_of(msg)
        user = ctx.user(query.from_user)
        admin = await _is_admin(bot, msg.chat.id, query.from_user.id)
        _, name, raw = parts
        value: Any = {"true": True, "false": False}.get(raw, raw)
        if name == "size":
            out = await svc.set_size(rid, user, int(raw) if raw.isdigit() else 0, admin)
        else:
            out = await svc.set_option(rid, user, name, value, admin)
        if not out.ok:
            await query.answer(t.reason(out.reason), show_alert=True)
            return
        await query.answer()
        table = await svc.table(rid)
        if table is not None and table.state == "lobby":
            ct = await ctx.chat_text(msg.chat.id)
            try:
                await msg.edit_reply_markup(reply_markup=ui.settings_markup(ct, table))
            except TelegramBadRequest:
                pass

    @router.callback_query(F.data == "H")
    async def my_cards(query: CallbackQuery, bot: Bot) -> None:
        msg = query.message
        if not isinstance(msg, Message):
            await query.answer()
            return
        note = await show_hand(bot, room_of(msg), query.from_user, query.id, msg.chat.id)
        await answer_note(query, note, room_of(msg))

    async def answer_note(query: CallbackQuery, note: str | None, rid: str) -> None:
        if note == "deeplink":
            payload = "h" + rid.split(":", 1)[1].replace("/", "_")
            await query.answer(url=f"https://t.me/{ctx.username}?start={payload}")
        elif note:
            await query.answer(note, show_alert=True)
        else:
            try:
                await query.answer()
            except TelegramBadRequest:
                pass  # the ephemeral send already answered this query

    @router.callback_query(F.data == "Q")
    async def queue(query: CallbackQuery) -> None:
        msg = query.message
        t = ctx.user_text(query.from_user)
        if not isinstance(msg, Message):
            await query.answer()
            return
        out = await svc.wait(room_of(msg), ctx.user(query.from_user))
        if out.ok:
            await query.answer(t._("You are in the queue for a seat."))
        else:
            await query.answer(t.reason(out.reason), show_alert=True)

    @router.callback_query(F.data == "R")
    async def again(query: CallbackQuery) -> None:
        msg = query.message
        t = ctx.user_text(query.from_user)
        if not isinstance(msg, Message):
            await query.answer()
            return
        out = await svc.rematch(room_of(msg), ctx.user(query.from_user))
        await query.answer(None if out.ok else t.reason(out.reason), show_alert=not out.ok)

    @router.callback_query(F.data.startswith("A|"))
    async def act(query: CallbackQuery) -> None:
        t = ctx.user_text(query.from_user)
        token = (query.data or "")[2:]
        msg = query.message
        group_room = None
        if isinstance(msg, Message) and _group(msg) and not msg.ephemeral_message_id:
            group_room = room_of(msg)  # a button on a group-visible message
        out = await svc.act(token, ctx.user(query.from_user), update_id=f"cb{query.id}",
                            room_id=group_room)
        if out.ok:
            await query.answer()
        else:
            await query.answer(t.reason(out.reason), show_alert=True)

    @router.callback_query(F.data.startswith("S|"))
    async def select(query: CallbackQuery, bot: Bot) -> None:
        t = ctx.user_text(query.from_user)
        parts = (query.data or "").split("|")
        msg = query.message
        if len(parts) != 4 or not parts[3].isdigit() or not isinstance(msg, Message):
            await query.answer(t.reason("bad_token"), show_alert=True)
            return
        _, rid, moment, mask_text = parts
        room = await svc.room(rid)
        user_id = f"tg:{query.from_user.id}"
        hand = svc.hand_of(room, user_id) if room else None
        if hand is None:
            await query.answer(t.reason("not_your_seat"), show_alert=True)
            return
        mask = int(mask_text) if moment == f"{hand.table.deal_no}.{hand.trick}" else 0
        if mask >= 1 << len(hand.cards):
            mask = 0
        private = msg.chat.type == "private"
        markup = ui.hand_markup(t, hand, mask, private)
        hint = None
        if mask and not any(c.mask == mask for c in hand.choices):
            hint = _selection_hint(t, hand, mask)
        try:
            if msg.ephemeral_message_id:
                await bot.edit_ephemeral_message_reply_markup(
                    chat_id=msg.chat.id, receiver_user_id=query.from_user.id,
                    ephemeral_message_id=msg.ephemeral_message_id, reply_markup=markup)
            else:
                await msg.edit_reply_markup(reply_markup=markup)
        except TelegramBadRequest:
            pass
        await query.answer(hint)

    @router.callback_query(F.data.startswith("D|"))
    async def delivery(query: CallbackQuery, bot: Bot) -> None:
        t = ctx.user_text(query.from_user)
        parts = (query.data or "").split("|")
        if len(parts) != 3 or parts[2] not in ("p", "e"):
            await query.answer(t.reason("bad_token"), show_alert=True)
            return
        rid = parts[1]
        user_id = f"tg:{query.from_user.id}"
        room = await svc.room(rid)
        if room is None or room.seat_of(user_id) is None:
            await query.answer(t.reason("not_your_seat"), show_alert=True)
            return
        if parts[2] == "p":
            await svc.set_seat_data(rid, user_id, tg_mode="private")
            if await show_private_hand(bot, rid, query.from_user, t):
                await query.answer(t._("Your cards are in our private chat."))
            else:
                payload = "h" + rid.split(":", 1)[1].replace("/", "_")
                await query.answer(url=f"https://t.me/{ctx.username}?start={payload}")
            return
        await svc.set_seat_data(rid, user_id, tg_mode="ephemeral")
        await query.answer(t._("Press “My cards” in the group."))

    @router.callback_query()
    async def unknown(query: CallbackQuery) -> None:
        t = ctx.user_text(query.from_user)
        await query.answer(t.reason("bad_token"), show_alert=True)

    return router


def _selection_hint(t: Text, hand: Any, mask: int) -> str | None:
    n = bin(mask).count("1")
    if hand.prompt == "answer" and hand.need and n != hand.need:
        return t.n("You need {n} card: as many as were led.",
                   "You need {n} cards: as many as were led.", hand.need).format(n=hand.need)
    if hand.prompt == "lead" and hand.table.preset in ("kozel", "kozel-4"):
        return t.reason("mixed_suits")
    sizes = {len(c.cards) for c in hand.choices if c.mask}
    if not sizes or n in sizes:
        return None
    if sizes == {1}:
        return t.reason("one_card")
    return t.reason("stock_too_small" if hand.prompt == "exchange" else "wrong_action")


def help_text(t: Text) -> str:
    return "\n".join([
        "🐐 " + t._("Kozel bot: card games with friends in this chat."),
        "",
        t._("/newgame [game] — open a table (also /kozel, /kozel4, /kozel60, /petukh)"),
        t._("Games: {games}").format(games=", ".join(PRESETS)),
        t._("/join, /leave — take or leave a seat"),
        t._("/addbot [rules|random] — seat a computer player"),
        t._("/startgame — deal"),
        t._("/settings — the table's rules, before the start"),
        t._("/hand — show my cards (only I see them)"),
        t._("/invite — a link that seats friends at this table"),
        t._("/kick — remove a player (reply to them; creator or admin)"),
        t._("/wait, /unwait — queue for a seat at a table played with elimination"),
        t._("/cancel — end the game (creator or admin)"),
        t._("/score, /series, /top — the match, the series, the leaderboard"),
        t._("/rules [game] — a short rules card"),
        t._("/lang ru|en — the chat's language"),
    ])
