"""A write waiting for its chat's budget (the painter's queues)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from aiogram.methods import TelegramMethod


@dataclass
class Post:
    """One write waiting for its chat's budget."""

    chat: int
    method: TelegramMethod[Any]
    room: str | None = None  # the match it belongs to: dropped if that match is cancelled
    gen: int | None = None
    budget: bool = True  # a write the chat's members all see (ephemeral ones are not)
    on_sent: Callable[[Any], Awaitable[None]] | None = None
    not_before: float = 0.0
    tries: int = 0
    fallback: TelegramMethod[Any] | None = None  # written instead if this one is refused
