"""The fake Telegram Bot API server, exercised through the real aiogram 3.31 client."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

pytest.importorskip("aiogram")

from aiogram import Bot, Dispatcher, F, Router
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.exceptions import (
    TelegramBadRequest,
    TelegramForbiddenError,
    TelegramNotFound,
    TelegramRetryAfter,
    TelegramUnauthorizedError,
)
from aiogram.filters import Command
from aiogram.types import (
    BotCommand,
    BotCommandScopeChat,
    BufferedInputFile,
    CallbackQuery,
    ChatMemberAdministrator,
    ChatMemberBanned,
    ChatMemberLeft,
    ChatMemberMember,
    ChatMemberOwner,
    CopyTextButton,
    EphemeralMessageParameters,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
    ReactionTypeCustomEmoji,
    ReactionTypeEmoji,
    ReactionTypePaid,
    WebAppInfo,
)

from tests.fakes.telegram import (
    FakeChat,
    FakeTelegram,
    FakeUser,
    close_session_fast,
    make_bot,
    run_polling,
)

GROUP_ID = -1001234567890


def keyboard(*buttons: tuple[str, str]) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        inline_keyboard=[[InlineKeyboardButton(text=text, callback_data=data)] for text, data in buttons]
    )


def build_router() -> Router:
    router = Router()

    @router.message(Command("ping"))
    async def ping(message: Message) -> None:
        await message.answer("pong")

    @router.message(Command("game"))
    async def game(message: Message) -> None:
        await message.answer("Table is open", reply_markup=keyboard(("Join", "join"), ("My hand", "hand")))

    @router.message(Command("hand"))
    async def hand_command(message: Message) -> None:
        # For an incoming ephemeral command aiogram's reply() fills
        # reply_parameters.ephemeral_message_id and ephemeral_message_parameters.
        await message.reply("Only you see this: 7♠ 9♥")

    @router.callback_query(F.data == "join")
    async def join(callback: CallbackQuery) -> None:
        await callback.answer("Joined")
        assert isinstance(callback.message, Message)
        await callback.message.edit_text(
            f"Players: {callback.from_user.first_name}",
            reply_markup=callback.message.reply_markup,
        )

    @router.callback_query(F.data == "hand")
    async def hand(callback: CallbackQuery, bot: Bot) -> None:
        assert isinstance(callback.message, Message)
        sent = await bot.send_message(
            chat_id=callback.message.chat.id,
            text="Your hand: 9♥ 7♠",
            ephemeral_message_parameters=EphemeralMessageParameters(
                receiver_user_id=callback.from_user.id,
                callback_query_id=callback.id,
            ),
            reply_markup=keyboard(("Play 7♠", "play:7S")),
        )
        await callback.answer()
        assert sent.ephemeral_message_id is not None
        await bot.edit_ephemeral_message_text(
            chat_id=sent.chat.id,
            receiver_user_id=callback.from_user.id,
            ephemeral_message_id=sent.ephemeral_message_id,
            text="Your hand: 7♠ 9♥",
            reply_markup=keyboard(("Play 7♠", "play:7S"), ("Play 9♥", "play:9H")),
        )

    @router.callback_query(F.data.startswith("play:"))
    async def play(callback: CallbackQuery) -> None:
        message = callback.message
        assert isinstance(message, Message)
        assert message.ephemeral_message_id is not None and message.message_id == 0
        await callback.answer(f"played {callback.data}")
        # Shortcut fills chat_id, receiver_user_id (receiver_user) and ephemeral_message_id.
        await message.edit_ephemeral_reply_markup(reply_markup=None)

    return router


@pytest.fixture
async def fake() -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as server:
        yield server


@pytest.fixture
async def bot(fake: FakeTelegram) -> AsyncIterator[Bot]:
    bot = Bot(fake.token, session=AiohttpSession(api=TelegramAPIServer.from_base(fake.base_url)))
    yield bot
    await close_session_fast(bot)


@pytest.fixture
def dp() -> Dispatcher:
    dispatcher = Dispatcher()
    dispatcher.include_router(build_router())
    return dispatcher


@pytest.fixture
def group(fake: FakeTelegram) -> FakeChat:
    return fake.group(GROUP_ID, "Kozel table")


@pytest.fixture
def alice(fake: FakeTelegram) -> FakeUser:
    return fake.add_user(1001, "Alice", username="alice")


@pytest.fixture
def bob(fake: FakeTelegram) -> FakeUser:
    return fake.add_user(1002, "Bob", username="bob")


# ---------------------------------------------------------------- plain API calls


async def test_get_me_and_token_check(fake: FakeTelegram, bot: Bot) -> None:
    me = await bot.get_me()
    assert (me.id, me.username, me.is_bot) == (fake.bot.id, "kozel_test_bot", True)

    wrong = make_bot(fake, token=f"{fake.bot.id}:WRONG-token")
    try:
        with pytest.raises(TelegramUnauthorizedError):
            await wrong.get_me()
    finally:
        await close_session_fast(wrong)
    assert [(call.method, call.error_code) for call in fake.calls] == [
        ("getMe", None),
        ("getMe", 401),
    ]


async def test_retry_after_raises_telegram_retry_after(fake: FakeTelegram, bot: Bot, group: FakeChat) -> None:
    fake.limits.fail_retry_after("sendMessage", retry_after=7, times=2)

    for _ in range(2):
        with pytest.raises(TelegramRetryAfter) as raised:
            await bot.send_message(group.id, "hello")
        assert raised.value.retry_after == 7
    sent = await bot.send_message(group.id, "hello")

    assert sent.message_id == 1
    assert [call.error_code for call in fake.find_calls("sendMessage")] == [429, 429, None]
    assert [message.text for message in fake.messages(group)] == ["hello"]


async def test_forbidden_until_user_starts_the_bot(fake: FakeTelegram, bot: Bot, bob: FakeUser) -> None:
    with pytest.raises(TelegramForbiddenError, match="can't initiate conversation"):
        await bot.send_message(bob.id, "psst")

    fake.user_message(bob.id, bob, "/start")  # Bob opens the private chat
    sent = await bot.send_message(bob.id, "psst")
    assert sent.chat.type == "private"

    fake.world.block_bot(bob)
    with pytest.raises(TelegramForbiddenError, match="blocked by the user"):
        await bot.send_message(bob.id, "psst again")


async def test_injected_bad_request_and_forbidden(
    fake: FakeTelegram, bot: Bot, group: FakeChat, alice: FakeUser
) -> None:
    fake.make_admin(group, fake.bot)  # admins may send ephemerals unprompted
    fake.limits.fail_ephemeral_send(error_code=403, description="Forbidden: ephemeral refused")
    ephemeral = EphemeralMessageParameters(receiver_user_id=alice.id)

    with pytest.raises(TelegramForbiddenError, match="ephemeral refused"):
        await bot.send_message(group.id, "secret", ephemeral_message_parameters=ephemeral)
    public = await bot.send_message(group.id, "public")  # the fault only matches ephemerals
    secret = await bot.send_message(group.id, "secret", ephemeral_message_parameters=ephemeral)

    assert public.message_id == 1 and public.ephemeral_message_id is None
    assert secret.message_id == 0 and secret.ephemeral_message_id == 1
    assert secret.receiver_user is not None and secret.receiver_user.id == alice.id

    fake.limits.fail_next("deleteMessage", error_code=400, description="Bad Request: nope")
    with pytest.raises(TelegramBadRequest, match="nope"):
        await bot.delete_message(group.id, public.message_id)


async def test_strict_ephemeral_rules(fake: FakeTelegram, bot: Bot, group: FakeChat, alice: FakeUser) -> None:
    ephemeral = EphemeralMessageParameters(receiver_user_id=alice.id)
    with pytest.raises(TelegramBadRequest, match="ephemeral"):
        await bot.send_message(group.id, "unprompted", ephemeral_message_parameters=ephemeral)

    fake.user_message(alice.id, alice, "/start")
    with pytest.raises(TelegramBadRequest, match="groups"):
        await bot.send_message(alice.id, "private", ephemeral_message_parameters=ephemeral)

    fake.make_admin(group, fake.bot)
    sent = await bot.send_message(group.id, "now ok", ephemeral_message_parameters=ephemeral)
    assert sent.ephemeral_message_id == 1


async def test_edit_delete_and_not_modified(fake: FakeTelegram, bot: Bot, group: FakeChat) -> None:
    sent = await bot.send_message(group.id, "<b>Trump</b>: ♣", parse_mode="HTML")
    model = fake.world.find_message(group, sent.message_id)
    assert model is not None and model.text == "Trump: ♣" and model.raw_text == "<b>Trump</b>: ♣"

    edited = await bot.edit_message_text("Trump: ♦", chat_id=group.id, message_id=sent.message_id)
    assert isinstance(edited, Message) and edited.edit_date is not None
    with pytest.raises(TelegramBadRequest, match="message is not modified"):
        await bot.edit_message_text("Trump: ♦", chat_id=group.id, message_id=sent.message_id)
    assert model.texts == ["Trump: ♣", "Trump: ♦"]

    assert await bot.delete_message(group.id, sent.message_id) is True
    assert model.deleted and fake.messages(group) == []
    with pytest.raises(TelegramBadRequest, match="message to delete not found"):
        await bot.delete_message(group.id, sent.message_id)
    with pytest.raises(TelegramBadRequest, match="message to edit not found"):
        await bot.edit_message_text("x", chat_id=group.id, message_id=sent.message_id)


async def test_members_commands_and_chat(
    fake: FakeTelegram, bot: Bot, group: FakeChat, alice: FakeUser, bob: FakeUser
) -> None:
    carol = fake.add_user(1003, "Carol")
    fake.set_member(group, alice, "creator")
    fake.make_admin(group, bob)
    fake.user_message(group, carol, "hi")  # speaking makes Carol a member

    assert isinstance(await bot.get_chat_member(group.id, alice.id), ChatMemberOwner)
    assert isinstance(await bot.get_chat_member(group.id, bob.id), ChatMemberAdministrator)
    assert isinstance(await bot.get_chat_member(group.id, carol.id), ChatMemberMember)
    assert isinstance(await bot.get_chat_member(group.id, fake.bot.id), ChatMemberMember)

    chat = await bot.get_chat(group.id)
    assert (chat.id, chat.type, chat.title) == (group.id, "supergroup", "Kozel table")

    scope = BotCommandScopeChat(chat_id=group.id)
    commands = [
        BotCommand(command="ping", description="Ping"),
        BotCommand(command="hand", description="Show my cards", is_ephemeral=True),
    ]
    assert await bot.set_my_commands(commands, scope=scope) is True
    fetched = await bot.get_my_commands(scope=scope)
    assert [c.model_dump() for c in fetched] == [c.model_dump() for c in commands]
    assert fake.find_calls("setMyCommands")[0].params["commands"][1]["is_ephemeral"] is True
    with pytest.raises(TelegramBadRequest, match="BOT_COMMAND_INVALID"):
        await bot.set_my_commands([BotCommand(command="Bad-Name", description="x")])
    assert await bot.delete_my_commands(scope=scope) is True
    assert await bot.get_my_commands(scope=scope) == []
    assert await bot.delete_webhook(drop_pending_updates=True) is True
    assert fake.updates.pending_update_count() == 0


async def test_get_chat_member_of_a_stranger_left_and_kicked(
    fake: FakeTelegram, bot: Bot, group: FakeChat, alice: FakeUser
) -> None:
    """A user the bot never met is "user not found" (Telegram can't resolve them); once met
    (here: a private /start) but never in the group, "left"; kicked, "kicked"."""
    dave = fake.add_user(1004, "Dave")
    with pytest.raises(TelegramBadRequest, match="user not found"):
        await bot.get_chat_member(group.id, dave.id)
    with pytest.raises(TelegramBadRequest, match="user not found"):
        await bot.get_chat_member(group.id, 999_999)  # no such user at all
    fake.user_message(dave.id, dave, "/start")
    assert isinstance(await bot.get_chat_member(group.id, dave.id), ChatMemberLeft)

    fake.user_message(group, alice, "hi")
    assert isinstance(await bot.get_chat_member(group.id, alice.id), ChatMemberMember)
    fake.set_member(group, alice, "kicked")
    assert isinstance(await bot.get_chat_member(group.id, alice.id), ChatMemberBanned)
    with pytest.raises(TelegramBadRequest, match="chat not found"):
        await bot.get_chat_member(-1009, alice.id)


async def test_get_chat_member_in_a_group_hiding_its_members(
    fake: FakeTelegram, bot: Bot, alice: FakeUser
) -> None:
    """A supergroup that hides its members from a bot that is not an admin: someone the bot
    has not seen in it is PARTICIPANT_ID_INVALID; seen ones (and all, for an admin bot) answer."""
    hidden = fake.group(-1005, "Hidden", hidden_members=True)
    fake.user_message(alice.id, alice, "/start")
    with pytest.raises(TelegramBadRequest, match="PARTICIPANT_ID_INVALID"):
        await bot.get_chat_member(hidden.id, alice.id)
    fake.make_admin(hidden, fake.bot)
    assert isinstance(await bot.get_chat_member(hidden.id, alice.id), ChatMemberLeft)


async def test_member_lookups_count_get_chat_member_calls(
    fake: FakeTelegram, bot: Bot, group: FakeChat, alice: FakeUser, bob: FakeUser
) -> None:
    """``member_lookups`` counts getChatMember calls per (chat, user), refused ones too, so a
    test can assert a cache spared them."""
    fake.user_message(group, alice, "hi")
    for _ in range(2):
        await bot.get_chat_member(group.id, alice.id)
    with pytest.raises(TelegramBadRequest):
        await bot.get_chat_member(group.id, bob.id)  # never met
    assert fake.member_lookups == {(group.id, alice.id): 2, (group.id, bob.id): 1}
    assert fake.member_lookups[group.id, 1234] == 0


async def test_an_unknown_method_gets_404_not_found(fake: FakeTelegram, bot: Bot, group: FakeChat) -> None:
    """A method the fake doesn't implement answers what api.telegram.org answers (404
    "Not Found", aiogram's TelegramNotFound), never a silent ok; the call and its multipart
    upload are still recorded."""
    photo = BufferedInputFile(b"\x89PNG fake", filename="table.png")
    with pytest.raises(TelegramNotFound, match="Not Found"):
        await bot.set_chat_photo(group.id, photo)
    assert fake.log.unknown_methods == ["setChatPhoto"]
    [call] = fake.find_calls("setChatPhoto")
    assert (call.error_code, call.description) == (404, "Not Found")
    assert call.params["photo"]["size"] == 9

    import aiohttp

    url = f"{fake.base_url}/bot{fake.token}/noSuchMethod"
    async with aiohttp.ClientSession() as http, http.post(url, json={}) as r:
        assert r.status == 404
        assert await r.json() == {"ok": False, "error_code": 404, "description": "Not Found"}


async def test_get_updates_long_poll_is_woken_by_an_update(
    fake: FakeTelegram, bot: Bot, group: FakeChat, alice: FakeUser
) -> None:
    assert await bot.get_updates(timeout=0) == []

    started = time.monotonic()
    poll = asyncio.create_task(bot.get_updates(timeout=30))
    await fake.wait_for(lambda: len(fake.calls) == 2, what="second poll to arrive")
    fake.user_message(group, alice, "/ping@kozel_test_bot now")
    updates = await asyncio.wait_for(poll, 1)
    assert time.monotonic() - started < 1

    assert len(updates) == 1 and updates[0].message is not None
    message = updates[0].message
    assert message.text == "/ping@kozel_test_bot now"
    assert message.entities is not None
    assert [(e.type, e.offset, e.length) for e in message.entities] == [("bot_command", 0, 20)]

    # Unconfirmed updates are returned again; offset confirms them.
    again = await bot.get_updates(timeout=0)
    assert [update.update_id for update in again] == [updates[0].update_id]
    assert await bot.get_updates(offset=updates[0].update_id + 1, timeout=0) == []
    assert fake.updates.pending_update_count() == 0


async def test_stop_releases_a_pending_long_poll(fake: FakeTelegram) -> None:
    bot = make_bot(fake)
    poll = asyncio.create_task(bot.get_updates(timeout=30))
    await fake.wait_for(lambda: fake.calls, what="poll to arrive")
    started = time.monotonic()
    await fake.stop()
    assert await asyncio.wait_for(poll, 1) == []
    assert time.monotonic() - started < 1
    await close_session_fast(bot)


# ---------------------------------------------------------------- real Dispatcher polling


async def test_manual_start_and_stop_polling(
    fake: FakeTelegram, bot: Bot, dp: Dispatcher, group: FakeChat, alice: FakeUser
) -> None:
    polling = asyncio.create_task(dp.start_polling(bot, handle_signals=False))
    fake.user_message(group, alice, "/ping")
    pong = await fake.wait_for_message(group, lambda m: m.text == "pong")
    await dp.stop_polling()
    await asyncio.wait_for(polling, 2)

    assert pong.message_id == 2  # the user's /ping was message 1
    assert fake.log.method_names()[:2] == ["getMe", "sendMessage"]
    assert sorted(fake.find_calls("getUpdates")[0].params["allowed_updates"]) == [
        "callback_query",
        "message",
    ]


async def test_ping_pong_in_group_and_forum_topic(
    fake: FakeTelegram, bot: Bot, dp: Dispatcher, alice: FakeUser, bob: FakeUser
) -> None:
    forum = fake.group(-1009, "Kozel forum", forum=True)
    table = fake.group(GROUP_ID, "Kozel table")
    async with run_polling(dp, bot, fake, handle_as_tasks=False):
        fake.user_message(table, alice, "/ping@kozel_test_bot")
        await fake.wait_for_message(table, lambda m: m.text == "pong")

        fake.user_message(forum, bob, "/ping", thread_id=77)
        topic_pong = await fake.wait_for_message(forum, lambda m: m.text == "pong")

        mark = fake.mark()
        fake.user_message(table, bob, "/ping@someone_else_bot")
        fake.user_message(table, bob, "ping")
        await fake.wait_confirmed()  # both handled (handle_as_tasks=False), nothing sent
        assert fake.find_calls("sendMessage", after=mark) == []

    assert topic_pong.message_thread_id == 77
    assert fake.find_calls("sendMessage")[1].params["message_thread_id"] == 77
    assert [m.text for m in fake.messages(table, from_bot=True)] == ["pong"]


async def test_callback_answers_and_edits_message(
    fake: FakeTelegram, bot: Bot, dp: Dispatcher, group: FakeChat, alice: FakeUser
) -> None:
    async with run_polling(dp, bot, fake):
        fake.user_message(group, alice, "/game")
        table = await fake.wait_for_message(group, lambda m: m.text == "Table is open")
        assert table.callback_data == ["join", "hand"]

        callback = fake.press(alice, table, button="Join")
        await fake.wait_for(lambda: table.text == "Players: Alice", what="edit")
        await fake.wait_for(lambda: callback.answered, what="callback answer")

    assert callback.answer is not None and callback.answer["text"] == "Joined"
    assert table.texts == ["Table is open", "Players: Alice"]
    assert table.callback_data == ["join", "hand"]  # keyboard kept by passing it again
    assert [v.method for v in table.versions] == ["sendMessage", "editMessageText"]


async def test_ephemeral_send_edit_and_press(
    fake: FakeTelegram, bot: Bot, dp: Dispatcher, group: FakeChat, alice: FakeUser, bob: FakeUser
) -> None:
    async with run_polling(dp, bot, fake):
        fake.user_message(group, alice, "/game")
        table = await fake.wait_for_message(group, lambda m: m.text == "Table is open")
        hand_press = fake.press(alice, table, "hand")

        edit = await fake.wait_for_call("editEphemeralMessageText")
        hand = fake.world.find_ephemeral(group, edit.params["ephemeral_message_id"])
        assert hand is not None and hand.text == "Your hand: 7♠ 9♥"

        send = fake.find_calls("sendMessage", lambda p: "ephemeral_message_parameters" in p)[0]
        assert send.params["ephemeral_message_parameters"] == {
            "receiver_user_id": alice.id,
            "callback_query_id": hand_press.id,
        }
        assert send.result["message_id"] == 0
        assert send.result["ephemeral_message_id"] == hand.ephemeral_message_id
        assert send.result["receiver_user"]["id"] == alice.id
        assert hand.receiver == alice and hand.callback_query_id == hand_press.id
        assert hand in fake.visible_messages(group, alice)
        assert hand not in fake.visible_messages(group, bob)
        with pytest.raises(ValueError, match="can't see"):
            fake.press(bob, hand, "play:7S")

        play = fake.press(alice, hand, button="Play 9♥")
        await fake.wait_for(lambda: not hand.buttons, what="ephemeral keyboard removal")
        await fake.wait_for(lambda: play.answered, what="play answer")

    update = next(
        call.result[0]
        for call in fake.find_calls("getUpdates")
        if call.result
        and "callback_query" in call.result[0]
        and call.result[0]["callback_query"]["data"] == "play:9H"
    )
    pressed_on = update["callback_query"]["message"]
    assert pressed_on["message_id"] == 0
    assert pressed_on["ephemeral_message_id"] == hand.ephemeral_message_id
    assert pressed_on["receiver_user"]["id"] == alice.id
    markup_edit = fake.find_calls("editEphemeralMessageReplyMarkup")[0].params
    assert markup_edit == {
        "chat_id": group.id,
        "receiver_user_id": alice.id,
        "ephemeral_message_id": hand.ephemeral_message_id,
    }
    assert [v.method for v in hand.versions] == [
        "sendMessage",
        "editEphemeralMessageText",
        "editEphemeralMessageReplyMarkup",
    ]
    assert hand_press.answered and play.answer is not None
    assert play.answer["text"] == "played play:9H"


async def test_reply_to_ephemeral_command(
    fake: FakeTelegram, bot: Bot, dp: Dispatcher, group: FakeChat, alice: FakeUser
) -> None:
    async with run_polling(dp, bot, fake):
        command = fake.user_message(group, alice, "/hand", ephemeral=True)
        reply = await fake.wait_for_message(group, ephemeral=True)

    assert command.message_id == 0 and command.ephemeral_message_id == 1
    assert reply.ephemeral_message_id == 2 and reply.receiver == alice
    assert reply.reply_to is command
    params = fake.find_calls("sendMessage")[0].params
    assert params["reply_parameters"]["ephemeral_message_id"] == command.ephemeral_message_id
    assert "message_id" not in params["reply_parameters"]
    assert params["ephemeral_message_parameters"] == {"receiver_user_id": alice.id}


async def test_handler_errors_surface_as_aiogram_exceptions(
    fake: FakeTelegram, bot: Bot, group: FakeChat, alice: FakeUser
) -> None:
    failures: list[BaseException] = []
    router = Router()

    @router.message(Command("ping"))
    async def ping(message: Message) -> None:
        try:
            await message.answer("pong")
        except TelegramRetryAfter as error:
            failures.append(error)

    dp = Dispatcher()
    dp.include_router(router)
    fake.limits.fail_retry_after("sendMessage", retry_after=3)
    async with run_polling(dp, bot, fake, handle_as_tasks=False):
        fake.user_message(group, alice, "/ping")
        await fake.wait_confirmed()

    assert len(failures) == 1
    assert isinstance(failures[0], TelegramRetryAfter) and failures[0].retry_after == 3
    assert fake.messages(group, from_bot=True) == []


async def test_raw_json_and_query_bodies(fake: FakeTelegram, group: FakeChat, alice: FakeUser) -> None:
    """Non-aiogram clients: JSON bodies, GET query strings, negative getUpdates offsets."""
    import aiohttp

    url = f"{fake.base_url}/bot{fake.token}"
    async with aiohttp.ClientSession() as http:
        async with http.post(f"{url}/sendMessage", json={"chat_id": group.id, "text": "42"}) as r:
            body = await r.json()
        assert body["ok"] is True and body["result"]["text"] == "42"

        for text in ("a", "b", "c"):
            fake.user_message(group, alice, text)
        async with http.get(f"{url}/getUpdates", params={"offset": "-1"}) as r:
            body = await r.json()
        assert [u["message"]["text"] for u in body["result"]] == ["c"]

        async with http.post(f"{url}/GETME") as r:  # method names are case-insensitive
            assert (await r.json())["result"]["username"] == "kozel_test_bot"
        async with http.post(f"{fake.base_url}/botWRONG:1/getMe") as r:
            assert r.status == 401
            assert await r.json() == {"ok": False, "error_code": 401, "description": "Unauthorized"}

    assert [method for method, _params in fake.calls] == [
        "sendMessage",
        "getUpdates",
        "getMe",
        "getMe",
    ]
    assert fake.calls[0].params == {"chat_id": group.id, "text": "42"}
    assert fake.updates.pending_update_count() == 1


# ---------------------------------------------------------------- limits like Telegram's


async def test_group_flood_limit_on_the_fakes_clock(group: FakeChat, alice: FakeUser) -> None:
    """Past 20 group-visible writes in 60 s: 429 with the seconds until the oldest leaves the
    window; ephemeral messages and private chats are not the group's writes."""
    now = [1000.0]
    async with FakeTelegram(clock=lambda: now[0]) as fake:
        fake.group(group.id, group.title or "")
        fake.make_admin(group, fake.bot)
        fake.add_user(alice.id, alice.first_name)
        fake.limits.limit_group_writes(20, 60.0)
        bot = make_bot(fake)
        try:
            first = await bot.send_message(group.id, "table")
            for i in range(19):
                now[0] += 1.0
                await bot.edit_message_text(f"table {i}", chat_id=group.id, message_id=first.message_id)
            with pytest.raises(TelegramRetryAfter) as raised:
                await bot.send_message(group.id, "one too many")
            assert raised.value.retry_after == 41  # the first write (t=1000) leaves at 1060
            await bot.send_message(
                group.id,
                "only you",
                ephemeral_message_parameters=(EphemeralMessageParameters(receiver_user_id=alice.id)),
            )
            fake.private_chat(alice)
            await bot.send_message(alice.id, "private")
            now[0] += 41.0
            await bot.send_message(group.id, "allowed again")
        finally:
            await close_session_fast(bot)
    assert len(fake.limits.group_writes[group.id]) == 21
    assert fake.limits.flood is not None and len(fake.limits.flood.refused) == 1


async def test_payloads_the_real_api_refuses_get_400(fake: FakeTelegram, bot: Bot, group: FakeChat) -> None:
    too_long = InlineKeyboardMarkup(
        inline_keyboard=[[InlineKeyboardButton(text="x", callback_data="y" * 65)]]
    )
    with pytest.raises(TelegramBadRequest, match="BUTTON_DATA_INVALID"):
        await bot.send_message(group.id, "t", reply_markup=too_long)
    wide = InlineKeyboardMarkup(
        inline_keyboard=[[InlineKeyboardButton(text=str(i), callback_data=str(i)) for i in range(9)]]
    )
    with pytest.raises(TelegramBadRequest, match="too many buttons"):
        await bot.send_message(group.id, "t", reply_markup=wide)
    assert not fake.messages(group)


def one_button(**button: Any) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(inline_keyboard=[[InlineKeyboardButton(text="x", **button)]])


async def test_a_button_needs_exactly_one_action_field(fake: FakeTelegram, bot: Bot, group: FakeChat) -> None:
    """InlineKeyboardButton: "Exactly one of the optional fields must be used to specify type
    of the button" - none is a text button, refused in the server's words; two would be
    silently cut to one by the server, so the fake refuses them."""
    with pytest.raises(TelegramBadRequest, match="can't parse inline keyboard button: Text buttons"):
        await bot.send_message(group.id, "t", reply_markup=one_button())
    for two in (
        {"callback_data": "go", "url": "https://t.me/kozel_test_bot"},
        {"callback_data": "go", "copy_text": CopyTextButton(text="code")},
        {"switch_inline_query": "", "switch_inline_query_current_chat": ""},
    ):
        with pytest.raises(TelegramBadRequest, match="exactly one of the optional fields"):
            await bot.send_message(group.id, "t", reply_markup=one_button(**two))
    assert not fake.messages(group)

    for one in (
        {"callback_data": "go"},
        {"url": "https://t.me/kozel_test_bot?startgroup=new"},
        {"copy_text": CopyTextButton(text="code")},
        {"switch_inline_query_current_chat": ""},
    ):
        await bot.send_message(group.id, "t", reply_markup=one_button(**one))
    assert len(fake.messages(group)) == 4


async def test_url_buttons_need_an_http_or_tg_link(fake: FakeTelegram, bot: Bot, group: FakeChat) -> None:
    """url: "HTTP or tg:// URL to be opened when the button is pressed"."""
    for url, why in (("ftp://example.org/x", "Unsupported URL protocol"), ("kozel table", "Wrong HTTP URL")):
        with pytest.raises(TelegramBadRequest, match=f"button URL '{url}' is invalid: {why}"):
            await bot.send_message(group.id, "t", reply_markup=one_button(url=url))
    for url in ("https://t.me/kozel_test_bot?start=x", "http://example.org", "tg://user?id=1001"):
        await bot.send_message(group.id, "t", reply_markup=one_button(url=url))
    assert len(fake.messages(group)) == 3


async def test_web_app_buttons_only_in_private_chats(
    fake: FakeTelegram, bot: Bot, group: FakeChat, alice: FakeUser
) -> None:
    """web_app: "Available only in private chats between a user and the bot"; in a group
    Telegram answers BUTTON_TYPE_INVALID, to a send and to an edit alike."""
    app = one_button(web_app=WebAppInfo(url="https://example.org/app"))
    with pytest.raises(TelegramBadRequest, match="BUTTON_TYPE_INVALID"):
        await bot.send_message(group.id, "t", reply_markup=app)
    sent = await bot.send_message(group.id, "t")
    with pytest.raises(TelegramBadRequest, match="BUTTON_TYPE_INVALID"):
        await bot.edit_message_reply_markup(chat_id=group.id, message_id=sent.message_id, reply_markup=app)

    fake.private_chat(alice)
    await bot.send_message(alice.id, "t", reply_markup=app)
    assert fake.messages(alice.id)[-1].buttons[0][0]["web_app"] == {"url": "https://example.org/app"}


async def test_set_message_reaction_one_listed_emoji_on_an_existing_message(
    fake: FakeTelegram, bot: Bot, group: FakeChat, alice: FakeUser
) -> None:
    """setMessageReaction: a ReactionTypeEmoji from Telegram's list, at most one for a bot,
    on a message that exists; the fake keeps it on the message, an empty list takes it back."""
    said = fake.user_message(group, alice, "I won!")
    assert await bot.set_message_reaction(
        group.id, said.message_id, [ReactionTypeEmoji(emoji="🏆")], is_big=True
    )
    assert said.reactions == [{"type": "emoji", "emoji": "🏆"}] and said.big_reaction

    with pytest.raises(TelegramBadRequest, match="REACTION_INVALID"):
        await bot.set_message_reaction(group.id, said.message_id, [ReactionTypeEmoji(emoji="🃏")])
    with pytest.raises(TelegramBadRequest, match="REACTIONS_TOO_MANY"):
        await bot.set_message_reaction(
            group.id, said.message_id, [ReactionTypeEmoji(emoji="👍"), ReactionTypeEmoji(emoji="🔥")]
        )
    with pytest.raises(TelegramBadRequest, match="REACTION_INVALID"):
        await bot.set_message_reaction(
            group.id, said.message_id, [ReactionTypeCustomEmoji(custom_emoji_id="1")]
        )
    with pytest.raises(TelegramBadRequest, match="invalid reaction type specified"):
        await bot.set_message_reaction(group.id, said.message_id, [ReactionTypePaid()])
    with pytest.raises(TelegramBadRequest, match="message to react not found"):
        await bot.set_message_reaction(group.id, said.message_id + 1, [ReactionTypeEmoji(emoji="👍")])
    with pytest.raises(TelegramBadRequest, match="chat not found"):
        await bot.set_message_reaction(-1009, said.message_id, [ReactionTypeEmoji(emoji="👍")])
    assert said.reactions == [{"type": "emoji", "emoji": "🏆"}]

    assert await bot.set_message_reaction(group.id, said.message_id, [])
    assert said.reactions == [] and not said.big_reaction
    sent = await bot.send_message(group.id, "table")
    await bot.delete_message(group.id, sent.message_id)
    with pytest.raises(TelegramBadRequest, match="message to react not found"):
        await bot.set_message_reaction(group.id, sent.message_id, [ReactionTypeEmoji(emoji="👍")])


async def test_a_reaction_is_not_a_group_write(group: FakeChat, alice: FakeUser) -> None:
    """Telegram's group limit counts messages: a reaction passes at the limit and is not counted."""
    async with FakeTelegram(clock=lambda: 0.0) as fake:
        fake.group(group.id, group.title or "")
        said = fake.user_message(group.id, alice, "good game")
        fake.limits.limit_group_writes(1, 60.0)
        bot = make_bot(fake)
        try:
            await bot.send_message(group.id, "table")
            assert await bot.set_message_reaction(group.id, said.message_id, [ReactionTypeEmoji(emoji="👍")])
            with pytest.raises(TelegramRetryAfter):
                await bot.send_message(group.id, "one too many")
        finally:
            await close_session_fast(bot)
        assert len(fake.limits.group_writes[group.id]) == 1


async def test_redelivered_update_comes_again_with_its_id(
    fake: FakeTelegram, bot: Bot, group: FakeChat, alice: FakeUser
) -> None:
    seen: list[tuple[int, str]] = []
    router = Router()

    @router.callback_query()
    async def pressed(callback: CallbackQuery, event_update: object) -> None:
        seen.append((event_update.update_id, callback.id))  # type: ignore[attr-defined]
        try:
            await callback.answer("ok")
        except TelegramBadRequest:
            seen.append((0, "answered twice"))

    dp = Dispatcher()
    dp.include_router(router)
    sent = await bot.send_message(group.id, "table", reply_markup=keyboard(("Go", "go")))
    table = fake.world.find_message(group, sent.message_id)
    assert table is not None
    async with run_polling(dp, bot, fake, handle_as_tasks=False):
        press = fake.press(alice, table, "go")
        await fake.wait_for(lambda: press.answered)
        update_id = fake.updates.update_of(press)
        fake.updates.redeliver(update_id)
        await fake.wait_for(lambda: len(seen) == 3, what="the redelivery")
    assert seen == [(update_id, press.id), (update_id, press.id), (0, "answered twice")]


async def test_send_photo_uploads_bytes_with_a_caption_of_at_most_1024(
    fake: FakeTelegram, bot: Bot, group: FakeChat
) -> None:
    """sendPhoto as the real API takes it from aiogram: a multipart upload, a caption of at
    most 1024 characters counted as UTF-16 (an emoji square is two), a group write."""
    png = b"\x89PNG\r\n\x1a\n" + b"0" * 100
    sent = await bot.send_photo(
        group.id, BufferedInputFile(png, filename="score.png"), caption="🟥 Anna — 4\n🟦 Boris — 12"
    )
    assert sent.photo and sent.caption == "🟥 Anna — 4\n🟦 Boris — 12"
    msg = fake.messages(group)[-1]
    assert msg.photo is not None and msg.photo["size"] == len(png)
    assert fake.world.uploads[msg.photo["attach"]] == png
    assert fake.limits.group_writes[group.id]
    with pytest.raises(TelegramBadRequest, match="caption is too long"):
        await bot.send_photo(
            group.id, BufferedInputFile(png, filename="score.png"), caption="🟥" * 513
        )  # 513 characters, 1026 UTF-16 units
    assert len(fake.messages(group)) == 1
