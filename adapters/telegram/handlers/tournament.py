"""Tournaments in a group (issue 36.3): ``/tournament <game> [rounds]``, the tournament
message's buttons, and the message itself, sent once and edited as the tournament goes
on (every write through the painter's budget for the chat)."""

from __future__ import annotations

from typing import Any

from aiogram import F, Router
from aiogram.filters import Command, CommandObject
from aiogram.methods import EditMessageText, SendMessage
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message
from aiogram.utils.callback_answer import CallbackAnswer

from adapters.common import tournament as common
from adapters.common.render import Text
from adapters.telegram import callbacks as cb
from adapters.telegram.handlers.common import GROUPS, game_of
from adapters.telegram.painter import Painter
from adapters.telegram.posts import Post
from adapters.telegram.replies import is_admin, tell
from bot.changes import Reason
from bot.room import User
from bot.tournament import Tournament
from bot.tournaments import Tournaments, TOutcome

MESSAGE = "tg_msg"  # the tournament's record of its message id
EDIT_GAP = 5.0  # seconds between edits of a sign-up or standings message at least
RESEND_AFTER = 120.0  # seconds: a first send never confirmed (dropped) is made again


def refusal(t: Text, out: TOutcome) -> str:
    return common.refusal(t, out) or t.reason(out.reason)


def usage(t: Text) -> str:
    return t._("A tournament: /tournament <game> [rounds], e.g. /tournament kozel 3.")


async def tournament_command(
    message: Message,
    command: CommandObject,
    tournaments: Tournaments,
    painter: Painter,
    user: User,
    chat_t: Text,
    t: Text,
) -> None:
    words = (command.args or "").split()
    preset = game_of(words[0]) if words else None
    if preset is None or len(words) > 2:
        await tell(message, painter, usage(t))
        return
    rounds: int | None = None
    if len(words) == 2:
        if not (words[1].isascii() and words[1].isdigit()) or len(words[1]) > 2:  # not ²
            await tell(message, painter, refusal(t, TOutcome(False, Reason.BAD_ROUNDS)))
            return
        rounds = int(words[1])
    thread = message.message_thread_id if message.is_topic_message else None
    out = await tournaments.open_tournament(
        "tg",
        str(message.chat.id),
        str(thread) if thread else None,
        user,
        preset,
        rounds,
        common.bot_names(chat_t),
    )
    if not out.ok:
        await tell(message, painter, refusal(t, out))


async def tournament_button(
    query: CallbackQuery,
    callback_data: cb.Tour,
    tournaments: Tournaments,
    painter: Painter,
    user: User,
    room_id: str | None,
    t: Text,
    callback_answer: CallbackAnswer,
) -> None:
    msg = query.message
    if room_id is None or not isinstance(msg, Message):
        callback_answer.text, callback_answer.show_alert = t.reason("bad_token"), True
        return
    action = callback_data.action
    out = await common.press(tournaments, action, room_id, callback_data.tid, user, False)
    if (
        not out.ok
        and out.reason == Reason.NOT_ALLOWED
        and await is_admin(painter, msg.chat.id, query.from_user.id)
    ):
        out = await common.press(tournaments, action, room_id, callback_data.tid, user, True)
    if out.ok:
        callback_answer.text = common.done_words(t, action)
    else:
        callback_answer.text, callback_answer.show_alert = refusal(t, out), True


def markup_of(t: Text, tour: Tournament) -> InlineKeyboardMarkup | None:
    buttons = [
        InlineKeyboardButton(
            text=f"{b.icon} {t._(b.label)}", callback_data=cb.Tour(action=b.action, tid=tour.id).pack()
        )
        for b in common.tour_buttons(tour)
    ]
    if not buttons:
        return None
    return InlineKeyboardMarkup(inline_keyboard=[buttons[:2], buttons[2:]] if len(buttons) > 2 else [buttons])


class TournamentPainter:
    """Draws a tournament's message: sent at the first change, edited at every other.
    Changes while the first send waits are drawn once it is sent, from the freshest."""

    def __init__(self, tournaments: Tournaments, painter: Painter) -> None:
        self.tournaments = tournaments
        self.painter = painter
        self.sending: dict[str, float] = {}  # room -> when its first send was queued
        self.again: set[str] = set()
        self.edited: dict[str, float] = {}  # room -> when its last edit is due

    async def changed(self, tour: Tournament) -> None:
        if tour.platform != "tg":
            return
        chat = int(tour.chat)
        t = Text(tour.lang)
        text, markup = common.tournament_text(t, tour), markup_of(t, tour)
        known = await self.tournaments.tournament_data(tour.room, MESSAGE)
        if known is not None:
            edit = EditMessageText(chat_id=chat, message_id=int(known), text=text, reply_markup=markup)
            # Join/Leave pressed over and over: one edit waits at most, the newest, and they
            # are spaced as the table's routine edits are (the chat's budget is for tables)
            now = self.painter.clock.now()
            last = self.edited.get(tour.room)
            if last is None:
                due = now
            elif last > now:
                due = last  # the waiting edit's turn, taken over by this newer one
            else:
                due = max(now, last + EDIT_GAP)
            self.edited[tour.room] = due
            await self.painter.outbox.post(Post(chat, edit, supersedes=f"tour:{known}", not_before=due))
            return
        queued = self.sending.get(tour.room)
        if queued is not None and self.painter.clock.now() - queued < RESEND_AFTER:
            self.again.add(tour.room)
            return
        self.sending[tour.room] = self.painter.clock.now()  # (a send dropped: again later)
        thread = int(tour.thread) if tour.thread else None
        send = SendMessage(chat_id=chat, message_thread_id=thread, text=text, reply_markup=markup)
        await self.painter.outbox.post(Post(chat, send, on_sent=self._sent(tour.room, tour.id)))

    def _sent(self, room_id: str, tid: str) -> Any:
        async def sent(result: Any) -> None:
            self.sending.pop(room_id, None)
            message_id = getattr(result, "message_id", None)
            if message_id is None:
                return
            await self.tournaments.set_tournament_data(room_id, MESSAGE, str(message_id))
            if room_id in self.again:
                self.again.discard(room_id)
                fresh = await self.tournaments.tournament(room_id)
                if fresh is not None and fresh.id == tid:
                    await self.changed(fresh)

        return sent


def router() -> Router:
    r = Router(name=__name__)
    r.message.filter(F.chat.type.in_(GROUPS))
    r.message.register(tournament_command, Command("tournament"))
    r.callback_query.register(tournament_button, cb.Tour.filter())
    return r
