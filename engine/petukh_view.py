"""What one seat (or the table) sees of a Petukh match (RULES.md 5): ``observe_petukh``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.cards import CARD_TEXT, Card
from engine.observe import Observation
from engine.petukh_rules import HAND, trick_winner

if TYPE_CHECKING:
    from engine.petukh import PetukhMatch


def observe_petukh(m: PetukhMatch, seat: int | None) -> Observation:
    n = m.rules.players
    plays = tuple((s, k, cs, len(cs)) for s, k, cs in m.plays)
    win_seat, win_cards = -1, tuple[Card, ...]()
    if m.plays:
        win_seat = trick_winner(m.plays, m.trump)
        win_cards = next(cs for s, _k, cs in m.plays if s == win_seat)
    last = None
    if m.last_trick is not None:
        last = (m.last_trick[0],
                tuple((s, k, cs, len(cs)) for s, k, cs in m.last_trick[1]))
    info = _info(m)
    return Observation(
        preset=m.rules.preset, players=n, partnership=False, seat=seat,
        deal_no=m.deal_no, dealer=m.dealer, seats=m.seats_in_play(), trump=m.trump,
        trump_card=m.trump_card, stock=len(m.stock),
        hand=tuple(sorted(m.hands[seat])) if seat is not None else (),
        hand_sizes=tuple(len(h) for h in m.hands), leader=m.leader,
        to_move=-1 if m.finished else m.to_move, to_act=m.to_act(), trick=plays,
        win_seat=win_seat, win_cards=win_cards, declared=None, tricks=tuple(m.tricks),
        pile_sizes=tuple(len(p) for p in m.piles), last_trick=last,
        moment=m.moment, counter=m.counter, scores=tuple(m.scores),
        out=(False,) * n, eggs=False, finished=m.finished, winners=m.winners,
        phase=m.phase, info=info,
    )


def _info(m: PetukhMatch) -> dict[str, Any]:
    """The family's public extras: records, passes, skips, boys, the face-up trump."""
    n = m.rules.players
    info: dict[str, Any] = {
        "records": list(m.scores),
        "start": m.cfg.start,
        "passed": [s for s in range(n) if m.passed[s]],
        "skips_left": list(m.skips_left) if m.cfg.skips else None,
        "boys": [{"seat": s, "combination": combo, "cards": [CARD_TEXT[c] for c in cs]}
                 for s, (combo, cs) in sorted(m.boys.items())],
        "face_up": None if m.face_up is None else CARD_TEXT[m.face_up],
        "exchange": m.exchange_open,
        "no_trick_cap": m.cfg.cap,
        "boys_table": m.cfg.boys_table if m.cfg.boys else None,
        "crooked_boys": m.cfg.crooked,
        "boys_finish": m.cfg.boys_finish,
        "spade_ace": m.cfg.spade_ace,
        "tricks_left": HAND - m.done_tricks,
    }
    if m.finished:
        info["roosters"] = list(m.roosters)
        info["debts"] = [list(d) for d in m.debts]
    return info
