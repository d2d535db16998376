"""What the fake Bot API is made of: users, chats, messages, button presses, the calls the bot
made, and the errors the API answers with (``ApiError``)."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any

JsonDict = dict[str, Any]
Params = dict[str, Any]
Responder = Callable[[Params], Any]

DEFAULT_TOKEN = "123456789:AAFakeTokenForTestsOnly_0123456789ab"
NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup "
    "are exactly the same as a current content and reply markup of the message"
)
QUERY_TOO_OLD = "Bad Request: query is too old and response timeout expired or query ID is invalid"
CANT_INITIATE = "Forbidden: bot can't initiate conversation with a user"
BLOCKED = "Forbidden: bot was blocked by the user"


_COMMAND_RE = re.compile(r"(?<!\S)/[A-Za-z0-9_]{1,64}(?:@[A-Za-z0-9_]{1,64})?")


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


def bad_request(description: str) -> ApiError:
    return ApiError(400, f"Bad Request: {description}")


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


def now() -> int:
    """A message date: the wall clock, as Telegram stamps messages."""
    return int(time.time())
