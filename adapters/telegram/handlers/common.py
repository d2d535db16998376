"""What several routers share: answering a service outcome, a game's code from a command."""

from __future__ import annotations

from aiogram.types import Message
from aiogram.types import User as TgUser
from aiogram.utils.callback_answer import CallbackAnswer

from adapters.common.render import Text
from adapters.telegram import texts
from adapters.telegram.painter import Painter
from adapters.telegram.replies import tell
from bot.room import Room
from bot.service import GameService, Outcome
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
USERNAME = "un:"  # a chat setting: a @username (lower case) -> the user id of a player here


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


async def remember_username(service: GameService, chat: str, tg_user: TgUser | None) -> None:
    """``/stats @name`` finds a person of the chat by the @username kept when he sat down
    or asked for numbers (Telegram gives bots no way from a username to a user)."""
    if tg_user is not None and tg_user.username and not tg_user.is_bot:
        await service.set_chat_setting("tg", chat, USERNAME + tg_user.username.lower(), f"tg:{tg_user.id}")
