"""What one seat (or the table) sees of a Petukh match (RULES.md 5): ``observe_petukh``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

from engine.cards import CARD_TEXT, Card
from engine.families.petukh.deal import PetukhDeal
from engine.families.petukh.rules import HAND, trick_winner
from engine.observation import Extras, Observation
from engine.presets import PetukhSettings, Rules


class PetukhTable(Protocol):
    """What the view reads of a Petukh match (``PetukhMatch`` is one)."""

    rules: Rules
    cfg: PetukhSettings
    deal: PetukhDeal
    deal_no: int
    dealer: int
    scores: list[int]
    skips_left: list[int]
    roosters: tuple[int, ...]
    debts: tuple[tuple[int, int, int], ...]
    finished: bool
    winners: tuple[int, ...]

    def to_act(self) -> tuple[int, ...]: ...


@dataclass(frozen=True, slots=True)
class Boys:
    """A seat's boys, shown with its first jack played (RULES.md 5)."""

    seat: int
    combination: str
    cards: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PetukhExtras(Extras):
    """Petukh's public extras: records, passes, skips, boys, the face-up trump, the house
    rules a player needs to weigh a hand."""

    records: tuple[int, ...]
    start: int
    passed: tuple[int, ...]
    skips_left: tuple[int, ...] | None  # None: no skips in this game
    boys: tuple[Boys, ...]
    face_up: str | None
    exchange: bool  # the exchange is open
    no_trick_cap: int | None
    boys_table: Literal["standard", "thirty"] | None  # None: no boys in this game
    crooked_boys: int
    boys_finish: bool
    spade_ace: bool
    tricks_left: int
    roosters: tuple[int, ...] | None = None  # the match's end: who are the roosters
    debts: tuple[tuple[int, int, int], ...] | None = None

    @property
    def score_start(self) -> int:
        return self.start

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "records": list(self.records),
            "start": self.start,
            "passed": list(self.passed),
            "skips_left": None if self.skips_left is None else list(self.skips_left),
            "boys": [
                {"seat": b.seat, "combination": b.combination, "cards": list(b.cards)} for b in self.boys
            ],
            "face_up": self.face_up,
            "exchange": self.exchange,
            "no_trick_cap": self.no_trick_cap,
            "boys_table": self.boys_table,
            "crooked_boys": self.crooked_boys,
            "boys_finish": self.boys_finish,
            "spade_ace": self.spade_ace,
            "tricks_left": self.tricks_left,
        }
        if self.roosters is not None and self.debts is not None:
            out["roosters"] = list(self.roosters)
            out["debts"] = [list(d) for d in self.debts]
        return out


def observe_petukh(m: PetukhTable, seat: int | None) -> Observation:
    n = m.rules.players
    plays = tuple((s, k, cs, len(cs)) for s, k, cs in m.deal.plays)
    win_seat, win_cards = -1, tuple[Card, ...]()
    if m.deal.plays:
        win_seat = trick_winner(m.deal.plays, m.deal.trump)
        win_cards = next(cs for s, _k, cs in m.deal.plays if s == win_seat)
    last = None
    if m.deal.last_trick is not None:
        last = (m.deal.last_trick[0], tuple((s, k, cs, len(cs)) for s, k, cs in m.deal.last_trick[1]))
    return Observation(
        preset=m.rules.preset,
        players=n,
        partnership=False,
        seat=seat,
        deal_no=m.deal_no,
        dealer=m.dealer,
        seats=m.deal.seats_in_play(),
        trump=m.deal.trump,
        trump_card=m.deal.trump_card,
        stock=len(m.deal.stock),
        hand=tuple(sorted(m.deal.hands[seat])) if seat is not None else (),
        hand_sizes=tuple(len(h) for h in m.deal.hands),
        leader=m.deal.leader,
        to_move=-1 if m.finished else m.deal.to_move,
        to_act=m.to_act(),
        trick=plays,
        win_seat=win_seat,
        win_cards=win_cards,
        declared=None,
        tricks=tuple(m.deal.tricks),
        pile_sizes=tuple(len(p) for p in m.deal.piles),
        last_trick=last,
        moment=m.deal.moment,
        counter=m.deal.counter,
        scores=tuple(m.scores),
        out=(False,) * n,
        eggs=False,
        finished=m.finished,
        winners=m.winners,
        phase=m.deal.phase,
        extras=_extras(m),
    )


def _extras(m: PetukhTable) -> PetukhExtras:
    """The family's public extras: records, passes, skips, boys, the face-up trump."""
    n = m.rules.players
    return PetukhExtras(
        records=tuple(m.scores),
        start=m.cfg.start,
        passed=tuple(s for s in range(n) if m.deal.passed[s]),
        skips_left=tuple(m.skips_left) if m.cfg.skips else None,
        boys=tuple(
            Boys(s, combo, tuple(CARD_TEXT[c] for c in cs)) for s, (combo, cs) in sorted(m.deal.boys.items())
        ),
        face_up=None if m.deal.face_up is None else CARD_TEXT[m.deal.face_up],
        exchange=m.deal.exchange_open,
        no_trick_cap=m.cfg.cap,
        boys_table=m.cfg.boys_table if m.cfg.boys else None,
        crooked_boys=m.cfg.crooked,
        boys_finish=m.cfg.boys_finish,
        spade_ace=m.cfg.spade_ace,
        tricks_left=HAND - m.deal.done_tricks,
        roosters=tuple(m.roosters) if m.finished else None,
        debts=m.debts if m.finished else None,
    )
