"""Every button's callback data, as aiogram ``CallbackData`` classes (≤ 64 bytes, never a
card: a move is the service's token, a selection the positions in the hand as a mask).

The room is the pressed message's chat (and topic) for the buttons of group messages; the
buttons of a hand carry it, since a hand may be in the private chat.
"""

from __future__ import annotations

from enum import StrEnum

from aiogram.filters.callback_data import CallbackData

from adapters.common.lobby import LobbyAction
from adapters.common.tournament import TourAction


class Lobby(CallbackData, prefix="L"):
    """A lobby button (see adapters/common/lobby.py)."""

    action: LobbyAction


class TableAction(StrEnum):
    HAND = "hand"  # "My cards"
    AGAIN = "again"  # another match with the same seats
    QUEUE = "queue"  # wait for a seat (elimination)
    AGREE = "agree"  # agree to end the match another player asked to end
    GIVE_UP = "giveup"  # concede: the match is lost for the presser's side


class Table(CallbackData, prefix="T"):
    """A button of the table message while playing or after the end."""

    action: TableAction


class Option(CallbackData, prefix="O"):
    """One value of one setting (``size`` the table's seats, ``bot_level`` the level new
    computer players get)."""

    name: str
    value: str


class Game(CallbackData, prefix="G"):
    """A game picked from /newgame's list."""

    preset: str


class Pick(CallbackData, prefix="S", sep="~"):
    """A card tapped in a hand: the hand's cards chosen so far (a mask), valid for one
    moment of one match (``moment`` = generation.deal.trick)."""

    room: str
    moment: str
    mask: int


class Move(CallbackData, prefix="A", sep="~"):
    """A move: the service's action token (it names its room)."""

    token: str


class Deliver(CallbackData, prefix="D", sep="~"):
    """Where a person's hand is shown: ``private`` chat or ``group`` (ephemeral)."""

    room: str
    to: str


class Hint(CallbackData, prefix="HN", sep="~"):
    """What the strong computer player would play (practice games only)."""

    room: str


class Tour(CallbackData, prefix="TR"):
    """A tournament message's button (issue 36.3): the tournament's id, so that a button
    of an older tournament of the chat is refused."""

    action: TourAction
    tid: str


class History(CallbackData, prefix="HY", sep="~"):
    """A /history page (``key`` empty: the list at ``page``) or a match's replay (``key``,
    at dealing ``deal``, page ``page`` of it): only for ``owner``, the one who asked. A
    match key names no card (8 characters of a hash of the match's id)."""

    owner: int
    key: str
    deal: int
    page: int
