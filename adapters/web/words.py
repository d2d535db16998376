"""The web table's own words (the page has none of its own: it gets them from the server,
in the table's language, in its ``words`` frame)."""

from __future__ import annotations

from adapters.common.i18n import N_
from adapters.common.render import Text

PAGE = {
    "connecting": N_("Connecting…"),
    "reconnecting": N_("Connection lost, reconnecting…"),
    "spectator": N_("You are watching: the table only"),
    "last_trick": N_("Last trick"),
    "no_last_trick": N_("No trick taken yet"),
    "stock": N_("Stock"),
    "trump": N_("Trump"),
    "dealer": N_("Dealer"),
    "hint": N_("Hint"),
    "back": N_("I'm back"),
    "again": N_("Another match"),
    "close": N_("Close"),
    "you": N_("You"),
    "pick": N_("Tap your cards, then the move"),
    "cannot": N_("This card cannot be played now."),
    "score_to": N_("to {target}"),
    "finished": N_("The match is over."),
    "waiting_start": N_("The game has not started yet."),
    "team_a": N_("team A"),
    "team_b": N_("team B"),
}

# refusals of a frame (the socket's own rules, not the game's)
ERRORS = {
    "auth": N_("Telegram did not confirm who you are: open the table again from the chat."),
    "expired": N_("This table link has expired: open the table again from the chat."),
    "no_table": N_("This table is closed or the link is not valid."),
    "bad_frame": N_("The table did not understand that."),
    "too_big": N_("That message is too long."),
    "flood": N_("Too many actions at once: wait a moment."),
    "not_seated": N_("You are not playing at this table."),
    "not_member": N_("Only members of the table's group may watch it."),
}


def page_words(t: Text) -> dict[str, str]:
    return {k: t._(v) for k, v in PAGE.items()}


def error_words(t: Text, code: str) -> str:
    return t._(ERRORS.get(code, ERRORS["bad_frame"]))
