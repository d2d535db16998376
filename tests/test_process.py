"""The bot as an operator runs it: ``python -m bot`` as a process.

SIGTERM (what ``docker stop`` sends) stops it cleanly with exit 0: no more updates taken,
the one in hand answered, nothing drawn half, pools closed. A Redis that does not answer is
one clear line and a non-zero exit in every mode.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import pytest
from redis.asyncio import Redis

from tests.fakes.telegram_api import FakeTelegram

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "123456:TEST-token"


async def _spawn(env: dict[str, str], *args: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", *args, cwd=ROOT, env={**os.environ, **env},
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE)


@pytest.mark.parametrize("mode", ["play", "telegram", "discord", "all", "health"])
async def test_a_redis_that_does_not_answer_is_one_line_and_a_non_zero_exit(
    mode: str, tmp_path: Path
) -> None:
    beat = tmp_path / "beat"
    beat.write_text("1\n")  # health: the process looks alive, so Redis is what it checks
    env = {"REDIS_URL": "redis://127.0.0.1:1/0", "BOT_TOKEN": TOKEN, "DISCORD_TOKEN": "x",
           "HEARTBEAT_FILE": str(beat)}
    proc = await _spawn(env, mode)
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode not in (0, None)
    lines = err.decode().strip().splitlines()
    start = "unhealthy: Redis at" if mode == "health" else "error: cannot reach Redis"
    assert len(lines) == 1 and lines[0].startswith(start), lines
    assert "redis://127.0.0.1:1/0" in lines[0]
    assert "Traceback" not in out.decode()


async def test_sigterm_stops_the_telegram_bot_cleanly(redis_url: str, redis: Redis) -> None:
    async with FakeTelegram(TOKEN, max_poll_seconds=0.5) as fake:
        env = {"REDIS_URL": redis_url, "BOT_TOKEN": TOKEN, "TELEGRAM_API_URL": fake.base_url}
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
