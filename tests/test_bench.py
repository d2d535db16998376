"""The benchmark scripts still run and print their figures (``bench/``: the project's only
measures of speed and strength, which nothing else runs).

Each script runs as the README runs it (a subprocess in the repository's root) with the
smallest budgets it accepts; the tests read the shape of what it prints, a line per preset
with its figures, never the figures themselves (they are timings, or the strength of a
single seed).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from engine.presets import PRESETS, SEARCH_TABLES

ROOT = Path(__file__).resolve().parent.parent

NUMBER = r"\d+(?:\.\d+)?"
# every script's first line: when, on which Python, how busy the machine was
HEADER = re.compile(rf"# \d{{4}}-\d\d-\d\d \d\d:\d\d · Python [\d.]+ · load {NUMBER} {NUMBER} {NUMBER}")


def bench(script: str, *args: str) -> list[str]:
    """The lines ``bench/<script>`` printed (it must end well), its header checked."""
    done = subprocess.run(
        [sys.executable, f"bench/{script}", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines and HEADER.match(lines[0]), done.stdout
    return lines[1:]


def rows(lines: list[str], pattern: str) -> list[tuple[str, int]]:
    """(preset, players) of each line that is ``<preset> <n>p `` then ``pattern``; every
    line must be one."""
    row = re.compile(rf"(?P<preset>[a-z0-9-]+) +(?P<players>\d)p +{pattern}")
    found = []
    for line in lines:
        match = row.fullmatch(line)
        assert match, f"not a figure line: {line!r}"
        found.append((match["preset"], int(match["players"])))
    return found


# --- bench/engine.py: speed ---------------------------------------------------------------


def test_engine_bench_prints_playouts_per_100_ms_per_search_preset() -> None:
    """``--search-only kozel``: a line per table of the preset with a search, its playouts
    per 100 ms of wall-clock and of CPU time, the moves timed and how the playouts ran."""
    lines = bench("engine.py", "--seconds", "0.2", "--search-only", "kozel")
    search = (
        rf"search +{NUMBER} playouts per 100 ms"
        rf" \({NUMBER} per 100 ms of CPU; \d+ moves, compact playouts\)"
    )
    assert rows(lines, search) == [case for case in SEARCH_TABLES if case[0] == "kozel"]


def test_engine_bench_prints_deals_per_second_per_table() -> None:
    """``--engine-only``: random full deals per second through the ``Game`` API for every
    table of every preset, then through the drawing family's compact form (random and
    quick-player moves); no search line."""
    lines = bench("engine.py", "--seconds", "0.01", "--engine-only")
    game_api = [line for line in lines if " compact " not in line]
    compact = [line for line in lines if " compact " in line]
    options = r"(?:[a-z_]+=[a-z0-9]+ +)?"
    api_rows = rows(game_api, rf"{options}{NUMBER} deals/s +{NUMBER} actions/s")
    compact_rows = rows(compact, rf"{options}compact +{NUMBER} random deals/s +{NUMBER} quick-player deals/s")
    assert {preset for preset, _n in api_rows} == set(PRESETS)
    assert {preset for preset, _n in compact_rows} == {p for p in PRESETS if PRESETS[p].family == "drawing"}
    assert {case for case in api_rows if case[0] in dict(compact_rows)} == set(compact_rows)


# --- bench/strength.py: strength ----------------------------------------------------------

# a Kozel first deal's figures: the hard side's share of the card points (unless a catch of
# the Q♣ ended it, RULES.md 4a-4c), what the deal scored, the catches, the seconds
DEAL_FIGURES = (
    rf"(?:(?: both sides:(?: search on side \d {NUMBER}%,)*)? card points {NUMBER}% over \d+ deals"
    rf" \(\d+ of \d+\))? · (?:penalty|eyes) scored \d+ to \d+(?: · .*)? · \d+ s"
)


def test_strength_bench_prints_card_points_per_kozel_table() -> None:
    """``--deals``: a line per table of each preset asked for (kozel's two, kozel-nn's one),
    each with the hard side's share of the card points of its first deals."""
    lines = bench("strength.py", "--deals", "--seeds", "1", "--iterations", "5", "kozel", "kozel-nn")
    assert lines and all(" card points " in line or "catches of the Q♣" in line for line in lines)
    found = rows(lines, rf"search vs rules, seeds 0-0:{DEAL_FIGURES}")
    assert found == [case for case in SEARCH_TABLES if case[0] in ("kozel", "kozel-nn")]


def test_strength_bench_plays_both_ways_round() -> None:
    """``--both``: each seed twice, the hard level on either side; the line gives each
    orientation's share beside the two together."""
    lines = bench("strength.py", "--deals", "--both", "--seeds", "1", "--iterations", "5", "kozel:2")
    assert rows(lines, rf"search vs rules, seeds 0-0:{DEAL_FIGURES}") == [("kozel", 2)]
    both = rf"both sides: search on side 0 {NUMBER}%, search on side 1 {NUMBER}%, card points"
    assert re.search(both, lines[0])


def test_strength_bench_prints_petukh_records_left() -> None:
    """Petukh plays whole matches: the matches the hard seat won and each seat's average
    record left (lower is better); ``--deals`` is refused for it."""
    lines = bench("strength.py", "--seeds", "1", "--iterations", "5", "petukh-25")
    records = rf"search vs rules, seeds 0-0: · matches won [01]/1 · average record left(?: {NUMBER}){{4}}"
    assert rows(lines, rf"{records} \(sums(?: \d+){{4}}\) · \d+ s") == [("petukh-25", 4)]
    # first deals say nothing of records left: the bench says so rather than print nothing
    lines = bench("strength.py", "--deals", "--seeds", "1", "--iterations", "5", "petukh-25")
    assert lines == ["petukh-25      4p: not with --deals (records left need whole matches)"]


# --- bench/thinking.py: the event loop while hard players think ---------------------------


def test_thinking_bench_prints_the_loop_lag() -> None:
    """Two hard players thinking 20 ms a move in one worker process, then in a thread of
    the service's process (``--workers 0``): the loop's lag p50, p99 and max beside the
    searches and their playouts. No Redis: the bench drives the ``Thinker`` alone. The
    seconds start after the worker's start-up, so a short run measures too."""
    players = ("--players", "2", "--ms", "20")
    for workers, seconds in (("1", "0.3"), ("0", "0.3")):
        lines = bench("thinking.py", *players, "--workers", workers, "--seconds", seconds)
        assert len(lines) == 1
        assert re.fullmatch(
            rf"2 hard players, SEARCH_MS 20, {workers} worker processes: loop lag p50 {NUMBER} ms,"
            rf" p99 {NUMBER} ms, max {NUMBER} ms; \d+ searches, \d+ playouts each",
            lines[0],
        ), lines[0]


# --- bench/web.py: the web table ----------------------------------------------------------


def test_web_bench_prints_a_press_to_the_other_screen_and_one_workers_figures() -> None:
    """Two browsers, three presses timed to the other screen; then one worker holding the
    sockets of three tables for two seconds: frames out and moves in a second, its CPU, the
    loop's lag. Chromium is Debian's (.ci/run installs it)."""
    lines = bench("web.py", "--presses", "3", "--tables", "3", "--seconds", "2")
    assert len(lines) == 2, lines
    assert re.fullmatch(
        rf"press to the other browser's screen: 3 presses, p50 {NUMBER} ms, p95 {NUMBER} ms,"
        rf" max {NUMBER} ms \(goal p95 <= 150 ms\)",
        lines[0],
    ), lines[0]
    assert re.fullmatch(
        rf"one worker: \d+-12 sockets on 3 tables for \d+ s \(all open {NUMBER} s after the start\):"
        rf" \d+ frames out/s, \d+ moves in/s, worker CPU \d+% of a core, loop lag p50 {NUMBER} ms,"
        rf" p99 {NUMBER} ms, max {NUMBER} ms \(goal p99 < 20 ms\)",
        lines[1],
    ), lines[1]
