"""Start-up time per mode (issue 17): what an operator waits for after ``docker start``.

    python bench/startup.py [--runs 3]

For each mode, the best of ``--runs`` fresh processes:
- imports: ``import`` of the mode's modules alone (the console and Discord modes never import
  aiogram, whose import is the heaviest);
- play: ``python -m bot play`` on the Redis of ``REDIS_URL`` (default database 12; the
  terminal's saved game is deleted before each run, so each deals a new match) until its
  first prompt is answered with ``q`` and it exits;
- telegram: ``python -m bot telegram`` against a fake Bot API on 127.0.0.1 until it polls
  for its first updates;
- discord: the bot's ``discord`` command against a fake Discord (REST and gateway) on
  127.0.0.1 until its gateway session is READY (discord.py's two addresses are pointed at the
  fake before the command runs: the only difference from ``python -m bot discord``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[0] = str(ROOT)

MODES = {
    "console": "adapters.console.app",
    "discord": "adapters.discord.app",
    "telegram": "adapters.telegram.app",
}


def imports(module: str) -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", f"import {module}"], cwd=ROOT, check=True)
    return time.perf_counter() - t


def play(url: str) -> float:
    import redis

    from bot import keys

    with redis.Redis.from_url(url) as r:  # a new match each time, not the saved one
        r.delete(keys.room("cn:local"), keys.platform_data("cn:local"))
    env = {**os.environ, "REDIS_URL": url, "PYTHONIOENCODING": "utf-8"}
    t = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "bot", "play", "--seed", "1"],
        cwd=ROOT,
        env=env,
        input="q\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-500:]
    return time.perf_counter() - t


async def telegram(url: str) -> float:
    from tests.fakes.telegram import FakeTelegram

    token = "123456:BENCH-token"
    async with FakeTelegram(token, max_poll_seconds=0.2) as fake:
        env = {**os.environ, "REDIS_URL": url, "BOT_TOKEN": token, "TELEGRAM_API_URL": fake.base_url}
        t = time.perf_counter()
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            "telegram",
            cwd=ROOT,
            env=env,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
        try:
            await fake.wait_for_call("getUpdates", timeout=120)
            ready = time.perf_counter() - t
        finally:
            proc.send_signal(signal.SIGTERM)
            await proc.wait()
    return ready


# the discord command with discord.py's REST and gateway addresses pointed at the fake
DISCORD = """
import os, sys, yarl
from discord.gateway import DiscordWebSocket
from discord.http import Route
Route.BASE = os.environ["BENCH_DISCORD_API"]
DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(os.environ["BENCH_DISCORD_GATEWAY"])
from bot.__main__ import main
sys.exit(main(["discord"]))
"""


async def discord(url: str) -> float:
    from tests.fakes.discord import FakeDiscord

    async with FakeDiscord() as fake:
        env = {
            **os.environ,
            "REDIS_URL": url,
            "DISCORD_TOKEN": fake.token,
            "BENCH_DISCORD_API": fake.api_base,
            "BENCH_DISCORD_GATEWAY": fake.gateway_url,
        }
        t = time.perf_counter()
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            DISCORD,
            cwd=ROOT,
            env=env,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
        try:
            await fake.wait_until_connected(timeout=120)
            ready = time.perf_counter() - t
        finally:
            proc.send_signal(signal.SIGTERM)
            await proc.wait()
    return ready


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    url = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/12"
    print(f"best of {args.runs} fresh processes; load average {os.getloadavg()[0]:.2f}")
    for mode, module in MODES.items():
        best = min(imports(module) for _ in range(args.runs))
        print(f"imports of {mode:8} mode: {best:.2f} s")
    print(f"play: ready, answered and saved in {min(play(url) for _ in range(args.runs)):.2f} s")
    best = min(asyncio.run(telegram(url)) for _ in range(args.runs))
    print(f"telegram: polling for updates {best:.2f} s after start")
    best = min(asyncio.run(discord(url)) for _ in range(args.runs))
    print(f"discord: gateway session ready {best:.2f} s after start")


if __name__ == "__main__":
    main()
