"""What several routers share: answering a service outcome, a game's code from a command."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from aiogram.types import Message
from aiogram.types import User as TgUser
from aiogram.utils.callback_answer import CallbackAnswer

from adapters.common.render import Text
from adapters.telegram import texts
from adapters.telegram.painter import Painter
from adapters.telegram.replies import is_admin, tell
from bot.changes import Reason
from bot.records import ChatSettings
from bot.room import Room, User
from bot.service import Outcome
from engine.presets import PRESETS

# command aliases of games (Telegram commands take no dash)
ALIASES = {
    "kozel": "kozel",
    "kozel4": "kozel-4",
    "kozel60": "kozel-60",
    "petukh": "petukh",
    "petukh25": "petukh-25",
}
GROUPS = frozenset({"group", "supergroup"})


async def as_admin(
    painter: Painter, chat: int, user: User, call: Callable[[bool], Awaitable[Outcome]]
) -> Outcome:
    """``call`` in the person's own right, and again with the creator's rights when that was
    refused and he is an admin of the chat (Telegram is asked only then)."""
    out = await call(False)
    if (
        not out.ok
        and out.reason == Reason.NOT_ALLOWED
        and await is_admin(painter, chat, int(user.id.split(":", 1)[1]))
    ):
        out = await call(True)
    return out


def game_of(word: str | None) -> str | None:
    """A game's code from what a person typed (``kozel-60``, ``kozel60``), None if unknown."""
    if not word:
        return None
    word = word.strip().lower()
    return word if word in PRESETS else ALIASES.get(word)


def creator_name(room: Room | None) -> str | None:
    if room is None:
        return None
    for s in room.seats:
        if s is not None and s.user == room.creator:
            return s.name
    return None


def why(t: Text, out: Outcome) -> str:
    return texts.refusal(t, out, creator_name(out.room))


async def answer_outcome(message: Message, painter: Painter, t: Text, out: Outcome) -> None:
    """A command's outcome: quiet when it worked (the table shows it), else why not."""
    if not out.ok:
        await tell(message, painter, why(t, out))


def answer_press(answer: CallbackAnswer, t: Text, out: Outcome | None) -> None:
    """A button's outcome: quiet when it worked or was a repeat, else a toast saying why."""
    if out is not None and not out.ok:
        answer.text = why(t, out)
        answer.show_alert = True


async def remember_username(chats: ChatSettings, chat: str, tg_user: TgUser | None) -> None:
    """``/stats @name`` and ``/kick @name`` find a person of the chat by the @username kept
    when he sat down or asked for numbers (Telegram gives bots no way from a username to a
    user)."""
    if tg_user is not None and tg_user.username and not tg_user.is_bot:
        await chats.remember_username("tg", chat, tg_user.username, f"tg:{tg_user.id}")


async def person_named(chats: ChatSettings, message: Message, arg: str, seats: int = 0) -> str | int | None:
    """Whom a command names: the author of the message it replies to, a person mentioned
    by his profile (a text mention carries his id), a @username of someone seen in this
    chat, a Telegram user id, or (``seats``: a table of that many) a seat number. Never a
    display name: anyone may take anyone's."""
    reply = message.reply_to_message
    if reply is not None and reply.from_user is not None and not reply.from_user.is_bot:
        return f"tg:{reply.from_user.id}"
    for ent in message.entities or []:
        if ent.type == "text_mention" and ent.user is not None:
            return f"tg:{ent.user.id}"
    arg = arg.strip()
    if not arg or " " in arg:
        return None
    if arg.isascii() and arg.isdigit():
        n = int(arg)
        return n - 1 if 0 < n <= seats else f"tg:{n}"
    if arg.startswith("@"):
        return await chats.user_by_username("tg", str(message.chat.id), arg)
    return None
