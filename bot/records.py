"""What is kept of a chat beside its tables, in two small pieces: ``ChatSettings`` (its
people's usernames, its language and settings, house rules, who asked for notices) and
``Statistics`` (the series and leaderboards of its finished matches, a person's numbers).
Nothing here changes a room; the rooms and moves are ``GameService``'s."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from bot import house
from bot.clock import Clock, SystemClock
from bot.config import Settings
from bot.platform import FloodBudgets
from bot.room import Room
from bot.stats import (
    Ratings,
    leaderboard_rows,
    profile_of,
    season_counters,
    season_of,
    series_rows,
    vs_computers_rows,
    with_people_counters,
)
from bot.store import Store

# A chat's notice list lives while tables open there (or people change it): a chat quiet
# for this long forgets it.
NOTIFY_TTL = 180 * 24 * 3600
# a chat's notices at most one a NOTICE_GAP: a member who opens and cancels tables cannot
# ping the people who asked over and over
NOTICE_GAP = 600.0


def chat_key(platform: str, chat: str) -> str:
    return f"{platform}:{chat}"


class ChatSettings:
    """A chat's own choices and people: usernames, language and settings, house rules,
    notices."""

    def __init__(self, store: Store, settings: Settings, budgets: FloodBudgets) -> None:
        self.store = store
        self.settings = settings
        self.budgets = budgets

    # --- usernames --------------------------------------------------------------------------

    async def remember_username(self, platform: str, chat: str, username: str, user_id: str) -> None:
        """A person of the chat by his @username (kept for a month after it was last seen):
        how commands name people, since names are whatever anyone types."""
        await self.store.remember_username(chat_key(platform, chat), username.lower(), user_id)

    async def user_by_username(self, platform: str, chat: str, username: str) -> str | None:
        return await self.store.username(chat_key(platform, chat), username.lower().lstrip("@"))

    # --- chat settings ----------------------------------------------------------------------

    async def set_chat_language(self, platform: str, chat: str, lang: str) -> None:
        await self.store.set_chat_pref(chat_key(platform, chat), "lang", lang)

    async def chat_language(self, platform: str, chat: str) -> str:
        return await self.store.chat_pref(chat_key(platform, chat), "lang") or self.settings.default_language

    async def chat_setting(self, platform: str, chat: str, name: str) -> str | None:
        """A chat's own setting (``chart``: "on"/"off", ...); None: never set."""
        return await self.store.chat_pref(chat_key(platform, chat), name)

    async def set_chat_setting(self, platform: str, chat: str, name: str, value: str) -> None:
        await self.store.set_chat_pref(chat_key(platform, chat), name, value)

    async def chat_language_set(self, platform: str, chat: str) -> bool:
        """Whether the chat has chosen a language (a new one follows its platform locale)."""
        return await self.store.chat_pref(chat_key(platform, chat), "lang") is not None

    # --- house rules (issue 36.1) -------------------------------------------------------------

    async def house_rules(self, platform: str, chat: str, preset: str) -> dict[str, Any] | None:
        """What a new table of ``preset`` in the chat starts from: ``options``, ``size``,
        ``level`` (None each: the game's own) and ``pinned`` (an admin set them; else the
        last deal's). None: the game's own rules."""
        pinned, last = await self.store.chat_prefs(
            chat_key(platform, chat), [house.field_of(preset, True), house.field_of(preset, False)]
        )
        for text, is_pinned in ((pinned, True), (last, False)):
            rules = house.settled(preset, text)
            if rules is not None:
                return {**rules, "pinned": is_pinned}
        return None

    async def remember_rules(self, room: Room) -> None:
        """A table was dealt: its game's options, size and level are the chat's next."""
        text = house.packed(room.options, room.size, room.bot_level)
        await self.store.set_chat_pref(
            chat_key(room.platform, room.chat), house.field_of(room.preset, False), text
        )

    async def pin_rules(self, room: Room) -> None:
        """An admin's ``/defaults save``: the table's rules, the chat's for its game."""
        text = house.packed(room.options, room.size, room.bot_level)
        await self.store.set_chat_pref(
            chat_key(room.platform, room.chat), house.field_of(room.preset, True), text
        )

    async def reset_rules(self, platform: str, chat: str, presets: Sequence[str]) -> None:
        """Back to each game's own rules: pinned and remembered both forgotten."""
        names = [house.field_of(p, pin) for p in presets for pin in (True, False)]
        await self.store.drop_chat_prefs(chat_key(platform, chat), names)

    # --- notices (issue 36.2) -----------------------------------------------------------------

    async def set_notify(self, platform: str, chat: str, user_id: str, on: bool) -> None:
        await self.store.set_notify(chat_key(platform, chat), user_id, on, NOTIFY_TTL)

    async def notify_on(self, platform: str, chat: str, user_id: str) -> bool:
        return await self.store.notify_on(chat_key(platform, chat), user_id)

    async def notice_for(self, room: Room) -> list[str]:
        """Who is to be told that ``room``'s table opened: the people of its chat who asked,
        but not its creator; the first call for a table gets them, any later one nothing
        (one notice a table). The adapter checks each is still a member, and caps them."""
        mark = f"{room.gen}#{room.created:.3f}"
        chat = chat_key(room.platform, room.chat)
        users = await self.store.claim_notice(chat, room.id, mark, NOTIFY_TTL)
        users = [u for u in users if u != room.creator]
        if not users or await self.budgets.flood_take(f"notice:{chat}", limit=1, window=NOTICE_GAP) > 0:
            return []
        random.shuffle(users)  # the adapters name the first few: each his turn, not the same ten
        return users

    async def drop_notify(self, platform: str, chat: str, users: Sequence[str]) -> None:
        """People no longer members of the chat: never told again."""
        for user in users:
            await self.store.set_notify(chat_key(platform, chat), user, False, NOTIFY_TTL)


class Statistics:
    """A chat's series and leaderboards, a person's numbers: read from the records every
    finished match leaves (written with its last move, ``bot/store.py``)."""

    def __init__(self, store: Store, clock: Clock | None = None) -> None:
        self.store = store
        self.clock = clock or SystemClock()

    async def series(self, platform: str, chat: str) -> list[dict[str, Any]]:
        """Matches between the same line-ups in this chat: names and wins per side."""
        counters = await self.store.series(chat_key(platform, chat))
        _players, names = await self.store.players(chat_key(platform, chat))
        return series_rows(counters, names)

    async def leaderboard(self, platform: str, chat: str, computers: bool = False) -> list[dict[str, Any]]:
        """The chat's people by rating (issue 36.5: matches with two people or more): each
        with matches, wins, win rate, rating, and ``ranked`` once they played
        ``MIN_MATCHES``; ``computers``: the computer levels rated here too (``computer``:
        True, their wins not counted)."""
        key = chat_key(platform, chat)
        counters = with_people_counters(await self.store.series(key))
        _players, names = await self.store.players(key)
        ratings = Ratings.parse(await self.store.chat_ratings(key))
        return leaderboard_rows(counters, names, ratings, computers)

    async def season_leaderboard(self, platform: str, chat: str) -> tuple[str, list[dict[str, Any]]]:
        """``/top season``: this calendar month's (UTC) table, as ``leaderboard``'s, and the
        month (``2026-12``)."""
        key = chat_key(platform, chat)
        month = season_of(self.clock.now())
        raw = await self.store.season_ratings(key, month)
        _players, names = await self.store.players(key)
        return month, leaderboard_rows(season_counters(raw), names, Ratings.parse(raw))

    async def vs_computers(self, platform: str, chat: str) -> list[dict[str, Any]]:
        """How each person of the chat stands against each computer level, in matches with
        no other person: ``levels`` -> {played, won, rate}."""
        key = chat_key(platform, chat)
        _players, names = await self.store.players(key)
        return vs_computers_rows(await self.store.series(key), names)

    async def player_stats(self, user_id: str) -> dict[str, float]:
        return await self.store.user_stats(user_id)

    async def profile(self, platform: str, chat: str, user_id: str) -> dict[str, Any] | None:
        """/stats: a person's matches, wins, win rate, overall rating and this chat's,
        favourite game, best streak. None: no finished match yet."""
        raw = await self.store.user_stats(user_id)
        if not raw.get("played"):
            return None
        ratings = Ratings.parse(await self.store.chat_ratings(chat_key(platform, chat)))
        return profile_of(raw, ratings.values.get(user_id))

    async def recent_matches(self, platform: str, chat: str, limit: int = 10) -> list[dict[str, Any]]:
        return await self.store.matches(chat_key(platform, chat), limit)
