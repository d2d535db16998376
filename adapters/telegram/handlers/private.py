"""The private chat with the bot: deep links (a seat at a table, one's hand), practice
games against computer players, one's hands, and what to do with group commands here."""

from __future__ import annotations

from aiogram import Bot, F, Router
from aiogram.filters import Command, CommandObject, CommandStart
from aiogram.types import InlineKeyboardMarkup, Message
from aiogram.utils.deep_linking import create_startgroup_link
from aiogram.utils.keyboard import InlineKeyboardBuilder

from adapters.common.lobby import BOT_NAMES
from adapters.common.render import Text
from adapters.telegram import delivery, keyboards, texts
from adapters.telegram.handlers.common import answer_outcome, game_of
from adapters.telegram.painter import Painter
from adapters.telegram.replies import tell
from bot.changes import Reason
from bot.platform import PlatformData
from bot.room import LOBBY, PLAYING, User, room_id_for
from bot.service import GameService, Outcome
from engine.presets import PRESETS

GROUP_COMMANDS = (
    "join",
    "leave",
    "addbot",
    "startgame",
    "settings",
    "invite",
    "kick",
    "wait",
    "unwait",
    "score",
    "series",
    "top",
)
MAX_PRIVATE_HANDS = 3


def practice_size(preset: str) -> int:
    """Four players where the game allows it (the usual table), else its largest."""
    players = PRESETS[preset].players
    return 4 if 4 in players else max(players)


async def start_practice(
    service: GameService,
    painter: Painter,
    chat: int,
    user: User,
    t: Text,
    preset: str,
    update_key: str | None,
) -> Outcome:
    """A practice game in the private chat: the person and computer players, dealt at once.
    Every step carries an id made from the update's, so a redelivery repeats nothing."""

    def step(name: str) -> str | None:
        return f"{update_key}.{name}" if update_key else None

    out = await service.create(
        "tg", str(chat), None, user, preset, size=practice_size(preset), update_id=update_key
    )
    if not out.ok or out.room is None:
        return out
    room_id = out.room.id
    names = tuple(t._(n) for n in BOT_NAMES)
    for i in range(out.room.size - 1):
        added = await service.add_bot(room_id, user, names=names, update_id=step(f"b{i}"))
        if not added.ok:
            return added
    started = await service.start(room_id, user, update_id=step("s"))
    if started.ok and started.room is not None:
        await painter.paint_now(room_id)  # the table first, the hand below it
        await delivery.send_hand(painter, started.room, user.id, t, ephemeral=False)
    return started


async def welcome_markup(bot: Bot, t: Text) -> InlineKeyboardMarkup:
    kb = InlineKeyboardBuilder()
    kb.button(text="➕ " + t._("Add the bot to a group"), url=await create_startgroup_link(bot, "new"))
    kb.adjust(1)
    kb.attach(InlineKeyboardBuilder.from_markup(keyboards.games_markup(t)))
    return kb.as_markup()


async def start(
    message: Message,
    command: CommandObject,
    bot: Bot,
    service: GameService,
    platform_data: PlatformData,
    painter: Painter,
    user: User,
    t: Text,
) -> None:
    arg = command.args or ""
    if arg[:1] == "j" and len(arg) > 1:
        await join_by_link(message, service, painter, user, t, arg[1:])
        return
    if arg[:1] == "h" and len(arg) > 1:
        chat, _, thread = arg[1:].partition("_")
        rid = room_id_for("tg", chat, thread or None)
        room = await service.room(rid)
        reason = delivery.why_no_hand(room, user.id)
        if reason is not None or room is None:
            await tell(message, painter, t.reason(reason))
            return
        if await delivery.send_hand(painter, room, user.id, t, ephemeral=False):
            await platform_data.set_seat_data(rid, user.id, tg_mode="private")
        return
    await tell(
        message,
        painter,
        "\n".join(
            [
                "🐐 " + t._("Kozel bot: card games with friends in this chat."),
                t._(
                    "Add me to a group to play with friends, or practise here against computer "
                    "players: pick a game."
                ),
            ]
        ),
        await welcome_markup(bot, t),
    )


async def join_by_link(
    message: Message, service: GameService, painter: Painter, user: User, t: Text, payload: str
) -> None:
    """An invitation link: its table's own secret, a table still open, and a person who is a
    member of its group; each refusal says which it was."""
    room = await service.room_by_link("tg", payload)
    if room is None or room.state != LOBBY:
        await tell(message, painter, t._("This invitation is no longer valid: ask for a new one (/invite)."))
        return
    if room.seat_of(user.id) is None and not await painter.members.is_member(
        int(room.chat), user_tg_id(user)
    ):
        await tell(
            message,
            painter,
            t._("Only members of the group {group} may sit at its tables: join the group first.").format(
                group=room.pdata.get("tg_title") or ""
            ),
        )
        return
    out = await service.join(room.id, user)
    if not out.ok and out.reason != Reason.ALREADY_SEATED:
        await tell(message, painter, texts.refusal(t, out))
        return
    await tell(message, painter, t._("You are at the table. Go back to the group to play."))


def user_tg_id(user: User) -> int:
    return int(user.id.split(":", 1)[1])


async def practice(
    message: Message,
    command: CommandObject,
    service: GameService,
    painter: Painter,
    user: User,
    t: Text,
    update_key: str | None,
) -> None:
    """In the private chat a new game is a practice game."""
    word = command.args.split()[0] if command.args else None
    name = command.command.lower()
    preset = game_of(word) or (game_of(name) if name != "newgame" else None)
    if preset is None:
        await tell(
            message, painter, t._("Which game? You play against computer players."), keyboards.games_markup(t)
        )
        return
    out = await start_practice(service, painter, message.chat.id, user, t, preset, update_key)
    await answer_outcome(message, painter, t, out)


async def cancel_practice(
    message: Message,
    service: GameService,
    painter: Painter,
    user: User,
    room_id: str,
    t: Text,
    update_key: str | None,
) -> None:
    out = await service.cancel(room_id, user, True, update_id=update_key)
    if out.ok and not out.repeat:
        await tell(message, painter, "❌ " + t._("The game is cancelled."))
    await answer_outcome(message, painter, t, out)


async def hands(message: Message, service: GameService, painter: Painter, user: User, t: Text) -> None:
    """Every table one plays at now, a hand message each (a few at most)."""
    rooms = [r for r in await service.rooms_of(user.id) if r.state == PLAYING]
    if not rooms:
        await tell(message, painter, t._("You are not in a game now."))
        return
    sent = [
        await delivery.send_hand(painter, room, user.id, t, ephemeral=False)
        for room in rooms[:MAX_PRIVATE_HANDS]
    ]
    if not any(sent):  # always an answer, even when Telegram refused every hand
        await tell(message, painter, t.reason("busy"))


async def group_only(message: Message, bot: Bot, painter: Painter, t: Text) -> None:
    kb = InlineKeyboardBuilder()
    kb.button(text="➕ " + t._("Add the bot to a group"), url=await create_startgroup_link(bot, "new"))
    await tell(
        message, painter, t._("This command works in a group chat: add me to a group."), kb.as_markup()
    )


def router() -> Router:
    """A fresh router with this module's handlers (a dispatcher each: tests run several
    bots in one process, and aiogram attaches a router to one parent only)."""
    r = Router(name=__name__)
    r.message.filter(F.chat.type == "private")
    r.message.register(start, CommandStart())
    r.message.register(practice, Command("newgame", "kozel", "kozel4", "kozel60", "petukh"))
    r.message.register(cancel_practice, Command("cancel"))
    r.message.register(hands, Command("hand"))
    r.message.register(group_only, Command(*GROUP_COMMANDS))
    return r
