"""Discord components drawn from the service's views, and the items that parse them back.

Every interactive item is a ``DynamicItem``: its state lives in its ``custom_id`` (see the
package docstring for the scheme), so any process, restarted or not, answers it from Redis.
The table layout is built from the public ``TableView`` only; card names appear only in the
hand layout, which is sent ephemerally to its owner.
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol, cast

import discord
from discord import ui

from adapters.common.hands import (
    MAX_OPTIONS,
    display_order,
    in_display_order,
    several_card_moves,
)
from adapters.common.i18n import N_
from adapters.common.render import (
    Text,
)
from adapters.discord.texts import (
    escape,
    hand_text,
    table_text,
)
from bot import tokens
from bot.views import HandView, TableView

AWAY = N_("A computer player plays for you while you are away.")
MAX_CUSTOM_ID = 100
MAX_LABEL = 80
TABLE_BUTTONS = (
    "join",
    "leave",
    "bot",
    "unbot",
    "set",
    "seats",
    "start",
    "hand",
    "again",
    "wait",
    "agree",
    "giveup",
)

TABLE_TEMPLATE = r"kz:t:(?P<what>" + "|".join(TABLE_BUTTONS) + ")"
MOVE_TEMPLATE = r"kz:a:(?P<token>[!-~]{1,64})"  # printable ASCII: the service's token
SELECT_TEMPLATE = r"kz:s:(?P<stem>[!-~]{1,64})"
REFRESH_ID = "kz:h"
HINT_ID = "kz:n"  # a hint in a practice game
BACK_ID = "kz:b"  # "I'm back": a person takes his seat back from the computer player
OPTION_TEMPLATE = r"kz:o:(?P<name>[a-z_]{1,24})"

GREEN = discord.Colour(0x2E7D32)
GREY = discord.Colour(0x607D8B)
GOLD = discord.Colour(0xC9A227)

Interaction = discord.Interaction[discord.Client]
Row = ui.ActionRow[ui.LayoutView]


class Handlers(Protocol):
    """What the items call: ``adapters.discord.handlers.Handlers`` implements it."""

    def handling(self, interaction: Interaction) -> contextlib.AbstractAsyncContextManager[bool]: ...

    async def table_button(self, interaction: Interaction, what: str) -> None: ...

    async def move(self, interaction: Interaction, token: str) -> None: ...

    async def select_cards(self, interaction: Interaction, stem: str, values: Sequence[str]) -> None: ...

    async def refresh_hand(self, interaction: Interaction) -> None: ...

    async def hint(self, interaction: Interaction) -> None: ...

    async def back(self, interaction: Interaction) -> None: ...

    async def set_option(self, interaction: Interaction, name: str, values: Sequence[str]) -> None: ...


def handlers_of(interaction: Interaction) -> Handlers:
    handlers = getattr(interaction.client, "handlers", None)
    if handlers is None:
        raise RuntimeError("the client has no handlers")
    return cast(Handlers, handlers)


async def serve(interaction: Interaction, call: Callable[[Handlers], Awaitable[None]]) -> None:
    """Run an item's handler inside ``Handlers.handling`` (counted, guarded)."""
    h = handlers_of(interaction)
    async with h.handling(interaction) as go:
        if go:
            await call(h)


def clip(label: str, limit: int = MAX_LABEL) -> str:
    return label if len(label) <= limit else label[: limit - 1] + "…"


# --- the items ---------------------------------------------------------------------------


class TableButton(ui.DynamicItem[ui.Button[ui.LayoutView]], template=TABLE_TEMPLATE):
    """A button of the table message; the room is the channel it is pressed in."""

    def __init__(
        self, what: str, label: str = "·", style: discord.ButtonStyle = discord.ButtonStyle.secondary
    ) -> None:
        super().__init__(ui.Button(label=clip(label), style=style, custom_id=f"kz:t:{what}"))
        self.what = what

    @classmethod
    async def from_custom_id(
        cls, interaction: Interaction, item: ui.Item[Any], match: re.Match[str], /
    ) -> TableButton:
        return cls(match["what"])

    async def callback(self, interaction: Interaction) -> None:
        await serve(interaction, lambda h: h.table_button(interaction, self.what))


class MoveButton(ui.DynamicItem[ui.Button[ui.LayoutView]], template=MOVE_TEMPLATE):
    """One legal action: its custom id is ``kz:a:`` and the service's token."""

    def __init__(
        self, token: str, label: str = "·", style: discord.ButtonStyle = discord.ButtonStyle.primary
    ) -> None:
        custom_id = f"kz:a:{token}"
        assert len(custom_id) <= MAX_CUSTOM_ID, custom_id
        super().__init__(ui.Button(label=clip(label), style=style, custom_id=custom_id))
        self.token = token

    @classmethod
    async def from_custom_id(
        cls, interaction: Interaction, item: ui.Item[Any], match: re.Match[str], /
    ) -> MoveButton:
        return cls(match["token"])

    async def callback(self, interaction: Interaction) -> None:
        await serve(interaction, lambda h: h.move(interaction, self.token))


class CardsSelect(ui.DynamicItem[ui.Select[ui.LayoutView]], template=SELECT_TEMPLATE):
    """Several cards for one move: the stem is a token of that kind without its mask; each
    option's value is the mask of one hand position."""

    def __init__(
        self,
        stem: str,
        options: list[discord.SelectOption] | None = None,
        min_values: int = 1,
        max_values: int = 1,
        placeholder: str | None = None,
    ) -> None:
        custom_id = f"kz:s:{stem}"
        assert len(custom_id) <= MAX_CUSTOM_ID, custom_id
        opts = options or [discord.SelectOption(label="·", value="0")]
        super().__init__(
            ui.Select(
                custom_id=custom_id,
                options=opts,
                min_values=min_values,
                max_values=max_values,
                placeholder=placeholder,
            )
        )
        self.stem = stem

    @classmethod
    async def from_custom_id(
        cls, interaction: Interaction, item: ui.Item[Any], match: re.Match[str], /
    ) -> CardsSelect:
        return cls(match["stem"])

    async def callback(self, interaction: Interaction) -> None:
        await serve(interaction, lambda h: h.select_cards(interaction, self.stem, self.item.values))


class RefreshButton(ui.DynamicItem[ui.Button[ui.LayoutView]], template=re.escape(REFRESH_ID)):
    def __init__(self, label: str = "🔄") -> None:
        super().__init__(
            ui.Button(label=clip(label), style=discord.ButtonStyle.secondary, custom_id=REFRESH_ID)
        )

    @classmethod
    async def from_custom_id(
        cls, interaction: Interaction, item: ui.Item[Any], match: re.Match[str], /
    ) -> RefreshButton:
        return cls()

    async def callback(self, interaction: Interaction) -> None:
        await serve(interaction, lambda h: h.refresh_hand(interaction))


class HintButton(ui.DynamicItem[ui.Button[ui.LayoutView]], template=re.escape(HINT_ID)):
    def __init__(self, label: str = "💡") -> None:
        super().__init__(ui.Button(label=clip(label), style=discord.ButtonStyle.secondary, custom_id=HINT_ID))

    @classmethod
    async def from_custom_id(
        cls, interaction: Interaction, item: ui.Item[Any], match: re.Match[str], /
    ) -> HintButton:
        return cls()

    async def callback(self, interaction: Interaction) -> None:
        await serve(interaction, lambda h: h.hint(interaction))


class BackButton(ui.DynamicItem[ui.Button[ui.LayoutView]], template=re.escape(BACK_ID)):
    def __init__(self, label: str = "🙋") -> None:
        super().__init__(ui.Button(label=clip(label), style=discord.ButtonStyle.success, custom_id=BACK_ID))

    @classmethod
    async def from_custom_id(
        cls, interaction: Interaction, item: ui.Item[Any], match: re.Match[str], /
    ) -> BackButton:
        return cls()

    async def callback(self, interaction: Interaction) -> None:
        await serve(interaction, lambda h: h.back(interaction))


class OptionSelect(ui.DynamicItem[ui.Select[ui.LayoutView]], template=OPTION_TEMPLATE):
    """One rule of the lobby (or its size), from /settings."""

    def __init__(
        self, name: str, options: list[discord.SelectOption] | None = None, placeholder: str | None = None
    ) -> None:
        opts = options or [discord.SelectOption(label="·", value="0")]
        super().__init__(
            ui.Select(
                custom_id=f"kz:o:{name}",
                options=opts,
                placeholder=clip(placeholder, 150) if placeholder else None,
            )
        )
        self.name = name

    @classmethod
    async def from_custom_id(
        cls, interaction: Interaction, item: ui.Item[Any], match: re.Match[str], /
    ) -> OptionSelect:
        return cls(match["name"])

    async def callback(self, interaction: Interaction) -> None:
        await serve(interaction, lambda h: h.set_option(interaction, self.name, self.item.values))


DYNAMIC_ITEMS: tuple[type[ui.DynamicItem[Any]], ...] = (
    TableButton,
    MoveButton,
    CardsSelect,
    RefreshButton,
    HintButton,
    BackButton,
    OptionSelect,
)


def custom_ids_of(message: discord.Message | None) -> set[str]:
    """Every custom id on a message (rows, containers, sections alike)."""
    out: set[str] = set()
    stack: list[Any] = list(message.components) if message is not None else []
    while stack:
        comp = stack.pop()
        custom_id = getattr(comp, "custom_id", None)
        if isinstance(custom_id, str):
            out.add(custom_id)
        stack.extend(getattr(comp, "children", None) or [])
        accessory = getattr(comp, "accessory", None)
        if accessory is not None:
            stack.append(accessory)
    return out


# --- layouts -----------------------------------------------------------------------------


def button_rows(items: Sequence[ui.Item[Any]]) -> list[Row]:
    """Buttons five to a row (Discord's width)."""
    return [ui.ActionRow(*items[i : i + 5]) for i in range(0, len(items), 5)]


def container_layout(*children: ui.Item[Any], colour: discord.Colour) -> ui.LayoutView:
    view = ui.LayoutView(timeout=None)
    view.add_item(ui.Container(*children, accent_colour=colour))
    return view


def table_layout(t: Text, table: TableView, deal: str | None = None) -> ui.LayoutView:
    """The group's table: the public text (``deal``: the last deal's summary under it, the
    scoreboard of a Petukh match) and the buttons of the room's state."""
    buttons: list[ui.Item[Any]] = []
    g, b, s = discord.ButtonStyle.success, discord.ButtonStyle.primary, discord.ButtonStyle.secondary
    if table.state == "lobby":
        buttons = [
            TableButton("join", "🪑 " + t._("Join"), g),
            TableButton("bot", "🤖 " + t._("+ Bot"), s),
            TableButton("start", "▶️ " + t._("Start"), b),
            TableButton("leave", "🚪 " + t._("Leave"), s),
            TableButton("unbot", "➖ " + t._("Remove a bot"), s),
            TableButton("seats", "🔀 " + t._("Seats"), s),
            TableButton("set", "⚙️ " + t._("Settings"), s),
        ]
    elif table.state == "playing":
        buttons = [TableButton("hand", "🃏 " + t._("Show my hand"), b)]
        if table.vote is not None:  # a player asked to end the match
            buttons.append(TableButton("agree", "✅ " + t._("Agree to end"), g))
            buttons.append(TableButton("giveup", "🏳 " + t._("Give up"), discord.ButtonStyle.danger))
    elif table.finished:
        buttons = [TableButton("again", "🔁 " + t._("Another match"), g)]
    if table.options.get("elimination") and table.state != "lobby":
        buttons.append(TableButton("wait", "⏳ " + t._("Wait for a seat"), s))
    colour = GREEN if table.state == "playing" else GOLD if table.finished else GREY
    text = table_text(t, table) + ("\n\n" + escape(deal) if deal else "")
    return container_layout(ui.TextDisplay(text), *button_rows(buttons), colour=colour)


_STYLE = {
    "lead": discord.ButtonStyle.primary,
    "beat": discord.ButtonStyle.success,
    "play": discord.ButtonStyle.primary,
    "throw": discord.ButtonStyle.secondary,
    "swap": discord.ButtonStyle.success,
    "lay": discord.ButtonStyle.primary,
    "cover": discord.ButtonStyle.primary,
}
# kinds chosen with a select when several cards go at once (an exchange always is)
_SEVERAL = ("lead", "beat", "throw", "lay", "cover", "exchange")


def _placeholder(t: Text, kind: str, low: int, high: int, table: TableView) -> str:
    if kind == "lead":
        if table.options.get("shokha"):
            return t._("Lead several cards: one suit, or the 6♠ with any suit…")
        return t._("Lead several cards of one suit…")
    n = low if low == high else high
    if kind == "beat":
        return t.n("Beat with {n} card…", "Beat with {n} cards…", n).format(n=n)
    if kind == "exchange":
        return t.n("Exchange up to {n} card…", "Exchange up to {n} cards…", n).format(n=n)
    if kind == "lay":
        return t._("Lay two cards face down…")
    if kind == "cover":
        return t.n("Cover with {n} card…", "Cover with {n} cards…", n).format(n=n)
    return t.n("Throw {n} card face down…", "Throw {n} cards face down…", n).format(n=n)


def several_items(t: Text, hand: HandView) -> list[ui.Item[Any]]:
    """Moves of several cards, kind by kind (``adapters.common.hands``): a handful as
    buttons; else a select that offers only what may be legal: free picks where every pick
    is, whole combinations where only some are."""
    items: list[ui.Item[Any]] = []
    for kind in _SEVERAL:
        moves = several_card_moves(hand, kind)
        if moves is None:
            continue
        if moves.how == "buttons":
            items.extend(
                button_rows(
                    [
                        MoveButton(
                            c.token,
                            t.choice(kind, in_display_order(hand, c.cards)),
                            _STYLE.get(kind, discord.ButtonStyle.primary),
                        )
                        for c in moves.choices
                    ]
                )
            )
            continue
        stem = tokens.select_stem(moves.choices[0].token)
        if moves.how == "combos":
            options = [
                discord.SelectOption(
                    label=clip(t.cards(in_display_order(hand, c.cards)), 100), value=str(c.mask)
                )
                for c in moves.choices
            ]
            low = high = 1
        else:
            options = [
                discord.SelectOption(label=t.card(hand.cards[i]), value=str(1 << i))
                for i in display_order(hand)
                if i in moves.positions
            ][:MAX_OPTIONS]
            low, high = moves.low, min(moves.high, len(options))
        hint = _placeholder(t, kind, moves.low, moves.high, hand.table)
        items.append(ui.ActionRow(CardsSelect(stem, options, low, high, clip(hint, 150))))
    return items


def no_longer_played(hand: HandView) -> HandView:
    """The hand as it is shown: a game cancelled mid-deal is over for its hands too (the
    service's view still lists the deal's moves, which it would refuse): no move, no
    "I'm back", no refresh."""
    if hand.table.state == "playing" or hand.prompt == "over":
        return hand
    return dataclasses.replace(
        hand, on_move=False, prompt="over", choices=[], why_not={}, single=None, hint_allowed=False
    )


def _move_items(t: Text, hand: HandView) -> list[ui.Item[Any]]:
    """The hand's moves as buttons: single cards by kind, several cards, declarations, then
    the moves without cards."""
    items: list[ui.Item[Any]] = []
    place = {hand.cards[i]: n for n, i in enumerate(display_order(hand))}
    for kind in _STYLE:
        singles = sorted(
            (c for c in hand.choices if c.kind == kind and len(c.cards) == 1),
            key=lambda c: place.get(c.cards[0], 0),
        )
        items.extend(
            button_rows([MoveButton(c.token, t.choice(kind, c.cards), _STYLE[kind]) for c in singles])
        )
    items.extend(several_items(t, hand))
    declarations = [c for c in hand.choices if c.kind == "declare"]
    items.extend(
        button_rows(
            [
                MoveButton(
                    c.token,
                    "📣 " + t._("Declare: {cards}").format(cards=t.cards(in_display_order(hand, c.cards))),
                    discord.ButtonStyle.success,
                )
                for c in declarations
            ]
        )
    )
    # moves without cards: a cut, a redeal request, pass, keep, finish, skip
    items.extend(
        button_rows(
            [
                MoveButton(c.token, t.bare_choice(c), discord.ButtonStyle.secondary)
                for c in hand.choices
                if not c.mask and c.kind != "declare"
            ]
        )
    )
    return items


def hand_layout(t: Text, hand: HandView, notice: str | None = None) -> ui.LayoutView:
    """A player's own hand with the legal moves (send it ephemerally only); ``notice``: a
    line on top (a refusal's warning, a hint, the token's end), its icon included."""
    hand = no_longer_played(hand)
    items: list[ui.Item[Any]] = []
    if notice:
        items.append(ui.TextDisplay(escape(notice)))
    mine = hand.table.seats[hand.seat] if hand.seat < len(hand.table.seats) else None
    away = mine is not None and mine.auto and hand.prompt != "over"
    if away:  # missed turns handed the seat to a computer player: one press takes it back
        items.append(ui.TextDisplay("🤖 " + t._(AWAY)))
        items.append(ui.ActionRow(BackButton("🙋 " + t._("I'm back"))))
    items.append(ui.TextDisplay(hand_text(t, hand)))
    items.extend(_move_items(t, hand))
    tools: list[ui.Item[Any]] = []
    if hand.hint_allowed and hand.on_move:  # a practice game: what a strong player would do
        tools.append(HintButton("💡 " + t._("Hint")))
    if hand.prompt != "over":
        tools.append(RefreshButton("🔄 " + t._("Refresh")))
    items.extend(button_rows(tools))
    colour = GREEN if hand.on_move else GREY
    return container_layout(*items, colour=colour)


def retired_layout(t: Text, old: discord.Message | None) -> ui.LayoutView:
    """An earlier match's table: its text without its buttons, and where the next one is."""
    texts: list[str] = []
    stack: list[Any] = list(old.components) if old is not None else []
    while stack:
        comp = stack.pop(0)
        if isinstance(comp, discord.TextDisplay):
            texts.append(comp.content)
        stack[:0] = list(getattr(comp, "children", None) or [])
    items: list[ui.Item[Any]] = [ui.TextDisplay(x) for x in texts]
    items.append(ui.TextDisplay("⤵️ " + t._("The next match is below.")))
    return container_layout(*items, colour=GREY)


def notice_layout(text: str) -> ui.LayoutView:
    return container_layout(ui.TextDisplay(escape(text)), colour=GREY)
