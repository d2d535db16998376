"""The words of Discord messages: the table, a hand, the lobby, answers to commands.

Built from the service's views through ``adapters.common.render.Text`` (the catalogs);
everything a channel sees is escaped (players' names are their own).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import discord

from adapters.common import lobby as common_lobby
from adapters.common.hands import display_order
from adapters.common.i18n import N_
from adapters.common.render import SUIT, Text
from bot.room import Room
from bot.views import HandView, Line, TableView

#: event lines kept under the table even when later ones of the same change follow
MATTERS = ("declared", "timeout", "handed_to_bot", "back", "side_out", "cards_returned")

TABLE_LEVELS = common_lobby.LEVELS  # what a table or /addbot may choose


def level_word(t: Text, level: str | None) -> str:
    """A computer player's level in words (the same words on every platform)."""
    word = common_lobby.level_word(level or "normal")
    return t._(word) if word else ""


def bot_names(t: Text) -> list[str]:
    """Computer players' names in the server's language (the same on every platform)."""
    return [t._(n) for n in common_lobby.BOT_NAMES]


def lobby_text(t: Text, table: TableView) -> str:
    """The lobby: the seats, each computer player's level, the teams of a partnership
    preset (from the service's ``sides``: every preset that pairs seats, not a list of
    names), the rules and the level new computer players get."""
    head = f"🐐 {t.title(table)} · " + t.n("{n} player", "{n} players", table.size).format(n=table.size)
    team_of = {seat: i for i, side in enumerate(table.sides) for seat in side} if table.partnership else {}
    rows = [head, t._("Seats:")]
    for i, s in enumerate(table.seats):
        name = t.seat_name(table, i) if s is not None else "—"
        if s is not None and s.computer and s.level:
            name += f" ({level_word(t, s.level)})"
        team = ""
        if i in team_of:
            team = " · " + (t._("team A") if team_of[i] == 0 else t._("team B"))
        rows.append(f" {i + 1}. {name}{team}")
    opts = t.options(table)
    if opts:
        rows.append(t._("Rules: {options}").format(options=opts))
    changed = t.changed_line(table)  # issue 36.1
    if changed:
        rows.append(changed)
    rows.append(t._("Computer players: {level}").format(level=level_word(t, table.bot_level)))
    return "\n".join(rows)


def line_text(t: Text, line: Line) -> str:
    """An event line for the presser's answer; a computer player seated says who and how
    strong."""
    if line.key == "bot_added" and line.params.get("name"):
        return t._("{name} sat down ({level})").format(
            name=line.params["name"], level=level_word(t, str(line.params.get("level")))
        )
    return t.line(line)


def escape(text: str) -> str:
    """Names are the players' own: no markdown or mention tricks in the table."""
    return discord.utils.escape_mentions(discord.utils.escape_markdown(text))


def table_text(t: Text, table: TableView) -> str:
    """The public table; a person's time limit as a Discord timestamp the client counts
    down itself (so the message needs no edit every second)."""
    if table.state == "finished" and not table.finished:  # cancelled, or the lobby closed
        rows = [f"🐐 {t.title(table)}"]
        if table.lines:
            rows.append("❌ " + t.line(table.lines[-1], table))
        return escape("\n".join(rows))
    text = escape(_with_events(t, table))
    to_move = table.to_move
    if (
        table.state == "playing"
        and table.deadline is not None
        and to_move is not None
        and 0 <= to_move < len(table.seats)
    ):
        seat = table.seats[to_move]
        if seat is not None and not seat.computer:
            text += "\n⏳ " + t._("{name}: time runs out {when}").format(
                name=escape(t.seat_name(table, to_move)), when=f"<t:{int(table.deadline)}:R>"
            )
    return text


def _with_events(t: Text, table: TableView) -> str:
    """``Text.table`` (without ``now``: no countdown in seconds), where the events that
    matter stay even when a computer player's moves came after them in the same change."""
    if table.state == "lobby":
        return lobby_text(t, table)
    if not table.lines:
        return t.table(table)
    rows = t.table(dataclasses.replace(table, lines=[])).split("\n")
    shown = [ln for ln in table.lines[:-3] if ln.key in MATTERS] + table.lines[-3:]
    events = ["• " + s for ln in shown if (s := t.line(ln, table))]
    at = len(rows) - 1 if table.finished else len(rows)
    rows[at:at] = events
    return "\n".join(rows)


def deal_summary(t: Text, table: TableView, deal: dict[str, Any] | None) -> str | None:
    """A Petukh match's last deal, shown under its table while the match is on (one
    scoreboard edited per deal, not a post per deal)."""
    if not deal or deal.get("gen") != table.gen or table.state != "playing":
        return None
    return "📋 " + t.deal_result(Line(deal["key"], deal.get("params", {})), table)


def hand_text(t: Text, hand: HandView) -> str:
    """The hand's words: the cards as a player reads them (trumps last), what to do now.
    A hand with no cards left (the match over) has no empty "Your cards:" line."""
    table = hand.table
    rows = [f"🐐 {t.title(table)} · " + t._("deal {n}").format(n=table.deal_no)]
    if hand.cards:
        cards = [hand.cards[i] for i in display_order(hand)]
        rows.append(t._("Your cards: {cards}").format(cards=t.cards(cards)))
        rows.append(t.trump_label(table.preset, SUIT.get(hand.trump, "?")) + " · " + t.prompt(hand))
    else:
        rows.append(t.prompt(hand))
    if table.trick:
        rows.append(
            t._("On the table: {plays}").format(plays=" · ".join(t.play(table, p) for p in table.trick))
        )
    return escape("\n".join(rows))


def score_text(t: Text, table: TableView, cancelled: bool) -> str:
    """/score: the match's score and deal; a cancelled game says so, and when."""
    if cancelled and not table.scores:
        return "❌ " + t._("The game was cancelled before the first deal.")
    scores = " · ".join(f"{t.side_name(table, i)} {v}" for i, v in enumerate(table.scores))
    score = t._("Score: {score} (to {target})").format(score=scores, target=table.target)
    if cancelled:
        return "❌ " + t._("The game was cancelled during deal {n}.").format(n=table.deal_no) + "\n" + score
    return score + "\n" + t._("deal {n}").format(n=table.deal_no)


def ended_text(t: Text, room: Room) -> str:
    """/cancel of a game that is over already: which way it ended, and what now."""
    if room.result and room.result.get("cancelled"):
        return t._("This game was cancelled already. /newgame opens a new table.")
    return t._(
        "This match is over already: “Another match” on the table starts the next "
        "one, /newgame opens a new table."
    )


def leave_mid_match_text(t: Text, missed_turns: int) -> str:
    """/leave while a match is on: a seat is not left mid-match; the ways out."""
    return t.n(
        "The match is on: a seat cannot be left now. Just stop playing: after {n} "
        "missed turn a computer player plays for you. The creator or a member with "
        "Manage Server may end the game with /cancel.",
        "The match is on: a seat cannot be left now. Just stop playing: after {n} "
        "missed turns a computer player plays for you. The creator or a member with "
        "Manage Server may end the game with /cancel.",
        missed_turns,
    ).format(n=missed_turns)


def rules_text(t: Text, preset: str) -> str:
    return t.rules_card(preset, bold=True)


HELP = [
    N_("/newgame — open a table in this channel (a thread is a table of its own)"),
    N_("/join, /leave — take or leave a seat"),
    N_("/addbot — seat a computer player"),
    N_("/startgame — deal"),
    N_("/hand or the “Show my hand” button — my cards, only I see them"),
    N_("/settings — the table's rules, before the start (creator or Manage Server)"),
    N_("/invite — ask the channel to join"),
    N_("/kick — remove a player (creator or Manage Server)"),
    N_("/cancel — end the game (creator or Manage Server)"),
    N_("/wait, /unwait — queue for a seat at a table played with elimination"),
    N_("/score, /series, /top — the match, the series, the leaderboard"),
    N_("/history — the last matches here, each with a replay deal by deal"),
    N_("/stats — my numbers (or a player's: /stats player:@name)"),
    N_("/chart — the score chart after a long match: on or off (Manage Server)"),
    N_("/top table:this month — this month's leaderboard"),
    N_("/defaults — the rules a new table starts from here (keep, reset: Manage Server)"),
    N_("/notify — be told when a table opens here: on or off"),
    N_("/rules — a short rules card"),
    N_("/lang — the server's language"),
]


def help_text(t: Text) -> str:
    return "\n".join(
        ["🐐 " + t._("Kozel bot: card games with friends in this chat."), "", *(t._(h) for h in HELP)]
    )
