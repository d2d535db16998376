"""The adapter's middlewares.

``Context`` (outer, on messages and callback queries) gives every handler what it needs
about who and where: ``user`` (the service's user), ``room_id`` (the chat's or topic's
room), ``t`` (the words of whoever sees the answer: the person for a toast, an ephemeral or
private answer; the chat for a plain command in a group), ``chat_t`` (the chat's words)
and ``update_key`` (the platform update id the service uses to apply an
update once). It also keeps any failure from reaching a person as silence or a traceback:
it is logged and answered with one plain line.

``Answer`` (inner, on callback queries) answers every button press once, after its
handler, with what the handler put in ``callback_answer``; a press answered already (a
redelivered update) is logged, not raised.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import BaseMiddleware
from aiogram.exceptions import TelegramAPIError, TelegramBadRequest, TelegramRetryAfter
from aiogram.types import CallbackQuery, Chat, Message, TelegramObject, Update
from aiogram.types import User as TgUser
from aiogram.utils.callback_answer import CallbackAnswer, CallbackAnswerMiddleware

from adapters.common.painting import take
from adapters.telegram.limits import ASKING, Asking
from adapters.telegram.painter import Painter
from adapters.telegram.replies import tell
from adapters.telegram.words import Words
from bot import logs
from bot.room import User, room_id_for

log = logging.getLogger(__name__)

Handler = Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]]


class Context(BaseMiddleware):
    def __init__(self, words: Words, painter: Painter) -> None:
        self.words = words
        self.painter = painter
        self.asking: Asking = ASKING
        self.inflight = 0
        self._idle = asyncio.Event()
        self._idle.set()

    async def idle(self, limit: float) -> bool:
        """Wait until no handler runs (a shutdown), for at most ``limit`` seconds."""
        try:
            await asyncio.wait_for(self._idle.wait(), limit)
            return True
        except TimeoutError:
            log.warning("shutdown: %d handlers still running", self.inflight)
            return False

    async def __call__(self, handler: Handler, event: TelegramObject, data: dict[str, Any]) -> Any:
        self.inflight += 1
        self._idle.clear()
        try:
            return await self._handle(handler, event, data)
        finally:
            self.inflight -= 1
            if not self.inflight:
                self._idle.set()

    async def _handle(self, handler: Handler, event: TelegramObject, data: dict[str, Any]) -> Any:
        tg_user: TgUser | None = data.get("event_from_user")
        chat: Chat | None = data.get("event_chat")
        if tg_user is None or tg_user.is_bot:
            # a channel's post, an anonymous admin: nobody a seat could belong to
            log.info("ignored a %s without a person", type(event).__name__)
            if isinstance(event, Message) and chat is not None and (event.text or "")[:1] == "/":
                t = await self.words.chat(chat.id)
                await tell(
                    event,
                    self.painter,
                    t._("I can't tell who you are: anonymous admins and channels can't play."),
                )
            return None
        lang = await self.words.person_language(tg_user)
        data["user"] = User(f"tg:{tg_user.id}", tg_user.full_name or str(tg_user.id), lang)
        data["t"] = self.words.of(lang)
        data["chat_t"] = data["t"]
        data["room_id"] = None
        if chat is not None:
            thread = data.get("event_thread_id")
            data["room_id"] = room_id_for("tg", str(chat.id), str(thread) if thread else None)
            if chat.type != "private":
                data["chat_t"] = await self.words.chat(chat.id)
            if isinstance(event, Message) and event.message_id:
                self.painter.saw(chat.id, event.message_id)
        update: Update | None = data.get("event_update")
        data["update_key"] = (
            f"cb{event.id}"
            if isinstance(event, CallbackQuery)
            else (f"u{update.update_id}" if update is not None else None)
        )
        with logs.context(data["room_id"], data["update_key"]):
            if not await self._allowed(event, tg_user.id, chat, data):
                return None
            try:
                return await handler(event, data)
            except Exception:
                log.exception("handling %s", type(event).__name__)
                if isinstance(event, Message):
                    await _sorry(event, data)
                return None

    async def _allowed(
        self, event: TelegramObject, user: int, chat: Chat | None, data: dict[str, Any]
    ) -> bool:
        """What one person (and one chat) may ask of the bot: a command in a group past his
        limit or the chat's is ignored (its answer would cost the group's budget or his
        private chat's, and the bot's time); a flood of presses gets a toast."""
        budgets = self.painter.budgets
        update = data.get("update_key")
        if isinstance(event, Message) and chat is not None and chat.type != "private":
            if not (event.text or "").startswith("/"):
                return True
            asking = self.asking
            if await take(budgets, f"tgcmd:{chat.id}:{user}", asking.person_commands, False, update) or (
                await take(budgets, f"tgcmd:{chat.id}", asking.chat_commands, False, update)
            ):
                log.info("ignored a command of %s in %s: over the limit", user, chat.id)
                return False
            return True
        if (
            isinstance(event, CallbackQuery)
            and await take(budgets, f"tgpress:{user}", self.asking.person_presses, False, update) > 0
        ):
            with contextlib.suppress(TelegramAPIError):
                await event.answer(data["t"]._("Too many presses: wait a moment."))
            return False
        return True


async def _sorry(message: Message, data: dict[str, Any]) -> None:
    try:
        await tell(message, data["painter"], data["t"]._("Something went wrong; please try again."))
    except TelegramAPIError as e:
        log.warning("could not say sorry in %s: %s", message.chat.id, e)


class Answer(CallbackAnswerMiddleware):
    """Every press answered once, after its handler; a failed handler answers "try again"."""

    async def __call__(self, handler: Handler, event: TelegramObject, data: dict[str, Any]) -> Any:
        if not isinstance(event, CallbackQuery):
            return await handler(event, data)
        answer = data["callback_answer"] = self.construct_callback_answer(None)
        try:
            return await handler(event, data)
        except Exception:
            log.exception("handling a press %r", event.data)
            if not answer.answered and not answer.disabled:
                t = data.get("t")
                answer.text = t._("Something went wrong; please try again.") if t else None
                answer.show_alert = True
            return None
        finally:
            if not answer.disabled and not answer.answered:
                await self._answer(event, answer)

    async def _answer(self, event: CallbackQuery, answer: CallbackAnswer) -> None:
        try:
            await event.answer(text=answer.text, show_alert=answer.show_alert, url=answer.url)
        except TelegramBadRequest as e:
            # a redelivered press whose first answer went out: Telegram keeps only one
            log.info("press %s already answered: %s", event.id, e)
        except TelegramRetryAfter as e:
            # a press's answer is due within seconds of the press: not worth a wait
            log.warning("press %s unanswered: 429, retry after %s", event.id, e.retry_after)
