"""Inline keyboards drawn from the service's views (aiogram's ``InlineKeyboardBuilder``).

No button names a hidden card in its data: a move is the service's token, a selection the
positions in the hand (labels of hand buttons are seen by their owner only).
"""

from __future__ import annotations

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from aiogram.utils.keyboard import InlineKeyboardBuilder

from adapters.common.lobby import LEVELS, level_word, lobby_buttons
from adapters.common.render import KINDS, OPTION_TITLES, Text, option_values, value_title
from adapters.telegram import callbacks as cb
from adapters.telegram.texts import GAMES, game_title
from bot.views import Choice, HandView, TableView
from engine.presets import PRESETS

CARDS_A_ROW = 5  # a phone shows five card buttons a row comfortably
VALUES_A_ROW = 4


def table_markup(
    t: Text, table: TableView, web: InlineKeyboardButton | None = None
) -> InlineKeyboardMarkup | None:
    """The table message's buttons: the lobby's, "My cards" while playing (and ``web``, the
    web table's button, under it), "Another match" after the end; the queue's button at
    tables played with elimination."""
    kb = InlineKeyboardBuilder()
    if table.state == "lobby":
        for row in lobby_buttons(table):
            kb.row(*[kb_button(f"{b.icon} {t._(b.label)}", cb.Lobby(action=b.action).pack()) for b in row])
        return kb.as_markup()
    queue = (
        [kb_button("⏳ " + t._("Wait for a seat"), cb.Table(action=cb.TableAction.QUEUE).pack())]
        if table.options.get("elimination")
        else []
    )
    if table.state == "playing":
        kb.row(kb_button("🃏 " + t._("My cards"), cb.Table(action=cb.TableAction.HAND).pack()), *queue)
        if table.vote is not None:  # a player asked to end the match
            kb.row(
                kb_button("✅ " + t._("Agree to end"), cb.Table(action=cb.TableAction.AGREE).pack()),
                kb_button("🏳 " + t._("Give up"), cb.Table(action=cb.TableAction.GIVE_UP).pack()),
            )
        if web is not None:
            kb.row(web)
        return kb.as_markup()
    if table.finished:
        kb.row(kb_button("🔁 " + t._("Another match"), cb.Table(action=cb.TableAction.AGAIN).pack()), *queue)
        return kb.as_markup()
    return None


def kb_button(text: str, data: str) -> InlineKeyboardButton:
    return InlineKeyboardButton(text=text, callback_data=data)


def value_code(v: object) -> str:
    return str(v).lower() if isinstance(v, bool) else str(v)


def settings_markup(t: Text, table: TableView, opened: str | None = None) -> InlineKeyboardMarkup:
    """One row per setting with its value; a setting of two values toggles, one of more
    opens its values (``opened``) with a way back."""
    kb = InlineKeyboardBuilder()
    if opened is not None:
        values = _values(table, opened)
        current = _current(table, opened)
        for v in values:
            mark = "✅ " if value_code(v) == value_code(current) else ""
            kb.button(
                text=mark + _value_words(t, opened, v),
                callback_data=cb.Option(name=opened, value=value_code(v)).pack(),
            )
        kb.adjust(VALUES_A_ROW)
        kb.row(kb_button("⬅️ " + t._("Back"), cb.Option(name=opened, value="<").pack()))
        return kb.as_markup()
    for name in _settings(table):
        current = _current(table, name)
        values = _values(table, name)
        # two values: the button sets the other one; more: it opens the list
        target = (
            value_code(values[1 - values.index(current)]) if len(values) == 2 and current in values else ""
        )
        label = f"{_title(t, name)}: {_value_words(t, name, current)}"
        kb.row(kb_button(("🔁 " if target else "▸ ") + label, cb.Option(name=name, value=target).pack()))
    return kb.as_markup()


def _settings(table: TableView) -> list[str]:
    names = [name for name, _values_ in option_values(table.preset)]
    if len(PRESETS[table.preset].players) > 1:
        names.append("size")
    names.append("bot_level")
    return names


def _values(table: TableView, name: str) -> list[object]:
    if name == "size":
        return list(PRESETS[table.preset].players)
    if name == "bot_level":
        return list(LEVELS)
    return dict(option_values(table.preset)).get(name, [])


def _current(table: TableView, name: str) -> object:
    if name == "size":
        return table.size
    if name == "bot_level":
        return table.bot_level
    return table.options.get(name)


def _title(t: Text, name: str) -> str:
    if name == "size":
        return t._("seats")
    if name == "bot_level":
        return t._("computer players")
    return t._(OPTION_TITLES.get(name, name))


def _value_words(t: Text, name: str, v: object) -> str:
    if name == "bot_level":
        return t._(level_word(str(v)) or str(v))
    return t._(value_title(v))


def parse_value(name: str, raw: str, table: TableView) -> object | None:
    """A setting's value from its button (None: not one of its values)."""
    for v in _values(table, name):
        if value_code(v) == raw:
            return v
    return None


def games_markup(t: Text) -> InlineKeyboardMarkup:
    """The game picker of /newgame: readable names, two a row."""
    kb = InlineKeyboardBuilder()
    for preset in GAMES:
        kb.button(text=game_title(t, preset), callback_data=cb.Game(preset=preset).pack())
    kb.adjust(2)
    return kb.as_markup()


# --- hands ----------------------------------------------------------------------------------


def _action_label(t: Text, c: Choice) -> str:
    n = len(c.cards)
    if c.kind == "declare":
        return "📣 " + t._("Declare: {cards}").format(cards=t.cards(c.cards))
    if c.mask == 0:
        return t.bare_choice(c)
    if n == 1:
        return "✔ " + t._(KINDS[c.kind]) + " " + t.cards(c.cards)
    return "✔ " + t.n("{kind} with {n} card", "{kind} with {n} cards", n).format(kind=t._(KINDS[c.kind]), n=n)


def _single_card_move(hand: HandView) -> Choice | None:
    """The only legal move when it plays one card: its card's button makes it at once."""
    single = hand.single
    if single is not None and single.mask and len(single.cards) == 1:
        return single
    return None


def _card_buttons(t: Text, hand: HandView, selected: int, one: Choice | None) -> list[InlineKeyboardButton]:
    """A button a card: ticked when selected; the one single-card move's card makes it."""
    playable = any(c.mask for c in hand.choices)
    cards = []
    for i, card in enumerate(hand.cards):
        on = bool(selected >> i & 1)
        label = ("✅" if on else "") + t.card(card)
        if one is not None and one.mask == 1 << i:
            data = cb.Move(token=one.token).pack()
        else:
            # no move takes cards now: the tap asks why (a toast), and nothing is ticked
            mask = selected ^ (1 << i) if playable else 1 << i
            data = cb.Pick(room=hand.room, moment=hand.moment, mask=mask).pack()
        cards.append(kb_button(label, data))
    return cards


def _extra_buttons(t: Text, room: str, where: str | None, hint: bool) -> list[InlineKeyboardButton]:
    """A hint (a practice game), and moving the hand between the group and the private chat."""
    extra = []
    if hint:
        extra.append(kb_button("💡 " + t._("Hint"), cb.Hint(room=room).pack()))
    if where == "private":
        extra.append(
            kb_button("👥 " + t._("Show my cards in the group"), cb.Deliver(room=room, to="group").pack())
        )
    elif where == "group":
        extra.append(
            kb_button("📩 " + t._("Send my cards privately"), cb.Deliver(room=room, to="private").pack())
        )
    return extra


def hand_markup(
    t: Text, hand: HandView, selected: int = 0, where: str | None = "group", hint: bool = False
) -> InlineKeyboardMarkup:
    """Card buttons toggle a selection; the moves that match it appear under them. The one
    legal move is one tap (its card's button, or its cards ticked and its button shown);
    moves without cards have buttons of their own.
    ``where`` the hand is shown ("group": ephemeral, "private"; None: a practice game in
    the private chat, where there is nothing to switch)."""
    kb = InlineKeyboardBuilder()
    one = _single_card_move(hand)
    if not selected and one is None and hand.single is not None and hand.single.mask:
        selected = hand.single.mask  # the only move, of several cards: ticked, one tap
    cards = _card_buttons(t, hand, selected, one)
    for k in range(0, len(cards), CARDS_A_ROW):
        kb.row(*cards[k : k + CARDS_A_ROW])
    for c in hand.choices:
        if c.mask and c.mask == selected and one is None:
            kb.row(kb_button(_action_label(t, c), cb.Move(token=c.token).pack()))
    bare = [kb_button(_action_label(t, c), cb.Move(token=c.token).pack()) for c in hand.choices if not c.mask]
    for k in range(0, len(bare), 3):
        kb.row(*bare[k : k + 3])
    extra = _extra_buttons(t, hand.room, where, hint)
    if extra:
        kb.row(*extra)
    return kb.as_markup()
