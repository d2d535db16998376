"""The fake Bot API server: the parts composed behind one HTTP endpoint (see the package)."""

from __future__ import annotations

import asyncio
import inspect
import socket
import time
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from aiohttp import web

from tests.fakes.telegram.injection import Injection
from tests.fakes.telegram.limits import Limits
from tests.fakes.telegram.messages import Messages
from tests.fakes.telegram.model import (
    ApiError,
    Call,
    FakeChat,
    FakeMessage,
    FakeUser,
    Responder,
)
from tests.fakes.telegram.params import read_params
from tests.fakes.telegram.responders import Responders
from tests.fakes.telegram.updates import Updates
from tests.fakes.telegram.validation import check_payload, optional_int_or_none
from tests.fakes.telegram.waiting import CallLog
from tests.fakes.telegram.world import World

if TYPE_CHECKING:
    from aiogram.client.telegram import TelegramAPIServer

DEFAULT_TOKEN = "123456789:AAFakeTokenForTestsOnly_0123456789ab"


class FakeTelegram:
    """Fake Bot API server. Use ``async with FakeTelegram() as fake`` (or ``start()``/``stop()``).

    :param token: the only token accepted (``check_token=False`` accepts any); its numeric prefix
        is the bot's user id, as aiogram assumes.
    :param strict_ephemeral: enforce the Bot API rules for sending ephemeral messages: groups only,
        non-bot receiver, and unless the bot is a chat administrator either a ``callback_query_id``
        of a callback pressed by the receiver in that chat or a reply to the receiver's incoming
        ephemeral message (``reply_parameters.ephemeral_message_id``).
    :param require_private_start: sending to a user's private chat fails with 403 "bot can't
        initiate conversation with a user" until the user wrote to the bot in private
        (``user_message`` in a private chat, or ``private_chat(user)``).
    :param max_poll_seconds: cap on how long one getUpdates waits (default: honour ``timeout``;
        a queued update or ``stop()`` wakes it anyway).
    """

    def __init__(
        self,
        token: str = DEFAULT_TOKEN,
        *,
        bot_username: str = "kozel_test_bot",
        bot_first_name: str = "Kozel Test Bot",
        check_token: bool = True,
        strict_ephemeral: bool = True,
        require_private_start: bool = True,
        max_poll_seconds: float | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.token = token
        self.clock: Callable[[], float] = clock or time.monotonic
        self.check_token = check_token
        bot = FakeUser(
            id=int(token.split(":", 1)[0]),
            first_name=bot_first_name,
            username=bot_username,
            is_bot=True,
        )
        # the parts: each keeps its own state
        self.log = CallLog()
        self.world = World(bot, require_private_start=require_private_start)
        self.limits = Limits()
        self.updates = Updates(self.log.notify, max_poll_seconds)
        self._writes = Messages(self.world, strict_ephemeral=strict_ephemeral)
        self.injection = Injection(self.world, self.updates)
        self._responders: dict[str, Responder] = {}
        self._canonical: dict[str, str] = {}
        self._runner: web.AppRunner | None = None
        self._port = 0
        for name, responder in Responders(self.world, self._writes, self.updates).table().items():
            self.on(name, responder)

        # the names tests use most, lent by the parts (the rest: fake.world.users, ...)
        world, log, injection = self.world, self.log, self.injection
        self.bot = world.bot
        self.add_user = world.add_user
        self.group = world.group
        self.private_chat = world.private_chat
        self.set_member = world.set_member
        self.make_admin = world.make_admin
        self.messages = world.messages
        self.visible_messages = world.visible_messages
        self.last_bot_message = world.last_bot_message
        self.user_message = injection.user_message
        self.press = injection.press
        self.calls = log.calls
        self.mark = log.mark
        self.find_calls = log.find_calls
        self.api_calls = log.api_calls
        self.wait_for = log.wait_for
        self.wait_for_call = log.wait_for_call

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> FakeTelegram:
        if self._runner is not None:
            return self
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        runner = web.AppRunner(app, access_log=None, handler_cancellation=True, shutdown_timeout=0.5)
        await runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self._port = sock.getsockname()[1]
        site = web.SockSite(runner, sock)
        await site.start()
        self._runner = runner
        self.updates.closing = False
        return self

    async def stop(self) -> None:
        if self._runner is None:
            return
        self.updates.close()
        runner, self._runner = self._runner, None
        await runner.cleanup()

    async def __aenter__(self) -> FakeTelegram:
        return await self.start()

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    @property
    def port(self) -> int:
        return self._port

    @property
    def base_url(self) -> str:
        """For ``TelegramAPIServer.from_base(fake.base_url)``."""
        if not self._port:
            raise RuntimeError("FakeTelegram is not started")
        return f"http://127.0.0.1:{self._port}"

    @property
    def api_server(self) -> TelegramAPIServer:
        from aiogram.client.telegram import TelegramAPIServer

        return TelegramAPIServer.from_base(self.base_url)

    # ------------------------------------------------------------------ responders

    def on(self, method: str, responder: Responder) -> None:
        """Answer ``method`` with ``responder(params)`` (sync or async, may raise ApiError)."""
        self._canonical[method.lower()] = method
        self._responders[method.lower()] = responder

    def responder(self, method: str) -> Responder | None:
        """The current responder of ``method`` (e.g. to wrap it: ``fake.on(m, wrap(old))``)."""
        return self._responders.get(method.lower())

    # ------------------------------------------------------------------ waiting, across the parts

    async def wait_for_message(
        self,
        chat: FakeChat | int,
        where: Callable[[FakeMessage], bool] | None = None,
        *,
        from_bot: bool | None = True,
        ephemeral: bool | None = None,
        timeout: float = 2.0,
    ) -> FakeMessage:
        """First (not deleted) message in ``chat`` matching the filters."""
        chat_id = chat.id if isinstance(chat, FakeChat) else chat

        def first() -> FakeMessage | None:
            for message in self.messages(chat_id, from_bot=from_bot, ephemeral=ephemeral):
                if where is None or where(message):
                    return message
            return None

        result = await self.wait_for(first, timeout, what=f"message in chat {chat_id}")
        assert result is not None
        return result

    async def wait_delivered(self, update_id: int | None = None, timeout: float = 2.0) -> None:
        """Until getUpdates has returned the update (default: the last queued one)."""
        target = self.updates.last_update_id if update_id is None else update_id
        await self.wait_for(
            lambda: self.updates.delivered_up_to >= target or self.updates.skipped(target),
            timeout,
            what=f"delivery of update {target}",
        )

    async def wait_confirmed(self, update_id: int | None = None, timeout: float = 2.0) -> None:
        """Until a later getUpdates confirmed the update via ``offset``.

        With ``start_polling(..., handle_as_tasks=False)`` this means its handler has finished
        (aiogram polls again only after processing), so "nothing was sent" can be asserted.
        """
        target = self.updates.last_update_id if update_id is None else update_id
        await self.wait_for(
            lambda: self.updates.confirmed_up_to >= target or self.updates.skipped(target),
            timeout,
            what=f"confirmation of update {target}",
        )

    @property
    def member_lookups(self) -> Counter[tuple[int, int]]:
        """getChatMember requests per (chat id, user id), refused ones too (to assert caching)."""
        counts: Counter[tuple[int, int]] = Counter()
        for call in self.calls:
            if call.method.lower() != "getchatmember":
                continue
            chat = call.params.get("chat_id")
            if isinstance(chat, str) and chat.startswith("@"):
                chat = next(
                    (s.chat.id for s in self.world.chats.values() if f"@{s.chat.username}" == chat), chat
                )
            chat_id, user_id = optional_int_or_none(chat), optional_int_or_none(call.params.get("user_id"))
            if chat_id is not None and user_id is not None:
                counts[chat_id, user_id] += 1
        return counts

    # ------------------------------------------------------------------ HTTP plumbing

    async def _handle(self, request: web.Request) -> web.Response:
        token = request.match_info["token"]
        method = self._canonical.get(request.match_info["method"].lower())
        method = method or request.match_info["method"]
        params = await read_params(request, self.world.uploads)
        call = Call(method, params, token=token, at=self.clock())
        self.calls.append(call)
        self.log.notify()
        flood_chat: int | None = None
        try:
            if self.check_token and token != self.token:
                raise ApiError(401, "Unauthorized")
            self.limits.refuse(method, params)
            responder = self._responders.get(method.lower())
            if responder is None:
                # What api.telegram.org answers to a method it doesn't have (the open-source
                # server, tdlib/telegram-bot-api Client.cpp, says "Not Found: method not found"):
                # aiogram raises TelegramNotFound. Every method the bot calls is implemented.
                self.log.unknown_methods.append(method)
                raise ApiError(404, "Not Found")
            check_payload(method, params, self.world.chat_type(params.get("chat_id")))
            flood_chat = self.limits.group_write(method, params)
            if flood_chat is not None:
                self.limits.check(flood_chat, self.clock())
            result: Any = responder(params)
            if inspect.isawaitable(result):
                result = await result
        except ApiError as error:
            call.error_code = error.error_code
            call.description = error.description
            call.done = True
            call.finished_at = time.monotonic()
            self.log.notify()
            return web.json_response(error.payload(), status=error.error_code)
        except asyncio.CancelledError:
            call.error_code = 499
            call.description = "client went away"
            call.done = True
            call.finished_at = time.monotonic()
            self.log.notify()
            raise
        call.result = result
        call.done = True
        call.finished_at = time.monotonic()
        if flood_chat is not None:
            self.limits.record(flood_chat, self.clock())
        self.log.notify()
        return web.json_response({"ok": True, "result": result})
