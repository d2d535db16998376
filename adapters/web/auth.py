"""Who opened the web table: Telegram's signed ``initData``, or the local session's token.

Telegram signs ``initData`` with a key made from the bot's token (HMAC-SHA256); aiogram's
``safe_parse_webapp_init_data`` checks the signature. A signed initData stays valid for ever,
so its ``auth_date`` must also be recent (``WEBAPP_AUTH_SECONDS``): a copied one stops
opening the table.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass

from aiogram.utils.web_app import WebAppInitData, safe_parse_webapp_init_data

from adapters.common.i18n import pick_language
from bot.room import User

MAX_INIT_DATA = 2048  # Telegram's initData is a few hundred bytes


@dataclass(frozen=True)
class Person:
    """A checked person, and the table link his initData carries (a Mini App opened by a
    ``startapp`` link: Telegram signs the link too)."""

    user: User
    start_param: str | None = None


class Refusal(Exception):
    """Why a hello is refused: ``auth`` (not signed by our bot) or ``expired``."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def telegram_person(token: str, init_data: object, max_age: float, now: float) -> Person:
    """The Telegram user of a signed, recent ``init_data``; ``Refusal`` otherwise."""
    if not isinstance(init_data, str) or not init_data or len(init_data) > MAX_INIT_DATA:
        raise Refusal("auth")
    try:
        data: WebAppInitData = safe_parse_webapp_init_data(token, init_data)
    except Exception:  # a bad signature (ValueError) or signed garbage (pydantic's errors)
        raise Refusal("auth") from None
    if data.user is None:
        raise Refusal("auth")
    age = now - data.auth_date.timestamp()
    if age > max_age or age < -300:  # older than allowed, or signed in the future
        raise Refusal("expired")
    u = data.user
    name = " ".join(p for p in (u.first_name, u.last_name) if p) or str(u.id)
    user = User(f"tg:{u.id}", name[:64], pick_language(u.language_code, "ru"))
    return Person(user, data.start_param)


def local_person(expected: str, given: object, user: User) -> Person:
    """The local player, when ``given`` is this run's session token."""
    if not isinstance(given, str) or not hmac.compare_digest(given.encode(), expected.encode()):
        raise Refusal("auth")
    return Person(user)
