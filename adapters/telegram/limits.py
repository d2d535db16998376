"""Telegram's write limits and the budget keys they are counted under."""

from __future__ import annotations

from adapters.common.painting import Pace

# about 20 messages a minute to a group: routine table edits get 16 of them, one every
# 3.75 s; 4 are kept for results and replies
GROUP_PACE = Pace(limit=20, window=60.0, reserve=4)
# a private chat: about one message a second
PRIVATE_PACE = Pace(limit=30, window=30.0)


def budget_key(chat: int) -> str:
    return f"tg:{chat}"


def pace_of(chat: int) -> Pace:
    return GROUP_PACE if chat < 0 else PRIVATE_PACE


def chat_of(room_id: str) -> tuple[int, int | None]:
    """A Telegram room id ``tg:<chat>[/<topic>]`` -> (chat, topic)."""
    rest = room_id.split(":", 1)[1]
    chat, _, thread = rest.partition("/")
    return int(chat), int(thread) if thread else None
