"""What the fake Discord is made of: users, channels, servers (guilds), messages,
interactions, the REST calls it received, and the errors it answers with."""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from tests.fakes.discord.protocol import (
    CALLBACK_DEFERRED_CHANNEL_MESSAGE,
    CALLBACK_DEFERRED_UPDATE_MESSAGE,
    CHANNEL_DM,
    CHANNEL_TEXT,
    COMPONENT_BUTTON,
    COMPONENT_TEXT_DISPLAY,
    DEFAULT_MEMBER_PERMISSIONS,
    DISCORD_EPOCH_MS,
    FLAG_EPHEMERAL,
    FLAG_IS_COMPONENTS_V2,
    FLAG_LOADING,
    THREAD_TYPES,
)


def now_iso() -> str:
    return datetime.now(UTC).isoformat()


class Snowflakes:
    """Monotonic snowflakes whose timestamp part is "now" (discord.utils.snowflake_time works)."""

    def __init__(self) -> None:
        self._last = 0

    def next(self) -> int:
        candidate = (int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22
        if candidate <= self._last:
            candidate = self._last + 1
        self._last = candidate
        return candidate


class FakeDiscordError(Exception):
    """Raised by test-side helpers when the requested action is impossible on real Discord."""


class HTTPError(Exception):
    def __init__(
        self,
        status: int,
        code: int,
        message: str,
        errors: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status = status
        self.body: dict[str, Any] = {"message": message, "code": code}
        if errors:
            self.body["errors"] = errors


def form_error(path: str, code: str, message: str) -> HTTPError:
    """400 / 50035 Invalid Form Body with Discord's nested ``errors`` object."""
    errors: dict[str, Any] = {"_errors": [{"code": code, "message": message}]}
    for part in reversed(path.split(".")):
        errors = {part: errors}
    return HTTPError(400, 50035, "Invalid Form Body", errors)


def unknown(what: str, code: int) -> HTTPError:
    return HTTPError(404, code, f"Unknown {what}")


def walk_components(components: Iterable[Mapping[str, Any]]) -> Iterator[dict[str, Any]]:
    """Depth-first walk over a component tree (rows, containers, sections, labels...)."""
    for comp in components:
        yield comp  # type: ignore[misc]
        children = comp.get("components")
        if isinstance(children, list):
            yield from walk_components(children)
        for key in ("accessory", "component"):
            child = comp.get(key)
            if isinstance(child, dict):
                yield from walk_components([child])


@dataclass(eq=False)
class FakeUser:
    id: int
    username: str
    global_name: str | None = None
    bot: bool = False
    permissions: int = DEFAULT_MEMBER_PERMISSIONS
    locale: str = "en-US"

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "username": self.username,
            "global_name": self.global_name,
            "discriminator": "0",
            "avatar": None,
            "public_flags": 0,
            "flags": 0,
        }
        if self.bot:
            data["bot"] = True
        return data


@dataclass(eq=False)
class FakeChannel:
    id: int
    name: str
    type: int = CHANNEL_TEXT
    guild_id: int | None = None
    parent_id: int | None = None
    owner_id: int | None = None
    position: int = 0
    topic: str | None = None
    recipient_id: int | None = None
    archived: bool = False
    locked: bool = False
    invitable: bool = True
    thread_member_ids: set[int] = field(default_factory=set)

    @property
    def is_thread(self) -> bool:
        return self.type in THREAD_TYPES

    @property
    def is_dm(self) -> bool:
        return self.type == CHANNEL_DM

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"


@dataclass(eq=False)
class FakeGuild:
    id: int
    name: str
    owner_id: int
    channel_ids: list[int] = field(default_factory=list)
    member_ids: list[int] = field(default_factory=list)
    permission_overrides: dict[int, int] = field(default_factory=dict)
    roles: dict[int, dict[str, Any]] = field(default_factory=dict)
    joined_at: str = field(default_factory=now_iso)
    locale: str = "en-US"


@dataclass(eq=False)
class FakeMessage:
    id: int
    channel_id: int
    guild_id: int | None
    author: FakeUser
    content: str = ""
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    attachments: list[dict[str, Any]] = field(default_factory=list)
    files: dict[str, bytes] = field(default_factory=dict)
    flags: int = 0
    type: int = 0
    #: user id the message is visible to when ephemeral (the interaction's user)
    ephemeral_for: int | None = None
    interaction_id: int | None = None
    interaction_metadata: dict[str, Any] | None = None
    webhook_id: int | None = None
    message_reference: dict[str, Any] | None = None
    timestamp: str = field(default_factory=now_iso)
    edited_timestamp: str | None = None
    deleted: bool = False
    pinned: bool = False
    reactions: dict[str, set[int]] = field(default_factory=dict)
    #: every edit body applied to this message, in order
    edits: list[dict[str, Any]] = field(default_factory=list)

    # ---- convenience for assertions ----
    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & FLAG_EPHEMERAL)

    @property
    def loading(self) -> bool:
        """A deferred ("Bot is thinking...") response that has not been filled in yet."""
        return bool(self.flags & FLAG_LOADING)

    @property
    def is_components_v2(self) -> bool:
        return bool(self.flags & FLAG_IS_COMPONENTS_V2)

    def visible_to(self, user: FakeUser | int) -> bool:
        uid = user if isinstance(user, int) else user.id
        return not self.ephemeral or self.ephemeral_for == uid

    def iter_components(self) -> Iterator[dict[str, Any]]:
        return walk_components(self.components)

    def component(self, custom_id: str) -> dict[str, Any] | None:
        for comp in self.iter_components():
            if comp.get("custom_id") == custom_id:
                return comp
        return None

    def custom_ids(self) -> list[str]:
        return [c["custom_id"] for c in self.iter_components() if "custom_id" in c]

    def buttons(self) -> list[dict[str, Any]]:
        return [c for c in self.iter_components() if c.get("type") == COMPONENT_BUTTON]

    def text(self) -> str:
        """Content + V2 TextDisplay contents + embed text, newline-joined (for assertions)."""
        parts: list[str] = [self.content] if self.content else []
        for comp in self.iter_components():
            if comp.get("type") == COMPONENT_TEXT_DISPLAY and comp.get("content"):
                parts.append(str(comp["content"]))
        for embed in self.embeds:
            for key in ("title", "description"):
                if embed.get(key):
                    parts.append(str(embed[key]))
            for fld in embed.get("fields", []):
                parts.append(f"{fld.get('name', '')}\n{fld.get('value', '')}")
            footer = embed.get("footer") or {}
            if footer.get("text"):
                parts.append(str(footer["text"]))
        return "\n".join(parts)


@dataclass(eq=False)
class FakeInteraction:
    """An interaction the fake delivered, and what the bot did with it."""

    id: int
    token: str
    type: int
    user: FakeUser
    channel_id: int
    guild_id: int | None
    data: dict[str, Any]
    payload: dict[str, Any]
    #: message the component/modal was on (component interactions)
    source_message_id: int | None = None
    #: initial callback type (4, 5, 6, 7, 8, 9) once the bot answered
    response_type: int | None = None
    response_data: dict[str, Any] | None = None
    original_message_id: int | None = None
    followup_ids: list[int] = field(default_factory=list)
    #: modal definition when response_type == 9
    modal: dict[str, Any] | None = None
    #: autocomplete choices when response_type == 8
    choices: list[dict[str, Any]] | None = None
    #: all callback bodies POSTed (the 2nd+ were rejected with 40060)
    callbacks: list[dict[str, Any]] = field(default_factory=list)
    #: when the fake delivered it (the fake's clock): the answer window and the token's life
    created: float = 0.0

    @property
    def responded(self) -> bool:
        return self.response_type is not None

    @property
    def deferred(self) -> bool:
        return self.response_type in (
            CALLBACK_DEFERRED_CHANNEL_MESSAGE,
            CALLBACK_DEFERRED_UPDATE_MESSAGE,
        )


@dataclass
class RecordedCall:
    """One REST request the fake received."""

    index: int
    method: str
    path: str
    query: dict[str, str]
    json: Any
    status: int = 0
    response: Any = None
    authorized: bool = False
    files: list[dict[str, Any]] = field(default_factory=list)
    #: set when an injected fault produced the response
    injected: bool = False
    #: when it came (the fake's clock)
    at: float = 0.0

    def __repr__(self) -> str:
        return f"<RecordedCall #{self.index} {self.method} {self.path} -> {self.status}>"


def int_or_zero(value: str) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def route_regex(route: str | re.Pattern[str]) -> re.Pattern[str]:
    if isinstance(route, re.Pattern):
        return route
    if "{" in route:
        pieces = re.split(r"(\{\w+\})", route)
        regex = "".join(
            f"(?P<{p[1:-1]}>[^/]+)" if p.startswith("{") and p.endswith("}") else re.escape(p) for p in pieces
        )
        return re.compile(regex)
    return re.compile(route)
