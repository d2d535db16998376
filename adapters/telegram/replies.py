"""Answers to commands: meant for the one who sent it, and never outside the chat's budget.

An ephemeral command (registered with ``is_ephemeral``) gets an ephemeral reply only its
sender sees; a command in the private chat a message there; any other command in a group
a reply to it, which waits for the group's budget like every group write.
"""

from __future__ import annotations

from aiogram.types import InlineKeyboardMarkup, Message

from adapters.telegram.painter import Painter
from adapters.telegram.posts import Post


async def tell(
    message: Message,
    painter: Painter,
    text: str,
    markup: InlineKeyboardMarkup | None = None,
    match: tuple[str, int] | None = None,
) -> None:
    """``match``: (room, generation) the answer is about: dropped if that match is
    cancelled while the answer still waits for the budget."""
    chat = message.chat
    room, gen = match if match is not None else (None, None)
    if message.ephemeral_message_id or chat.type == "private":
        method = message.reply(text, reply_markup=markup)  # fills the ephemeral parameters
        await painter.post(Post(chat.id, method, budget=chat.type == "private", room=room, gen=gen))
        return
    thread = message.message_thread_id if message.is_topic_message else None
    await painter.say(
        chat.id, text, thread=thread, markup=markup, reply_to=message.message_id, room=room, gen=gen
    )


def group(message: Message) -> bool:
    return message.chat.type in ("group", "supergroup")


async def is_admin(painter: Painter, chat_id: int, user_id: int) -> bool:
    """A chat admin (or its creator); a private chat's owner is the admin of it. Asked of
    Telegram at most once every few seconds per person (``adapters/telegram/members.py``)."""
    return await painter.members.is_admin(chat_id, user_id)
