"""Playing: showing one's hand, tapping cards, making moves, where the hand is shown, hints."""

from __future__ import annotations

from aiogram import Bot, F, Router
from aiogram.filters import Command
from aiogram.types import CallbackQuery, Message
from aiogram.utils.callback_answer import CallbackAnswer
from aiogram.utils.deep_linking import create_start_link
from aiogram.utils.keyboard import InlineKeyboardBuilder

from adapters.common.render import Text
from adapters.telegram import callbacks as cb
from adapters.telegram import delivery
from adapters.telegram.delivery import Where
from adapters.telegram.handlers.common import GROUPS, why
from adapters.telegram.painter import Painter
from adapters.telegram.replies import tell
from adapters.telegram.words import Words
from bot import tokens
from bot.platform import PlatformData
from bot.room import PLAYING, Room, User
from bot.service import GameService, Outcome, Refused
from bot.views import HandView


def hand_link_payload(room_id: str) -> str:
    return "h" + room_id.split(":", 1)[1].replace("/", "_")


async def show(
    bot: Bot,
    service: GameService,
    painter: Painter,
    room_id: str,
    user: User,
    t: Text,
    *,
    callback_id: str | None = None,
    reply_to_ephemeral: int | None = None,
) -> tuple[str | None, str | None]:
    """A new hand message for ``user`` at ``room_id``: ephemeral in the group unless he chose
    the private chat; the private chat when the ephemeral send fails. Returns (a text for
    him, a deep link when he must open the bot first)."""
    room = await service.room(room_id)
    reason = delivery.why_no_hand(room, user.id)
    if reason is not None or room is None:
        return t.reason(reason), None
    if delivery.practice(room):
        where = await delivery.send_hand(painter, room, user.id, t, ephemeral=False)
        return (None if where else t.reason("busy")), None
    mode = room.sdata.get(user.id, {}).get("tg_mode", "ephemeral")
    if mode == "ephemeral":
        where = await delivery.send_hand(
            painter,
            room,
            user.id,
            t,
            ephemeral=True,
            callback_id=callback_id,
            reply_to_ephemeral=reply_to_ephemeral,
        )
        if where is not None:
            return None, None
    if await delivery.send_hand(painter, room, user.id, t, ephemeral=False) is not None:
        return t._("Your cards are in our private chat."), None
    link = await create_start_link(bot, hand_link_payload(room_id))
    return t._("I can't show your cards here: open the bot."), link


async def hand_command(
    message: Message, bot: Bot, service: GameService, painter: Painter, words: Words, user: User, room_id: str
) -> None:
    """/hand in a group: the hand, and any answer about it, in the person's own words."""
    t = words.of(user.lang)
    note, link = await show(
        bot, service, painter, room_id, user, t, reply_to_ephemeral=message.ephemeral_message_id
    )
    if note is None:
        return
    markup = None
    if link:
        kb = InlineKeyboardBuilder()
        kb.button(text="📩 " + t._("Open the bot"), url=link)
        markup = kb.as_markup()
    await tell(message, painter, note, markup)


async def my_cards(
    query: CallbackQuery,
    bot: Bot,
    service: GameService,
    painter: Painter,
    user: User,
    room_id: str,
    t: Text,
    callback_answer: CallbackAnswer,
) -> None:
    note, link = await show(bot, service, painter, room_id, user, t, callback_id=query.id)
    if link:
        callback_answer.url = link
    elif note:
        callback_answer.text = note
        callback_answer.show_alert = True


async def _hand_for(service: GameService, room_id: str, user: str) -> tuple[Room | None, HandView | None]:
    room = await service.room(room_id)
    hand = service.hand_of(room, user) if room is not None else None
    return room, hand


async def pick(
    query: CallbackQuery,
    callback_data: cb.Pick,
    service: GameService,
    painter: Painter,
    user: User,
    t: Text,
    callback_answer: CallbackAnswer,
) -> None:
    """A card tapped: the selection changes; a card that cannot be played explains why.
    Only on the presser's own hand: a pick pressed on a message others see is forged."""
    pressed = Where.pressed(query.message, user.id)
    if pressed is None or not pressed.holds(callback_data.room):
        refuse_forged(callback_answer, t)
        return
    room, hand = await _hand_for(service, callback_data.room, user.id)
    if room is None or hand is None or room.state != PLAYING:
        answer = Outcome(False, delivery.why_no_hand(room, user.id) or "game_over")
        callback_answer.text, callback_answer.show_alert = why(t, answer), True
        await _settle_pressed(painter, pressed, room, user, t, hand)
        return
    still = tokens.picked(hand.moment, len(hand.cards), callback_data.moment, callback_data.mask)
    current = still is not None
    mask = still or 0
    if mask and not any(c.mask & mask == mask for c in hand.choices if c.mask):
        callback_answer.text = _why_not(t, hand, mask)
        mask = 0
    live = Where.of(room.sdata.get(user.id, {}).get("tg_hand"), room, user.id)
    if pressed != live or not current:
        # an old hand: it becomes the live one, with today's cards and buttons
        await delivery.make_live(painter, room, user.id, pressed, t, hand)
    await delivery.edit_hand(painter, room, user.id, pressed.record(), hand, t, selected=mask, paced=False)


def _why_not(t: Text, hand: HandView, mask: int) -> str:
    """Why no move starts with these cards: the engine's reason for a single card (the
    first lead of the match is the A♦...), else what the moves need."""
    reasons = hand.why_not
    picked = [c for i, c in enumerate(hand.cards) if mask >> i & 1]
    for card in picked:
        if card in reasons:
            return t.reason(reasons[card])
    if not hand.on_move:
        return t.reason("not_your_turn")
    if hand.prompt == "answer" and hand.need:
        return t.n(
            "You need {n} card: as many as were led.", "You need {n} cards: as many as were led.", hand.need
        ).format(n=hand.need)
    if hand.table.multi_lead and hand.prompt == "lead":
        return t.reason("mixed_suits")
    return t.reason("wrong_action")


async def _settle_pressed(
    painter: Painter, pressed: Where, room: Room | None, user: User, t: Text, hand: HandView | None
) -> None:
    """A hand pressed after its match: it loses its buttons (one line, the result)."""
    if room is not None and room.state != PLAYING:
        await delivery.edit_hand(painter, room, user.id, pressed.record(), hand, t, paced=False)


def refuse_forged(answer: CallbackAnswer, t: Text) -> None:
    """A hand's button pressed where no hand of the presser's is: nothing changes."""
    answer.text, answer.show_alert = t.reason("bad_token"), True


async def move(
    query: CallbackQuery,
    callback_data: cb.Move,
    service: GameService,
    painter: Painter,
    user: User,
    room_id: str | None,
    t: Text,
    update_key: str,
    callback_answer: CallbackAnswer,
) -> None:
    """A move, pressed on the presser's own hand (anywhere else it was forged: refused,
    nothing changes). A repeat (a double tap, a redelivery) is quiet; a refusal edits
    that hand with the reason."""
    pressed = Where.pressed(query.message, user.id)
    if pressed is None:
        refuse_forged(callback_answer, t)
        return
    # an ephemeral hand belongs to its group's table: a token of another room is refused
    out = await service.act(
        callback_data.token,
        user,
        update_id=update_key,
        room_id=room_id if pressed.mode == "ephemeral" else None,
    )
    if out.ok:
        return
    if out.room is None:
        callback_answer.text, callback_answer.show_alert = why(t, out), True
        return
    room = out.room
    hand = service.hand_of(room, user.id)
    if hand is None:
        callback_answer.text, callback_answer.show_alert = why(t, out), True
        return
    callback_answer.text = why(t, out)  # a toast; the hand shows it too, with today's cards
    if pressed != Where.of(room.sdata.get(user.id, {}).get("tg_hand"), room, user.id):
        await delivery.make_live(painter, room, user.id, pressed, t, hand)
    await delivery.edit_hand(
        painter, room, user.id, pressed.record(), hand, t, notice=why(t, out), paced=False
    )


async def deliver(
    query: CallbackQuery,
    callback_data: cb.Deliver,
    bot: Bot,
    service: GameService,
    platform_data: PlatformData,
    painter: Painter,
    user: User,
    t: Text,
    callback_answer: CallbackAnswer,
) -> None:
    """Switch where the hand is shown. To the private chat only once a message there went
    through: a person who never started the bot keeps his hand and gets the link."""
    pressed = Where.pressed(query.message, user.id)
    if pressed is None or not pressed.holds(callback_data.room):
        refuse_forged(callback_answer, t)
        return
    room = await service.room(callback_data.room)
    reason = delivery.why_no_hand(room, user.id)
    if reason is not None or room is None:
        callback_answer.text, callback_answer.show_alert = t.reason(reason), True
        return
    if callback_data.to == "private":
        if await delivery.send_hand(painter, room, user.id, t, ephemeral=False) is None:
            callback_answer.url = await create_start_link(bot, hand_link_payload(room.id))
            return
        await platform_data.set_seat_data(room.id, user.id, tg_mode="private")
        callback_answer.text = t._("Your cards are in our private chat.")
        return
    await platform_data.set_seat_data(room.id, user.id, tg_mode="ephemeral")
    callback_answer.text = t._("Press “My cards” in the group.")


async def hint(
    query: CallbackQuery,
    callback_data: cb.Hint,
    service: GameService,
    user: User,
    t: Text,
    callback_answer: CallbackAnswer,
) -> None:
    """What the strong computer player would play, in a practice game (an alert)."""
    pressed = Where.pressed(query.message, user.id)
    if pressed is None or not pressed.holds(callback_data.room):
        refuse_forged(callback_answer, t)
        return
    room, hand = await _hand_for(service, callback_data.room, user.id)
    if room is None or hand is None or not hand.hint_allowed:
        callback_answer.text, callback_answer.show_alert = (
            t._("Hints are for practice games against computer players."),
            True,
        )
        return
    try:
        found = await service.hint(room.id, user.id)
    except Refused as r:  # too many hints, or the pool is full
        callback_answer.text, callback_answer.show_alert = t.reason(r.reason), True
        return
    if found is None:
        callback_answer.text, callback_answer.show_alert = t.reason("not_your_turn"), True
        return
    callback_answer.text, callback_answer.show_alert = t.hint_text(found), True


def router() -> Router:
    """A fresh router with this module's handlers (a dispatcher each: tests run several
    bots in one process, and aiogram attaches a router to one parent only)."""
    r = Router(name=__name__)
    r.message.register(hand_command, Command("hand"), F.chat.type.in_(GROUPS))
    r.callback_query.register(my_cards, cb.Table.filter(F.action == cb.TableAction.HAND))
    r.callback_query.register(pick, cb.Pick.filter())
    r.callback_query.register(move, cb.Move.filter())
    r.callback_query.register(deliver, cb.Deliver.filter())
    r.callback_query.register(hint, cb.Hint.filter())
    return r
