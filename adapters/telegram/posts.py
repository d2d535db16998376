"""A write waiting for its chat's budget (the painter's queues)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Union

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
    # written instead if this one is refused: said another way in the same lane (a photo's
    # words alone), or another post altogether (a reaction in the group, when a private
    # answer cannot be delivered)
    fallback: Union[TelegramMethod[Any], Post, None] = None  # noqa: UP007 (a forward ref)
    # an answer to one person (a command's, a refusal) that had to be written where others
    # see it, or to his private chat: it never takes the table's share of the budget, waits
    # in a short queue, and is the first dropped when too many pile up
    info: bool = False
    # the newest state of one message (an edit): a queued post with the same key is dropped
    # when this one comes, so a burst of changes costs the chat one write, not one a change
    supersedes: str | None = None
