"""A tournament's message (issue 36.3), for every platform: its words and its buttons.

One message a tournament, edited as it goes: the sign-up (who signed up), then the
round's tables and the standings, then the winner. Its buttons carry the tournament's id,
so a button of an older tournament of the chat is refused as stale.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from adapters.common.i18n import N_
from adapters.common.lobby import BOT_NAMES
from adapters.common.render import Text
from bot.changes import Reason
from bot.room import User
from bot.tournament import (
    CANCELLED,
    DONE,
    MAX_ROUNDS,
    MIN_PEOPLE,
    ON,
    OVER,
    PLAYING,
    SIGNUP,
    Tournament,
    rows,
)
from bot.tournaments import Tournaments, TOutcome


class TourAction(StrEnum):
    JOIN = "join"
    LEAVE = "leave"
    START = "start"
    CANCEL = "cancel"


@dataclass(frozen=True)
class TourButton:
    action: TourAction
    icon: str
    label: str  # a msgid


BUTTONS = {
    TourAction.JOIN: TourButton(TourAction.JOIN, "✍️", N_("Sign up")),
    TourAction.LEAVE: TourButton(TourAction.LEAVE, "🚪", N_("Leave")),
    TourAction.START: TourButton(TourAction.START, "▶️", N_("Start")),
    TourAction.CANCEL: TourButton(TourAction.CANCEL, "✖️", N_("Cancel")),
}


def tour_buttons(tour: Tournament) -> list[TourButton]:
    if tour.state == SIGNUP:
        return [BUTTONS[a] for a in TourAction]
    if tour.state == PLAYING:
        return [BUTTONS[TourAction.LEAVE], BUTTONS[TourAction.CANCEL]]
    return []


def bot_names(t: Text) -> list[str]:
    return [t._(n) for n in BOT_NAMES]


async def press(
    tournaments: Tournaments, action: TourAction, room_id: str, tid: str, user: User, is_admin: bool
) -> TOutcome:
    """The service call behind a tournament button (``is_admin``: a chat admin)."""
    if action is TourAction.JOIN:
        return await tournaments.join_tournament(room_id, tid, user)
    if action is TourAction.LEAVE:
        return await tournaments.leave_tournament(room_id, tid, user)
    if action is TourAction.START:
        return await tournaments.start_tournament(room_id, tid, user, is_admin)
    return await tournaments.cancel_tournament(room_id, tid, user, is_admin)


def refusal(t: Text, out: TOutcome) -> str | None:
    """A refusal's words that are the tournament's own (None: the platform's usual ones)."""
    if out.reason == Reason.TOO_FEW:
        return t._("At least {n} people must sign up first ({signed} so far).").format(
            n=out.data.get("needed", 0), signed=out.data.get("signed", 0)
        )
    if out.reason == Reason.BAD_ROUNDS:
        return t._("From 1 to {n} rounds.").format(n=MAX_ROUNDS)
    if out.reason == Reason.NOT_ALLOWED:
        return t._("Only whoever opened the tournament or an admin may do that.")
    return None


def done_words(t: Text, action: TourAction) -> str:
    """What a press that worked tells its presser alone."""
    return {
        TourAction.JOIN: t._("You are signed up."),
        TourAction.LEAVE: t._("You have left the tournament."),
        TourAction.START: t._("The tournament begins."),
        TourAction.CANCEL: t._("The tournament is cancelled."),
    }[action]


def tournament_text(t: Text, tour: Tournament) -> str:
    head = t._("🏆 Tournament: {game}").format(game=t.preset_title(tour.preset))
    rounds = t.n("{n} round", "{n} rounds", tour.rounds).format(n=tour.rounds)
    if tour.state == SIGNUP:
        names = ", ".join(e.name for e in tour.entrants)
        return "\n".join(
            [
                f"{head} · {rounds}",
                t._("Signed up ({n}): {names}").format(n=len(tour.entrants), names=names),
                t._("Swiss: every round new tables by the standings; computer players fill free seats."),
                t._("At least {n} people; the opener or a chat admin starts it.").format(n=MIN_PEOPLE),
            ]
        )
    if tour.state == CANCELLED:
        return "\n".join([head, t._("The tournament was cancelled.")])
    lines = [head]
    if tour.state == OVER:
        winners = [e.name for e in tour.entrants if e.user in tour.winners]
        lines.append(t._("🥇 Won: {names}!").format(names=", ".join(winners)))
    else:
        lines.append(t._("Round {round} of {rounds}").format(round=tour.round, rounds=tour.rounds))
        lines.extend(_tables(t, tour))
    lines.append(t._("Standings (points · card points):"))
    lines.extend(_standings(t, tour))
    return "\n".join(lines)


def _tables(t: Text, tour: Tournament) -> list[str]:
    names = {e.user: e.name for e in tour.entrants}
    out = []
    for i, table in enumerate(tour.tables, 1):
        people = ", ".join(names.get(u, "?") for u in table.people)
        bots = tour.size - len(table.people)
        if bots:
            people += " + " + t.n("{n} computer player", "{n} computer players", bots).format(n=bots)
        mark = {ON: "▶️", DONE: "✔️"}.get(table.state, "⏳")
        out.append(t._("{mark} Table {n}: {people}").format(mark=mark, n=i, people=people))
    return out


def _standings(t: Text, tour: Tournament) -> list[str]:
    out = []
    for row in rows(tour):
        line = f"{row['place']}. {row['name']} — {row['points']} · {row['cards']}"
        if row["out"]:
            line += " " + t._("(left)")
        out.append(line)
    return out
