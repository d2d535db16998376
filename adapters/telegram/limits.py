"""Telegram's write limits and the budget keys they are counted under."""

from __future__ import annotations

from dataclasses import dataclass

from adapters.common.painting import Pace

# about 20 messages a minute to a group: a table edit every 5 s at most (12 a minute),
# leaving 6 for the lobby, replies and the like; the last 2 are kept for results and replies
# (measured: bench/telegram_pacing.py)
GROUP_PACE = Pace(limit=20, window=60.0, reserve=2, spare=6)
# a private chat: about one message a second
PRIVATE_PACE = Pace(limit=30, window=30.0)
# answers meant for one person that end up as group writes take at most this many of the
# group's 20 a minute: the table's edits and results keep the rest whoever spams commands
INFO_PACE = Pace(limit=3, window=60.0)
INFO_QUEUED = 3  # info answers waiting per chat at most; a newer one drops the oldest


@dataclass(frozen=True)
class Asking:
    """What one person (and one chat) may ask of the bot: commands in a group past these
    are ignored, presses past them get a toast."""

    person_commands: Pace = Pace(limit=5, window=30.0)
    chat_commands: Pace = Pace(limit=20, window=60.0)
    person_presses: Pace = Pace(limit=25, window=10.0)  # every chat together


ASKING = Asking()


def budget_key(chat: int) -> str:
    return f"tg:{chat}"


def info_key(chat: int) -> str:
    return f"tg:{chat}:info"


def pace_of(chat: int) -> Pace:
    return GROUP_PACE if chat < 0 else PRIVATE_PACE


def chat_of(room_id: str) -> tuple[int, int | None]:
    """A Telegram room id ``tg:<chat>[/<topic>]`` -> (chat, topic)."""
    rest = room_id.split(":", 1)[1]
    chat, _, thread = rest.partition("/")
    return int(chat), int(thread) if thread else None
