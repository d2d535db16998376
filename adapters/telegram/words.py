"""Whose words: a chat's language (``/lang`` in a group, by its admins) for what the chat
sees, a person's (``/lang`` in the private chat, else Telegram's language code) for what
only he sees (toasts, hands, private messages)."""

from __future__ import annotations

from aiogram.types import User as TgUser

from adapters.common.i18n import LANGUAGES, pick_language
from adapters.common.render import Text
from bot.service import GameService

CACHE_SECONDS = 30.0  # another worker's /lang reaches this one within this long
# [workaround] the service keeps languages per chat only, and reads an unset one as the
# default: a person's choice is kept as his private chat's language plus a marker "chat"
# that says it was chosen (reading it back tells "set" from the default).
_CHOSEN = "chosen"


class Words:
    def __init__(self, service: GameService, default: str) -> None:
        self.service = service
        self.default = default
        self._texts = {lang: Text(lang) for lang in LANGUAGES}
        self._chats: dict[str, tuple[str, float]] = {}

    def of(self, lang: str | None) -> Text:
        return self._texts[lang if lang in self._texts else self.default]

    async def chat_language(self, chat: int | str) -> str:
        key = str(chat)
        now = self.service.clock.now()
        hit = self._chats.get(key)
        if hit is not None and hit[1] > now:
            return hit[0]
        lang = await self.service.chat_language("tg", key)
        self._chats[key] = (lang, now + CACHE_SECONDS)
        return lang

    async def chat(self, chat: int | str) -> Text:
        return self.of(await self.chat_language(chat))

    async def set_chat(self, chat: int | str, lang: str) -> None:
        await self.service.set_chat_language("tg", str(chat), lang)
        self._chats[str(chat)] = (lang, self.service.clock.now() + CACHE_SECONDS)

    async def person_language(self, user: TgUser) -> str:
        marker = await self.chat_language(f"{user.id}.{_CHOSEN}")
        if marker == _CHOSEN:
            return await self.chat_language(user.id)
        return pick_language(user.language_code, self.default)

    async def person(self, user: TgUser) -> Text:
        return self.of(await self.person_language(user))

    async def set_person(self, user: TgUser, lang: str) -> None:
        await self.set_chat(user.id, lang)
        await self.set_chat(f"{user.id}.{_CHOSEN}", _CHOSEN)
