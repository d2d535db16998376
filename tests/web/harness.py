"""Driving the web table: Telegram's initData signed as Telegram signs it, a WebSocket client,
and the leak check of every frame (what each person may not see, from the engine)."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlencode

import aiohttp

from bot.room import Room
from engine.cards import CARD_TEXT
from engine.codec import unpack_action
from engine.families.petukh.view import PetukhExtras
from tests.telegram.harness import cards_named

# real seconds a test waits for a frame before it calls it lost (a bound, never a pause)
SIGNAL_LIMIT = 30.0


def sign_init_data(
    token: str,
    user_id: int,
    first_name: str,
    auth_date: int,
    start_param: str | None = None,
    lang: str = "ru",
) -> str:
    """``initData`` as Telegram makes it: the fields, and the HMAC-SHA256 of their sorted
    ``key=value`` lines under a key derived from the bot's token."""
    fields = {
        "user": json.dumps(
            {"id": user_id, "first_name": first_name, "language_code": lang}, separators=(",", ":")
        ),
        "auth_date": str(auth_date),
        "chat_type": "supergroup",
        "chat_instance": "-4242",
    }
    if start_param is not None:
        fields["start_param"] = start_param
    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    secret = hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()
    fields["hash"] = hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()
    return urlencode(fields)


def hidden_by_user(room: Room) -> dict[str, set[str]]:
    """Per seat's user id (``seat<i>`` for a computer player): the cards only that seat may
    know now: its hand (but a face-up trump or shown boys) and what it put face down this
    deal (thrown, laid for a boast, exchanged, given for the trump card)."""
    if room.match is None:
        return {}
    match = room.load_match()
    seen = match.observe(None)
    public = {CARD_TEXT[seen.trump_card]} if seen.trump_card is not None else set()
    boys = seen.extras.boys if isinstance(seen.extras, PetukhExtras) else ()
    public |= {c for b in boys for c in b.cards}
    ids = {i: s.user if s is not None and s.user else f"seat{i}" for i, s in enumerate(room.seats)}
    out = {ids[s]: {CARD_TEXT[c] for c in match.observe(s).hand} - public for s in range(len(room.seats))}
    for packed in filter(None, (room.log[-1] if room.log else "").split(",")):
        seat, act = unpack_action(packed)
        if act.kind in ("throw", "lay", "exchange", "swap"):
            out.setdefault(ids[seat], set()).update(CARD_TEXT[c] for c in act.cards)
    return out


def hidden_from(room: Room, user_id: str | None) -> set[str]:
    """The cards ``user_id`` (None: a spectator) may not see now."""
    return set().union(*(cards for who, cards in hidden_by_user(room).items() if who != user_id))


def _without_tokens(value: Any) -> Any:
    """A frame without its move tokens (opaque text that may spell a card by chance)."""
    if isinstance(value, dict):
        return {k: _without_tokens(v) for k, v in value.items() if k != "token"}
    if isinstance(value, list):
        return [_without_tokens(v) for v in value]
    return value


def leaked(frame: str, hidden: set[str]) -> set[str]:
    """The hidden cards a frame names anywhere (a card code, or its name in words)."""
    try:
        data = json.loads(frame)
    except ValueError:
        return cards_named(frame, hidden)
    return cards_named(json.dumps(_without_tokens(data), ensure_ascii=False), hidden)


class Client:
    """A WebSocket client of the web table, reading frames as they come."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.frames: list[dict[str, Any]] = []
        self.raw: list[str] = []

    async def send(self, frame: dict[str, Any] | str | bytes) -> None:
        if isinstance(frame, bytes):
            await self.ws.send_bytes(frame)
        else:
            await self.ws.send_str(frame if isinstance(frame, str) else json.dumps(frame))

    async def next(self, kind: str | None = None) -> dict[str, Any]:
        """The next frame (of ``kind``); AssertionError if the socket closes first."""
        while True:
            msg = await self.ws.receive(timeout=SIGNAL_LIMIT)
            if msg.type != aiohttp.WSMsgType.TEXT:
                raise AssertionError(f"socket closed: {msg.type} {self.ws.close_code}")
            self.raw.append(msg.data)
            frame = json.loads(msg.data)
            self.frames.append(frame)
            if kind is None or frame.get("type") == kind:
                return frame

    async def state(self, at_least: int = 0) -> dict[str, Any]:
        while True:
            frame = await self.next("state")
            if frame["v"] >= at_least:
                return frame

    async def closed(self) -> int | None:
        """Reads to the end; the close code."""
        while True:
            msg = await self.ws.receive(timeout=SIGNAL_LIMIT)
            if msg.type == aiohttp.WSMsgType.TEXT:
                self.raw.append(msg.data)
                self.frames.append(json.loads(msg.data))
                continue
            return self.ws.close_code


@asynccontextmanager
async def connect(port: int, hello: dict[str, Any] | None) -> AsyncIterator[Client]:
    async with (
        aiohttp.ClientSession() as session,
        session.ws_connect(f"http://127.0.0.1:{port}/ws", max_msg_size=0) as ws,
    ):
        client = Client(ws)
        if hello is not None:
            await client.send(hello)
        yield client
