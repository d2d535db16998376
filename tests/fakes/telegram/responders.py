"""The Bot API methods the fake answers, by name: the bot itself, its commands, chats and
members, reactions and callback answers here; messages and updates in their own modules."""

from __future__ import annotations

import json

from tests.fakes.telegram.messages import QUERY_TOO_OLD, Messages
from tests.fakes.telegram.model import (
    ApiError,
    FakeUser,
    JsonDict,
    Params,
    Responder,
    bad_request,
)
from tests.fakes.telegram.updates import Updates
from tests.fakes.telegram.validation import (
    ADMIN_STATUSES,
    check_callback_answer,
    check_commands,
    check_reaction,
    optional_int_or_none,
)
from tests.fakes.telegram.world import World

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


class Responders:
    """The built-in answers of the fake, one method per Bot API method (``table()``)."""

    def __init__(self, world: World, messages: Messages, updates: Updates) -> None:
        self.world = world
        self.messages = messages
        self.updates = updates

    def table(self) -> dict[str, Responder]:
        messages, updates = self.messages, self.updates
        return {
            "getMe": self.get_me,
            "getUpdates": updates.get_updates,
            "deleteWebhook": updates.delete_webhook,
            "setWebhook": updates.set_webhook,
            "getWebhookInfo": updates.get_webhook_info,
            "logOut": lambda params: True,
            "close": lambda params: True,
            "setMyCommands": self.set_my_commands,
            "getMyCommands": self.get_my_commands,
            "deleteMyCommands": self.delete_my_commands,
            "getChat": self.get_chat,
            "getChatMember": self.get_chat_member,
            "getChatAdministrators": self.get_chat_administrators,
            "sendMessage": messages.send_message,
            "sendPhoto": messages.send_photo,
            "editMessageText": messages.edit_message_text,
            "editMessageReplyMarkup": messages.edit_message_reply_markup,
            "editEphemeralMessageText": messages.edit_ephemeral_message_text,
            "editEphemeralMessageReplyMarkup": messages.edit_ephemeral_message_reply_markup,
            "deleteEphemeralMessage": messages.delete_ephemeral_message,
            "deleteMessage": messages.delete_message,
            "answerCallbackQuery": self.answer_callback_query,
            "setMessageReaction": self.set_message_reaction,
            "sendChatAction": lambda params: True,
        }

    def get_me(self, params: Params) -> JsonDict:
        return {
            **self.world.bot.to_api(),
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }

    @staticmethod
    def _commands_key(params: Params) -> tuple[str, str]:
        scope = params.get("scope") or {"type": "default"}
        return json.dumps(scope, sort_keys=True), str(params.get("language_code") or "")

    def set_my_commands(self, params: Params) -> bool:
        self.world.commands[self._commands_key(params)] = check_commands(params.get("commands"))
        return True

    def get_my_commands(self, params: Params) -> list[JsonDict]:
        return self.world.commands.get(self._commands_key(params), [])

    def delete_my_commands(self, params: Params) -> bool:
        self.world.commands.pop(self._commands_key(params), None)
        return True

    def get_chat(self, params: Params) -> JsonDict:
        state = self.world.chat_for_read(params.get("chat_id"))
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

    def get_chat_member(self, params: Params) -> JsonDict:
        """A user's membership (https://core.telegram.org/bots/api#getchatmember), as the Bot API
        answers it: a user the bot never met (no update from them, not in a member list it saw)
        is 400 "user not found" (the server can't resolve them: tdlib/telegram-bot-api#332,
        "only if the user never contacted the bot"); someone known but not in the chat is
        "left"; in a group hiding its members from a bot that is not an admin, 400
        ``PARTICIPANT_ID_INVALID`` (teloxide/teloxide#1349, tdlib/telegram-bot-api#802).
        ``member_lookups`` counts the calls per (chat, user)."""
        state = self.world.chat_for_read(params.get("chat_id"))
        user_id = optional_int_or_none(params.get("user_id"))
        if user_id is None:
            raise bad_request("invalid user_id specified")
        user = self.world.users.get(user_id)
        if user is None or user_id not in self.world.seen:
            raise bad_request("user not found")
        entry = state.members.get(user_id)
        if entry is None:
            bot_is_admin = state.members.get(self.world.bot.id, {}).get("status") in ADMIN_STATUSES
            if state.hidden_members and not bot_is_admin:
                raise bad_request("PARTICIPANT_ID_INVALID")
            entry = {"status": "left"}
        return self._member_payload(user, entry)

    def get_chat_administrators(self, params: Params) -> list[JsonDict]:
        state = self.world.chat_for_read(params.get("chat_id"))
        return [
            self._member_payload(self.world.users[user_id], entry)
            for user_id, entry in state.members.items()
            if entry.get("status") in ADMIN_STATUSES and user_id in self.world.users
        ]

    def set_message_reaction(self, params: Params) -> bool:
        """The bot's reaction to a message (https://core.telegram.org/bots/api#setmessagereaction):
        ``reaction`` a list of ReactionTypeEmoji from Telegram's list ("as non-premium users,
        bots can set up to one reaction per message"), empty or absent to take it back.
        Error words are the server's (tdlib/telegram-bot-api Client.cpp get_reaction_types,
        check_message "message to react") or Telegram's (REACTION_INVALID, REACTIONS_TOO_MANY).
        Not a group write: Telegram's group limit counts messages."""
        state = self.world.chat_for_read(params.get("chat_id"))
        message = self.world.find_message(state.chat, optional_int_or_none(params.get("message_id")) or 0)
        if message is None or message.deleted:
            raise bad_request("message to react not found")
        message.reactions = check_reaction(params.get("reaction"))
        message.big_reaction = bool(params.get("is_big")) and bool(message.reactions)
        return True

    def answer_callback_query(self, params: Params) -> bool:
        callback = self.world.callbacks.get(str(params.get("callback_query_id")))
        if callback is None or callback.answered:
            raise ApiError(400, QUERY_TOO_OLD)
        check_callback_answer(params)
        callback.answered = True
        callback.answer = dict(params)
        return True
