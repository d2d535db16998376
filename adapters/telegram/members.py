"""Who belongs to a chat, asked of Telegram (``getChatMember``) and remembered a few seconds.

Admin rights decide who may cancel, kick or set a table's rules, and membership decides
who may sit down through an invitation link. A member who presses a button twenty times
must not cost twenty calls of the bot's own API budget, so an answer is kept for
``CACHE_SECONDS`` (long enough for a burst of presses, short enough that a new admin or
a member who left is seen at once in practice).
"""

from __future__ import annotations

import logging

from aiogram import Bot
from aiogram.exceptions import TelegramAPIError, TelegramBadRequest, TelegramForbiddenError

from bot.clock import Clock

log = logging.getLogger(__name__)

CACHE_SECONDS = 5.0
MAX_CACHED = 4096  # answers kept at most (old ones go first)
ADMINS = frozenset({"creator", "administrator"})
GONE = frozenset({"left", "kicked"})


class Members:
    def __init__(self, bot: Bot, clock: Clock) -> None:
        self.bot = bot
        self.clock = clock
        self._seen: dict[tuple[int, int], tuple[str | None, float]] = {}

    async def status(self, chat: int, user: int) -> str | None:
        """The person's status in the chat ("member", "administrator", "left", ...); None
        when Telegram does not know him there or cannot be asked."""
        now = self.clock.now()
        hit = self._seen.get((chat, user))
        if hit is not None and hit[1] > now:
            return hit[0]
        status: str | None
        try:
            member = await self.bot.get_chat_member(chat, user)
            status = member.status
            if status == "restricted" and not getattr(member, "is_member", True):
                status = "left"  # restricted but no longer in the chat
        except (TelegramBadRequest, TelegramForbiddenError):
            status = None
        except TelegramAPIError as e:  # a 429 or a network error: not cached
            log.info("getChatMember %s in %s: %s", user, chat, e)
            return None
        if len(self._seen) >= MAX_CACHED:
            for key in list(self._seen)[: MAX_CACHED // 4]:
                del self._seen[key]
        self._seen[(chat, user)] = (status, now + CACHE_SECONDS)
        return status

    async def is_admin(self, chat: int, user: int) -> bool:
        """A chat admin (or its creator); a private chat's owner is the admin of it."""
        if chat == user:
            return True
        return await self.status(chat, user) in ADMINS

    async def is_member(self, chat: int, user: int) -> bool:
        status = await self.status(chat, user)
        return status is not None and status not in GONE
