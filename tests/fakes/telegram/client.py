"""aiogram against the fake: a ``Bot`` whose session talks to it, and polling run in the
background for the length of a ``with`` block."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from tests.fakes.telegram.server import FakeTelegram

if TYPE_CHECKING:
    from aiogram import Bot, Dispatcher


def make_bot(fake: FakeTelegram, token: str | None = None, **bot_kwargs: Any) -> Bot:
    """``Bot(token, session=AiohttpSession(api=TelegramAPIServer.from_base(fake.base_url)))``."""
    from aiogram import Bot
    from aiogram.client.session.aiohttp import AiohttpSession

    session = AiohttpSession(api=fake.api_server)
    return Bot(token or fake.token, session=session, **bot_kwargs)


async def close_session_fast(bot: Bot) -> None:
    """Close the bot's aiohttp session without ``AiohttpSession.close()``'s 250 ms TLS grace sleep.

    Plain-HTTP connections to 127.0.0.1 need no grace period; falls back to the real close.
    """
    inner = getattr(bot.session, "_session", None)
    if inner is None:
        await bot.session.close()
        return
    if not inner.closed:
        await inner.close()


@contextlib.asynccontextmanager
async def run_polling(
    dp: Dispatcher,
    bot: Bot,
    fake: FakeTelegram,
    *,
    ready_timeout: float = 2.0,
    **polling_kwargs: Any,
) -> AsyncIterator[asyncio.Task[None]]:
    """Run ``dp.start_polling(bot, handle_signals=False)`` in the background.

    Enters once aiogram's first getUpdates reached the fake; on exit calls
    ``dp.stop_polling()``, awaits the polling task (re-raising its errors) and closes the
    session. Extra keyword arguments go to ``start_polling``.
    """
    polling_kwargs.setdefault("handle_signals", False)
    close_session = polling_kwargs.setdefault("close_bot_session", False) is False
    mark = fake.mark()
    task = asyncio.create_task(dp.start_polling(bot, **polling_kwargs))
    task.add_done_callback(lambda _: fake.log.notify())
    try:
        # A getUpdates call is recorded (and waiters notified) as soon as it arrives.
        await fake.wait_for(
            lambda: task.done() or any(call.method == "getUpdates" for call in fake.calls[mark:]),
            ready_timeout,
            what="aiogram polling to reach getUpdates",
        )
        if task.done():
            task.result()
            raise AssertionError("polling stopped before reaching getUpdates")
        yield task
    finally:
        if not task.done():
            with contextlib.suppress(RuntimeError):  # "Polling is not started"
                await dp.stop_polling()
        try:
            await task
        finally:
            if close_session:
                await close_session_fast(bot)
