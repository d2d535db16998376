"""Lobbies nobody touched: the store forgets them after ``idle_seconds``; their message
loses its buttons and says so (one budgeted edit)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from aiogram.methods import EditMessageText

from adapters.telegram import texts
from adapters.telegram.posts import Post
from adapters.telegram.words import Words
from bot.room import LOBBY, Room
from bot.service import GameService


@dataclass
class LobbyWatch:
    """A lobby message to strip when its room expires."""

    chat: int
    message: int
    preset: str
    expires: float


class LobbyExpiry:
    def __init__(
        self,
        games: GameService,
        words: Words,
        post: Callable[[Post], Awaitable[None]],
        idle_seconds: float,
    ) -> None:
        self.games = games
        self.words = words
        self.post = post
        self.idle_seconds = idle_seconds
        self.watches: dict[str, LobbyWatch] = {}

    def watch(self, room: Room, chat: int) -> None:
        msg = room.pdata.get("tg_table")
        if msg is None:
            return
        self.watches[room.id] = LobbyWatch(chat, int(msg), room.preset, room.updated + self.idle_seconds)

    def next_due(self) -> float | None:
        return min((w.expires for w in self.watches.values()), default=None)

    async def expire(self, now: float) -> None:
        """A lobby nobody touched for ``idle_seconds`` is gone from the store: its message
        loses its buttons."""
        for room_id, watch in list(self.watches.items()):
            if watch.expires > now:
                continue
            room = await self.games.room(room_id)
            if room is not None and room.state == LOBBY and room.pdata.get("tg_table") == watch.message:
                watch.expires = room.updated + self.idle_seconds
                if watch.expires > now:
                    continue
            del self.watches[room_id]
            if room is not None and room.pdata.get("tg_table") != watch.message:
                continue  # a new table replaced it: drawn by its own rules
            if room is not None and room.state != LOBBY:
                continue
            t = await self.words.chat(watch.chat)
            await self.post(
                Post(
                    watch.chat,
                    EditMessageText(
                        chat_id=watch.chat,
                        message_id=watch.message,
                        text=texts.one_line_result(t, watch.preset, {"expired": True}),
                    ),
                )
            )
