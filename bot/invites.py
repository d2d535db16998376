"""A table's own secret, and the links that carry it.

Anyone in a public group can read the group's numeric id, so a link made of the room id
alone (``/start j<chat>``) seats whoever learns it. Every table gets a secret when it is
opened (``Room.secret``: 80 random bits); an invitation link and the web table's link carry
the room and that secret, and a link whose secret is not the room's (forged, or of a table
that was closed and opened again) means nothing. The secret is never a card, never shown
in text, and dies with its table.

A payload is ``<chat>_<thread>_<secret>``: only ``[A-Za-z0-9_-]``, as Telegram's
``start`` / ``startapp`` parameters allow, and at most 64 characters.
"""

from __future__ import annotations

import hmac
import re
import secrets
from dataclasses import dataclass

from bot.room import Room, room_id_for

SECRET_BYTES = 10  # 80 bits, 20 hex digits
MAX_PAYLOAD = 64
_PAYLOAD = re.compile(r"(-?[0-9]{1,20})_([0-9]{0,12})_([0-9a-f]{20})")


def new_secret() -> str:
    return secrets.token_hex(SECRET_BYTES)


@dataclass(frozen=True)
class TableLink:
    """What a payload names: a room and the secret it claims."""

    room_id: str
    secret: str


def payload_of(room: Room) -> str:
    """The link payload of ``room`` (its chat, topic and secret)."""
    return f"{room.chat}_{room.thread or ''}_{room.secret}"


def parse_payload(platform: str, payload: str) -> TableLink | None:
    """The room a payload names and the secret it claims; None for anything malformed."""
    if not isinstance(payload, str) or len(payload) > MAX_PAYLOAD:
        return None
    m = _PAYLOAD.fullmatch(payload)
    if m is None:
        return None
    chat, thread, secret = m.groups()
    return TableLink(room_id_for(platform, chat, thread or None), secret)


def opens(room: Room | None, link: TableLink) -> bool:
    """Whether ``link`` is this table's (its secret, compared in constant time)."""
    return (
        room is not None
        and room.id == link.room_id
        and bool(room.secret)
        and hmac.compare_digest(room.secret, link.secret)
    )
