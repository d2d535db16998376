"""The service's views as the page's JSON, worded in the table's language.

Only ``bot.views`` goes in. The table frame is built from the public ``TableView`` alone
(which holds no hidden card by construction); the hand frame from one seat's ``HandView``
and goes to that seat's person only (``server.py``). Words come through ``Text``: the page
shows what it is given and holds no sentence of its own.
"""

from __future__ import annotations

from typing import Any

from adapters.common.chart import COLOURS
from adapters.common.hands import display_order
from adapters.common.lobby import level_word
from adapters.common.render import DEAL_END_KEYS, KINDS, SUIT, Text
from bot.views import Choice, HandView, Line, PlayView, TableView

SHOWN_LINES = 3  # event lines under the table
DEAL_STARTS = frozenset({"deal_started", "shuffled"})


def _plays(table: TableView, plays: list[PlayView]) -> list[dict[str, Any]]:
    return [
        {
            "seat": p.seat,
            "kind": p.kind,
            "cards": p.cards,  # None: face down (a throw), shown as backs
            "count": p.count,
            "win": table.winning_seat == p.seat and p.kind != "throw",
        }
        for p in plays
    ]


def _colour(side: int) -> str:
    r, g, b = COLOURS[side % len(COLOURS)]
    return f"#{r:02x}{g:02x}{b:02x}"


def _names(table: TableView, seats: list[int]) -> str:
    """A side's seats' names (the seats themselves show who is a computer player)."""
    return "+".join(s.name for i in seats if i < len(table.seats) and (s := table.seats[i]) is not None)


def _side_of(table: TableView, seat: int) -> int:
    return next((k for k, seats in enumerate(table.sides) if seat in seats), seat)


def _seats(table: TableView, t: Text) -> list[dict[str, Any]]:
    seats: list[dict[str, Any]] = []
    for i, s in enumerate(table.seats):
        if s is None:
            seats.append({"i": i, "empty": True, "name": "—"})
            continue
        level = level_word(s.level) if s.computer and not s.auto else None
        seats.append(
            {
                "i": i,
                "name": s.name,
                "computer": s.computer,
                "auto": s.auto,
                "level": t._(level) if level else None,
                "cards": s.hand_size,
                "onMove": s.on_move,
                "mayAct": s.may_act,
                "out": s.out,
                "side": _side_of(table, i),
                "colour": _colour(_side_of(table, i)) if table.partnership else None,
            }
        )
    return seats


def _sides(table: TableView) -> list[dict[str, Any]]:
    """Each side's seats, names, colour and score (a side a seat when scores are a seat's:
    Petukh's records)."""
    sides: list[dict[str, Any]] = [
        {"seats": list(seats_), "name": _names(table, seats_), "colour": _colour(k)}
        for k, seats_ in enumerate(table.sides)
    ]
    if len(table.scores) == len(sides):
        for side, score in zip(sides, table.scores, strict=True):
            side["score"] = score
        return sides
    return [
        {"seats": [i], "name": _names(table, [i]), "colour": _colour(i), "score": v}
        for i, v in enumerate(table.scores)
    ]


def table_frame(
    table: TableView,
    t: Text,
    now: float,
    turn_seconds: float,
    progress: list[list[int]] | None = None,
) -> dict[str, Any]:
    """The public table: seats, the trick, trump and stock, scores, recent lines, and the
    deal's or match's result when the last change ended one."""
    seats = _seats(table, t)
    sides = _sides(table)
    mover = table.seats[table.to_move] if table.to_move is not None else None
    left = None
    if table.deadline is not None and mover is not None and not mover.computer:
        left = max(0.0, round(table.deadline - now, 1))  # a person's own time only
    frame: dict[str, Any] = {
        "state": table.state,
        "title": t.title(table),
        "deal": table.deal_no,
        "dealLabel": t._("deal {n}").format(n=table.deal_no) if table.deal_no else "",
        "trump": table.trump,
        "trumpSymbol": SUIT.get(table.trump or "", ""),
        "trumpLabel": t.trump_label(table.preset, SUIT.get(table.trump or "", "?")) if table.trump else "",
        # as the chat's table shows it: under the stock, or the dealer's shown last card (once
        # drawn, where it went is its holder's to know: he may have thrown it face down)
        "trumpCard": table.trump_card if table.stock or table.trump_mode == "last" else None,
        "trumpMode": table.trump_mode,
        "stock": table.stock,
        "dealer": table.dealer,
        "toMove": table.to_move,
        "left": left,
        "turn": turn_seconds,
        "seats": seats,
        "trick": _plays(table, table.trick),
        "last": None,
        "sides": sides,
        "target": table.target,
        "partnership": table.partnership,
        "finished": table.finished,
        "winners": list(table.winners),
        "lines": [],
        "result": None,
        "boys": [],
    }
    if table.last_trick is not None:
        winner, plays = table.last_trick
        frame["last"] = {"seat": winner, "name": t.seat_name(table, winner), "plays": _plays(table, plays)}
    frame["lines"] = [
        text for ln in _this_deal(table.lines) if ln.key not in DEAL_END_KEYS and (text := t.line(ln, table))
    ][-SHOWN_LINES:]
    frame["result"] = _result(table, t)
    # a player asked to end the match: the others agree, or he gives up (seated people's buttons)
    frame["vote"] = t.vote(table.vote) if table.vote is not None else None
    if table.finished and progress:
        frame["progress"] = progress
    extras = table.extras.to_json() if table.extras is not None else {}
    frame["boys"] = [{"seat": b["seat"], "cards": b["cards"]} for b in extras.get("boys", [])]
    return frame


def _this_deal(lines: list[Line]) -> list[Line]:
    """The lines from the last deal's start on: the plays of the deal before belong to its
    result (and its cards are in new hands now)."""
    starts = [i for i, ln in enumerate(lines) if ln.key in DEAL_STARTS]
    return lines[starts[-1] :] if starts else lines


def _result(table: TableView, t: Text) -> dict[str, str] | None:
    """The words of the deal's or the match's end, when the last change was one."""
    ended = next((ln for ln in table.lines if ln.key == "match_ended"), None)
    if ended is not None:
        text = t.match_result(ended, table, table.lines)
        # the chat's pointer to /series means nothing on the web table
        series = "\n" + t._("Series in this chat: /series")
        return {"kind": "match", "text": text.removesuffix(series)}
    dealt = next((ln for ln in table.lines if ln.key in DEAL_END_KEYS), None)
    if dealt is not None:
        return {"kind": "deal", "text": t.deal_result(dealt, table)}
    return None


def choice_label(t: Text, c: Choice) -> str:
    """What a move's button says: the move and its cards, or how many."""
    n = len(c.cards)
    if c.kind == "declare":
        return "📣 " + t._("Declare: {cards}").format(cards=t.cards(c.cards))
    if c.mask == 0:
        return t.bare_choice(c)
    if n == 1:
        return t._(KINDS.get(c.kind, c.kind)) + " " + t.cards(c.cards)
    return t.n("{kind} with {n} card", "{kind} with {n} cards", n).format(
        kind=t._(KINDS.get(c.kind, c.kind)), n=n
    )


def hand_frame(hand: HandView, t: Text) -> dict[str, Any]:
    """One seat's hand, in the order the chats show it, with its legal moves (their tokens
    are this seat's, made by the service) and why each other card may not be played."""
    order = display_order(hand)
    seat = hand.table.seats[hand.seat]
    return {
        "seat": hand.seat,
        "cards": [{"c": hand.cards[i], "i": i} for i in order],
        "onMove": hand.on_move,
        "prompt": t.prompt(hand),
        "need": hand.need,
        "choices": [
            {
                "kind": c.kind,
                "cards": c.cards,
                "mask": c.mask,
                "token": c.token,
                "label": choice_label(t, c),
                # a button of its own: no cards to pick (a declaration names its cards)
                "bare": c.mask == 0 or c.kind == "declare",
            }
            for c in hand.choices
        ],
        "whyNot": {card: t.reason(code) for card, code in hand.why_not.items()},
        "hint": hand.hint_allowed and hand.on_move,
        "back": seat is not None and seat.auto,
    }


def hint_frame(choice: Choice, text: str) -> dict[str, Any]:
    return {"type": "hint", "text": text, "token": choice.token, "mask": choice.mask}
