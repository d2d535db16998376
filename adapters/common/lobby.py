"""The lobby's buttons and what each one asks of the service: one map for every platform.

A platform draws ``lobby_buttons(table)`` with its own widgets and, when one is pressed,
calls ``press`` with the button's action; ``press`` returns None for the buttons whose
answer is the platform's own (the settings keyboard).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from adapters.common.i18n import N_
from bot.room import User
from bot.service import GameService, Outcome
from bot.views import TableView


class LobbyAction(StrEnum):
    JOIN = "join"
    LEAVE = "leave"
    BOT = "bot"
    SETTINGS = "set"
    START = "start"


@dataclass(frozen=True)
class LobbyButton:
    action: LobbyAction
    icon: str
    label: str  # a msgid: the platform translates it


BUTTONS = {
    LobbyAction.JOIN: LobbyButton(LobbyAction.JOIN, "🪑", N_("Join")),
    LobbyAction.LEAVE: LobbyButton(LobbyAction.LEAVE, "🚪", N_("Leave")),
    LobbyAction.BOT: LobbyButton(LobbyAction.BOT, "🤖", N_("+ Bot")),
    LobbyAction.SETTINGS: LobbyButton(LobbyAction.SETTINGS, "⚙️", N_("Settings")),
    LobbyAction.START: LobbyButton(LobbyAction.START, "▶️", N_("Start")),
}


def lobby_buttons(table: TableView) -> list[list[LobbyButton]]:
    """The lobby's rows: seats first (join, leave, a computer player while a seat is free),
    then the table (settings, start)."""
    free = any(s is None for s in table.seats)
    seats = [BUTTONS[LobbyAction.JOIN]] if free else []
    seats.append(BUTTONS[LobbyAction.LEAVE])
    if free:
        seats.append(BUTTONS[LobbyAction.BOT])
    return [seats, [BUTTONS[LobbyAction.SETTINGS], BUTTONS[LobbyAction.START]]]


# Computer players' names, one list per language through the catalogs: names, not words
# with a grammatical gender, so that every template reads right with any of them.
BOT_NAMES = (N_("Sam"), N_("Max"), N_("Alex"), N_("Kit"), N_("Val"), N_("Lou"))

# a player's cancel once a deal has been played (bot/lobby.py cancel): what he is told
END_ASKED = N_(
    "A deal has been played: the others must agree to end the match (a button on the table). "
    "Or give up there: the match then counts as lost for your side."
)

LEVELS = ("easy", "normal", "hard")
LEVEL_TITLES = {
    "easy": N_("beginner"),
    "normal": N_("amateur"),
    "hard": N_("master"),
    "rules": N_("amateur"),
    "random": N_("random"),
}


def level_word(level: str | None) -> str | None:
    """The msgid naming a computer player's level (None for a person)."""
    if level is None:
        return None
    return LEVEL_TITLES.get(level, level)


async def press(
    service: GameService,
    action: LobbyAction,
    room_id: str,
    user: User,
    *,
    update_id: str | None,
    bot_names: tuple[str, ...] = (),
    level: str | None = None,
    is_admin: bool = False,
) -> Outcome | None:
    """The service call behind a lobby button (None: the platform answers it itself);
    ``is_admin``: the presser is an admin of the chat (the creator's rights)."""
    if action is LobbyAction.JOIN:
        return await service.join(room_id, user, update_id=update_id)
    if action is LobbyAction.LEAVE:
        return await service.leave(room_id, user, update_id=update_id)
    if action is LobbyAction.BOT:
        return await service.add_bot(
            room_id, user, level=level, names=bot_names, update_id=update_id, is_admin=is_admin
        )
    if action is LobbyAction.START:
        return await service.start(room_id, user, update_id=update_id, is_admin=is_admin)
    return None
