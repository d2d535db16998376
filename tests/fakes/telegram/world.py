"""The fake's world: the bot, the users it knows, the chats with their members and messages,
the button presses and the bot's commands - and who may write to whom."""

from __future__ import annotations

import itertools
from typing import Any

from tests.fakes.telegram.model import (
    ApiError,
    ChatState,
    FakeCallback,
    FakeChat,
    FakeMessage,
    FakeUser,
    JsonDict,
    bad_request,
)
from tests.fakes.telegram.validation import optional_int_or_none

CANT_INITIATE = "Forbidden: bot can't initiate conversation with a user"
BLOCKED = "Forbidden: bot was blocked by the user"


class World:
    """Users, chats and messages as Telegram keeps them; ``require_private_start``: a user's
    private chat takes the bot's messages only once the user wrote to the bot there."""

    def __init__(self, bot: FakeUser, *, require_private_start: bool = True) -> None:
        self.bot = bot
        self.require_private_start = require_private_start
        self.users: dict[int, FakeUser] = {bot.id: bot}
        self.chats: dict[int, ChatState] = {}
        self.callbacks: dict[str, FakeCallback] = {}
        self.commands: dict[tuple[str, str], list[JsonDict]] = {}
        self.uploads: dict[str, bytes] = {}
        self.started_private: set[int] = set()
        self.seen: set[int] = {bot.id}  # users the bot met (an update, a member list)
        self.blocked: set[int] = set()
        self._callback_ids = itertools.count(1)
        self._seq = itertools.count(1)

    # ------------------------------------------------------------------ setup

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
        user = self.user(user)
        chat = FakeChat(id=user.id, type="private", first_name=user.first_name, username=user.username)
        state = self.chats.setdefault(user.id, ChatState(chat))
        state.members.setdefault(user.id, {"status": "member"})
        self.started_private.add(user.id)
        self.seen.add(user.id)
        return state.chat

    def set_member(self, chat: FakeChat | int, user: FakeUser | int, status: str, **extra: Any) -> None:
        """getChatMember status: creator / administrator / member / restricted / left / kicked."""
        state = self.state(chat)
        user_id = self.user(user).id
        self.users.setdefault(user_id, self.user(user))
        state.members[user_id] = {"status": status, **extra}
        self.seen.add(user_id)

    def make_admin(self, chat: FakeChat | int, user: FakeUser | int) -> None:
        self.set_member(chat, user, "administrator")

    def block_bot(self, user: FakeUser | int) -> None:
        """The user blocked the bot: private sends fail with 403 ``bot was blocked by the user``."""
        self.blocked.add(self.user(user).id)

    # ------------------------------------------------------------------ lookups

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
        user_id = self.user(user).id
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

    # ------------------------------------------------------------------ resolving, numbering

    def user(self, user: FakeUser | int) -> FakeUser:
        if isinstance(user, FakeUser):
            self.users.setdefault(user.id, user)
            return user
        known = self.users.get(user)
        return known if known is not None else self.add_user(user)

    def state(self, chat: FakeChat | int) -> ChatState:
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
    def next_message_id(state: ChatState) -> int:
        message_id = state.next_message_id
        state.next_message_id += 1
        return message_id

    @staticmethod
    def next_ephemeral_id(state: ChatState) -> int:
        ephemeral_id = state.next_ephemeral_id
        state.next_ephemeral_id += 1
        return ephemeral_id

    def chat_type(self, chat_id: Any) -> str | None:
        """The type of a known chat ("private", "group", "supergroup", ...); None if unknown."""
        try:
            return self.chat_for_read(chat_id).chat.type
        except ApiError:
            return None

    def chat_for_read(self, chat_id: Any) -> ChatState:
        """Resolve ``chat_id`` (id or ``@username``) to a known chat or 400 chat not found."""
        if isinstance(chat_id, str) and chat_id.startswith("@"):
            for known in self.chats.values():
                if known.chat.username and f"@{known.chat.username}" == chat_id:
                    return known
            raise bad_request("chat not found")
        numeric = optional_int_or_none(chat_id)
        state = self.chats.get(numeric) if numeric is not None else None
        if state is None:
            raise bad_request("chat not found")
        return state

    def chat_for_send(self, chat_id: Any) -> ChatState:
        """Like ``chat_for_read`` plus the private-chat rules (never started / blocked)."""
        numeric = optional_int_or_none(chat_id)
        if numeric is not None and numeric > 0 and numeric in self.users:
            if numeric in self.blocked:
                raise ApiError(403, BLOCKED)
            if numeric not in self.started_private:
                if self.require_private_start:
                    raise ApiError(403, CANT_INITIATE)
                self.private_chat(numeric)
        return self.chat_for_read(chat_id)

    # ------------------------------------------------------------------ changes by the server

    def meet(self, payload: JsonDict) -> None:
        """The bot meets the sender of a message or a press, a member update's user."""
        for key in ("from", "user"):
            who = payload.get(key)
            if isinstance(who, dict) and isinstance(who.get("id"), int):
                self.seen.add(who["id"])

    def add_message(self, state: ChatState, message: FakeMessage) -> FakeMessage:
        """Keep ``message`` in its chat, numbered in the order of the whole fake."""
        message.seq = next(self._seq)
        state.messages.append(message)
        return message

    def new_callback(self, user: FakeUser, message: FakeMessage, data: str) -> FakeCallback:
        callback = FakeCallback(
            id=f"{self.bot.id}{next(self._callback_ids):010d}",
            user=user,
            message=message,
            data=data,
        )
        self.callbacks[callback.id] = callback
        return callback
