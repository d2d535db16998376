"""Answers to commands: for the one who sent it, and never out of the table's share.

An answer (to an info command, a refusal) is for its sender alone; in a public group,
answers written where everyone sees them are how one member who sends ``/top`` every few
seconds froze a table (issue 33). So:

- an ephemeral command (every group command is registered with ``is_ephemeral``: clients
  send them so) gets an ephemeral reply only its sender sees, outside the group's budget;
- a command in the private chat gets a message there;
- a plain command in a group (an old client, a typed ``/top@bot``): an ephemeral message
  to its sender when the bot is an admin of the group (admins may send those); else the
  answer goes to his private chat with the bot, headed with the group's name; if he never
  started the bot, a 🤷 reaction on his command says it could not be answered here.

Only an anonymous admin's command (nobody to answer privately) is answered in the group,
as an ``info`` post: a small share of the budget of its own, dropped first when they pile
up. What everyone must see (a cancelled game, a result) is the painter's, not this.
"""

from __future__ import annotations

from aiogram.methods import SendMessage, SetMessageReaction
from aiogram.types import (
    EphemeralMessageParameters,
    InlineKeyboardMarkup,
    Message,
    ReactionTypeEmoji,
)

from adapters.telegram.painter import Painter
from adapters.telegram.posts import Post

UNANSWERED = "🤷"  # the reaction when an answer could not reach its sender


async def tell(
    message: Message,
    painter: Painter,
    text: str,
    markup: InlineKeyboardMarkup | None = None,
    match: tuple[str, int] | None = None,
) -> None:
    """Answer ``message`` to its sender alone. ``match``: (room, generation) the answer is
    about: dropped if that match is cancelled while the answer still waits."""
    chat = message.chat
    room, gen = match if match is not None else (None, None)
    if message.ephemeral_message_id or chat.type == "private":
        method = message.reply(text, reply_markup=markup)  # fills the ephemeral parameters
        await painter.outbox.post(Post(chat.id, method, budget=chat.type == "private", room=room, gen=gen))
        return
    thread = message.message_thread_id if message.is_topic_message else None
    sender = message.from_user
    if sender is None or sender.is_bot:  # an anonymous admin: nobody to answer privately
        await painter.outbox.say(
            chat.id, text, thread=thread, markup=markup, reply_to=message.message_id, info=True
        )
        return
    if await painter.members.is_admin(chat.id, painter.bot.id):
        ephemeral = SendMessage(
            chat_id=chat.id,
            message_thread_id=thread,
            text=text,
            reply_markup=markup,
            ephemeral_message_parameters=EphemeralMessageParameters(receiver_user_id=sender.id),
        )
        await painter.outbox.post(Post(chat.id, ephemeral, budget=False, room=room, gen=gen, info=True))
        return
    shrug = SetMessageReaction(
        chat_id=chat.id,
        message_id=message.message_id,
        reaction=[ReactionTypeEmoji(emoji=UNANSWERED)],
    )
    private = SendMessage(
        chat_id=sender.id,
        text=f"💬 {chat.title or ''}\n{text}" if chat.title else text,
        reply_markup=markup if _works_anywhere(markup) else None,
    )
    await painter.outbox.post(
        Post(
            sender.id,
            private,
            room=room,
            gen=gen,
            info=True,
            fallback=Post(chat.id, shrug, budget=False, info=True),
        )
    )


async def offer(message: Message, painter: Painter, text: str, markup: InlineKeyboardMarkup) -> None:
    """Buttons that act in this chat (a game picker, a table's settings), for the sender:
    ephemeral where that is possible, else in the group as an ``info`` post (the private
    chat would be the wrong place for them)."""
    chat = message.chat
    private_ok = chat.type == "private" or message.ephemeral_message_id
    if private_ok or message.from_user is None or await painter.members.is_admin(chat.id, painter.bot.id):
        await tell(message, painter, text, markup)
        return
    thread = message.message_thread_id if message.is_topic_message else None
    await painter.outbox.say(
        chat.id, text, thread=thread, markup=markup, reply_to=message.message_id, info=True
    )


def _works_anywhere(markup: InlineKeyboardMarkup | None) -> bool:
    """Link buttons work in any chat; a callback button means the chat it is pressed in."""
    return markup is not None and all(b.url for row in markup.inline_keyboard for b in row)


def group(message: Message) -> bool:
    return message.chat.type in ("group", "supergroup")


async def is_admin(painter: Painter, chat_id: int, user_id: int) -> bool:
    """A chat admin (or its creator); a private chat's owner is the admin of it. Asked of
    Telegram at most once every few seconds per person (``adapters/telegram/members.py``)."""
    return await painter.members.is_admin(chat_id, user_id)
