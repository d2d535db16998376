"""The fake Bot API as a process of its own, for a bot in another process or a container
(deploy/check-image.sh runs it in a container of the image, with tests/ mounted)::

    python -m tests.fakes.serve_telegram TOKEN

Prints ``ready http://127.0.0.1:PORT`` (the bot's ``TELEGRAM_API_URL``), then ``polled`` when
the bot first asks for updates, then has a user write ``/help`` to the bot in private and
prints ``answered /help`` once the bot's answer is there (or ``no answer to /help``). Serves
until SIGTERM or SIGINT, then prints ``stopped`` and exits 0."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys

from tests.fakes.telegram import FakeTelegram

WAIT_SECONDS = 120.0  # for the bot's first poll and its answer: a cold container is slow


async def _talk(fake: FakeTelegram) -> None:
    await fake.wait_for_call("getUpdates", timeout=WAIT_SECONDS)
    print("polled", flush=True)
    user = fake.add_user(5001, "Operator", username="operator", language_code="en")
    chat = fake.private_chat(user)
    fake.user_message(chat, user, "/help")
    try:
        await fake.wait_for_message(chat, timeout=WAIT_SECONDS)
        print("answered /help", flush=True)
    except (TimeoutError, AssertionError):
        print("no answer to /help", flush=True)


async def serve(token: str) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    async with FakeTelegram(token, max_poll_seconds=1.0) as fake:
        print(f"ready {fake.base_url}", flush=True)
        talk = asyncio.create_task(_talk(fake))
        await stop.wait()
        talk.cancel()
        with contextlib.suppress(asyncio.CancelledError, TimeoutError):
            await talk
    print("stopped", flush=True)


if __name__ == "__main__":
    asyncio.run(serve(sys.argv[1]))
