"""The chat table's way to the web table (issue 34): a button that opens it in Telegram."""

from __future__ import annotations

from aiogram import Bot
from aiogram.types import InlineKeyboardButton, WebAppInfo
from aiogram.utils.deep_linking import create_startapp_link

from adapters.common.render import Text
from adapters.telegram.limits import chat_of
from bot import invites
from bot.config import Settings
from bot.room import PLAYING, Room


async def web_table_button(bot: Bot, settings: Settings, room: Room, t: Text) -> InlineKeyboardButton | None:
    """The button that opens the web table while a match is on: in a group a link to the
    Mini App (``web_app`` buttons work in private chats only), in the private chat a
    ``web_app`` button. Both carry the table's link (``bot/invites.py``), never a card.
    None without the settings (``WEBAPP_NAME`` for groups, ``WEBAPP_URL`` in private)."""
    if room.state != PLAYING:
        return None
    payload = invites.payload_of(room)
    label = "🎴 " + t._("Open the table")
    if chat_of(room.id)[0] > 0:  # a practice game in the private chat
        if not settings.webapp_url:
            return None
        return InlineKeyboardButton(text=label, web_app=WebAppInfo(url=f"{settings.webapp_url}?t={payload}"))
    if not settings.webapp_name:
        return None
    link = await create_startapp_link(bot, payload, app_name=settings.webapp_name)
    return InlineKeyboardButton(text=label, url=link)
