"""Every Redis key the service uses, in one place.

A room's keys share the hash tag ``{room id}`` so one Lua script may touch them all on a
Redis Cluster; a chat's statistics share the tag ``{chat}``.
"""

from __future__ import annotations


def room(room_id: str) -> str:
    return f"room:{{{room_id}}}"


def update_claims(room_id: str) -> str:
    """The room's recently claimed platform update ids (a sorted set by time)."""
    return f"upd:{{{room_id}}}"


DEADLINES = "deadlines"


def user_rooms(user_id: str) -> str:
    """The rooms a person sits in (a set; for /hand in a private chat)."""
    return f"urooms:{{{user_id}}}"


def chat_matches(chat: str) -> str:
    """The chat's finished matches, newest first (capped list)."""
    return f"matches:{{{chat}}}"


def chat_series(chat: str) -> str:
    """Per line-up counters: ``<lineup>|n`` played, ``<lineup>|w<side>`` won."""
    return f"series:{{{chat}}}"


def chat_players(chat: str) -> str:
    """Per person counters in a chat: ``<user>|played``, ``<user>|won``."""
    return f"players:{{{chat}}}"


def chat_names(chat: str) -> str:
    return f"names:{{{chat}}}"


def user_stats(user_id: str) -> str:
    return f"ustats:{{{user_id}}}"


def chat_prefs(chat: str) -> str:
    """A chat's settings (language)."""
    return f"chat:{{{chat}}}"


def match_recorded(chat: str, match_id: str) -> str:
    """Marks a finished match as recorded (expires): recording is idempotent."""
    return f"recorded:{{{chat}}}:{match_id}"
