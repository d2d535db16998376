"""/history: the chat's last ended matches, and a replay of each, a deal at a time (issue
36.4). The answer is for its sender alone (``replies.tell``); its buttons page it in place
and work for him only: anyone else's press, a forged or a stale one, is told so and changes
nothing."""

from __future__ import annotations

from aiogram import F, Router
from aiogram.filters import Command
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message
from aiogram.utils.callback_answer import CallbackAnswer
from aiogram.utils.keyboard import InlineKeyboardBuilder

from adapters.common import replay as words
from adapters.common.render import Text
from adapters.telegram import callbacks as cb
from adapters.telegram.handlers.common import GROUPS
from adapters.telegram.handlers.lobby import edit_settings
from adapters.telegram.keyboards import kb_button
from adapters.telegram.painter import Painter
from adapters.telegram.replies import tell
from bot.history import ChatHistory, Replay
from bot.service import GameService

LIMIT = 3900  # under Telegram's 4096 characters a message


async def history(message: Message, chat_history: ChatHistory, painter: Painter, t: Text) -> None:
    entries = await chat_history.entries("tg", str(message.chat.id))
    owner = message.from_user.id if message.from_user is not None and not message.from_user.is_bot else 0
    markup = list_markup(t, entries, 0, owner) if owner and entries else None
    await tell(message, painter, words.history_page(t, entries, 0), markup)


def list_markup(t: Text, entries: list[dict[str, object]], page: int, owner: int) -> InlineKeyboardMarkup:
    kb = InlineKeyboardBuilder()
    first = page * words.PER_PAGE
    shown = entries[first : first + words.PER_PAGE]
    kb.row(
        *[
            kb_button(
                f"🎬 {first + i + 1}", cb.History(owner=owner, key=str(e["key"]), deal=0, page=0).pack()
            )
            for i, e in enumerate(shown)
            if e.get("replay")
        ]
    )
    nav = []
    if page > 0:
        nav.append(kb_button("◀", cb.History(owner=owner, key="", deal=0, page=page - 1).pack()))
    if page + 1 < words.pages_of_list(entries):
        nav.append(kb_button("▶", cb.History(owner=owner, key="", deal=0, page=page + 1).pack()))
    kb.row(*nav)
    return kb.as_markup()


def replay_markup(t: Text, rep: Replay, data: cb.History, pages: int) -> InlineKeyboardMarkup:
    kb = InlineKeyboardBuilder()

    def to(deal: int, page: int) -> str:
        return cb.History(owner=data.owner, key=data.key, deal=deal, page=page).pack()

    row = []
    if data.deal > 0:
        row.append(kb_button("⏮ " + t._("Deal before"), to(data.deal - 1, 0)))
    if data.page > 0:
        row.append(kb_button("◀", to(data.deal, data.page - 1)))
    if data.page + 1 < pages:
        row.append(kb_button("▶", to(data.deal, data.page + 1)))
    if data.deal + 1 < len(rep.deals):
        row.append(kb_button(t._("Next deal") + " ⏭", to(data.deal + 1, 0)))
    kb.row(*row)
    kb.row(
        kb_button(
            "📜 " + t._("Back to the list"), cb.History(owner=data.owner, key="", deal=0, page=0).pack()
        )
    )
    return kb.as_markup()


async def history_button(
    query: CallbackQuery,
    callback_data: cb.History,
    service: GameService,
    chat_history: ChatHistory,
    painter: Painter,
    t: Text,
    callback_answer: CallbackAnswer,
) -> None:
    msg = query.message
    if query.from_user.id != callback_data.owner:
        refuse(callback_answer, t._("These buttons are for the one who asked: send /history yourself."))
        return
    if not isinstance(msg, Message) or not history_message(msg):
        refuse(callback_answer, t.reason("bad_token"))  # forged onto another message
        return
    chat = str(msg.chat.id)
    if not callback_data.key:
        entries = await chat_history.entries("tg", chat)
        page = max(0, min(callback_data.page, words.pages_of_list(entries) - 1))
        text = words.history_page(t, entries, page)
        await edit_settings(painter, msg, query, t, list_markup(t, entries, page, callback_data.owner), text)
        return
    rep = await chat_history.replay("tg", chat, callback_data.key)
    if rep is None or not 0 <= callback_data.deal < len(rep.deals):
        refuse(callback_answer, t._("This replay is no longer kept."))
        return
    pages = words.replay_pages(t, rep, callback_data.deal, LIMIT)
    if not 0 <= callback_data.page < len(pages):
        refuse(callback_answer, t.reason("bad_token"))
        return
    markup = replay_markup(t, rep, callback_data, len(pages))
    web = await web_link(service, chat_history, chat, callback_data.key)
    if web is not None:
        markup.inline_keyboard.append(
            [InlineKeyboardButton(text="🌐 " + t._("Step through it on the web"), url=web)]
        )
    await edit_settings(painter, msg, query, t, markup, pages[callback_data.page])


async def web_link(service: GameService, chat_history: ChatHistory, chat: str, key: str) -> str | None:
    """The web table's step-through of the replay, when the bot serves a web table."""
    base = service.settings.webapp_url
    link = await chat_history.replay_link("tg", chat, key) if base else None
    return f"{str(base).rstrip('/')}/replay#{link}" if link else None


def history_message(msg: Message) -> bool:
    """Whether the pressed message is a /history answer (a forged press on the table's
    message must not turn it into a replay)."""
    rows = msg.reply_markup.inline_keyboard if msg.reply_markup is not None else []
    return any((b.callback_data or "").startswith("HY~") for row in rows for b in row)


def refuse(answer: CallbackAnswer, text: str) -> None:
    answer.text = text
    answer.show_alert = True


def router() -> Router:
    r = Router(name=__name__)
    r.message.register(history, Command("history"), F.chat.type.in_(GROUPS))
    r.callback_query.register(history_button, cb.History.filter())
    return r
