"""The terminal game end to end: ``python -m bot play`` as a subprocess on the test Redis."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from redis.asyncio import Redis

from bot import keys
from bot.store import Store

ROOT = Path(__file__).resolve().parents[2]
CMD = [
    sys.executable,
    "-m",
    "bot",
    "play",
    "--preset",
    "kozel",
    "--players",
    "4",
    "--seed",
    "3",
    "--lang",
    "en",
]


def run(redis_url: str, stdin: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "REDIS_URL": redis_url, "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        CMD, input=stdin, capture_output=True, text=True, cwd=ROOT, env=env, timeout=180, encoding="utf-8"
    )


async def test_a_whole_match_in_the_terminal(redis_url: str, redis: Redis) -> None:
    done = run(redis_url, "1\n" * 3000)
    assert done.returncode == 0, done.stderr
    assert "The match is over" in done.stdout or "You won" in done.stdout, done.stdout[-2000:]
    assert "Going on with the saved game." not in done.stdout
    assert "Traceback" not in done.stderr


async def test_quit_saves_and_the_next_run_goes_on(redis_url: str, redis: Redis) -> None:
    first = run(redis_url, "1\nq\n")
    assert first.returncode == 0, first.stderr
    assert "The game is saved" in first.stdout
    assert "The match is over" not in first.stdout
    assert await redis.exists(keys.room("cn:local"))
    second = run(redis_url, "1\n" * 3000)
    assert second.returncode == 0, second.stderr
    assert "Going on with the saved game." in second.stdout
    assert "The match is over" in second.stdout or "You won" in second.stdout


def run_preset(redis_url: str, preset: str, stdin: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "REDIS_URL": redis_url, "PYTHONIOENCODING": "utf-8"}
    cmd = [
        sys.executable,
        "-m",
        "bot",
        "play",
        "--preset",
        preset,
        "--players",
        "4",
        "--seed",
        "5",
        "--lang",
        "en",
    ]
    return subprocess.run(
        cmd, input=stdin, capture_output=True, text=True, cwd=ROOT, env=env, timeout=180, encoding="utf-8"
    )


async def test_new_games_in_the_terminal_by_name(redis_url: str, redis: Redis) -> None:
    """kozel-nn: the cut by its number; petukh: ``keep`` and ``pass`` typed as words."""
    nn = run_preset(redis_url, "kozel-nn", "cut 99\ncut 18\ncut 9\ncut 27\n" + "1\n" * 3000)
    assert nn.returncode == 0, nn.stderr
    assert "Not one of the moves listed." in nn.stdout  # cut 99 is not offered
    assert "The match is over" in nn.stdout or "You won" in nn.stdout, nn.stdout[-2000:]
    await redis.delete(keys.room("cn:local"))
    pk = run_preset(redis_url, "petukh", "keep\npass\n" + "1\n" * 5000)
    assert pk.returncode == 0, pk.stderr
    assert "The match is over" in pk.stdout or "You won" in pk.stdout, pk.stdout[-2000:]
    assert "Traceback" not in nn.stderr + pk.stderr


async def test_the_console_seats_hard_players_and_gives_hints(redis_url: str, redis: Redis) -> None:
    """Issue 15: ``--bots hard`` seats search players; ``?`` shows what hard would play."""
    env = {**os.environ, "REDIS_URL": redis_url, "PYTHONIOENCODING": "utf-8"}
    cmd = [*CMD, "--bots", "hard"]
    done = subprocess.run(
        cmd,
        input="?\n1\n?\nq\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=180,
        encoding="utf-8",
    )
    assert done.returncode == 0, done.stderr
    assert "Type ? for a hint" in done.stdout
    assert "💡 Hint:" in done.stdout and "trial deals" in done.stdout, done.stdout[-2000:]
    room = await Store(redis).room("cn:local")
    assert room is not None and [s.level for s in room.seats[1:] if s] == ["hard"] * 3
    await redis.delete(keys.room("cn:local"))
    bad = subprocess.run(
        [*CMD, "--bots", "grandmaster"],
        input="q\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=180,
        encoding="utf-8",
    )
    assert bad.returncode == 2 and "Unknown computer level" in bad.stdout
    assert "easy, normal, hard" in bad.stdout and "Traceback" not in bad.stderr
