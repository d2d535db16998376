"""``python -m engine replay FILE`` and ``python -m engine simulate``.

The main cases run ``python -m engine`` as a subprocess; the many variants of a broken
input call ``engine.cli.main`` in-process (the same code, without an interpreter start
each). Every failure must be a non-zero exit with exactly one line on stderr (no
traceback). Also: the ``rules`` computer player beats ``random`` in kozel for 4 (two teams).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.cli import main
from engine.families.drawing.match import Match
from engine.log import replay, to_log
from engine.simulate import simulate

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "engine", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )


def run_here(capsys: pytest.CaptureFixture[str], *args: str) -> subprocess.CompletedProcess[str]:
    """``engine.cli.main`` in this process, shaped like ``run``'s result."""
    capsys.readouterr()
    try:
        code = main(list(args))
    except SystemExit as e:  # argparse
        code = e.code if isinstance(e.code, int) else 1
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(["engine", *args], code, out, err)


def one_error_line(proc: subprocess.CompletedProcess[str]) -> str:
    """A clean failure: non-zero exit, nothing on stdout, one line on stderr."""
    assert proc.returncode != 0, proc.stdout
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: "), lines[0]
    return lines[0]


def play(
    preset: str, players: int, seed: int, stop: Any = None, options: dict[str, Any] | None = None
) -> Match:
    """Random legal play until ``stop(match)`` holds or the match ends."""
    match = Match.new(preset, players, options, seed=seed)
    rng = random.Random(seed)
    while not match.finished and not (stop and stop(match)):
        seat = rng.choice(match.to_act())
        match.apply(seat, rng.choice(match.legal_actions(seat)))
    return match


def write(tmp_path: Path, data: Any, name: str = "log.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def partial_log() -> tuple[Match, dict[str, Any]]:
    """A kozel log: two whole deals and 7 actions of the third."""
    match = play("kozel", 4, 11, stop=lambda m: m.deal_no == 3 and m.deal.counter == 7)
    assert not match.finished and match.deal_no == 3
    return match, to_log(match)


# --- replay -------------------------------------------------------------------------------


def test_replay_partial_log(tmp_path: Path) -> None:
    match, log = partial_log()
    proc = run("replay", str(write(tmp_path, log)))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    summary = json.loads(proc.stdout)
    assert summary["preset"] == "kozel" and summary["players"] == 4
    assert summary["finished"] is False
    assert summary["winners"] == []
    assert summary["score"] == match.scores
    assert len(summary["deals"]) == 2  # the deals that ended
    for deal, rec in zip(summary["deals"], match.history, strict=False):
        assert {"points", "score", "tricks"} <= set(deal)
        assert sum(deal["points"]) == 120
        assert len(deal["points"]) == len(deal["tricks"]) == len(deal["score"]) == 2
        assert rec.result is not None
        assert deal["points"] == rec.result["points"]
        assert deal["score"] == rec.result["score"]
    assert summary["deals"][-1]["score"] == match.scores
    assert summary == replay(log)[1]


def test_replay_finished_log(tmp_path: Path) -> None:
    match = play("kozel", 3, 5, options={"tie": "eggs_double"})
    proc = run("replay", str(write(tmp_path, to_log(match))))
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["finished"] is True
    assert summary["winners"] == list(match.winners)
    assert match.winners
    assert summary["score"] == match.scores
    assert len(summary["deals"]) == match.deal_no


def _corrupt(log: dict[str, Any], deal: int, index: int, how: str) -> str:
    """Make action ``index`` of deal ``deal`` illegal; return the reason's words."""
    entry = log["deals"][deal - 1]["actions"][index]
    if how == "seat":
        entry["seat"] = (entry["seat"] + 1) % log["players"]
        return "not your turn"
    if how == "card":
        (kind,) = [k for k in entry if k != "seat"]
        held = set(entry[kind])
        deck = log["deals"][deal - 1]["deck"]
        # a card that was already played earlier in this deal
        first = log["deals"][deal - 1]["actions"][0]
        (k0,) = [k for k in first if k != "seat"]
        gone = [c for c in first[k0] if c not in held]
        entry[kind] = [*entry[kind][:-1], gone[0] if gone else deck[-1]]
        return "not in hand"
    if how == "kind":
        (kind,) = [k for k in entry if k != "seat"]
        entry["play"] = entry.pop(kind)
        return "wrong action"
    raise AssertionError(how)


@pytest.mark.parametrize("how", ["seat", "card", "kind"])
def test_replay_illegal_action(tmp_path: Path, how: str, capsys: pytest.CaptureFixture[str]) -> None:
    _match, log = partial_log()
    actions = log["deals"][1]["actions"]
    index = next(i for i, a in enumerate(actions) if i > 0 and ("throw" in a or "beat" in a))
    reason = _corrupt(log, 2, index, how)
    path = str(write(tmp_path, log))
    proc = run("replay", path) if how == "seat" else run_here(capsys, "replay", path)
    line = one_error_line(proc)
    assert f"deal 2, action {index}:" in line
    assert reason in line


def test_replay_action_after_the_deal_ended(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _match, log = partial_log()
    first = log["deals"][0]["actions"]
    first.append(dict(log["deals"][1]["actions"][0]))
    line = one_error_line(run_here(capsys, "replay", str(write(tmp_path, log))))
    assert f"deal 1, action {len(first) - 1}" in line


# (name, file content, expected words); the first of each kind also runs as a subprocess
SUBPROCESS = {"not json", "unknown preset", "unknown option"}
BROKEN: list[tuple[str, Any, str]] = [
    ("not json", '{"preset": "kozel",', "cannot read"),
    ("not utf-8", "\udcff", "cannot read"),
    ("a list", [1, 2], "JSON object"),
    (
        "unknown preset",
        {"preset": "kozel-5", "players": 4, "deals": []},
        "unknown preset 'kozel-5'. Allowed: kozel, kozel-4, kozel-60",
    ),
    (
        "unknown option",
        {"preset": "kozel", "players": 4, "options": {"joker": True}},
        "unknown option 'joker'",
    ),
    (
        "bad option value",
        {"preset": "kozel", "players": 4, "options": {"tie": "never"}},
        "tie: both_two|eggs|eggs_double",
    ),
    (
        "options not a mapping",
        {"preset": "kozel", "players": 4, "options": "tie=eggs"},
        "options must be a mapping",
    ),
    ("bad players", {"preset": "kozel-4", "players": 3}, "is for 4 players"),
    ("players not a number", {"preset": "kozel", "players": "four"}, "players"),
    ("deals not a list", {"preset": "kozel", "players": 4, "deals": {"1": {}}}, "list"),
    ("a deal not an object", {"preset": "kozel", "players": 4, "deals": [3]}, "deal 1"),
    ("actions not a list", {"preset": "kozel", "players": 4, "deals": [{"actions": 7}]}, "deal 1: actions"),
    ("short deck", {"preset": "kozel", "players": 4, "deals": [{"deck": ["AS", "6C"]}]}, "deal 1"),
    ("a card not text", {"preset": "kozel", "players": 4, "deals": [{"deck": [1, 2]}]}, "not a card"),
    (
        "bad card in an action",
        {"preset": "kozel", "players": 4, "deals": [{"actions": [{"seat": 0, "lead": ["ZZ"]}]}]},
        "deal 1, action 0: not a card",
    ),
    (
        "an action without a seat",
        {"preset": "kozel", "players": 4, "deals": [{"actions": [{"lead": ["AS"]}]}]},
        "deal 1, action 0",
    ),
    ("no such dealer", {"preset": "kozel", "players": 4, "deals": [{"dealer": 9}]}, "dealer 9"),
]


@pytest.mark.parametrize("name,data,expect", BROKEN, ids=[n for n, _d, _e in BROKEN])
def test_replay_broken_file(
    tmp_path: Path, name: str, data: Any, expect: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "log.json"
    if data == "\udcff":
        path.write_bytes(b"\xff\xfe{\x00")
    else:
        write(tmp_path, data)
    proc = run("replay", str(path)) if name in SUBPROCESS else run_here(capsys, "replay", str(path))
    line = one_error_line(proc)
    assert expect in line, line


def test_replay_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = one_error_line(run_here(capsys, "replay", str(tmp_path / "nope.json")))
    assert "cannot read" in line


# --- simulate -----------------------------------------------------------------------------

SIMULATE_KEYS = {
    "preset",
    "players",
    "matches",
    "deals",
    "actions",
    "seconds",
    "deals_per_second",
    "wins",
    "invariants",
}


def test_simulate_json() -> None:
    proc = run("simulate", "--preset", "kozel", "--players", "4", "--matches", "5", "--seed", "1", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert set(out) >= SIMULATE_KEYS
    assert out["preset"] == "kozel" and out["players"] == 4 and out["matches"] == 5
    assert out["invariants"] == "ok"
    assert out["deals"] >= 5 and out["actions"] > out["deals"]
    assert out["seconds"] >= 0 and out["deals_per_second"] >= 0
    assert len(out["wins"]) == 4 and sum(out["wins"]) == 2 * 5  # a team of two wins each
    assert out["wins"][0] == out["wins"][2] and out["wins"][1] == out["wins"][3]
    # the same seed plays the same matches
    again = simulate("kozel", 4, 5, 1, ["random"])
    assert (again["deals"], again["actions"], again["wins"]) == (out["deals"], out["actions"], out["wins"])


def test_simulate_bots_per_seat() -> None:
    proc = run(
        "simulate",
        "--preset",
        "kozel",
        "--players",
        "4",
        "--matches",
        "5",
        "--seed",
        "1",
        "--bots",
        "rules,random,rules,random",
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["bots"] == ["rules", "random", "rules", "random"]
    assert out["invariants"] == "ok" and out["matches"] == 5


def test_simulate_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    proc = run_here(capsys, "simulate", "--preset", "kozel-60", "--players", "3", "--matches", "3")
    assert proc.returncode == 0, proc.stderr
    assert "kozel-60 x3" in proc.stdout and "invariants ok" in proc.stdout


@pytest.mark.parametrize(
    "args,expect",
    [
        (
            ["--preset", "kozel-5", "--players", "4"],
            "unknown preset 'kozel-5'. Allowed: kozel, kozel-4, kozel-60",
        ),
        (["--preset", "kozel", "--players", "5"], "2 or 3 or 4 players"),
        (["--preset", "kozel", "--players", "4", "--options", '{"tie": "no"}'], "both_two|eggs|eggs_double"),
        (["--preset", "kozel", "--players", "4", "--options", "{tie"], "--options"),
        (["--preset", "kozel", "--players", "4", "--bots", "rules,random"], "--bots"),
        (["--preset", "kozel", "--players", "4", "--bots", "genius"], "random, rules"),
    ],
    ids=["preset", "players", "option", "options-json", "bots-count", "bots-level"],
)
def test_simulate_errors(args: list[str], expect: str, capsys: pytest.CaptureFixture[str]) -> None:
    if args[1] == "kozel-5":  # the wrong preset, as a real command line
        proc = run("simulate", *args, "--matches", "1")
    else:
        proc = run_here(capsys, "simulate", *args, "--matches", "1")
    line = one_error_line(proc)
    assert expect in line, line


# --- computer player strength ----------------------------------------------------------------


@pytest.mark.parametrize("rules_side", [0, 1])
def test_rules_team_beats_random_team(rules_side: int) -> None:
    """kozel for 4: a team of two ``rules`` players against two ``random`` ones."""
    bots = ["rules", "random", "rules", "random"]
    if rules_side == 1:
        bots = bots[1:] + bots[:1]
    result = simulate("kozel", 4, 200, 0, bots, check=False)
    assert result["matches"] == 200
    rate = result["wins"][rules_side] / 200
    print(
        f"kozel x4, rules team on seats {rules_side}+{rules_side + 2} vs random, "
        f"seeds 0-199: won {result['wins'][rules_side]}/200 = {rate:.1%}"
    )
    assert rate >= 0.70


def test_i36_replay_prints_every_move_of_an_exported_match(tmp_path: Path) -> None:
    """Issue 36.4: a match exported by /history (a deal log with the seats' names) replays
    in the terminal move by move."""
    from engine.presets import make_rules
    from engine.simulate import make_bots, play_match

    match, _deals, actions = play_match(make_rules("kozel", 2, None), make_bots(["rules", "rules"]), 3)
    path = tmp_path / "kozel-abc.json"
    path.write_text(json.dumps({**to_log(match), "names": ["Anna", "Boris"]}), encoding="utf-8")
    done = run("replay", "--moves", str(path))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("dealing 1: dealer ")
    moves = [ln for ln in lines if ln.startswith(("  Anna: ", "  Boris: "))]
    assert len(moves) == actions
    assert json.loads(lines[-1])["finished"] and json.loads(lines[-1])["winners"] == list(match.winners)
