"""The score chart of a long match: a small PNG, one line a side in its legend colour."""

from __future__ import annotations

import io

from PIL import Image

from adapters.common.chart import COLOURS, LEGEND, H, W, score_chart, worth_a_chart


def test_a_chart_draws_each_side_in_its_colour() -> None:
    progress = [[2, 0], [2, 4], [6, 4], [8, 10], [12, 10]]  # kozel: penalties to 12
    png = score_chart(progress, target=12)
    img = Image.open(io.BytesIO(png))
    assert img.format == "PNG" and img.size == (W, H)
    colours = {c for _n, c in img.getcolors(W * H)}  # type: ignore[union-attr]
    assert COLOURS[0] in colours and COLOURS[1] in colours and COLOURS[2] not in colours
    assert len(LEGEND) == len(COLOURS)
    assert len(png) < 30_000  # one message with the result, small


def test_petukh_lines_start_at_the_record_and_short_matches_have_no_chart() -> None:
    progress = [[14, 15, 20], [10, 12, 15], [4, 12, 15], [0, 11, 15]]
    img = Image.open(io.BytesIO(score_chart(progress, target=0, start=15)))
    colours = {c for _n, c in img.getcolors(W * H)}  # type: ignore[union-attr]
    assert all(c in colours for c in COLOURS[:3])
    assert worth_a_chart(progress) and not worth_a_chart(progress[:3])
