"""Words of issue 36 shared by every platform: the chat's house rules (``/defaults``),
notices when a table opens (``/notify``), the leaderboards (``/top``, ``/top season``)
and the table against computer players."""

from __future__ import annotations

from typing import Any

from adapters.common.lobby import level_word
from adapters.common.render import OPTION_TITLES, Text, value_title
from bot.house import changed_options
from bot.records import ChatSettings
from engine.presets import PRESETS

# most people one notice names (issue 36.2): a notice is one message, and a long list of
# mentions is a wall of pings
NOTICE_CAP = 10
# the candidates checked for membership before a notice is sent (each one a platform call)
NOTICE_CHECKS = 30


def options_text(t: Text, options: dict[str, Any], names: list[str]) -> str:
    return " · ".join(f"{t._(OPTION_TITLES.get(k, k))}: {t._(value_title(options[k]))}" for k in names)


def house_rules_text(t: Text, preset: str, rules: dict[str, Any] | None, changed: list[str]) -> str:
    """``/defaults``: what a new table of ``preset`` here starts from."""
    title = t.preset_title(preset)
    if rules is None:
        return "⚙️ " + t._("{game}: a new table starts from the game's own rules.").format(game=title)
    head = (
        t._("{game}: a new table starts from the chat's defaults (set by an admin).")
        if rules["pinned"]
        else t._("{game}: a new table starts from the rules last dealt here.")
    )
    rows = ["⚙️ " + head.format(game=title)]
    details = []
    if rules["size"]:
        details.append(t.n("{n} player", "{n} players", rules["size"]).format(n=rules["size"]))
    if rules["level"]:
        details.append(
            t._("computer players: {level}").format(level=t._(level_word(rules["level"]) or rules["level"]))
        )
    if details:
        rows.append(" · ".join(details))
    rows.append(
        t._("House rules (not the game's own): {options}").format(
            options=options_text(t, rules["options"], changed)
        )
        if changed
        else t._("Options: the game's own.")
    )
    return "\n".join(rows)


def notify_text(t: Text, on: bool) -> str:
    return (
        "🔔 " + t._("You will be told when a table opens here.")
        if on
        else "🔕 " + t._("You will not be told when a table opens here.")
    )


def vs_computers_text(t: Text, rows: list[dict[str, Any]]) -> str:
    """How each person stands against each computer level (matches with no other person)."""
    if not rows:
        return ""
    lines = ["🤖 " + t._("Against computer players alone:")]
    for r in rows[:15]:
        levels = " · ".join(
            t._("{level}: won {won} of {played} ({rate})").format(
                level=t._(level_word(lv) or lv), won=v["won"], played=v["played"], rate=f"{v['rate']:.0%}"
            )
            for lv, v in r["levels"].items()
        )
        lines.append(f"{r['name']} — {levels}")
    return "\n".join(lines)


def top_text(t: Text, rows: list[dict[str, Any]], vs: list[dict[str, Any]]) -> str:
    """``/top``: people by rating in matches with two people or more, then the table
    against computer players."""
    people = [r for r in rows if not r.get("computer")]
    if not people and not vs:
        return t.top(rows)
    head = t.top(people) if people else t._("Nobody has finished a match with two people or more here yet.")
    tail = vs_computers_text(t, vs)
    return head + ("\n\n" + tail if tail else "")


def season_text(t: Text, month: str, rows: list[dict[str, Any]]) -> str:
    """``/top season``: this calendar month's table."""
    head = "🗓 " + t._("Season {month} (UTC):").format(month=month)
    if not rows:
        return head + "\n" + t._("No matches with two people or more this month yet.")
    return head + "\n" + t.top(rows)


async def house_rules_rows(
    chats: ChatSettings, platform: str, chat: str, t: Text, preset: str | None
) -> list[str]:
    """``/defaults``: what each game (or ``preset``) starts from in this chat, a row each;
    the platform adds how to change it."""
    rows = []
    for p in [preset] if preset else list(PRESETS):
        rules = await chats.house_rules(platform, chat, p)
        if rules is not None or preset:
            rows.append(house_rules_text(t, p, rules, changed_options(p, rules["options"]) if rules else []))
    if not rows:
        rows.append("⚙️ " + t._("Every game here starts from its own rules."))
    return rows
