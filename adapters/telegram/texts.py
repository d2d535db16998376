"""Telegram's texts drawn from the service's views: the lobby, a hand, settings, help,
refusals, the one-line result an old table message becomes. Words come from the catalogs
(adapters/common/render.py's ``Text``); nothing here knows a preset by name.
"""

from __future__ import annotations

from typing import Any

from adapters.common.i18n import N_
from adapters.common.lobby import level_word
from adapters.common.render import OPTION_TITLES, PRESET_TITLES, Text, value_title
from bot.changes import Reason
from bot.service import Outcome
from bot.views import HandView, Line, TableView
from engine.presets import PRESETS

# the games /help and the picker list, in this order (titles from the catalogs)
GAMES = tuple(PRESETS)


def game_title(t: Text, preset: str) -> str:
    return t._(PRESET_TITLES.get(preset, preset))


def seat_label(t: Text, table: TableView, i: int) -> str:
    """A seat in the lobby: the name, and a computer player's level in words."""
    s = table.seats[i]
    if s is None:
        return "—"
    name = t.seat_name(table, i)
    word = level_word(s.level) if s.computer and not s.auto else None
    return f"{name} · {t._(word)}" if word else name


def lobby_text(t: Text, table: TableView) -> str:
    """The lobby: title and size, the seats (grouped by team when the game has teams), the
    rules one a line, the level of new computer players."""
    head = f"🐐 {t.title(table)} · " + t.n("{n} player", "{n} players", table.size).format(n=table.size)
    rows = [head, t._("Seats:")]
    sides = [side for side in table.sides if side] if table.partnership else []
    if sides:
        for k, side in enumerate(sides):
            rows.append(t._("Team {team}:").format(team=_team_letter(k)))
            rows.extend(f"  {i + 1}. {seat_label(t, table, i)}" for i in side)
    else:
        rows.extend(f" {i + 1}. {seat_label(t, table, i)}" for i in range(len(table.seats)))
    options = option_lines(t, table)
    if options:
        rows.append(t._("Rules:"))
        rows.extend(f" • {line}" for line in options)
    changed = t.changed_line(table)  # issue 36.1
    if changed:
        rows.append(changed)
    rows.append(
        "🤖 "
        + t._("Computer players: {level}").format(level=t._(level_word(table.bot_level) or table.bot_level))
    )
    return "\n".join(rows)


def _team_letter(k: int) -> str:
    return "ABCDEF"[k] if k < 6 else str(k + 1)


def option_lines(t: Text, table: TableView) -> list[str]:
    """Each option of the table with its value, one a line."""
    return [f"{t._(OPTION_TITLES.get(k, k))}: {t._(value_title(v))}" for k, v in table.options.items()]


def settings_text(t: Text, table: TableView) -> str:
    rows = [t._("Rules of this table:")]
    lines = option_lines(t, table)
    if lines:
        rows.extend(f" • {line}" for line in lines)
    else:
        rows.append(t._("This game has no options to set."))
    rows.append(
        " • "
        + t._("players: {counts}").format(counts=", ".join(str(n) for n in PRESETS[table.preset].players))
    )
    rows.append(t._("Tap a rule to change it (the table's creator or a chat admin)."))
    return "\n".join(rows)


def hand_text(t: Text, hand: HandView, group: str | None = None, notice: str | None = None) -> str:
    """A hand: its game (and group, in the private chat), the cards and what to do; the
    cards on the table while the hand must answer them; a refusal's reason on top."""
    table = hand.table
    head = "🐐 " + t.title(table)
    if group:
        head += " · " + group
    rows = [f"⚠️ {notice}"] if notice else []
    rows += [head, t.hand(hand)]
    if table.trick:
        rows.append(
            t._("On the table: {plays}").format(plays=" · ".join(t.play(table, p) for p in table.trick))
        )
    return "\n".join(rows)


def hand_over_text(t: Text, table: TableView | None, cancelled: bool, group: str | None = None) -> str:
    """What a hand becomes when its match ends: no cards, no buttons."""
    head = "🐐 " + (t.title(table) if table is not None else "")
    if group:
        head += " · " + group
    return head + "\n" + (t._("The game was cancelled.") if cancelled else t._("The game is over."))


def one_line_result(t: Text, preset: str, end: dict[str, Any] | None) -> str:
    """What an old table message becomes once its match is over and a new one is drawn
    below: one line, no buttons."""
    title = game_title(t, preset)
    if not end:
        return f"🐐 {title} · " + t._("closed")
    if end.get("abandoned"):
        return f"🏳 {title} · " + t._("{name} gave up").format(name=(end.get("params") or {}).get("name", "?"))
    if end.get("cancelled"):
        return f"❌ {title} · " + t._("cancelled")
    if end.get("expired"):
        return f"⌛ {title} · " + t._("closed: nobody played for a long time")
    params = end.get("params") or {}
    names = params.get("seat_names") or []
    winners = ", ".join(
        str(names[s]) if isinstance(s, int) and s < len(names) else "?" for s in params.get("winners", [])
    )
    score = " — ".join(str(v) for v in params.get("score", []))
    return f"🏁 {title} · " + t._("won by {names} ({score})").format(names=winners, score=score)


def deal_summary(t: Text, table: TableView, deal: dict[str, Any] | None) -> str | None:
    """The last deal's result, folded into the table message (not a post of its own)."""
    if not deal or deal.get("gen") != table.gen:
        return None
    line = Line(deal["key"], deal.get("params", {}))
    return "📋 " + t.deal_result(line, table)


def refusal(t: Text, out: Outcome, creator: str | None = None) -> str:
    """A refusal that says what is needed."""
    reason = out.reason
    allowed = out.data.get("allowed")
    if reason == Reason.BAD_COUNT and allowed:
        return t._("This game needs {counts} players.").format(counts=_or_list(t, allowed))
    if reason == Reason.BAD_SIZE and allowed:
        return t._("A table of this game seats {counts}.").format(counts=_or_list(t, allowed))
    if reason == Reason.BAD_LEVEL:
        return t._("Levels: easy, normal, hard.")
    if reason == Reason.ROOM_EXISTS:
        return t._("A table is already open here: play at it, or end it with /cancel.")
    if reason == Reason.NOT_SEATED:
        return t._("You are not at the table: take a seat with /join first.")
    if reason == Reason.NOT_ALLOWED and creator:
        return t._("Only the table's creator ({name}) or a chat admin may do that.").format(name=creator)
    text = t.reason(reason)
    extra = out.data.get("message")
    return text + (f"\n{extra}" if extra and reason != Reason.BAD_OPTION else "")


def _or_list(t: Text, values: list[Any]) -> str:
    items = [str(v) for v in values]
    if len(items) == 1:
        return items[0]
    return t._("{some} or {last}").format(some=", ".join(items[:-1]), last=items[-1])


HELP_ROWS = (
    N_("/newgame — open a table: a list of games (or /newgame and a game's code)"),
    N_("/join, /leave — take or leave a seat"),
    N_("/addbot [easy|normal|hard] — seat a computer player"),
    N_("/startgame — deal"),
    N_("/settings — the table's rules, before the start"),
    N_("/hand — show my cards (only I see them)"),
    N_("/invite — a link that seats friends at this table"),
    N_("/kick — remove a player: reply to them, a seat number or @username"),
    N_("/wait, /unwait — queue for a seat at a table played with elimination"),
    N_("/cancel — end the game (creator or admin)"),
    N_("/tournament <game> [rounds] — a tournament in this chat: sign up, Swiss rounds, standings"),
    N_("/score, /series, /top — the match, the series, the leaderboard"),
    N_("/history — the last matches here, each with a replay deal by deal"),
    N_("/stats — my numbers; replying to someone, or /stats @username: theirs"),
    N_("/chart on|off — the score chart after a long match (admins)"),
    N_("/top season — this month's leaderboard"),
    N_("/defaults — the rules a new table starts from here (save, reset: admins)"),
    N_("/notify on|off — be told when a table opens here"),
    N_("/rules [game] — a short rules card"),
    N_("/lang ru|en|uk|hr — the chat's language (admins; in a private chat: yours)"),
)


def help_text(t: Text) -> str:
    rows = ["🐐 " + t._("Kozel bot: card games with friends in this chat."), ""]
    rows += [t._(r) for r in HELP_ROWS]
    rows += ["", t._("Games:")]
    rows += [f" • {game_title(t, p)} — /newgame {p}" for p in GAMES]
    return "\n".join(rows)


def rules_text(t: Text, preset: str) -> str:
    return t.rules_card(preset)
