"""The bot as an operator runs it: ``python -m bot`` as a process.

SIGTERM (what ``docker stop`` sends) stops it cleanly with exit 0: no more updates taken,
the one in hand answered, nothing drawn half, pools closed. A Redis that does not answer is
one clear line and a non-zero exit in every mode.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path

import pytest
from redis.asyncio import Redis

from tests.fakes.telegram import FakeTelegram

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "123456:TEST-token"


async def _spawn(env: dict[str, str], *args: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        *args,
        cwd=ROOT,
        env={**os.environ, **env},
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


@pytest.mark.parametrize("mode", ["play", "telegram", "discord", "all", "health"])
async def test_a_redis_that_does_not_answer_is_one_line_and_a_non_zero_exit(
    mode: str, tmp_path: Path
) -> None:
    beat = tmp_path / "beat"
    beat.write_text("1\n")  # health: the process looks alive, so Redis is what it checks
    env = {
        "REDIS_URL": "redis://127.0.0.1:1/0",
        "BOT_TOKEN": TOKEN,
        "DISCORD_TOKEN": "x",
        "HEARTBEAT_FILE": str(beat),
    }
    proc = await _spawn(env, mode)
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode not in (0, None)
    lines = err.decode().strip().splitlines()
    start = "unhealthy: Redis at" if mode == "health" else "error: cannot reach Redis"
    assert len(lines) == 1 and lines[0].startswith(start), lines
    assert "redis://127.0.0.1:1/0" in lines[0]
    assert "Traceback" not in out.decode()


async def test_sigterm_stops_the_telegram_bot_cleanly(redis_url: str, redis: Redis) -> None:
    """Also: with ``LOG_LEVEL=DEBUG LOG_FORMAT=json`` every line it writes is a JSON object
    (aiogram's, redis's and asyncio's too, DEBUG ones included), and the token is in none
    (tests/test_ops.py puts it in a line and a traceback on purpose)."""
    async with FakeTelegram(TOKEN, max_poll_seconds=0.5) as fake:
        env = {
            "REDIS_URL": redis_url,
            "BOT_TOKEN": TOKEN,
            "TELEGRAM_API_URL": fake.base_url,
            "LOG_LEVEL": "DEBUG",
            "LOG_FORMAT": "json",
        }
        proc = await _spawn(env, "telegram")
        try:
            # the bot is up once it polls for updates
            await fake.wait_for_call("getUpdates", timeout=60)
            proc.send_signal(signal.SIGTERM)
            out, err = await asyncio.wait_for(proc.communicate(), 30)
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
    assert proc.returncode == 0, err.decode()[-2000:]
    assert "Traceback" not in err.decode()
    lines = [json.loads(line) for line in err.decode().splitlines() if line.strip()]
    assert lines and all({"time", "level", "logger", "message"} <= set(e) for e in lines)
    assert any(e["logger"].startswith("aiogram") and e["level"] == "INFO" for e in lines)
    assert any(e["level"] == "DEBUG" for e in lines)  # LOG_LEVEL is the process's level
    assert TOKEN not in err.decode() and TOKEN.split(":")[1] not in err.decode()


async def test_a_webhook_worker_without_webhook_url_stops_with_one_line() -> None:
    """``kozel-bot telegram --webhook`` (compose's webhook workers): without WEBHOOK_URL it
    would long-poll beside the other workers (one consumer a token): it refuses instead."""
    env = {"REDIS_URL": "redis://127.0.0.1:1/0", "BOT_TOKEN": TOKEN, "WEBHOOK_URL": ""}
    proc = await _spawn(env, "telegram", "--webhook")
    _out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 2
    lines = err.decode().strip().splitlines()
    assert len(lines) == 1 and "WEBHOOK_URL is not set" in lines[0], lines
