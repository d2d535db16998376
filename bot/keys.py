"""Every Redis key the service uses, in one place.

A room, its neighbours (update claims, platform data, paint leases), its chat's statistics
and the deadline index that holds its due time all share one hash tag: the chat's **shard**
(``{s7}``). So one Lua script writes a room, its deadline entry and, when a match ends, the
chat's record of it, in one atomic step, on one Redis or on a Cluster (a shard is one slot).
A person's keys carry the person's own tag.
"""

from __future__ import annotations

from zlib import crc32

# Deadline index shards: the timer loop reads them all in one round trip; on a Cluster they
# spread over the nodes like any other slots.
SHARDS = 16


def chat_of(room_id: str) -> str:
    """The chat part of a room id (``tg:-100/55`` -> ``tg:-100``): a chat's rooms (one per
    forum topic) and its statistics live on one shard."""
    return room_id.split("/", 1)[0]


def shard_of(chat: str) -> int:
    return crc32(chat.encode()) % SHARDS


def _tag(chat: str) -> str:
    return f"{{s{shard_of(chat)}}}"


def room(room_id: str) -> str:
    """The room: a hash of its version ``v`` and its document ``doc``."""
    return f"room:{_tag(chat_of(room_id))}{room_id}"


def update_claims(room_id: str) -> str:
    """The room's recently claimed platform update ids (a sorted set by time)."""
    return f"upd:{_tag(chat_of(room_id))}{room_id}"


def platform_data(room_id: str) -> str:
    """Adapters' records of the room (``r:<name>``), of each person (``s:<user>:<name>``)
    and the last drawn version of each painted thing (``draw:<what>``): a hash."""
    return f"pd:{_tag(chat_of(room_id))}{room_id}"


def paint_lease(room_id: str, what: str) -> str:
    """Which worker paints ``what`` of the room now (a string with an expiry)."""
    return f"paint:{_tag(chat_of(room_id))}{room_id}|{what}"


def deadlines(shard: int) -> str:
    """Due times of the playing rooms of one shard (a sorted set: room id -> time)."""
    return f"deadlines:{{s{shard}}}"


def deadlines_of(room_id: str) -> str:
    return deadlines(shard_of(chat_of(room_id)))


def all_deadlines() -> list[str]:
    return [deadlines(s) for s in range(SHARDS)]


def user_stats_todo(shard: int) -> str:
    """Finished matches whose per-person counters are still to be added (a list)."""
    return f"ustodo:{{s{shard}}}"


def user_rooms(user_id: str) -> str:
    """The rooms a person sits in (a set; for /hand in a private chat)."""
    return f"urooms:{{{user_id}}}"


def chat_matches(chat: str) -> str:
    """The chat's finished matches, newest first (capped list)."""
    return f"matches:{_tag(chat)}{chat}"


def chat_history(chat: str) -> str:
    """The chat's last ended matches for /history: JSON summaries, newest first (a capped
    list, issue 36.4)."""
    return f"hist:{_tag(chat)}{chat}"


def chat_history_logs(chat: str) -> str:
    """The compact logs of the matches in ``chat_history``: match key -> deflated log."""
    return f"histlog:{_tag(chat)}{chat}"


def match_dealings(room_id: str, match_id: str) -> str:
    """The ended dealings of a match still on (index -> packed actions): the room keeps
    only its last ones, the replay needs them all."""
    return f"histdeal:{_tag(chat_of(room_id))}{match_id}"


def chat_series(chat: str) -> str:
    """Per line-up counters: ``<lineup>|n`` played, ``<lineup>|w<side>`` won."""
    return f"series:{_tag(chat)}{chat}"


def chat_players(chat: str) -> str:
    """Per person counters in a chat: ``<user>|played``, ``<user>|won``."""
    return f"players:{_tag(chat)}{chat}"


def chat_ratings(chat: str) -> str:
    """The chat's skill ratings: rated name -> ``mu:sigma:matches``, and ``_v`` a version."""
    return f"ratings:{_tag(chat)}{chat}"


def chat_names(chat: str) -> str:
    return f"names:{_tag(chat)}{chat}"


def chat_season(chat: str, month: str) -> str:
    """The chat's ratings of one calendar month (``2026-12``, UTC) from matches with two
    people or more: rated name -> ``mu:sigma:matches``, ``<user>|won`` -> wins. Written
    with the match's record, it expires a while after its month (``SEASON_TTL``): seasons
    roll over by their keys' names, no job needed."""
    return f"season:{_tag(chat)}{chat}|{month}"


def notify(chat: str) -> str:
    """Who asked to be told when a table opens in the chat (a set of user ids; it expires
    when nobody opened a table or changed it for ``NOTIFY_TTL``)."""
    return f"notify:{{{chat}}}"


def notice(room_id: str, mark: str) -> str:
    """The mark that a table (room, generation, creation time) had its notice: one a table
    (expires after a day)."""
    return f"notice:{_tag(chat_of(room_id))}{room_id}|{mark}"


def usernames(chat: str) -> str:
    """A chat's @usernames (lower case) -> user ids, of the people seen at its tables (a
    hash; it expires when the chat has been quiet for a while)."""
    return f"unames:{{{chat}}}"


def chat_prefs(chat: str) -> str:
    """A chat's settings (language, charts, house rules of each game: ``rules:<preset>``
    as last dealt, ``rules!:<preset>`` as an admin set them): a handful of fields a chat
    keeps while the bot is in it."""
    return f"chat:{{{chat}}}"


def user_stats(user_id: str) -> str:
    return f"ustats:{{{user_id}}}"


def user_stats_done(user_id: str, match_id: str) -> str:
    """Marks a match as counted in the person's statistics (expires)."""
    return f"ustatsm:{{{user_id}}}{match_id}"


def flood(key: str) -> str:
    """A platform's write budget (a sorted set of write times) for one chat or person."""
    return f"flood:{{{key}}}"


def flood_block(key: str) -> str:
    """Until when the platform asked us to stop writing under ``key`` (after a 429)."""
    return f"floodb:{{{key}}}"


def changes(db: int = 0) -> str:
    """The channel every committed change is published on (``<room id> <version>``): web
    workers follow it to push a table to its open sockets, whichever worker made the move.
    One channel, no hash tag: a Cluster's PUBLISH reaches every node's subscribers. Named by
    the database (``db``): channels are the server's, not a database's, and a bot on
    another database of the same server has rooms of the same ids."""
    return f"changes:{db}"


def tournament(room_id: str) -> str:
    """The chat's (topic's) tournament: a hash of its version ``v``, its document ``doc``
    and adapters' records ``d:<name>`` (issue 36.3)."""
    return f"tour:{_tag(chat_of(room_id))}{room_id}"


def tournaments(shard: int) -> str:
    """The room ids of one shard whose tournament is on (a set): the timer loop moves
    them on after a restart."""
    return f"tours:{{s{shard}}}"
