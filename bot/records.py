"""What the service keeps of a chat beside its tables: its people's usernames, its
settings (language, charts), the series and leaderboard of its finished matches, a
person's numbers. A mixin of ``GameService`` (``bot/service.py``): nothing here changes a
room."""

from __future__ import annotations

from typing import Any

from bot.changes import Now
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


def chat_key(platform: str, chat: str) -> str:
    return f"{platform}:{chat}"


class ChatRecords:
    store: Store
    settings: Any

    def now(self) -> Now:
        raise NotImplementedError  # GameService's

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

    # --- statistics -----------------------------------------------------------------------

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
        month = season_of(self.now().t)
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
