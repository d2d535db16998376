"""Telegram messages and keyboards drawn from the service's views.

Callback data (≤ 64 bytes, never a card):
- ``L:join`` ``L:bot`` ``L:start`` ``L:set`` ``L:leave``: lobby buttons (the room is the
  message's chat and topic);
- ``O:<option>:<value>``: a setting from the /settings keyboard;
- ``H``: "My cards"; ``R``: another match;
- ``A|<token>``: a move (the service's token names its room);
- ``S|<room>|<deal>.<trick>|<mask>``: a card tapped in a hand (selection, no move yet);
- ``D|<room>|p`` / ``D|<room>|e``: deliver my hand to the private chat / in the group.
"""

from __future__ import annotations

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup

from adapters.common.render import KINDS, OPTION_TITLES, Text, option_values, value_title
from bot.views import Choice, HandView, TableView
from engine.presets import PRESETS

MAX_DATA = 64


def _kb(rows: list[list[InlineKeyboardButton]]) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(inline_keyboard=[r for r in rows if r])


def btn(text: str, data: str) -> InlineKeyboardButton:
    assert len(data.encode()) <= MAX_DATA, data
    return InlineKeyboardButton(text=text, callback_data=data)


def table_markup(t: Text, table: TableView) -> InlineKeyboardMarkup | None:
    if table.state == "lobby":
        return _kb([
            [btn("🪑 " + t._("Join"), "L:join"), btn("🤖 " + t._("+ Bot"), "L:bot")],
            [btn("⚙️ " + t._("Settings"), "L:set"), btn("▶️ " + t._("Start"), "L:start")],
        ])
    wait = [btn("⏳ " + t._("Wait for a seat"), "Q")] if table.options.get("elimination") else []
    if table.state == "playing":
        return _kb([[btn("🃏 " + t._("My cards"), "H"), *wait]])
    if table.finished:
        return _kb([[btn("🔁 " + t._("Another match"), "R"), *wait]])
    return None


def settings_markup(t: Text, table: TableView) -> InlineKeyboardMarkup:
    rows: list[list[InlineKeyboardButton]] = []
    spec = PRESETS[table.preset]
    for name, values in option_values(table.preset):
        row: list[InlineKeyboardButton] = []
        for v in values:
            if len(row) == 4:  # long value lists wrap: a phone shows four buttons a row
                rows.append(row)
                row = []
            mark = "✅ " if table.options.get(name) == v else ""
            shown = t._(value_title(v))
            code = str(v).lower() if isinstance(v, bool) else str(v)
            row.append(btn(f"{mark}{t._(OPTION_TITLES.get(name, name))}: {shown}", f"O:{name}:{code}"))
        rows.append(row)
    if len(spec.players) > 1:
        rows.append([
            btn(("✅ " if table.size == n else "") + t.n("{n} player", "{n} players", n).format(n=n),
                f"O:size:{n}")
            for n in spec.players
        ])
    return _kb(rows)


def hand_text(t: Text, hand: HandView, chat_title: str | None = None) -> str:
    table = hand.table
    head = "🐐 " + t.title(table)
    if chat_title:
        head += " · " + chat_title
    rows = [head, t.hand(hand)]
    if table.trick:
        rows.append(t._("On the table: {plays}").format(
            plays=" · ".join(t.play(table, p) for p in table.trick)))
    return "\n".join(rows)


def _action_label(t: Text, c: Choice, hand: HandView) -> str:
    n = len(c.cards)
    if c.kind == "declare":
        return "📣 " + t._("Declare: {cards}").format(cards=t.cards(c.cards))
    if c.mask == 0:
        return t.bare_choice(c)
    if n == 1:
        return "✔ " + t._(KINDS[c.kind]) + " " + t.cards(c.cards)
    return "✔ " + t.n("{kind} with {n} card", "{kind} with {n} cards", n).format(
        kind=t._(KINDS[c.kind]), n=n)


def hand_markup(t: Text, hand: HandView, selected: int = 0,
                private: bool = False) -> InlineKeyboardMarkup:
    """Card buttons toggle a selection; the moves that match it appear under them."""
    room = hand.room
    moment = f"{hand.table.deal_no}.{hand.trick}"
    rows: list[list[InlineKeyboardButton]] = []
    playable = any(c.mask for c in hand.choices)
    row: list[InlineKeyboardButton] = []
    for i, card in enumerate(hand.cards):
        on = bool(selected >> i & 1)
        label = ("✅" if on else "") + t.card(card)
        data = f"S|{room}|{moment}|{selected ^ (1 << i)}" if playable else f"S|{room}|{moment}|0"
        row.append(btn(label, data))
        if len(row) == 5:
            rows.append(row)
            row = []
    rows.append(row)
    for c in hand.choices:
        if c.mask and c.mask == selected:
            rows.append([btn(_action_label(t, c, hand), "A|" + c.token)])
    # moves without cards (declarations, a cut, a redeal request, pass, keep...): own buttons
    bare = [btn(_action_label(t, c, hand), "A|" + c.token) for c in hand.choices if not c.mask]
    while bare:
        rows.append(bare[:3])
        bare = bare[3:]
    if private:
        rows.append([btn("👥 " + t._("Show my cards in the group"), f"D|{room}|e")])
    else:
        rows.append([btn("📩 " + t._("Send my cards privately"), f"D|{room}|p")])
    return _kb(rows)


def rules_text(t: Text, preset: str) -> str:
    return t.rules_card(preset)
