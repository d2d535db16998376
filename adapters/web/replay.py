"""The web table's replay of an ended match (issue 36.4): one JSON document a match, the
page (``static/replay.html``, ``replay.js``) steps through it card by card. Opened from a
``/history`` replay's link, which carries the match's own secret: a forged or stale link
gets an error and no card. Only ended matches have replays (``bot/history.py``)."""

from __future__ import annotations

from typing import Any

from adapters.common import replay as words
from adapters.common.i18n import N_
from adapters.common.render import Text
from bot.history import Replay, ReplayDeal

# the page's own words
PAGE = {
    "deal": N_("Deal {deal_no}"),
    "step": N_("Move {n} of {total}"),
    "start": N_("The hands as dealt"),
    "missing": N_("This replay is no longer kept."),
}


def replay_document(t: Text, rep: Replay) -> dict[str, Any]:
    """The seats, and each dealing: its head, the hands as dealt, and every step with its
    words and every hand after it."""
    table = rep.table
    return {
        "title": f"{t.preset_title(rep.summary['preset'])} · {words.when(rep.summary['date'])}",
        "seats": [t.seat_name(table, s) for s in range(len(rep.summary["names"]))],
        "result": words.result(t, rep.summary),
        "deals": [_deal(t, rep, deal) for deal in rep.deals],
        "words": {k: t._(v) for k, v in PAGE.items()},
    }


def _deal(t: Text, rep: Replay, deal: ReplayDeal) -> dict[str, Any]:
    lines = words.deal_lines(
        t, rep, ReplayDeal(deal.no, deal.deal_no, deal.dealer, deal.trump, deal.trump_card, [])
    )
    steps = []
    for step in deal.steps:
        said = [_said(t, rep, ln) for ln in step.lines]
        steps.append(
            {"seat": step.seat, "cards": step.cards, "lines": [s for s in said if s], "hands": step.hands}
        )
    return {"head": [ln for ln in lines if not ln.startswith("✋")], "hands": deal.hands, "steps": steps}


def _said(t: Text, rep: Replay, line: Any) -> str:
    if line.key in words.DEAL_ENDS:
        return t.deal_result(line, rep.table)
    return t.line(line, rep.table)
