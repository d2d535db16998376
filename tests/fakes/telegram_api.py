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
  like on the real server, never a silent success; ``unknown_methods`` records them.
* A token check (wrong token -> 401 ``Unauthorized`` on every method, including getMe).
* getUpdates long polling with ``offset`` / ``limit`` / ``timeout`` / ``allowed_updates``
  semantics; a queued update wakes a waiting poll at once, ``stop()`` releases all polls.
* A chat model: per-chat message ids, texts, reply markups, edit history (``versions``),
  deletions, ephemeral messages (``message_id`` 0 + per-chat ``ephemeral_message_id`` +
  ``receiver_user``) and who may see them, callback queries and their answers, bot commands,
  member statuses (getChatMember: "user not found" for a user the bot never met, "left" for
  one not in the chat, ``member_lookups`` counts the calls per chat and user).
* Fault injection (``fail_next`` & co): the next N matching calls fail with 429 + retry_after,
  400, 403, ... exactly in the ``{"ok": false, "error_code", "description", "parameters"}``
  shape aiogram turns into ``TelegramRetryAfter`` / ``TelegramBadRequest`` /
  ``TelegramForbiddenError``.
* sendPhoto: a multipart upload (``attach://``, the bytes kept in ``uploads``) or a file id,
  a caption of at most 1024 characters (else 400 "message caption is too long"), counted
  as a group write like a message.
* Telegram's flood limit for groups (``limit_group_writes``): past N group-visible writes
  (sends and edits; ephemeral messages are not the group's) to one group in any window of
  ``window`` seconds, a write gets 429 with ``retry_after`` until the oldest write leaves the
  window. Time is the fake's ``clock`` (tests pass their manual clock), never the wall.
* Payloads the real API refuses get 400: callback data longer than 64 bytes or empty, a
  button without text, a button with no action field or more than one (url, callback_data,
  web_app, ... - the spec says exactly one), a ``web_app`` button outside a private chat, a
  url button whose link is not http(s):// or tg://, more than 8 buttons in a row or 100 in
  a keyboard, an ``answerCallbackQuery`` url that is not a ``t.me`` link.
* setMessageReaction: one emoji from Telegram's list on an existing message, kept in the
  message's ``reactions`` (an empty list takes it back); not a group write.
* Redelivery (``redeliver``): an update the bot got but whose effect was lost (a retried
  webhook, a worker that died before confirming) comes again with the same update id.

Error descriptions copied from the real Bot API are used where they are well known ("Bad Request:
message is not modified: ...", "Forbidden: bot can't initiate conversation with a user", ...).
The descriptions of the ephemeral-rule violations (``strict_ephemeral``) are invented by this
fake - don't match on their wording in adapter code.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import itertools
import json
import math
import re
import socket
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import TYPE_CHECKING, Any, TypeVar

from aiohttp import web

if TYPE_CHECKING:
    from aiogram import Bot, Dispatcher
    from aiogram.client.telegram import TelegramAPIServer

JsonDict = dict[str, Any]
Params = dict[str, Any]
Responder = Callable[[Params], Any]
_T = TypeVar("_T")

DEFAULT_TOKEN = "123456789:AAFakeTokenForTestsOnly_0123456789ab"
NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup "
    "are exactly the same as a current content and reply markup of the message"
)
QUERY_TOO_OLD = "Bad Request: query is too old and response timeout expired or query ID is invalid"
CANT_INITIATE = "Forbidden: bot can't initiate conversation with a user"
BLOCKED = "Forbidden: bot was blocked by the user"

# The emoji a reaction may be: https://core.telegram.org/bots/api#reactiontypeemoji ("Currently,
# it can be one of ...", the list as aiogram 3.31's ReactionTypeEmoji copies it).
# fmt: off
REACTION_EMOJI = frozenset({
    "❤", "👍", "👎", "🔥", "🥰", "👏", "😁", "🤔", "🤯", "😱", "🤬", "😢", "🎉", "🤩",
    "🤮", "💩", "🙏", "👌", "🕊", "🤡", "🥱", "🥴", "😍", "🐳", "❤\u200d🔥", "🌚",
    "🌭", "💯", "🤣", "⚡", "🍌", "🏆", "💔", "🤨", "😐", "🍓", "🍾", "💋", "🖕", "😈",
    "😴", "😭", "🤓", "👻", "👨\u200d💻", "👀", "🎃", "🙈", "😇", "😨", "🤝", "✍",
    "🤗", "🫡", "🎅", "🎄", "☃", "💅", "🤪", "🗿", "🆒", "💘", "🙉", "🦄", "😘", "💊",
    "🙊", "😎", "👾", "🤷\u200d♂", "🤷", "🤷\u200d♀", "😡",
})
# fmt: on

# Update types a bot gets when ``allowed_updates`` is an empty list (Bot API default).
_NOT_DEFAULT_UPDATES = frozenset({"chat_member", "message_reaction", "message_reaction_count"})

# Form fields that are plain strings even when they look like JSON ("123", "true", ...).
_STRING_PARAMS = frozenset(
    {
        "text",
        "caption",
        "parse_mode",
        "quote",
        "quote_parse_mode",
        "callback_query_id",
        "data",
        "url",
        "title",
        "description",
        "short_description",
        "name",
        "emoji",
        "business_connection_id",
        "message_effect_id",
        "language_code",
        "inline_message_id",
        "secret_token",
        "ip_address",
        "custom_title",
        "question",
        "explanation",
        "first_name",
        "last_name",
        "phone_number",
        "address",
        "action",
        "next_offset",
    }
)

_COMMAND_RE = re.compile(r"(?<!\S)/[A-Za-z0-9_]{1,64}(?:@[A-Za-z0-9_]{1,64})?")
_VALID_COMMAND_RE = re.compile(r"^[a-z0-9_]{1,32}$")


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units, the unit of Telegram entity offsets."""
    return len(text.encode("utf-16-le")) // 2


def command_entities(text: str) -> list[JsonDict]:
    """``bot_command`` entities the way Telegram marks ``/cmd`` and ``/cmd@botname``."""
    entities: list[JsonDict] = []
    for match in _COMMAND_RE.finditer(text):
        entities.append(
            {
                "type": "bot_command",
                "offset": utf16_len(text[: match.start()]),
                "length": utf16_len(match.group()),
            }
        )
    return entities


class _HtmlText(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def render_text(text: str, parse_mode: str | None) -> str:
    """What the user sees: HTML tags stripped and entities unescaped; other modes verbatim."""
    if parse_mode and parse_mode.lower() == "html":
        parser = _HtmlText()
        parser.feed(text)
        parser.close()
        return "".join(parser.parts)
    return text


def _decode_value(key: str, value: str) -> Any:
    if key in _STRING_PARAMS:
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value


class ApiError(Exception):
    """Raise from a responder to answer ``{"ok": false, ...}`` with that HTTP status."""

    def __init__(
        self,
        error_code: int,
        description: str,
        *,
        retry_after: int | None = None,
        migrate_to_chat_id: int | None = None,
    ) -> None:
        super().__init__(f"{error_code} {description}")
        self.error_code = error_code
        self.description = description
        self.parameters: JsonDict = {}
        if retry_after is not None:
            self.parameters["retry_after"] = retry_after
        if migrate_to_chat_id is not None:
            self.parameters["migrate_to_chat_id"] = migrate_to_chat_id

    def payload(self) -> JsonDict:
        body: JsonDict = {
            "ok": False,
            "error_code": self.error_code,
            "description": self.description,
        }
        if self.parameters:
            body["parameters"] = dict(self.parameters)
        return body


def _bad_request(description: str) -> ApiError:
    return ApiError(400, f"Bad Request: {description}")


# --------------------------------------------------------------------------- model


@dataclass(frozen=True)
class FakeUser:
    id: int
    first_name: str
    username: str | None = None
    last_name: str | None = None
    is_bot: bool = False
    language_code: str | None = None

    def to_api(self) -> JsonDict:
        data: JsonDict = {"id": self.id, "is_bot": self.is_bot, "first_name": self.first_name}
        if self.last_name:
            data["last_name"] = self.last_name
        if self.username:
            data["username"] = self.username
        if self.language_code:
            data["language_code"] = self.language_code
        return data


@dataclass(frozen=True)
class FakeChat:
    id: int
    type: str  # "private" | "group" | "supergroup" | "channel"
    title: str | None = None
    username: str | None = None
    first_name: str | None = None
    is_forum: bool = False

    @property
    def is_group(self) -> bool:
        return self.type in ("group", "supergroup")

    def to_api(self) -> JsonDict:
        data: JsonDict = {"id": self.id, "type": self.type}
        if self.title is not None:
            data["title"] = self.title
        if self.username is not None:
            data["username"] = self.username
        if self.first_name is not None:
            data["first_name"] = self.first_name
        if self.is_forum:
            data["is_forum"] = True
        return data


@dataclass
class Version:
    """One state of a message: the original send or an edit."""

    method: str
    text: str | None
    reply_markup: JsonDict | None
    date: int


@dataclass(eq=False)
class FakeMessage:
    chat: FakeChat
    message_id: int  # 0 for ephemeral messages
    sender: FakeUser
    date: int
    text: str | None = None
    entities: list[JsonDict] | None = None
    reply_markup: JsonDict | None = None
    message_thread_id: int | None = None
    ephemeral_message_id: int | None = None
    receiver: FakeUser | None = None
    reply_to: FakeMessage | None = None
    edit_date: int | None = None
    deleted: bool = False
    raw_text: str | None = None  # text as sent, before parse_mode was applied
    parse_mode: str | None = None
    params: Params = field(default_factory=dict)  # the send call's params (bot messages)
    callback_query_id: str | None = None  # ephemeral: callback that triggered it
    replaces: FakeMessage | None = None  # ephemeral shown in place of this message
    versions: list[Version] = field(default_factory=list)
    seq: int = 0  # order of creation across every chat of the fake
    caption: str | None = None  # a photo's caption
    photo: JsonDict | None = None  # a photo: {"attach": name, "size": n} or {"file_id": ...}
    reactions: list[JsonDict] = field(default_factory=list)  # the bot's, by setMessageReaction
    big_reaction: bool = False  # the last setMessageReaction asked for the big animation

    @property
    def is_ephemeral(self) -> bool:
        return self.ephemeral_message_id is not None

    @property
    def from_bot(self) -> bool:
        return self.sender.is_bot

    @property
    def texts(self) -> list[str | None]:
        """Text of every version, oldest first (``texts[-1] == text``)."""
        return [version.text for version in self.versions]

    @property
    def buttons(self) -> list[list[JsonDict]]:
        """Inline keyboard rows (empty when there is no inline keyboard)."""
        markup = self.reply_markup or {}
        rows = markup.get("inline_keyboard") or []
        return [list(row) for row in rows]

    @property
    def callback_data(self) -> list[str]:
        return [
            button["callback_data"] for row in self.buttons for button in row if "callback_data" in button
        ]

    def button_data(self, text: str) -> str:
        """callback_data of the inline button labelled ``text``."""
        for row in self.buttons:
            for button in row:
                if button.get("text") == text and "callback_data" in button:
                    return str(button["callback_data"])
        raise LookupError(f"no callback button {text!r} in {self.describe()}")

    def visible_to(self, user_id: int) -> bool:
        """Ephemeral messages are seen by their sender and receiver only."""
        if self.deleted:
            return False
        if self.is_ephemeral:
            return user_id == self.sender.id or (self.receiver is not None and user_id == self.receiver.id)
        return True

    def describe(self) -> str:
        ident = (
            f"ephemeral#{self.ephemeral_message_id}->{self.receiver.id if self.receiver else '?'}"
            if self.is_ephemeral
            else f"#{self.message_id}"
        )
        return f"<message {ident} chat={self.chat.id} from={self.sender.id} text={self.text!r}>"

    def to_api(self, *, nested: bool = False) -> JsonDict:
        data: JsonDict = {
            "message_id": self.message_id,
            "date": self.date,
            "chat": self.chat.to_api(),
            "from": self.sender.to_api(),
        }
        if self.message_thread_id is not None:
            data["message_thread_id"] = self.message_thread_id
            if self.chat.is_forum:
                data["is_topic_message"] = True
        if self.text is not None:
            data["text"] = self.text
        if self.photo is not None:
            size = int(self.photo.get("size") or 0)
            data["photo"] = [
                {
                    "file_id": f"photo{self.seq}",
                    "file_unique_id": f"u{self.seq}",
                    "width": 640,
                    "height": 320,
                    "file_size": size,
                }
            ]
        if self.caption is not None:
            data["caption"] = self.caption
        if self.entities:
            data["entities"] = [dict(entity) for entity in self.entities]
        if self.reply_markup and "inline_keyboard" in self.reply_markup:
            data["reply_markup"] = self.reply_markup
        if self.ephemeral_message_id is not None:
            data["ephemeral_message_id"] = self.ephemeral_message_id
            if self.receiver is not None:
                data["receiver_user"] = self.receiver.to_api()
        if self.edit_date is not None:
            data["edit_date"] = self.edit_date
        if not nested and self.reply_to is not None and not self.reply_to.is_ephemeral:
            data["reply_to_message"] = self.reply_to.to_api(nested=True)
        return data


@dataclass
class ChatState:
    chat: FakeChat
    messages: list[FakeMessage] = field(default_factory=list)
    members: dict[int, JsonDict] = field(default_factory=dict)  # user id -> status + extras
    next_message_id: int = 1
    next_ephemeral_id: int = 1
    hidden_members: bool = False  # a supergroup whose member list only its admins see


@dataclass(eq=False)
class FakeCallback:
    id: str
    user: FakeUser
    message: FakeMessage | None
    data: str
    answered: bool = False
    answer: Params | None = None  # answerCallbackQuery params


@dataclass(eq=False)
class Call:
    """One API request. Unpacks as ``(method, params)``."""

    method: str
    params: Params
    token: str = ""
    error_code: int | None = None
    description: str | None = None
    result: Any = None
    done: bool = False
    started_at: float = field(default_factory=time.monotonic)
    finished_at: float | None = None
    at: float = 0.0  # the fake's clock when the call arrived (a test's manual clock)

    @property
    def ok(self) -> bool:
        return self.done and self.error_code is None

    def __iter__(self) -> Iterator[Any]:
        yield self.method
        yield self.params

    def __repr__(self) -> str:
        outcome = "pending" if not self.done else ("ok" if self.ok else str(self.error_code))
        return f"Call({self.method!r}, {self.params!r}, {outcome})"


@dataclass
class Fault:
    method: str  # lower-case method name or "*"
    remaining: int
    error_code: int
    description: str
    retry_after: int | None = None
    migrate_to_chat_id: int | None = None
    when: Callable[[Params], bool] | None = None

    def matches(self, method: str, params: Params) -> bool:
        if self.remaining <= 0:
            return False
        if self.method not in ("*", method.lower()):
            return False
        return self.when is None or bool(self.when(params))

    def error(self) -> ApiError:
        return ApiError(
            self.error_code,
            self.description,
            retry_after=self.retry_after,
            migrate_to_chat_id=self.migrate_to_chat_id,
        )


@dataclass
class _Update:
    update_id: int
    kind: str
    payload: JsonDict

    def to_api(self) -> JsonDict:
        return {"update_id": self.update_id, self.kind: self.payload}


_DEFAULT_DESCRIPTIONS = {
    400: "Bad Request: injected failure",
    401: "Unauthorized",
    403: "Forbidden: injected failure",
    404: "Not Found",
    409: "Conflict: injected failure",
    500: "Internal Server Error: injected failure",
}

_ADMIN_RIGHTS: JsonDict = {
    "can_be_edited": False,
    "is_anonymous": False,
    "can_manage_chat": True,
    "can_delete_messages": True,
    "can_manage_video_chats": True,
    "can_restrict_members": True,
    "can_promote_members": False,
    "can_change_info": True,
    "can_invite_users": True,
    "can_post_stories": False,
    "can_edit_stories": False,
    "can_delete_stories": False,
    "can_send_welcome_messages": False,
    "can_pin_messages": True,
    "can_manage_topics": True,
}

_RESTRICTED_RIGHTS: JsonDict = {
    "is_member": True,
    "can_send_messages": False,
    "can_send_audios": False,
    "can_send_documents": False,
    "can_send_photos": False,
    "can_send_videos": False,
    "can_send_video_notes": False,
    "can_send_voice_notes": False,
    "can_send_polls": False,
    "can_send_other_messages": False,
    "can_add_web_page_previews": False,
    "can_react_to_messages": False,
    "can_edit_tag": False,
    "can_change_info": False,
    "can_invite_users": False,
    "can_pin_messages": False,
    "can_manage_topics": False,
    "until_date": 0,
}

_ADMIN_STATUSES = frozenset({"creator", "administrator"})


# --------------------------------------------------------------------------- server


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
        self.flood: FloodLimit | None = None
        self.check_token = check_token
        self.strict_ephemeral = strict_ephemeral
        self.require_private_start = require_private_start
        self.max_poll_seconds = max_poll_seconds
        self.bot = FakeUser(
            id=int(token.split(":", 1)[0]),
            first_name=bot_first_name,
            username=bot_username,
            is_bot=True,
        )

        self.calls: list[Call] = []
        self.unknown_methods: list[str] = []
        self.users: dict[int, FakeUser] = {self.bot.id: self.bot}
        self.chats: dict[int, ChatState] = {}
        self.callbacks: dict[str, FakeCallback] = {}
        self.commands: dict[tuple[str, str], list[JsonDict]] = {}
        self.faults: list[Fault] = []
        self.webhook_url = ""
        self.allowed_updates: list[str] | None = None
        self.skipped_updates: list[JsonDict] = []  # filtered out by allowed_updates
        self.uploads: dict[str, bytes] = {}
        # group-visible writes that succeeded, per group: the fake's clock at each
        self.group_writes: dict[int, list[float]] = {}
        self._sent_updates: dict[int, _Update] = {}
        self._again: list[_Update] = []

        self._pending: list[_Update] = []
        self._update_ids = itertools.count(1)
        self._callback_ids = itertools.count(1)
        self._seq = itertools.count(1)
        self._last_update_id = 0
        self._delivered_up_to = 0
        self._confirmed_up_to = 0
        self._started_private: set[int] = set()
        self._seen: set[int] = {self.bot.id}  # users the bot met (an update, a member list)
        self._blocked: set[int] = set()
        self._responders: dict[str, Responder] = {}
        self._canonical: dict[str, str] = {}
        self._changed = asyncio.Event()
        self._new_update = asyncio.Event()
        self._closing = False
        self._runner: web.AppRunner | None = None
        self._port = 0

        builtin: dict[str, Responder] = {
            "getMe": self._get_me,
            "getUpdates": self._get_updates,
            "deleteWebhook": self._delete_webhook,
            "setWebhook": self._set_webhook,
            "getWebhookInfo": self._get_webhook_info,
            "logOut": lambda params: True,
            "close": lambda params: True,
            "setMyCommands": self._set_my_commands,
            "getMyCommands": self._get_my_commands,
            "deleteMyCommands": self._delete_my_commands,
            "getChat": self._get_chat,
            "getChatMember": self._get_chat_member,
            "getChatAdministrators": self._get_chat_administrators,
            "sendMessage": self._send_message,
            "sendPhoto": self._send_photo,
            "editMessageText": self._edit_message_text,
            "editMessageReplyMarkup": self._edit_message_reply_markup,
            "editEphemeralMessageText": self._edit_ephemeral_message_text,
            "editEphemeralMessageReplyMarkup": self._edit_ephemeral_message_reply_markup,
            "deleteEphemeralMessage": self._delete_ephemeral_message,
            "deleteMessage": self._delete_message,
            "answerCallbackQuery": self._answer_callback_query,
            "setMessageReaction": self._set_message_reaction,
            "sendChatAction": lambda params: True,
        }
        for name, responder in builtin.items():
            self.on(name, responder)

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
        self._closing = False
        return self

    async def stop(self) -> None:
        if self._runner is None:
            return
        self._closing = True
        self._wake_pollers()
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

    # ------------------------------------------------------------------ extension points

    def on(self, method: str, responder: Responder) -> None:
        """Answer ``method`` with ``responder(params)`` (sync or async, may raise ApiError)."""
        self._canonical[method.lower()] = method
        self._responders[method.lower()] = responder

    def responder(self, method: str) -> Responder | None:
        """The current responder of ``method`` (e.g. to wrap it: ``fake.on(m, wrap(old))``)."""
        return self._responders.get(method.lower())

    def fail_next(
        self,
        method: str,
        *,
        times: int = 1,
        error_code: int = 400,
        description: str | None = None,
        retry_after: int | None = None,
        migrate_to_chat_id: int | None = None,
        when: Callable[[Params], bool] | None = None,
    ) -> Fault:
        """Make the next ``times`` calls of ``method`` (``"*"``: any) matching ``when`` fail."""
        if retry_after is not None and error_code == 400:
            error_code = 429
        if description is None:
            if error_code == 429:
                description = f"Too Many Requests: retry after {retry_after or 1}"
            else:
                description = _DEFAULT_DESCRIPTIONS.get(error_code, f"Error {error_code}")
        if error_code == 429 and retry_after is None:
            retry_after = 1
        fault = Fault(
            method=method if method == "*" else method.lower(),
            remaining=times,
            error_code=error_code,
            description=description,
            retry_after=retry_after,
            migrate_to_chat_id=migrate_to_chat_id,
            when=when,
        )
        self.faults.append(fault)
        return fault

    def fail_retry_after(
        self,
        method: str,
        retry_after: int,
        *,
        times: int = 1,
        when: Callable[[Params], bool] | None = None,
    ) -> Fault:
        """429 ``Too Many Requests: retry after K`` -> aiogram ``TelegramRetryAfter``."""
        return self.fail_next(method, times=times, error_code=429, retry_after=retry_after, when=when)

    def fail_ephemeral_send(
        self,
        *,
        times: int = 1,
        error_code: int = 400,
        description: str = "Bad Request: ephemeral message can't be sent",
        receiver_user_id: int | None = None,
    ) -> Fault:
        """The next sendMessage calls carrying ephemeral parameters fail (wording is fake)."""

        def is_ephemeral(params: Params) -> bool:
            eph = _ephemeral_parameters(params)
            if eph is None:
                return False
            return receiver_user_id is None or eph.get("receiver_user_id") == receiver_user_id

        return self.fail_next(
            "sendMessage",
            times=times,
            error_code=error_code,
            description=description,
            when=is_ephemeral,
        )

    def clear_faults(self) -> None:
        self.faults.clear()

    def limit_group_writes(self, per_window: int = 20, window: float = 60.0) -> FloodLimit:
        """Enforce Telegram's group flood limit from now on (see ``FloodLimit``)."""
        self.flood = FloodLimit(per_window, window)
        return self.flood

    def block_bot(self, user: FakeUser | int) -> None:
        """The user blocked the bot: private sends fail with 403 ``bot was blocked by the user``."""
        self._blocked.add(self._user(user).id)

    # ------------------------------------------------------------------ world setup

    def add_user(
        self,
        user_id: int,
        first_name: str | None = None,
        *,
        username: str | None = None,
        last_name: str | None = None,
        language_code: str | None = None,
        is_bot: bool = False,
    ) -> FakeUser:
        user = FakeUser(
            id=user_id,
            first_name=first_name or f"User{user_id}",
            username=username,
            last_name=last_name,
            language_code=language_code,
            is_bot=is_bot,
        )
        self.users[user_id] = user
        return user

    def group(
        self,
        chat_id: int,
        title: str = "Test group",
        *,
        supergroup: bool = True,
        forum: bool = False,
        username: str | None = None,
        bot_status: str = "member",
        hidden_members: bool = False,
    ) -> FakeChat:
        """Register a (super)group the bot is in; ``bot_status="administrator"`` for admin.

        ``hidden_members``: the group hides its member list, so a bot that is not an admin gets
        400 ``PARTICIPANT_ID_INVALID`` from getChatMember for someone not known to be in it.
        """
        if chat_id >= 0:
            raise ValueError("group chat ids are negative")
        chat = FakeChat(
            id=chat_id,
            type="supergroup" if supergroup or forum else "group",
            title=title,
            username=username,
            is_forum=forum,
        )
        state = self.chats.setdefault(chat_id, ChatState(chat))
        state.chat = chat
        state.members[self.bot.id] = {"status": bot_status}
        state.hidden_members = hidden_members
        return chat

    def private_chat(self, user: FakeUser | int) -> FakeChat:
        """The user's private chat with the bot (marks the bot as started by the user)."""
        user = self._user(user)
        chat = FakeChat(id=user.id, type="private", first_name=user.first_name, username=user.username)
        state = self.chats.setdefault(user.id, ChatState(chat))
        state.members.setdefault(user.id, {"status": "member"})
        self._started_private.add(user.id)
        self._seen.add(user.id)
        return state.chat

    def set_member(self, chat: FakeChat | int, user: FakeUser | int, status: str, **extra: Any) -> None:
        """getChatMember status: creator / administrator / member / restricted / left / kicked."""
        state = self._state(chat)
        user_id = self._user(user).id
        self.users.setdefault(user_id, self._user(user))
        state.members[user_id] = {"status": status, **extra}
        self._seen.add(user_id)

    def make_admin(self, chat: FakeChat | int, user: FakeUser | int) -> None:
        self.set_member(chat, user, "administrator")

    # ------------------------------------------------------------------ update injection

    def push_update(self, kind: str, payload: JsonDict) -> int:
        """Queue a raw update ``{"update_id": n, kind: payload}``; returns its update_id."""
        update = _Update(next(self._update_ids), kind, payload)
        for key in ("from", "user"):  # the sender of a message or a press, a member update's user
            who = payload.get(key)
            if isinstance(who, dict) and isinstance(who.get("id"), int):
                self._seen.add(who["id"])
        self._pending.append(update)
        self._last_update_id = update.update_id
        self._wake_pollers()
        self.notify()
        return update.update_id

    def user_message(
        self,
        chat: FakeChat | int,
        user: FakeUser | int,
        text: str,
        *,
        thread_id: int | None = None,
        reply_to: FakeMessage | None = None,
        ephemeral: bool = False,
        entities: list[JsonDict] | None = None,
    ) -> FakeMessage:
        """A user writes ``text`` (``/cmd`` and ``/cmd@bot`` get ``bot_command`` entities).

        ``thread_id``: forum topic; ``ephemeral=True``: an ephemeral command (message_id 0, a
        new ``ephemeral_message_id``, ``receiver_user`` = the bot), as users send commands that
        the bot registered with ``BotCommand(is_ephemeral=True)``.
        """
        user = self._user(user)
        if isinstance(chat, int) and chat == user.id and chat not in self.chats:
            chat = self.private_chat(user)
        state = self._state(chat)
        if state.chat.type == "private":
            if state.chat.id != user.id:
                raise ValueError("a private chat's id is its user's id")
            self._started_private.add(user.id)
        if ephemeral and not state.chat.is_group:
            raise ValueError("ephemeral messages exist in groups only")
        state.members.setdefault(user.id, {"status": "member"})
        if entities is None:
            entities = command_entities(text)
        message = FakeMessage(
            chat=state.chat,
            message_id=0 if ephemeral else self._next_message_id(state),
            sender=user,
            date=_now(),
            text=text,
            raw_text=text,
            entities=entities or None,
            message_thread_id=thread_id,
            reply_to=reply_to,
        )
        if ephemeral:
            message.ephemeral_message_id = self._next_ephemeral_id(state)
            message.receiver = self.bot
        message.versions.append(Version("user", text, None, message.date))
        message.seq = next(self._seq)
        state.messages.append(message)
        self.push_update("message", message.to_api())
        return message

    def press(
        self,
        user: FakeUser | int,
        message: FakeMessage,
        callback_data: str | None = None,
        *,
        button: str | None = None,
        check_button: bool = True,
    ) -> FakeCallback:
        """The user presses an inline button of ``message`` (by ``callback_data`` or label).

        For an ephemeral message the update's ``callback_query.message`` carries
        ``message_id`` 0, ``ephemeral_message_id`` and ``receiver_user`` - aiogram 3.31's
        ``CallbackQuery`` has no ephemeral field of its own.
        """
        user = self._user(user)
        if callback_data is None:
            if button is None:
                raise ValueError("pass callback_data or button")
            callback_data = message.button_data(button)
        if message.deleted:
            raise ValueError(f"can't press a button of a deleted message {message.describe()}")
        if not message.visible_to(user.id):
            raise ValueError(f"user {user.id} can't see {message.describe()}")
        if check_button and callback_data not in message.callback_data:
            raise ValueError(
                f"no button with callback_data={callback_data!r} in {message.describe()}; "
                f"buttons: {message.callback_data}"
            )
        callback = FakeCallback(
            id=f"{self.bot.id}{next(self._callback_ids):010d}",
            user=user,
            message=message,
            data=callback_data,
        )
        self.callbacks[callback.id] = callback
        self._state(message.chat).members.setdefault(user.id, {"status": "member"})
        self.push_update(
            "callback_query",
            {
                "id": callback.id,
                "from": user.to_api(),
                "chat_instance": f"{abs(message.chat.id) * 7919 + 1}",
                "message": message.to_api(),
                "data": callback_data,
            },
        )
        return callback

    # ------------------------------------------------------------------ waiting helpers

    async def wait_for(
        self,
        predicate: Callable[[], _T],
        timeout: float = 2.0,
        *,
        what: str = "condition",
    ) -> _T:
        """Return ``predicate()`` once truthy, re-checking after every request / state change."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            changed = self._changed
            value = predicate()
            if value:
                return value
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise AssertionError(
                    f"timed out after {timeout}s waiting for {what}; recent calls:\n"
                    + "\n".join(repr(call) for call in self.api_calls()[-15:])
                )
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), remaining)

    def mark(self) -> int:
        """Position in ``calls``; pass as ``after=`` to only look at later calls."""
        return len(self.calls)

    def find_calls(
        self,
        method: str,
        where: Callable[[Params], bool] | None = None,
        *,
        after: int = 0,
        ok: bool | None = None,
    ) -> list[Call]:
        name = method.lower()
        found = []
        for call in self.calls[after:]:
            if call.method.lower() != name or not call.done:
                continue
            if ok is not None and call.ok != ok:
                continue
            if where is not None and not where(call.params):
                continue
            found.append(call)
        return found

    async def wait_for_call(
        self,
        method: str,
        where: Callable[[Params], bool] | None = None,
        *,
        after: int = 0,
        ok: bool | None = None,
        timeout: float = 2.0,
    ) -> Call:
        """First finished call of ``method`` (after index ``after``) matching ``where``."""

        def first() -> Call | None:
            found = self.find_calls(method, where, after=after, ok=ok)
            return found[0] if found else None

        result = await self.wait_for(first, timeout, what=f"call {method}")
        assert result is not None
        return result

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
        target = self._last_update_id if update_id is None else update_id
        await self.wait_for(
            lambda: self._delivered_up_to >= target or self._skipped(target),
            timeout,
            what=f"delivery of update {target}",
        )

    async def wait_confirmed(self, update_id: int | None = None, timeout: float = 2.0) -> None:
        """Until a later getUpdates confirmed the update via ``offset``.

        With ``start_polling(..., handle_as_tasks=False)`` this means its handler has finished
        (aiogram polls again only after processing), so "nothing was sent" can be asserted.
        """
        target = self._last_update_id if update_id is None else update_id
        await self.wait_for(
            lambda: self._confirmed_up_to >= target or self._skipped(target),
            timeout,
            what=f"confirmation of update {target}",
        )

    # ------------------------------------------------------------------ inspection

    def api_calls(self, *, include_polling: bool = False) -> list[Call]:
        if include_polling:
            return list(self.calls)
        return [call for call in self.calls if call.method != "getUpdates"]

    def method_names(self, *, include_polling: bool = False) -> list[str]:
        return [call.method for call in self.api_calls(include_polling=include_polling)]

    def messages(
        self,
        chat: FakeChat | int,
        *,
        from_bot: bool | None = None,
        ephemeral: bool | None = None,
        include_deleted: bool = False,
    ) -> list[FakeMessage]:
        state = self.chats.get(chat.id if isinstance(chat, FakeChat) else chat)
        if state is None:
            return []
        return [
            message
            for message in state.messages
            if (include_deleted or not message.deleted)
            and (from_bot is None or message.from_bot == from_bot)
            and (ephemeral is None or message.is_ephemeral == ephemeral)
        ]

    def visible_messages(self, chat: FakeChat | int, user: FakeUser | int) -> list[FakeMessage]:
        """What ``user`` sees in ``chat``: public messages plus ephemerals shown to them.

        A message replaced by an ephemeral (``replace_callback_query_message``) is hidden
        from that ephemeral's receiver while the ephemeral exists.
        """
        user_id = self._user(user).id
        shown = [message for message in self.messages(chat) if message.visible_to(user_id)]
        replaced = {id(message.replaces) for message in shown if message.replaces is not None}
        return [message for message in shown if id(message) not in replaced]

    def last_bot_message(self, chat: FakeChat | int) -> FakeMessage | None:
        found = self.messages(chat, from_bot=True)
        return found[-1] if found else None

    def find_message(self, chat: FakeChat | int, message_id: int) -> FakeMessage | None:
        for message in self.messages(chat, include_deleted=True):
            if not message.is_ephemeral and message.message_id == message_id:
                return message
        return None

    def find_ephemeral(self, chat: FakeChat | int, ephemeral_message_id: int) -> FakeMessage | None:
        for message in self.messages(chat, include_deleted=True):
            if message.ephemeral_message_id == ephemeral_message_id:
                return message
        return None

    @property
    def member_lookups(self) -> Counter[tuple[int, int]]:
        """getChatMember requests per (chat id, user id), refused ones too (to assert caching)."""
        counts: Counter[tuple[int, int]] = Counter()
        for call in self.calls:
            if call.method.lower() != "getchatmember":
                continue
            chat = call.params.get("chat_id")
            if isinstance(chat, str) and chat.startswith("@"):
                chat = next((s.chat.id for s in self.chats.values() if f"@{s.chat.username}" == chat), chat)
            chat_id, user_id = _optional_int_or_none(chat), _optional_int_or_none(call.params.get("user_id"))
            if chat_id is not None and user_id is not None:
                counts[chat_id, user_id] += 1
        return counts

    def pending_update_count(self) -> int:
        return len(self._pending)

    def redeliver(self, update_id: int) -> None:
        """Deliver an update again with the same id, as Telegram does when its webhook
        request failed or a polling worker died before confirming it."""
        update = self._sent_updates.get(update_id)
        if update is None:
            raise KeyError(f"update {update_id} was never delivered")
        self._again.append(update)  # apart from _pending: a confirmed offset can't drop it
        self._wake_pollers()
        self.notify()

    def update_of(self, callback: FakeCallback) -> int:
        """The update id that carried a button press."""
        for update_id, update in self._sent_updates.items():
            if update.kind == "callback_query" and update.payload.get("id") == callback.id:
                return update_id
        raise KeyError(callback.id)

    # ------------------------------------------------------------------ HTTP plumbing

    async def _handle(self, request: web.Request) -> web.Response:
        token = request.match_info["token"]
        method = self._canonical.get(request.match_info["method"].lower())
        method = method or request.match_info["method"]
        params = await self._read_params(request)
        call = Call(method, params, token=token, at=self.clock())
        self.calls.append(call)
        self.notify()
        flood_chat: int | None = None
        try:
            if self.check_token and token != self.token:
                raise ApiError(401, "Unauthorized")
            for fault in self.faults:
                if fault.matches(method, params):
                    fault.remaining -= 1
                    raise fault.error()
            responder = self._responders.get(method.lower())
            if responder is None:
                # What api.telegram.org answers to a method it doesn't have (the open-source
                # server, tdlib/telegram-bot-api Client.cpp, says "Not Found: method not found"):
                # aiogram raises TelegramNotFound. Every method the bot calls is implemented.
                self.unknown_methods.append(method)
                raise ApiError(404, "Not Found")
            _check_payload(method, params, self._chat_type(params.get("chat_id")))
            flood_chat = self._group_write(method, params)
            if flood_chat is not None and self.flood is not None:
                self.flood.check(flood_chat, self.clock())
            result: Any = responder(params)
            if inspect.isawaitable(result):
                result = await result
        except ApiError as error:
            call.error_code = error.error_code
            call.description = error.description
            call.done = True
            call.finished_at = time.monotonic()
            self.notify()
            return web.json_response(error.payload(), status=error.error_code)
        except asyncio.CancelledError:
            call.error_code = 499
            call.description = "client went away"
            call.done = True
            call.finished_at = time.monotonic()
            self.notify()
            raise
        call.result = result
        call.done = True
        call.finished_at = time.monotonic()
        if flood_chat is not None:
            now = self.clock()
            self.group_writes.setdefault(flood_chat, []).append(now)
            if self.flood is not None:
                self.flood.record(flood_chat, now)
        self.notify()
        return web.json_response({"ok": True, "result": result})

    async def _read_params(self, request: web.Request) -> Params:
        params: Params = {key: _decode_value(key, value) for key, value in request.query.items()}
        if not request.can_read_body:
            return params
        if request.content_type == "application/json":
            body = await request.json()
            if isinstance(body, dict):
                params.update(body)
            return params
        files: dict[str, bytes] = {}
        form = await request.post()
        for key, value in form.items():
            if isinstance(value, web.FileField):
                files[key] = value.file.read()
                continue
            params[key] = _decode_value(key, str(value))
        for key, value in list(params.items()):
            if isinstance(value, str) and value.startswith("attach://"):
                name = value.removeprefix("attach://")
                if name in files:
                    self.uploads[name] = files[name]
                    params[key] = {"attach": name, "size": len(files[name])}
        return params

    def _group_write(self, method: str, params: Params) -> int | None:
        """The group a call writes to where everyone sees it (sends and edits of ordinary
        messages); None for ephemeral messages, private chats, reads and answers."""
        if method.lower() not in ("sendmessage", "sendphoto", "editmessagetext", "editmessagereplymarkup"):
            return None
        if _ephemeral_parameters(params) is not None:
            return None
        chat = _optional_int_or_none(params.get("chat_id"))
        if chat is None or chat >= 0:
            return None
        return chat

    def notify(self) -> None:
        """Wake ``wait_for`` waiters so they re-check (done automatically on every change)."""
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    def _wake_pollers(self) -> None:
        new_update, self._new_update = self._new_update, asyncio.Event()
        new_update.set()

    # ------------------------------------------------------------------ helpers

    def _user(self, user: FakeUser | int) -> FakeUser:
        if isinstance(user, FakeUser):
            self.users.setdefault(user.id, user)
            return user
        known = self.users.get(user)
        return known if known is not None else self.add_user(user)

    def _state(self, chat: FakeChat | int) -> ChatState:
        if isinstance(chat, FakeChat):
            state = self.chats.get(chat.id)
            if state is None:
                state = self.chats[chat.id] = ChatState(chat)
                if chat.is_group:
                    state.members[self.bot.id] = {"status": "member"}
            return state
        state = self.chats.get(chat)
        if state is None:
            raise KeyError(f"unknown chat {chat}; register it with group() / private_chat()")
        return state

    @staticmethod
    def _next_message_id(state: ChatState) -> int:
        message_id = state.next_message_id
        state.next_message_id += 1
        return message_id

    @staticmethod
    def _next_ephemeral_id(state: ChatState) -> int:
        ephemeral_id = state.next_ephemeral_id
        state.next_ephemeral_id += 1
        return ephemeral_id

    def _skipped(self, update_id: int) -> bool:
        return any(update.get("update_id") == update_id for update in self.skipped_updates)

    def _chat_type(self, chat_id: Any) -> str | None:
        """The type of a known chat ("private", "group", "supergroup", ...); None if unknown."""
        try:
            return self._chat_for_read(chat_id).chat.type
        except ApiError:
            return None

    def _chat_for_read(self, chat_id: Any) -> ChatState:
        """Resolve ``chat_id`` (id or ``@username``) to a known chat or 400 chat not found."""
        if isinstance(chat_id, str) and chat_id.startswith("@"):
            for known in self.chats.values():
                if known.chat.username and f"@{known.chat.username}" == chat_id:
                    return known
            raise _bad_request("chat not found")
        numeric = _optional_int_or_none(chat_id)
        state = self.chats.get(numeric) if numeric is not None else None
        if state is None:
            raise _bad_request("chat not found")
        return state

    def _chat_for_send(self, chat_id: Any) -> ChatState:
        """Like ``_chat_for_read`` plus the private-chat rules (never started / blocked)."""
        numeric = _optional_int_or_none(chat_id)
        if numeric is not None and numeric > 0 and numeric in self.users:
            if numeric in self._blocked:
                raise ApiError(403, BLOCKED)
            if numeric not in self._started_private:
                if self.require_private_start:
                    raise ApiError(403, CANT_INITIATE)
                self.private_chat(numeric)
        return self._chat_for_read(chat_id)

    def _message_text(self, params: Params) -> tuple[str, str | None]:
        text = params.get("text")
        if text is None or text == "":
            raise _bad_request("message text is empty")
        text = str(text)
        parse_mode = params.get("parse_mode")
        rendered = render_text(text, parse_mode if isinstance(parse_mode, str) else None)
        if not rendered.strip():
            raise _bad_request("message text is empty")
        if utf16_len(rendered) > 4096:
            raise _bad_request("message is too long")
        return rendered, parse_mode if isinstance(parse_mode, str) else None

    # ------------------------------------------------------------------ responders

    def _get_me(self, params: Params) -> JsonDict:
        return {
            **self.bot.to_api(),
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }

    async def _get_updates(self, params: Params) -> list[JsonDict]:
        if self.webhook_url:
            raise ApiError(
                409,
                "Conflict: can't use getUpdates method while webhook is active; "
                "use deleteWebhook to delete the webhook first",
            )
        allowed = params.get("allowed_updates")
        if isinstance(allowed, list):
            self.allowed_updates = [str(kind) for kind in allowed]
        self._confirm(params.get("offset"))
        limit = max(1, min(int(params.get("limit") or 100), 100))
        timeout = float(params.get("timeout") or 0)
        if self.max_poll_seconds is not None:
            timeout = min(timeout, self.max_poll_seconds)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            new_update = self._new_update
            batch = self._take(limit)
            if batch or self._closing:
                break
            remaining = deadline - loop.time()
            if remaining <= 0:
                break
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(new_update.wait(), remaining)
        if batch:
            self._delivered_up_to = max(self._delivered_up_to, batch[-1].update_id)
            for update in batch:
                self._sent_updates[update.update_id] = update
        return [update.to_api() for update in batch]

    def _confirm(self, offset: Any) -> None:
        if offset is None:
            return
        offset = int(offset)
        if offset < 0:
            dropped = self._pending[:offset] if -offset < len(self._pending) else []
            self._pending = self._pending[len(dropped) :]
            if dropped:
                self._confirmed_up_to = max(self._confirmed_up_to, dropped[-1].update_id)
            return
        self._pending = [update for update in self._pending if update.update_id >= offset]
        self._confirmed_up_to = max(self._confirmed_up_to, offset - 1)

    def _take(self, limit: int) -> list[_Update]:
        if self._again:
            again, self._again = self._again[:limit], self._again[limit:]
            return again
        allowed = self.allowed_updates
        batch: list[_Update] = []
        for update in list(self._pending):
            wanted = (
                allowed is None
                or (not allowed and update.kind not in _NOT_DEFAULT_UPDATES)
                or update.kind in allowed
            )
            if not wanted:
                self._pending.remove(update)
                self.skipped_updates.append(update.to_api())
                continue
            batch.append(update)
            if len(batch) >= limit:
                break
        return batch

    def _delete_webhook(self, params: Params) -> bool:
        self.webhook_url = ""
        if params.get("drop_pending_updates"):
            if self._pending:
                self._confirmed_up_to = max(self._confirmed_up_to, self._pending[-1].update_id)
            self._pending.clear()
        return True

    def _set_webhook(self, params: Params) -> bool:
        self.webhook_url = str(params.get("url") or "")
        if params.get("drop_pending_updates"):
            self._pending.clear()
        return True

    def _get_webhook_info(self, params: Params) -> JsonDict:
        return {
            "url": self.webhook_url,
            "has_custom_certificate": False,
            "pending_update_count": len(self._pending),
        }

    @staticmethod
    def _commands_key(params: Params) -> tuple[str, str]:
        scope = params.get("scope") or {"type": "default"}
        return json.dumps(scope, sort_keys=True), str(params.get("language_code") or "")

    def _set_my_commands(self, params: Params) -> bool:
        commands = params.get("commands")
        if not isinstance(commands, list) or len(commands) > 100:
            raise _bad_request("commands must be a JSON array of at most 100 BotCommand")
        for command in commands:
            if not isinstance(command, dict):
                raise _bad_request("can't parse BotCommand")
            if not _VALID_COMMAND_RE.match(str(command.get("command", ""))):
                raise _bad_request("BOT_COMMAND_INVALID")
            if not 1 <= len(str(command.get("description", ""))) <= 256:
                raise _bad_request("BOT_COMMAND_DESCRIPTION_INVALID")
        self.commands[self._commands_key(params)] = [dict(command) for command in commands]
        return True

    def _get_my_commands(self, params: Params) -> list[JsonDict]:
        return self.commands.get(self._commands_key(params), [])

    def _delete_my_commands(self, params: Params) -> bool:
        self.commands.pop(self._commands_key(params), None)
        return True

    def _get_chat(self, params: Params) -> JsonDict:
        state = self._chat_for_read(params.get("chat_id"))
        return {
            **state.chat.to_api(),
            "accent_color_id": 0,
            "max_reaction_count": 11,
            "accepted_gift_types": {
                "unlimited_gifts": False,
                "limited_gifts": False,
                "unique_gifts": False,
                "premium_subscription": False,
                "gifts_from_channels": False,
            },
        }

    def _member_payload(self, user: FakeUser, entry: JsonDict) -> JsonDict:
        status = entry.get("status", "member")
        payload: JsonDict = {"user": user.to_api(), "status": status}
        if status == "creator":
            payload["is_anonymous"] = False
        elif status == "administrator":
            payload.update(_ADMIN_RIGHTS)
        elif status == "restricted":
            payload.update(_RESTRICTED_RIGHTS)
        elif status == "kicked":
            payload["until_date"] = 0
        payload.update({key: value for key, value in entry.items() if key != "status"})
        return payload

    def _get_chat_member(self, params: Params) -> JsonDict:
        """A user's membership (https://core.telegram.org/bots/api#getchatmember), as the Bot API
        answers it: a user the bot never met (no update from them, not in a member list it saw)
        is 400 "user not found" (the server can't resolve them: tdlib/telegram-bot-api#332,
        "only if the user never contacted the bot"); someone known but not in the chat is
        "left"; in a group hiding its members from a bot that is not an admin, 400
        ``PARTICIPANT_ID_INVALID`` (teloxide/teloxide#1349, tdlib/telegram-bot-api#802).
        ``member_lookups`` counts the calls per (chat, user)."""
        state = self._chat_for_read(params.get("chat_id"))
        user_id = _optional_int_or_none(params.get("user_id"))
        if user_id is None:
            raise _bad_request("invalid user_id specified")
        user = self.users.get(user_id)
        if user is None or user_id not in self._seen:
            raise _bad_request("user not found")
        entry = state.members.get(user_id)
        if entry is None:
            bot_is_admin = state.members.get(self.bot.id, {}).get("status") in _ADMIN_STATUSES
            if state.hidden_members and not bot_is_admin:
                raise _bad_request("PARTICIPANT_ID_INVALID")
            entry = {"status": "left"}
        return self._member_payload(user, entry)

    def _get_chat_administrators(self, params: Params) -> list[JsonDict]:
        state = self._chat_for_read(params.get("chat_id"))
        return [
            self._member_payload(self.users[user_id], entry)
            for user_id, entry in state.members.items()
            if entry.get("status") in _ADMIN_STATUSES and user_id in self.users
        ]

    def _send_message(self, params: Params) -> JsonDict:
        state = self._chat_for_send(params.get("chat_id"))
        text, parse_mode = self._message_text(params)
        reply_to = self._reply_target(state, params)
        ephemeral = _ephemeral_parameters(params)
        message = FakeMessage(
            chat=state.chat,
            message_id=0,
            sender=self.bot,
            date=_now(),
            text=text,
            raw_text=str(params["text"]),
            parse_mode=parse_mode,
            entities=params.get("entities") or None,
            reply_markup=params.get("reply_markup") or None,
            message_thread_id=_optional_int(params.get("message_thread_id")),
            reply_to=reply_to,
            params=dict(params),
        )
        if ephemeral is None:
            if isinstance(params.get("reply_parameters"), dict) and (
                params["reply_parameters"].get("ephemeral_message_id") is not None
            ):
                raise _bad_request("a reply to an ephemeral message must be ephemeral")
            message.message_id = self._next_message_id(state)
        else:
            receiver_id = _optional_int(ephemeral.get("receiver_user_id"))
            if receiver_id is None:
                raise _bad_request("receiver_user_id is required for ephemeral messages")
            receiver = self._user(receiver_id)
            callback_id = ephemeral.get("callback_query_id")
            callback = self.callbacks.get(str(callback_id)) if callback_id else None
            if callback_id and callback is None:
                raise ApiError(400, QUERY_TOO_OLD)
            if self.strict_ephemeral:
                self._check_ephemeral_allowed(state, receiver, callback, params, ephemeral)
            message.ephemeral_message_id = self._next_ephemeral_id(state)
            message.receiver = receiver
            message.callback_query_id = str(callback_id) if callback_id else None
            if ephemeral.get("replace_callback_query_message") and callback is not None:
                message.replaces = callback.message
                if message.message_thread_id is None and callback.message is not None:
                    message.message_thread_id = callback.message.message_thread_id
        message.versions.append(Version("sendMessage", text, message.reply_markup, message.date))
        message.seq = next(self._seq)
        state.messages.append(message)
        return message.to_api()

    def _send_photo(self, params: Params) -> JsonDict:
        """A photo to a chat: uploaded in a multipart body (``attach://`` name, kept in
        ``uploads``) or named by a file id or URL; a caption of at most 1024 characters
        (UTF-16 units, as Telegram counts them)."""
        state = self._chat_for_send(params.get("chat_id"))
        photo = params.get("photo")
        if not photo:
            raise _bad_request("there is no photo in the request")
        if isinstance(photo, dict):
            data = self.uploads.get(str(photo.get("attach")), b"")
            if not data:
                raise _bad_request("IMAGE_PROCESS_FAILED")
        caption = params.get("caption")
        caption = None if caption is None else str(caption)
        if caption is not None and utf16_len(caption) > 1024:
            raise _bad_request("message caption is too long")
        message = FakeMessage(
            chat=state.chat,
            message_id=self._next_message_id(state),
            sender=self.bot,
            date=_now(),
            reply_markup=params.get("reply_markup") or None,
            message_thread_id=_optional_int(params.get("message_thread_id")),
            reply_to=self._reply_target(state, params),
            params=dict(params),
            caption=caption,
            photo=photo if isinstance(photo, dict) else {"file_id": str(photo)},
        )
        message.versions.append(Version("sendPhoto", caption, message.reply_markup, message.date))
        message.seq = next(self._seq)
        state.messages.append(message)
        return message.to_api()

    def _reply_target(self, state: ChatState, params: Params) -> FakeMessage | None:
        reply_parameters = params.get("reply_parameters")
        allow_missing = bool(params.get("allow_sending_without_reply"))
        message_id: int | None = _optional_int(params.get("reply_to_message_id"))
        ephemeral_id: int | None = None
        if isinstance(reply_parameters, dict):
            message_id = _optional_int(reply_parameters.get("message_id"))
            ephemeral_id = _optional_int(reply_parameters.get("ephemeral_message_id"))
            allow_missing = bool(reply_parameters.get("allow_sending_without_reply"))
            other_chat = reply_parameters.get("chat_id")
            if other_chat is not None and other_chat != state.chat.id:
                target_state = self._chat_for_read(other_chat)
                target = self.find_message(target_state.chat, message_id or 0)
                if target is None and not allow_missing:
                    raise _bad_request("message to be replied not found")
                return None
        target = None
        if ephemeral_id is not None:
            target = self.find_ephemeral(state.chat, ephemeral_id)
            if target is None or target.deleted:
                raise _bad_request("message to be replied not found")
            return target
        if message_id is not None:
            target = self.find_message(state.chat, message_id)
            if (target is None or target.deleted) and not allow_missing:
                raise _bad_request("message to be replied not found")
        return target if target is not None and not target.deleted else None

    def _check_ephemeral_allowed(
        self,
        state: ChatState,
        receiver: FakeUser,
        callback: FakeCallback | None,
        params: Params,
        ephemeral: JsonDict,
    ) -> None:
        if not state.chat.is_group:
            raise _bad_request("ephemeral messages can be sent only to groups and supergroups")
        if receiver.is_bot or receiver.id == self.bot.id:
            raise _bad_request("ephemeral message receiver must be a non-bot user")
        if state.members.get(receiver.id, {}).get("status") in ("left", "kicked"):
            raise _bad_request("ephemeral message receiver isn't a member of the chat")
        if callback is not None:
            if callback.user.id != receiver.id:
                raise _bad_request("callback query was sent by another user")
            if callback.message is None or callback.message.chat.id != state.chat.id:
                raise _bad_request("callback query is from another chat")
            if ephemeral.get("replace_callback_query_message") and callback.message.is_ephemeral:
                raise _bad_request(
                    "replace_callback_query_message must be False for callback queries "
                    "from ephemeral messages"
                )
            return
        reply_parameters = params.get("reply_parameters")
        if isinstance(reply_parameters, dict) and reply_parameters.get("ephemeral_message_id"):
            target = self.find_ephemeral(state.chat, int(reply_parameters["ephemeral_message_id"]))
            if target is not None and target.sender.id == receiver.id:
                return
            raise _bad_request("an ephemeral reply must go to the sender of the replied message")
        if state.members.get(self.bot.id, {}).get("status") in _ADMIN_STATUSES:
            return
        raise _bad_request(
            "not enough rights to send an ephemeral message: the bot isn't an administrator "
            "and neither callback_query_id nor reply_parameters.ephemeral_message_id is given"
        )

    def _editable(self, params: Params) -> FakeMessage:
        state = self._chat_for_send(params.get("chat_id"))
        message = self.find_message(state.chat, _optional_int(params.get("message_id")) or 0)
        if message is None or message.deleted:
            raise _bad_request("message to edit not found")
        if not message.from_bot:
            raise _bad_request("message can't be edited")
        return message

    def _editable_ephemeral(self, params: Params) -> FakeMessage:
        state = self._chat_for_send(params.get("chat_id"))
        ephemeral_id = _optional_int(params.get("ephemeral_message_id")) or 0
        message = self.find_ephemeral(state.chat, ephemeral_id)
        receiver_id = _optional_int(params.get("receiver_user_id"))
        if (
            message is None
            or message.deleted
            or message.receiver is None
            or message.receiver.id != receiver_id
        ):
            raise _bad_request("message to edit not found")
        if not message.from_bot:
            raise _bad_request("message can't be edited")
        return message

    @staticmethod
    def _apply_edit(
        message: FakeMessage,
        method: str,
        *,
        text: str | None,
        raw_text: str | None,
        parse_mode: str | None,
        entities: list[JsonDict] | None,
        reply_markup: JsonDict | None,
    ) -> None:
        if text == message.text and reply_markup == message.reply_markup:
            raise ApiError(400, NOT_MODIFIED)
        message.text = text
        message.raw_text = raw_text
        message.parse_mode = parse_mode
        message.entities = entities
        message.reply_markup = reply_markup
        message.edit_date = _now()
        message.versions.append(Version(method, text, reply_markup, message.edit_date))

    def _edit_text(self, message: FakeMessage, params: Params, method: str) -> None:
        text, parse_mode = self._message_text(params)
        self._apply_edit(
            message,
            method,
            text=text,
            raw_text=str(params["text"]),
            parse_mode=parse_mode,
            entities=params.get("entities") or None,
            # Like Telegram: an edit without reply_markup removes the inline keyboard.
            reply_markup=params.get("reply_markup") or None,
        )

    def _edit_markup(self, message: FakeMessage, params: Params, method: str) -> None:
        self._apply_edit(
            message,
            method,
            text=message.text,
            raw_text=message.raw_text,
            parse_mode=message.parse_mode,
            entities=message.entities,
            reply_markup=params.get("reply_markup") or None,
        )

    def _edit_message_text(self, params: Params) -> JsonDict | bool:
        if params.get("inline_message_id"):
            return True
        message = self._editable(params)
        self._edit_text(message, params, "editMessageText")
        return message.to_api()

    def _edit_message_reply_markup(self, params: Params) -> JsonDict | bool:
        if params.get("inline_message_id"):
            return True
        message = self._editable(params)
        self._edit_markup(message, params, "editMessageReplyMarkup")
        return message.to_api()

    def _edit_ephemeral_message_text(self, params: Params) -> bool:
        message = self._editable_ephemeral(params)
        self._edit_text(message, params, "editEphemeralMessageText")
        return True

    def _edit_ephemeral_message_reply_markup(self, params: Params) -> bool:
        message = self._editable_ephemeral(params)
        self._edit_markup(message, params, "editEphemeralMessageReplyMarkup")
        return True

    def _delete_ephemeral_message(self, params: Params) -> bool:
        try:
            message = self._editable_ephemeral(params)
        except ApiError:
            raise _bad_request("message to delete not found") from None
        message.deleted = True
        return True

    def _delete_message(self, params: Params) -> bool:
        state = self._chat_for_send(params.get("chat_id"))
        message = self.find_message(state.chat, _optional_int(params.get("message_id")) or 0)
        if message is None or message.deleted:
            raise _bad_request("message to delete not found")
        message.deleted = True
        return True

    def _set_message_reaction(self, params: Params) -> bool:
        """The bot's reaction to a message (https://core.telegram.org/bots/api#setmessagereaction):
        ``reaction`` a list of ReactionTypeEmoji from Telegram's list ("as non-premium users,
        bots can set up to one reaction per message"), empty or absent to take it back.
        Error words are the server's (tdlib/telegram-bot-api Client.cpp get_reaction_types,
        check_message "message to react") or Telegram's (REACTION_INVALID, REACTIONS_TOO_MANY).
        Not a group write: Telegram's group limit counts messages."""
        state = self._chat_for_read(params.get("chat_id"))
        message = self.find_message(state.chat, _optional_int_or_none(params.get("message_id")) or 0)
        if message is None or message.deleted:
            raise _bad_request("message to react not found")
        reaction = params.get("reaction")
        reaction = [] if reaction is None else reaction
        if not isinstance(reaction, list):
            raise _bad_request("expected an Array of ReactionType")
        for item in reaction:
            if not isinstance(item, dict):
                raise _bad_request("can't parse ReactionType: expected an Object")
            kind = item.get("type")
            if kind == "emoji":
                if item.get("emoji") not in REACTION_EMOJI:
                    raise _bad_request("REACTION_INVALID")
            elif kind == "custom_emoji":
                # allowed only if already on the message or allowed by the chat's admins:
                # the fake models neither
                raise _bad_request("REACTION_INVALID")
            else:  # "paid" too: "Paid reactions can't be used by bots"
                raise _bad_request("can't parse ReactionType: invalid reaction type specified")
        if len(reaction) > 1:
            raise _bad_request("REACTIONS_TOO_MANY")
        message.reactions = [dict(item) for item in reaction]
        message.big_reaction = bool(params.get("is_big")) and bool(reaction)
        return True

    def _answer_callback_query(self, params: Params) -> bool:
        callback = self.callbacks.get(str(params.get("callback_query_id")))
        if callback is None or callback.answered:
            raise ApiError(400, QUERY_TOO_OLD)
        text = params.get("text")
        if text is not None and len(str(text)) > 200:
            raise _bad_request("MESSAGE_TOO_LONG")
        callback.answered = True
        callback.answer = dict(params)
        return True


class FloodLimit:
    """Telegram's limit on a bot's writes to one group: at most ``per_window`` in any
    ``window`` seconds; past it 429 ``Too Many Requests: retry after N``, N being the
    seconds until the oldest write leaves the window."""

    def __init__(self, per_window: int, window: float) -> None:
        self.per_window = per_window
        self.window = window
        self.writes: dict[int, list[float]] = {}
        self.refused: list[tuple[int, float]] = []  # (chat, when) of every 429 given

    def _recent(self, chat: int, now: float) -> list[float]:
        kept = [t for t in self.writes.get(chat, []) if t > now - self.window]
        self.writes[chat] = kept
        return kept

    def check(self, chat: int, now: float) -> None:
        recent = self._recent(chat, now)
        if len(recent) >= self.per_window:
            self.refused.append((chat, now))
            wait = max(1, math.ceil(recent[0] + self.window - now))
            raise ApiError(429, f"Too Many Requests: retry after {wait}", retry_after=wait)

    def record(self, chat: int, now: float) -> None:
        self.writes.setdefault(chat, []).append(now)


# https://core.telegram.org/bots/api#inlinekeyboardbutton: "Exactly one of the optional fields
# must be used to specify type of the button" - these are those fields.
_BUTTON_ACTIONS = (
    "url",
    "callback_data",
    "web_app",
    "login_url",
    "switch_inline_query",
    "switch_inline_query_current_chat",
    "switch_inline_query_chosen_chat",
    "copy_text",
    "callback_game",
    "pay",
)
# The Bot API server's prefix for a button it can't take (tdlib/telegram-bot-api Client.cpp,
# get_reply_markup: "Can't parse inline keyboard button: ...", first letter lowered on output).
_CANT_PARSE_BUTTON = "can't parse inline keyboard button: "
_URL_SCHEME_RE = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://\S+$")


def _check_payload(method: str, params: Params, chat_type: str | None = None) -> None:
    """400 for what the real Bot API refuses in a reply markup or a callback answer.

    ``chat_type``: the type of the chat written to ("private", "group", ...), None if unknown.
    """
    markup = params.get("reply_markup")
    if isinstance(markup, dict) and "inline_keyboard" in markup:
        rows = markup["inline_keyboard"]
        if not isinstance(rows, list) or sum(len(r) for r in rows) > 100:
            raise _bad_request("reply markup is too long")
        for row in rows:
            if len(row) > 8:
                raise _bad_request("too many buttons in a row")
            for button in row:
                _check_button(button, chat_type)
    url = params.get("url") if method.lower() == "answercallbackquery" else None
    if url and not re.match(r"^https://t\.me/\w+\?start=[\w-]{0,64}$", str(url)):
        raise _bad_request("URL_INVALID")


def _check_button(button: Any, chat_type: str | None) -> None:
    if not isinstance(button, dict):
        raise _bad_request(_CANT_PARSE_BUTTON + "InlineKeyboardButton must be an Object")
    if not str(button.get("text") or "").strip():
        raise _bad_request("BUTTON_TEXT_INVALID")
    actions = [key for key in _BUTTON_ACTIONS if button.get(key) is not None]
    if not actions:
        # the server's own words for a button with no action (get_inline_keyboard_button_type)
        raise _bad_request(_CANT_PARSE_BUTTON + "Text buttons are unallowed in the inline keyboard")
    if len(actions) > 1:
        # The published spec allows exactly one; the server silently keeps the first it looks
        # at, so such a button does something else than the bot meant. Wording is the fake's.
        raise _bad_request(
            _CANT_PARSE_BUTTON
            + "exactly one of the optional fields must be used, got "
            + " and ".join(actions)
        )
    action = actions[0]
    if action == "callback_data":
        # "callback_data: Data to be sent in a callback query ..., 1-64 bytes" (same page)
        if not 1 <= len(str(button["callback_data"]).encode()) <= 64:
            raise _bad_request("BUTTON_DATA_INVALID")
    elif action == "url":
        # "url: HTTP or tg:// URL to be opened when the button is pressed"; refused links get
        # the server's "inline keyboard button URL '...' is invalid: ..." (as users report it)
        url = str(button["url"])
        scheme = _URL_SCHEME_RE.match(url)
        if scheme is None:
            raise _bad_request(f"inline keyboard button URL '{url}' is invalid: Wrong HTTP URL")
        if scheme.group(1).lower() not in ("http", "https", "tg"):
            raise _bad_request(f"inline keyboard button URL '{url}' is invalid: Unsupported URL protocol")
    elif action == "web_app" and chat_type is not None and chat_type != "private":
        # "web_app: ... Available only in private chats between a user and the bot"; in a
        # group or channel Telegram answers "Bad Request: BUTTON_TYPE_INVALID"
        raise _bad_request("BUTTON_TYPE_INVALID")


def _ephemeral_parameters(params: Params) -> JsonDict | None:
    """``ephemeral_message_parameters`` (API 10.3) or the deprecated 10.2 top-level fields."""
    nested = params.get("ephemeral_message_parameters")
    if isinstance(nested, dict):
        return nested
    if params.get("receiver_user_id") is not None:
        legacy: JsonDict = {"receiver_user_id": params["receiver_user_id"]}
        if params.get("callback_query_id") is not None:
            legacy["callback_query_id"] = params["callback_query_id"]
        return legacy
    return None


def _optional_int(value: Any) -> int | None:
    if value is None or value == "":
        return None
    return int(value)


def _optional_int_or_none(value: Any) -> int | None:
    """Like ``_optional_int`` but ``None`` for anything that isn't an integer."""
    try:
        return _optional_int(value)
    except (TypeError, ValueError):
        return None


def _now() -> int:
    return int(time.time())


# --------------------------------------------------------------------------- aiogram glue


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
    task.add_done_callback(lambda _: fake.notify())
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
