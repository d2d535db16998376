"""What the real Bot API refuses, as pure checks of a call's parameters: each raises the
``ApiError`` the API answers with (400 with its own words where they are known)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from tests.fakes.telegram.model import (
    ChatState,
    FakeCallback,
    FakeUser,
    JsonDict,
    Params,
    bad_request,
    render_text,
    utf16_len,
)

if TYPE_CHECKING:
    from tests.fakes.telegram.world import World

ADMIN_STATUSES = frozenset({"creator", "administrator"})

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

_VALID_COMMAND_RE = re.compile(r"^[a-z0-9_]{1,32}$")

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


def check_payload(method: str, params: Params, chat_type: str | None = None) -> None:
    """400 for what the real Bot API refuses in a reply markup or a callback answer.

    ``chat_type``: the type of the chat written to ("private", "group", ...), None if unknown.
    """
    markup = params.get("reply_markup")
    if isinstance(markup, dict) and "inline_keyboard" in markup:
        rows = markup["inline_keyboard"]
        if not isinstance(rows, list) or sum(len(r) for r in rows) > 100:
            raise bad_request("reply markup is too long")
        for row in rows:
            if len(row) > 8:
                raise bad_request("too many buttons in a row")
            for button in row:
                _check_button(button, chat_type)
    url = params.get("url") if method.lower() == "answercallbackquery" else None
    if url and not re.match(r"^https://t\.me/\w+\?start=[\w-]{0,64}$", str(url)):
        raise bad_request("URL_INVALID")


def _check_button(button: Any, chat_type: str | None) -> None:
    if not isinstance(button, dict):
        raise bad_request(_CANT_PARSE_BUTTON + "InlineKeyboardButton must be an Object")
    if not str(button.get("text") or "").strip():
        raise bad_request("BUTTON_TEXT_INVALID")
    actions = [key for key in _BUTTON_ACTIONS if button.get(key) is not None]
    if not actions:
        # the server's own words for a button with no action (get_inline_keyboard_button_type)
        raise bad_request(_CANT_PARSE_BUTTON + "Text buttons are unallowed in the inline keyboard")
    if len(actions) > 1:
        # The published spec allows exactly one; the server silently keeps the first it looks
        # at, so such a button does something else than the bot meant. Wording is the fake's.
        raise bad_request(
            _CANT_PARSE_BUTTON
            + "exactly one of the optional fields must be used, got "
            + " and ".join(actions)
        )
    action = actions[0]
    if action == "callback_data":
        # "callback_data: Data to be sent in a callback query ..., 1-64 bytes" (same page)
        if not 1 <= len(str(button["callback_data"]).encode()) <= 64:
            raise bad_request("BUTTON_DATA_INVALID")
    elif action == "url":
        # "url: HTTP or tg:// URL to be opened when the button is pressed"; refused links get
        # the server's "inline keyboard button URL '...' is invalid: ..." (as users report it)
        url = str(button["url"])
        scheme = _URL_SCHEME_RE.match(url)
        if scheme is None:
            raise bad_request(f"inline keyboard button URL '{url}' is invalid: Wrong HTTP URL")
        if scheme.group(1).lower() not in ("http", "https", "tg"):
            raise bad_request(f"inline keyboard button URL '{url}' is invalid: Unsupported URL protocol")
    elif action == "web_app" and chat_type is not None and chat_type != "private":
        # "web_app: ... Available only in private chats between a user and the bot"; in a
        # group or channel Telegram answers "Bad Request: BUTTON_TYPE_INVALID"
        raise bad_request("BUTTON_TYPE_INVALID")


def ephemeral_parameters(params: Params) -> JsonDict | None:
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


def optional_int(value: Any) -> int | None:
    if value is None or value == "":
        return None
    return int(value)


def optional_int_or_none(value: Any) -> int | None:
    """Like ``optional_int`` but ``None`` for anything that isn't an integer."""
    try:
        return optional_int(value)
    except (TypeError, ValueError):
        return None


def message_text(params: Params) -> tuple[str, str | None]:
    """The text a user sees and the parse mode, or 400 for an empty or too long text."""
    text = params.get("text")
    if text is None or text == "":
        raise bad_request("message text is empty")
    text = str(text)
    parse_mode = params.get("parse_mode")
    rendered = render_text(text, parse_mode if isinstance(parse_mode, str) else None)
    if not rendered.strip():
        raise bad_request("message text is empty")
    if utf16_len(rendered) > 4096:
        raise bad_request("message is too long")
    return rendered, parse_mode if isinstance(parse_mode, str) else None


def check_commands(commands: Any) -> list[JsonDict]:
    """setMyCommands' list: at most 100 BotCommand of a valid name and description."""
    if not isinstance(commands, list) or len(commands) > 100:
        raise bad_request("commands must be a JSON array of at most 100 BotCommand")
    for command in commands:
        if not isinstance(command, dict):
            raise bad_request("can't parse BotCommand")
        if not _VALID_COMMAND_RE.match(str(command.get("command", ""))):
            raise bad_request("BOT_COMMAND_INVALID")
        if not 1 <= len(str(command.get("description", ""))) <= 256:
            raise bad_request("BOT_COMMAND_DESCRIPTION_INVALID")
    return [dict(command) for command in commands]


def check_reaction(reaction: Any) -> list[JsonDict]:
    """setMessageReaction's ``reaction``: a list of ReactionTypeEmoji from Telegram's list
    ("as non-premium users, bots can set up to one reaction per message"), empty or absent
    to take it back. Error words are the server's (tdlib/telegram-bot-api Client.cpp
    get_reaction_types) or Telegram's (REACTION_INVALID, REACTIONS_TOO_MANY)."""
    reaction = [] if reaction is None else reaction
    if not isinstance(reaction, list):
        raise bad_request("expected an Array of ReactionType")
    for item in reaction:
        if not isinstance(item, dict):
            raise bad_request("can't parse ReactionType: expected an Object")
        kind = item.get("type")
        if kind == "emoji":
            if item.get("emoji") not in REACTION_EMOJI:
                raise bad_request("REACTION_INVALID")
        elif kind == "custom_emoji":
            # allowed only if already on the message or allowed by the chat's admins:
            # the fake models neither
            raise bad_request("REACTION_INVALID")
        else:  # "paid" too: "Paid reactions can't be used by bots"
            raise bad_request("can't parse ReactionType: invalid reaction type specified")
    if len(reaction) > 1:
        raise bad_request("REACTIONS_TOO_MANY")
    return [dict(item) for item in reaction]


def check_callback_answer(params: Params) -> None:
    text = params.get("text")
    if text is not None and len(str(text)) > 200:
        raise bad_request("MESSAGE_TOO_LONG")


def check_ephemeral_allowed(
    world: World,
    state: ChatState,
    receiver: FakeUser,
    callback: FakeCallback | None,
    params: Params,
    ephemeral: JsonDict,
) -> None:
    """The Bot API's rules for an ephemeral message (``strict_ephemeral``; words are the fake's)."""
    if not state.chat.is_group:
        raise bad_request("ephemeral messages can be sent only to groups and supergroups")
    if receiver.is_bot or receiver.id == world.bot.id:
        raise bad_request("ephemeral message receiver must be a non-bot user")
    if state.members.get(receiver.id, {}).get("status") in ("left", "kicked"):
        raise bad_request("ephemeral message receiver isn't a member of the chat")
    if callback is not None:
        if callback.user.id != receiver.id:
            raise bad_request("callback query was sent by another user")
        if callback.message is None or callback.message.chat.id != state.chat.id:
            raise bad_request("callback query is from another chat")
        if ephemeral.get("replace_callback_query_message") and callback.message.is_ephemeral:
            raise bad_request(
                "replace_callback_query_message must be False for callback queries from ephemeral messages"
            )
        return
    reply_parameters = params.get("reply_parameters")
    if isinstance(reply_parameters, dict) and reply_parameters.get("ephemeral_message_id"):
        target = world.find_ephemeral(state.chat, int(reply_parameters["ephemeral_message_id"]))
        if target is not None and target.sender.id == receiver.id:
            return
        raise bad_request("an ephemeral reply must go to the sender of the replied message")
    if state.members.get(world.bot.id, {}).get("status") in ADMIN_STATUSES:
        return
    raise bad_request(
        "not enough rights to send an ephemeral message: the bot isn't an administrator "
        "and neither callback_query_id nor reply_parameters.ephemeral_message_id is given"
    )
