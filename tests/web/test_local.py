"""Issue 34: ``python -m bot play --web`` serves the web table on 127.0.0.1 against computer
players and prints its address; the page's socket, with the address's token, plays."""

from __future__ import annotations

import asyncio
import os
import re
import sys
from pathlib import Path

from redis.asyncio import Redis

from tests.web.harness import SIGNAL_LIMIT, connect

ROOT = Path(__file__).resolve().parents[2]


async def test_play_web_prints_an_address_whose_token_opens_the_table(redis_url: str, redis: Redis) -> None:
    env = {**os.environ, "REDIS_URL": redis_url, "PYTHONIOENCODING": "utf-8"}
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "play",
        "--web",
        "--port",
        "0",
        "--lang",
        "en",
        "--preset",
        "petukh",
        "--players",
        "3",
        cwd=ROOT,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        assert proc.stdout is not None
        line = (await asyncio.wait_for(proc.stdout.readline(), SIGNAL_LIMIT)).decode()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/#(\S+)", line)
        assert found, line
        port, token = int(found[1]), found[2]
        async with connect(port, {"type": "hello", "local": token}) as me:
            assert (await me.next("words"))["lang"] == "en"
            frame = await me.state()
            assert frame["me"] == 0 and frame["table"]["state"] == "playing"
            assert len(frame["table"]["seats"]) == 3 and frame["hand"]["cards"]
        async with connect(port, {"type": "hello", "local": token + "x"}) as stranger:
            assert (await stranger.next())["code"] == "auth"
    finally:
        proc.terminate()
        _out, err = await asyncio.wait_for(proc.communicate(), SIGNAL_LIMIT)
    assert proc.returncode == 0, err.decode()[-2000:]
    assert b"Traceback" not in err
