"""Telegram's write limits and the budget keys they are counted under."""

from __future__ import annotations

from adapters.common.painting import Pace

# about 20 messages a minute to a group: a table edit every 5 s at most (12 a minute),
# leaving 6 for the lobby, replies and the like; the last 2 are kept for results and replies
# (measured: bench/telegram_pacing.py)
GROUP_PACE = Pace(limit=20, window=60.0, reserve=2, spare=6)
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
