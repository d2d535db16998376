"""What the bot's messages go through: sendMessage and sendPhoto, replies, edits (with their
history in ``versions``), deletions, ephemeral messages and who may get them."""

from __future__ import annotations

from tests.fakes.telegram.model import (
    ApiError,
    ChatState,
    FakeMessage,
    JsonDict,
    Params,
    Version,
    bad_request,
    now,
    utf16_len,
)
from tests.fakes.telegram.validation import (
    check_ephemeral_allowed,
    ephemeral_parameters,
    message_text,
    optional_int,
)
from tests.fakes.telegram.world import World

NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup "
    "are exactly the same as a current content and reply markup of the message"
)
QUERY_TOO_OLD = "Bad Request: query is too old and response timeout expired or query ID is invalid"


class Messages:
    """The message methods, on ``world``'s chats; ``strict_ephemeral``: enforce the Bot API's
    rules for ephemeral messages (see ``FakeTelegram``)."""

    def __init__(self, world: World, *, strict_ephemeral: bool = True) -> None:
        self.world = world
        self.strict_ephemeral = strict_ephemeral

    def send_message(self, params: Params) -> JsonDict:
        state = self.world.chat_for_send(params.get("chat_id"))
        text, parse_mode = message_text(params)
        reply_to = self._reply_target(state, params)
        ephemeral = ephemeral_parameters(params)
        message = FakeMessage(
            chat=state.chat,
            message_id=0,
            sender=self.world.bot,
            date=now(),
            text=text,
            raw_text=str(params["text"]),
            parse_mode=parse_mode,
            entities=params.get("entities") or None,
            reply_markup=params.get("reply_markup") or None,
            message_thread_id=optional_int(params.get("message_thread_id")),
            reply_to=reply_to,
            params=dict(params),
        )
        if ephemeral is None:
            if isinstance(params.get("reply_parameters"), dict) and (
                params["reply_parameters"].get("ephemeral_message_id") is not None
            ):
                raise bad_request("a reply to an ephemeral message must be ephemeral")
            message.message_id = self.world.next_message_id(state)
        else:
            receiver_id = optional_int(ephemeral.get("receiver_user_id"))
            if receiver_id is None:
                raise bad_request("receiver_user_id is required for ephemeral messages")
            receiver = self.world.user(receiver_id)
            callback_id = ephemeral.get("callback_query_id")
            callback = self.world.callbacks.get(str(callback_id)) if callback_id else None
            if callback_id and callback is None:
                raise ApiError(400, QUERY_TOO_OLD)
            if self.strict_ephemeral:
                check_ephemeral_allowed(self.world, state, receiver, callback, params, ephemeral)
            message.ephemeral_message_id = self.world.next_ephemeral_id(state)
            message.receiver = receiver
            message.callback_query_id = str(callback_id) if callback_id else None
            if ephemeral.get("replace_callback_query_message") and callback is not None:
                message.replaces = callback.message
                if message.message_thread_id is None and callback.message is not None:
                    message.message_thread_id = callback.message.message_thread_id
        message.versions.append(Version("sendMessage", text, message.reply_markup, message.date))
        return self.world.add_message(state, message).to_api()

    def send_photo(self, params: Params) -> JsonDict:
        """A photo to a chat: uploaded in a multipart body (``attach://`` name, kept in
        ``uploads``) or named by a file id or URL; a caption of at most 1024 characters
        (UTF-16 units, as Telegram counts them)."""
        state = self.world.chat_for_send(params.get("chat_id"))
        photo = params.get("photo")
        if not photo:
            raise bad_request("there is no photo in the request")
        if isinstance(photo, dict):
            data = self.world.uploads.get(str(photo.get("attach")), b"")
            if not data:
                raise bad_request("IMAGE_PROCESS_FAILED")
        caption = params.get("caption")
        caption = None if caption is None else str(caption)
        if caption is not None and utf16_len(caption) > 1024:
            raise bad_request("message caption is too long")
        message = FakeMessage(
            chat=state.chat,
            message_id=self.world.next_message_id(state),
            sender=self.world.bot,
            date=now(),
            reply_markup=params.get("reply_markup") or None,
            message_thread_id=optional_int(params.get("message_thread_id")),
            reply_to=self._reply_target(state, params),
            params=dict(params),
            caption=caption,
            photo=photo if isinstance(photo, dict) else {"file_id": str(photo)},
        )
        message.versions.append(Version("sendPhoto", caption, message.reply_markup, message.date))
        return self.world.add_message(state, message).to_api()

    def _reply_target(self, state: ChatState, params: Params) -> FakeMessage | None:
        reply_parameters = params.get("reply_parameters")
        allow_missing = bool(params.get("allow_sending_without_reply"))
        message_id: int | None = optional_int(params.get("reply_to_message_id"))
        ephemeral_id: int | None = None
        if isinstance(reply_parameters, dict):
            message_id = optional_int(reply_parameters.get("message_id"))
            ephemeral_id = optional_int(reply_parameters.get("ephemeral_message_id"))
            allow_missing = bool(reply_parameters.get("allow_sending_without_reply"))
            other_chat = reply_parameters.get("chat_id")
            if other_chat is not None and other_chat != state.chat.id:
                target_state = self.world.chat_for_read(other_chat)
                target = self.world.find_message(target_state.chat, message_id or 0)
                if target is None and not allow_missing:
                    raise bad_request("message to be replied not found")
                return None
        target = None
        if ephemeral_id is not None:
            target = self.world.find_ephemeral(state.chat, ephemeral_id)
            if target is None or target.deleted:
                raise bad_request("message to be replied not found")
            return target
        if message_id is not None:
            target = self.world.find_message(state.chat, message_id)
            if (target is None or target.deleted) and not allow_missing:
                raise bad_request("message to be replied not found")
        return target if target is not None and not target.deleted else None

    def _editable(self, params: Params) -> FakeMessage:
        state = self.world.chat_for_send(params.get("chat_id"))
        message = self.world.find_message(state.chat, optional_int(params.get("message_id")) or 0)
        if message is None or message.deleted:
            raise bad_request("message to edit not found")
        if not message.from_bot:
            raise bad_request("message can't be edited")
        return message

    def _editable_ephemeral(self, params: Params) -> FakeMessage:
        state = self.world.chat_for_send(params.get("chat_id"))
        ephemeral_id = optional_int(params.get("ephemeral_message_id")) or 0
        message = self.world.find_ephemeral(state.chat, ephemeral_id)
        receiver_id = optional_int(params.get("receiver_user_id"))
        if (
            message is None
            or message.deleted
            or message.receiver is None
            or message.receiver.id != receiver_id
        ):
            raise bad_request("message to edit not found")
        if not message.from_bot:
            raise bad_request("message can't be edited")
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
        message.edit_date = now()
        message.versions.append(Version(method, text, reply_markup, message.edit_date))

    def _edit_text(self, message: FakeMessage, params: Params, method: str) -> None:
        text, parse_mode = message_text(params)
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

    def edit_message_text(self, params: Params) -> JsonDict | bool:
        if params.get("inline_message_id"):
            return True
        message = self._editable(params)
        self._edit_text(message, params, "editMessageText")
        return message.to_api()

    def edit_message_reply_markup(self, params: Params) -> JsonDict | bool:
        if params.get("inline_message_id"):
            return True
        message = self._editable(params)
        self._edit_markup(message, params, "editMessageReplyMarkup")
        return message.to_api()

    def edit_ephemeral_message_text(self, params: Params) -> bool:
        message = self._editable_ephemeral(params)
        self._edit_text(message, params, "editEphemeralMessageText")
        return True

    def edit_ephemeral_message_reply_markup(self, params: Params) -> bool:
        message = self._editable_ephemeral(params)
        self._edit_markup(message, params, "editEphemeralMessageReplyMarkup")
        return True

    def delete_ephemeral_message(self, params: Params) -> bool:
        try:
            message = self._editable_ephemeral(params)
        except ApiError:
            raise bad_request("message to delete not found") from None
        message.deleted = True
        return True

    def delete_message(self, params: Params) -> bool:
        state = self.world.chat_for_send(params.get("chat_id"))
        message = self.world.find_message(state.chat, optional_int(params.get("message_id")) or 0)
        if message is None or message.deleted:
            raise bad_request("message to delete not found")
        message.deleted = True
        return True
