"""Results that tell the story (issue 18): a deal line says who took which penalty and why, a
match's result names the winners and the losers (Kozel's kozly, Petukh's rooster and debts)
with their scores, and a long match's score comes as a chart whose caption names each side
with its colour. Words through the catalogs, in every language."""

from __future__ import annotations

import io
import random
from typing import Any

import pytest
from PIL import Image

from adapters.common.chart import LEGEND
from adapters.common.i18n import LANGUAGES
from adapters.common.render import Text, clip_lines, match_chart
from adapters.common.results import signed
from bot.views import Line, SeatView, TableView
from engine.families.petukh.match import DealScored
from engine.presets import make_rules
from engine.registry import new_match

RU, EN = Text("ru"), Text("en")
NAMES = ["Аня", "Борис", "Вера", "Глеб"]


def seat(i: int, computer: bool = False) -> SeatView:
    return SeatView(
        i, NAMES[i], None if computer else f"tg:{i}", computer, False, 0, False, False, i % 2, False
    )


def kozel_table(**over: Any) -> TableView:
    base: dict[str, Any] = {
        "room": "tg:-1",
        "preset": "kozel",
        "options": {},
        "state": "playing",
        "size": 4,
        "seats": [seat(0), seat(1), seat(2), seat(3, computer=True)],
        "creator": "tg:0",
        "min_players": 2,
        "can_start": False,
        "sides": [[0, 2], [1, 3]],
        "target": 12,
        "partnership": True,
    }
    base.update(over)
    return TableView(**base)


def petukh_table() -> TableView:
    return kozel_table(
        preset="petukh",
        sides=[[0], [1], [2], [3]],
        target=0,
        partnership=False,
        seats=[seat(i) for i in range(4)],
        score_start=15,
    )


def deal_ended(**over: Any) -> Line:
    params: dict[str, Any] = {
        "deal_no": 3,
        "points": [71, 49],
        "tricks": [5, 3],
        "scored": [0, 2],
        "score": [2, 6],
        "outcome": "normal",
        "doubled": False,
    }
    params.update(over)
    return Line("deal_ended", params)


# --- a Kozel deal --------------------------------------------------------------------------


def test_a_kozel_deal_says_who_took_which_penalty_and_why() -> None:
    table = kozel_table()
    text = RU.deal_result(deal_ended(), table)
    assert text.splitlines() == [
        "Раздача 3: Аня+Вера 71 — Борис+🤖 Глеб 49",
        "• Борис+🤖 Глеб — 49 очков: +2",
        "Счёт: Аня+Вера 2 · Борис+🤖 Глеб 6",
    ]
    # no trick at all, in a deal after eggs (doubled)
    text = RU.deal_result(
        deal_ended(points=[120, 0], tricks=[9, 0], scored=[0, 12], score=[2, 18], doubled=True), table
    )
    assert "• Борис+🤖 Глеб — ни одной взятки, после яиц: +12" in text
    assert "— 21 очко: +4" in RU.deal_result(deal_ended(points=[99, 21], scored=[0, 4]), table)


@pytest.mark.parametrize(
    ("outcome", "scored", "why"),
    [
        ("caught", [4, 0], "• Аня+Вера — дама поймана: +4"),
        ("redeals", [0, 2], "• Борис+🤖 Глеб — три пересдачи: +2"),
        ("lyusya", [4, -6], "• Борис+🤖 Глеб — Люся: −6"),
        ("tie", [2, 2], "• Аня+Вера — 60:60: +2"),
    ],
)
def test_a_permanent_trump_deal_names_its_outcome(outcome: str, scored: list[int], why: str) -> None:
    text = RU.deal_result(deal_ended(outcome=outcome, scored=scored), kozel_table())
    assert why in text.splitlines()


def test_eggs_score_nothing_and_kozel_to_60_needs_no_reasons() -> None:
    text = RU.deal_result(deal_ended(points=[60, 60], scored=[0, 0], outcome="eggs"), kozel_table())
    assert text.splitlines()[0].endswith("· яйца") and "•" not in text
    sixty = kozel_table(preset="kozel-60", target=60)
    text = EN.deal_result(deal_ended(scored=[71, 49], score=[71, 49]), sixty)
    assert "•" not in text and "Score: Аня+Вера 71" in text


# --- a Petukh deal -------------------------------------------------------------------------


def test_a_petukh_deal_says_what_made_each_record_move() -> None:
    line = Line(
        "deal_scored",
        {
            "deal_no": 5,
            "tricks": [2, 0, 3, 0],
            "changes": [-7, 5, -3, 0],
            "records": [8, 15, 15, 15],
            "overshoot": [2],
            "passed": [3],
            "boys": [[0, "pair", "HD", -5]],
            "bonus": [0, 0, 0, 0],
        },
    )
    assert RU.deal_result(line, petukh_table()).splitlines()[1:] == [
        "• Аня — 2 взятки: −2, мальчики ♥♦: −5 → 8",
        "• Борис — ни одной взятки: +5 → 15",
        "• Вера — 3 взятки: −3, перебор: снова 15",
        "• Глеб — пас → 15",
    ]
    spade = Line(
        "deal_scored",
        {
            "deal_no": 6,
            "tricks": [1, 0, 4, 0],
            "changes": [4, 10, -4, 0],
            "records": [12, 20, 11, 15],
            "overshoot": [],
            "passed": [],
            "boys": [[3, "pair", "CS", 0]],
            "bonus": [5, 5, 0, 0],
        },
    )
    rows = EN.deal_result(spade, petukh_table()).splitlines()
    assert rows[1] == "• Аня — 1 trick: −1, ace of spades: +5 → 12"
    assert rows[2] == "• Борис — no trick: +5, ace of spades: +5 → 20"
    assert rows[4] == "• Глеб — boys ♣♠: 0 → 15"  # a pair without a trick: no +5 either


def test_boys_finish_scores_nothing_but_the_finisher() -> None:
    line = Line(
        "deal_scored",
        {
            "deal_no": 9,
            "tricks": [1, 1, 0, 0],
            "changes": [-4, 0, 0, 0],
            "records": [0, 7, 9, 11],
            "overshoot": [],
            "passed": [],
            "boys": [],
            "bonus": [],
            "finisher": 0,
        },
    )
    rows = EN.deal_result(line, petukh_table()).splitlines()
    assert rows[1] == "• Аня — boys finish → 0" and rows[2] == "• Борис — 7"


def test_petukh_events_say_every_part_of_each_change() -> None:
    """The engine's DealScored, worded: the parts of every row add up to its change (the
    tricks, the boys that counted, the no-trick fine, the spade ace), over real matches."""
    seen = {"boys": 0, "bonus": 0, "overshoot": 0}
    for seed in range(6):
        options = {"spade_ace": True, "crooked_boys": 3} if seed % 2 else {"boys_table": "thirty"}
        match = new_match(make_rules("petukh", 4, options), seed=seed)
        rng = random.Random(seed)
        while not match.finished:
            seat_ = match.to_act()[0]
            for e in match.apply(seat_, rng.choice(match.legal_actions(seat_))):
                if isinstance(e, DealScored) and e.finisher is None:
                    _check_parts(e)
                    seen["boys"] += len(e.boys)
                    seen["bonus"] += any(e.bonus)
                    seen["overshoot"] += len(e.overshoot)
    assert all(seen.values()), seen


def _check_parts(e: DealScored) -> None:
    boys = {s: v for s, _combo, _suits, v in e.boys}
    for s, change in enumerate(e.changes):
        if s in e.passed:
            assert change == 0 and s not in boys
            continue
        rest = change - e.bonus[s] - boys.get(s, 0)
        if e.tricks[s]:
            assert rest == -e.tricks[s]
        else:  # the no-trick fine, replaced by the boys' no-trick column where they count
            assert rest in ((0,) if s in boys else (0, 5))
    params = {k: v for k, v in e.to_json().items() if k != "event"}
    assert EN.deal_result(Line("deal_scored", params), petukh_table()).count("\n• ") == 4


# --- a match's result ----------------------------------------------------------------------


def test_a_kozel_result_names_the_winners_and_the_kozly_with_their_scores() -> None:
    line = Line(
        "match_ended",
        {"winners": [0, 2], "score": [4, 12], "seat_names": ["Аня", "Борис", "Вера", "🤖 Глеб"]},
    )
    rows = RU.match_result(line, kozel_table()).splitlines()
    assert rows[:3] == ["🏁 Партия!", "Победили: Аня, Вера — 4", "Козлы: Борис, 🤖 Глеб — 12"]
    legend = EN.match_result(line, kozel_table(), legend=True).splitlines()
    assert legend[1] == f"Won: {LEGEND[0]} Аня, Вера — 4"
    assert legend[2] == f"Kozly: {LEGEND[1]} Борис, 🤖 Глеб — 12"


def test_a_petukh_result_names_the_rooster_and_the_debts() -> None:
    names = {"seat_names": NAMES}
    line = Line("match_ended", {"winners": [0], "score": [0, 14, 5, 8], **names})
    rooster = Line("rooster_chosen", {"seats": [1], "debts": [[1, 0, 14], [2, 0, 5], [3, 0, 8]], **names})
    rows = RU.match_result(line, petukh_table(), [rooster]).splitlines()
    assert rows[1:5] == [
        "Победили: Аня — 0",
        "Остальные: Борис — 14 · Вера — 5 · Глеб — 8",
        "🐓 Петух: Борис",
        "Долги: Борис → Аня 14, Вера → Аня 5, Глеб → Аня 8",
    ]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_results_are_worded_in_every_language(lang: str) -> None:
    t, en = Text(lang), Text("en")
    line = Line("match_ended", {"winners": [0, 2], "score": [4, 12], "seat_names": NAMES})
    text = t.match_result(line, kozel_table())
    assert "Борис, Глеб — 12" in text
    assert (text == en.match_result(line, kozel_table())) == (lang == "en")
    deal = t.deal_result(deal_ended(tricks=[8, 0], scored=[0, 6]), kozel_table())
    assert deal.splitlines()[1].endswith(": +6") and t._("no trick") in deal


# --- the chart and its caption -------------------------------------------------------------


def test_only_a_long_match_gets_a_chart_and_petukh_lines_start_at_the_record() -> None:
    assert match_chart(kozel_table(), [[2, 0], [2, 4], [6, 4]]) is None
    png = match_chart(petukh_table(), [[14, 15, 20, 9], [10, 12, 15, 8], [4, 12, 15, 3], [0, 11, 15, 5]])
    assert png is not None and Image.open(io.BytesIO(png)).format == "PNG"


def test_a_caption_is_cut_after_a_whole_line() -> None:
    text = "\n".join(f"line {i}" for i in range(300))
    clipped = clip_lines(text, 1024)
    assert len(clipped) <= 1024 and clipped.endswith("\n…")
    assert clipped.split("\n")[-2] == "line " + str(len(clipped.split("\n")) - 2)
    assert clip_lines("short", 1024) == "short"
    assert (signed(2), signed(-5), signed(0)) == ("+2", "−5", "0")
