"""What the test's users do, as updates for the bot: a message written, a button pressed,
or any raw update."""

from __future__ import annotations

from tests.fakes.telegram.model import (
    FakeCallback,
    FakeChat,
    FakeMessage,
    FakeUser,
    JsonDict,
    Version,
    command_entities,
    now,
)
from tests.fakes.telegram.updates import Updates
from tests.fakes.telegram.world import World


class Injection:
    """Updates made by the test's users in ``world``, queued in ``updates``."""

    def __init__(self, world: World, updates: Updates) -> None:
        self.world = world
        self.updates = updates

    def push_update(self, kind: str, payload: JsonDict) -> int:
        """Queue a raw update ``{"update_id": n, kind: payload}``; returns its update_id."""
        self.world.meet(payload)
        return self.updates.push(kind, payload)

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
        user = self.world.user(user)
        if isinstance(chat, int) and chat == user.id and chat not in self.world.chats:
            chat = self.world.private_chat(user)
        state = self.world.state(chat)
        if state.chat.type == "private":
            if state.chat.id != user.id:
                raise ValueError("a private chat's id is its user's id")
            self.world.started_private.add(user.id)
        if ephemeral and not state.chat.is_group:
            raise ValueError("ephemeral messages exist in groups only")
        state.members.setdefault(user.id, {"status": "member"})
        if entities is None:
            entities = command_entities(text)
        message = FakeMessage(
            chat=state.chat,
            message_id=0 if ephemeral else self.world.next_message_id(state),
            sender=user,
            date=now(),
            text=text,
            raw_text=text,
            entities=entities or None,
            message_thread_id=thread_id,
            reply_to=reply_to,
        )
        if ephemeral:
            message.ephemeral_message_id = self.world.next_ephemeral_id(state)
            message.receiver = self.world.bot
        message.versions.append(Version("user", text, None, message.date))
        self.world.add_message(state, message)
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
        user = self.world.user(user)
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
        callback = self.world.new_callback(user, message, callback_data)
        self.world.state(message.chat).members.setdefault(user.id, {"status": "member"})
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
