"""Whose words: a chat's language (``/lang`` in a group, by its admins) for what the chat
sees, a person's (``/lang`` in the private chat, else Telegram's language code) for what
only he sees (toasts, hands, private messages)."""

from __future__ import annotations

from aiogram.types import User as TgUser

from adapters.common.i18n import LANGUAGES, pick_language
from adapters.common.render import Text
from bot.clock import Clock
from bot.records import ChatSettings

CACHE_SECONDS = 30.0  # another worker's /lang reaches this one within this long


class Words:
    def __init__(self, chats: ChatSettings, clock: Clock, default: str) -> None:
        self.chats = chats
        self.clock = clock
        self.default = default
        self._texts = {lang: Text(lang) for lang in LANGUAGES}
        self._chats: dict[str, tuple[str, float]] = {}
        self._chosen: dict[int, tuple[bool, float]] = {}

    def of(self, lang: str | None) -> Text:
        return self._texts[lang if lang in self._texts else self.default]

    async def chat_language(self, chat: int | str) -> str:
        key = str(chat)
        now = self.clock.now()
        hit = self._chats.get(key)
        if hit is not None and hit[1] > now:
            return hit[0]
        lang = await self.chats.chat_language("tg", key)
        self._chats[key] = (lang, now + CACHE_SECONDS)
        return lang

    async def chat(self, chat: int | str) -> Text:
        return self.of(await self.chat_language(chat))

    async def set_chat(self, chat: int | str, lang: str) -> None:
        await self.chats.set_chat_language("tg", str(chat), lang)
        self._chats[str(chat)] = (lang, self.clock.now() + CACHE_SECONDS)

    async def person_language(self, user: TgUser) -> str:
        """His own choice (``/lang`` in the private chat: that chat's language), else the
        language of his Telegram app."""
        now = self.clock.now()
        hit = self._chosen.get(user.id)
        if hit is None or hit[1] <= now:
            hit = (await self.chats.chat_language_set("tg", str(user.id)), now + CACHE_SECONDS)
            self._chosen[user.id] = hit
        if hit[0]:
            return await self.chat_language(user.id)
        return pick_language(user.language_code, self.default)

    async def person(self, user: TgUser) -> Text:
        return self.of(await self.person_language(user))

    async def set_person(self, user: TgUser, lang: str) -> None:
        await self.set_chat(user.id, lang)
        self._chosen[user.id] = (True, self.clock.now() + CACHE_SECONDS)
