"""The lobby's panels on Discord: its rules as selects (/settings), who sits where (/seats),
and an invitation to the table. The selects are ``OptionSelect`` items (``views.py``): the
service checks who may change what.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import ui

from adapters.common.hands import MAX_OPTIONS
from adapters.common.render import OPTION_TITLES, Text, option_values, value_title
from adapters.discord.texts import TABLE_LEVELS, escape, level_word, lobby_text
from adapters.discord.views import GREY, OptionSelect, TableButton, button_rows, clip, container_layout
from bot.views import TableView
from engine.presets import PRESETS

# --- option values ---------------------------------------------------------------------


def value_code(v: object) -> str:
    return str(v).lower() if isinstance(v, bool) else str(v)


def parse_value(raw: str) -> object:
    return {"true": True, "false": False}.get(raw, raw)


def settings_layout(t: Text, table: TableView) -> ui.LayoutView:
    """The lobby's rules as selects (the service checks who may change them)."""
    lines = [t._("Rules of this table:")]
    opts = t.options(table)
    if opts:
        lines.append(opts)
    lines.append(t.n("{n} player", "{n} players", table.size).format(n=table.size))
    items: list[ui.Item[Any]] = [ui.TextDisplay(escape("\n".join(lines)))]
    for name, values in option_values(table.preset):
        if len(values) < 2:
            continue
        title = t._(OPTION_TITLES.get(name, name))
        options = [
            discord.SelectOption(
                label=clip(f"{title}: {t._(value_title(v))}", 100),
                value=value_code(v),
                default=table.options.get(name) == v,
            )
            for v in values
        ]
        items.append(ui.ActionRow(OptionSelect(name, options)))
    players = PRESETS[table.preset].players
    if len(players) > 1:
        items.append(
            ui.ActionRow(
                OptionSelect(
                    "size",
                    [
                        discord.SelectOption(
                            label=t.n("{n} player", "{n} players", n).format(n=n),
                            value=str(n),
                            default=n == table.size,
                        )
                        for n in players
                    ],
                )
            )
        )
    # issue 15: the level of computer players seated without one ("+ Bot")
    items.append(
        ui.ActionRow(
            OptionSelect(
                "bot_level",
                [
                    discord.SelectOption(
                        label=clip(t._("Computer players: {level}").format(level=level_word(t, level)), 100),
                        value=level,
                        default=level == table.bot_level,
                    )
                    for level in TABLE_LEVELS
                ],
            )
        )
    )
    return container_layout(*items, colour=GREY)


def seats_layout(t: Text, table: TableView, mine: int | None, manager: bool) -> ui.LayoutView:
    """Who sits where (and in which team), and the moves this person may make: to a free
    seat if he is seated; any two seats swapped if he runs the table. Values "a-b"."""
    items: list[ui.Item[Any]] = [ui.TextDisplay(escape(lobby_text(t, table)))]
    free = [i for i, s in enumerate(table.seats) if s is None]
    if mine is not None and free:
        items.append(
            ui.ActionRow(
                OptionSelect(
                    "seat",
                    [
                        discord.SelectOption(
                            label=t._("Move to seat {n}").format(n=i + 1), value=f"{mine}-{i}"
                        )
                        for i in free
                    ][:MAX_OPTIONS],
                    placeholder=t._("Move to a free seat…"),
                )
            )
        )
    if manager and table.size > 1:
        pairs = [(a, b) for a in range(table.size) for b in range(a + 1, table.size)]
        items.append(
            ui.ActionRow(
                OptionSelect(
                    "swap",
                    [
                        discord.SelectOption(
                            label=clip(
                                f"{a + 1} ↔ {b + 1}: {_seat(t, table, a)} ↔ {_seat(t, table, b)}", 100
                            ),
                            value=f"{a}-{b}",
                        )
                        for a, b in pairs
                    ][:MAX_OPTIONS],
                    placeholder=t._("Swap two seats…"),
                )
            )
        )
    return container_layout(*items, colour=GREY)


def _seat(t: Text, table: TableView, i: int) -> str:
    return t.seat_name(table, i) if table.seats[i] is not None else "—"


def parse_seats(raw: str) -> tuple[int, int] | None:
    """A seats panel's value "a-b" (two seat indexes), or None for anything else."""
    a, sep, b = raw.partition("-")
    if not sep or not (a.isascii() and a.isdigit() and b.isascii() and b.isdigit()):
        return None
    if len(a) > 2 or len(b) > 2:
        return None
    return int(a), int(b)


def invite_layout(t: Text, name: str, table: TableView, jump_url: str | None) -> ui.LayoutView:
    text = t._("{name} invites you to a table: {game}. Press “Join”.").format(
        name=escape(name), game=t.title(table)
    )
    buttons: list[ui.Item[Any]] = [TableButton("join", "🪑 " + t._("Join"), discord.ButtonStyle.success)]
    if jump_url:
        buttons.append(ui.Button(label=t._("To the table"), url=jump_url))
    return container_layout(ui.TextDisplay(text), *button_rows(buttons), colour=GREY)
