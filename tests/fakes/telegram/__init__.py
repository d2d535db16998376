"""A small fake Telegram Bot API server for end-to-end tests through the real aiogram client.

The real Telegram is unreachable from the test machine, so the Telegram adapter is exercised
through the *real* aiogram HTTP session against this aiohttp server on 127.0.0.1::

    async with FakeTelegram() as fake:
        group = fake.group(-100123, "Kozel table")
        alice = fake.add_user(1001, "Alice", username="alice")
        bot = make_bot(fake)              # Bot(token, session=AiohttpSession(api=fake.api_server))
        async with run_polling(dp, bot, fake):
            fake.user_message(group, alice, "/ping")
            reply = await fake.wait_for_message(group, lambda m: m.text == "pong")

What it models (Bot API 10.3 as shipped with aiogram 3.31):

* ``/bot{token}/{method}`` with JSON, urlencoded or multipart bodies (aiogram sends
  ``FormData``: strings as-is, everything else JSON-encoded); method names are case-insensitive.
  A method the fake doesn't implement gets 404 ``Not Found`` (aiogram ``TelegramNotFound``)
  like on the real server, never a silent success; ``log.unknown_methods`` records them.
* A token check (wrong token -> 401 ``Unauthorized`` on every method, including getMe).
* getUpdates long polling with ``offset`` / ``limit`` / ``timeout`` / ``allowed_updates``
  semantics; a queued update wakes a waiting poll at once, ``stop()`` releases all polls.
* A chat model: per-chat message ids, texts, reply markups, edit history (``versions``),
  deletions, ephemeral messages (``message_id`` 0 + per-chat ``ephemeral_message_id`` +
  ``receiver_user``) and who may see them, callback queries and their answers, bot commands,
  member statuses (getChatMember: "user not found" for a user the bot never met, "left" for
  one not in the chat, ``member_lookups`` counts the calls per chat and user).
* Fault injection (``limits.fail_next`` & co): the next N matching calls fail with 429 +
  retry_after, 400, 403, ... exactly in the ``{"ok": false, "error_code", "description",
  "parameters"}`` shape aiogram turns into ``TelegramRetryAfter`` / ``TelegramBadRequest`` /
  ``TelegramForbiddenError``.
* sendPhoto: a multipart upload (``attach://``, the bytes kept in ``world.uploads``) or a file id,
  a caption of at most 1024 characters (else 400 "message caption is too long"), counted
  as a group write like a message.
* Telegram's flood limit for groups (``limits.limit_group_writes``): past N group-visible
  writes (sends and edits; ephemeral messages are not the group's) to one group in any window
  of ``window`` seconds, a write gets 429 with ``retry_after`` until the oldest write leaves the
  window. Time is the fake's ``clock`` (tests pass their manual clock), never the wall.
* Payloads the real API refuses get 400: callback data longer than 64 bytes or empty, a
  button without text, a button with no action field or more than one (url, callback_data,
  web_app, ... - the spec says exactly one), a ``web_app`` button outside a private chat, a
  url button whose link is not http(s):// or tg://, more than 8 buttons in a row or 100 in
  a keyboard, an ``answerCallbackQuery`` url that is not a ``t.me`` link.
* setMessageReaction: one emoji from Telegram's list on an existing message, kept in the
  message's ``reactions`` (an empty list takes it back); not a group write.
* Redelivery (``updates.redeliver``): an update the bot got but whose effect was lost (a
  retried webhook, a worker that died before confirming) comes again with the same update id.

Error descriptions copied from the real Bot API are used where they are well known ("Bad Request:
message is not modified: ...", "Forbidden: bot can't initiate conversation with a user", ...).
The descriptions of the ephemeral-rule violations (``strict_ephemeral``) are invented by this
fake - don't match on their wording in adapter code.

The package's parts, each with its own state: ``world`` (users, chats, messages, presses),
``limits`` (injected faults, the group flood limit), ``updates`` (the getUpdates queue, the
webhook), ``waiting`` (the calls made, ``wait_for``), ``injection`` (what the test's users
do); the Bot API methods' answers in ``responders`` and ``messages``, the payload checks in
``validation``, a call's parameters in ``params``; ``server`` composes them behind HTTP
(``FakeTelegram``), ``client`` points aiogram at it.
"""

from tests.fakes.telegram.client import close_session_fast, make_bot, run_polling
from tests.fakes.telegram.limits import Fault, FloodLimit
from tests.fakes.telegram.model import (
    ApiError,
    Call,
    FakeCallback,
    FakeChat,
    FakeMessage,
    FakeUser,
    Version,
)
from tests.fakes.telegram.server import DEFAULT_TOKEN, FakeTelegram

__all__ = [
    "DEFAULT_TOKEN",
    "ApiError",
    "Call",
    "FakeCallback",
    "FakeChat",
    "FakeMessage",
    "FakeTelegram",
    "FakeUser",
    "Fault",
    "FloodLimit",
    "Version",
    "close_session_fast",
    "make_bot",
    "run_polling",
]
