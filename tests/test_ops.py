"""What an operator relies on: metrics to scrape, logs to read (JSON lines with the room and
the update, never a token), a health command for the image's HEALTHCHECK."""

from __future__ import annotations

import io
import json
import logging
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from redis.asyncio import Redis

from adapters.console.app import play
from bot import keys, logs
from bot.config import Settings
from bot.metrics_prometheus import PrometheusMetrics
from bot.room import User
from bot.service import GameService
from bot.store import Loaded, Store

ROOT = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# every metric issue 17 names: moves committed, refusals by reason, compare-and-set
# conflicts, timer lag, platform 429s and retry waits, painter queue depth, think time
FAMILIES = (
    "kozel_changes_committed_total",
    "kozel_refusals_total",
    "kozel_cas_conflicts_total",
    "kozel_timer_lag_seconds",
    "kozel_platform_429_total",
    "kozel_platform_retry_wait_seconds",
    "kozel_painter_queue",
    "kozel_think_seconds",
)


def _scrape(port: int) -> tuple[str, dict[str, float]]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as resp:
        text = resp.read().decode()
    values = {
        line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line and not line.startswith("#")
    }
    return text, values


class Racing(Store):
    """A store whose next load is followed by ``race`` (another process's write): the
    loaded room is stale when its change is written."""

    race: Callable[[], Awaitable[object]] | None = None

    async def load(self, room_id: str, claim: str | None = None) -> Loaded:
        loaded = await super().load(room_id, claim)
        race, self.race = self.race, None
        if race is not None:
            await race()
        return loaded


async def test_metrics_are_scraped_after_a_console_match(redis_url: str, redis: Redis) -> None:
    metrics = PrometheusMetrics()
    port = _free_port()
    metrics.serve(port, host="127.0.0.1")
    settings = Settings(redis_url=redis_url, default_language="en")
    out = io.StringIO()
    code = await play(
        settings, "kozel-60", 2, 3, "en", None, out=out, inp=io.StringIO("1\n" * 400), metrics=metrics
    )
    assert code == 0 and ("The match is over" in out.getvalue() or "You won" in out.getvalue())
    text, values = _scrape(port)
    for family in FAMILIES:
        assert f"# TYPE {family} " in text, family
    assert values['kozel_changes_committed_total{platform="cn"}'] > 20
    assert sum(v for k, v in values.items() if k.startswith("kozel_think_seconds_count")) > 10
    assert values["kozel_timer_lag_seconds_count"] > 10
    # a refusal and a lost compare-and-set (two writers of one room) after it
    store = Racing(redis)
    svc = GameService(store, settings, metrics=metrics)
    other = GameService(Store(redis), settings)
    anna, boris, vera = (User(f"tg:{i}", n) for i, n in enumerate(("Anna", "Boris", "Vera")))
    rid = (await svc.create("tg", "-77", None, anna, "kozel")).room.id  # type: ignore[union-attr]
    assert (await svc.join(rid, anna)).reason == "already_seated"
    store.race = lambda: other.join(rid, boris)
    assert (await svc.join(rid, vera)).ok  # written again on the room Boris joined
    _text, values = _scrape(port)
    assert values['kozel_refusals_total{reason="already_seated"}'] == 1
    assert values["kozel_cas_conflicts_total"] == 1
    room = await svc.room(rid)
    assert room is not None and {anna.id, boris.id, vera.id} <= {s.user for s in room.seats if s is not None}


async def test_json_log_lines_name_the_room_and_update_and_never_a_token(
    store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    token = "123456:AAE-secret-token-of-the-bot"
    logs.setup("INFO", "json", secrets=[token])
    try:
        service = GameService(store, Settings(redis_url=None, default_language="en"))
        seen = logging.getLogger("tests.ops")

        async def listener(room: object, lines: object) -> None:
            seen.info("drawing with https://api.telegram.org/bot%s/editMessageText", token)
            try:
                raise RuntimeError(f"bad request for bot{token}")
            except RuntimeError:
                seen.exception("failed")

        service.on_change(listener)
        out = await service.create("tg", "-5", None, User("tg:1", "Anna"), "kozel", update_id="u77")
        assert out.ok
    finally:
        logging.getLogger().handlers.clear()
    err = capsys.readouterr().err
    lines = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    ours = [e for e in lines if e["logger"] == "tests.ops"]
    assert len(ours) == 2
    for e in ours:
        assert e["room"] == "tg:-5" and e["update"] == "u77" and e["level"] in ("INFO", "ERROR")
    assert token not in err and "***" in err


def _health(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", "health"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **env},
    )


def test_health_needs_a_fresh_heartbeat_and_redis(tmp_path: Path, redis_url: str) -> None:
    beat = tmp_path / "beat"
    env = {"REDIS_URL": redis_url, "HEARTBEAT_FILE": str(beat)}
    missing = _health(env)
    assert missing.returncode == 1 and "heartbeat" in missing.stderr
    assert missing.stderr.count("\n") == 1
    beat.write_text("1\n")
    assert _health(env).returncode == 0
    old = time.time() - 600
    os.utime(beat, (old, old))
    assert _health(env).returncode == 1
    beat.write_text("1\n")
    down = _health({**env, "REDIS_URL": "redis://127.0.0.1:1/0"})
    assert down.returncode == 1 and "Redis" in down.stderr


async def test_console_mode_does_not_import_aiogram(redis_url: str, redis: Redis) -> None:
    """Issue 17: aiogram costs seconds of CPU to import; a terminal game never loads it
    (the whole command: a match dealt, a prompt answered with q, the game saved)."""
    await redis.delete(keys.room("cn:local"), keys.platform_data("cn:local"))
    code = (
        "import sys; from bot.__main__ import main; code = main(['play', '--seed', '1']); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'aiogram'), code)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        input="q\n",
        env={**os.environ, "REDIS_URL": redis_url, "PYTHONIOENCODING": "utf-8"},
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "[] 0", out.stdout[-500:]


# --- issue 33.8: what an operator's logs and ports give away ---------------------------------


async def test_a_redis_password_is_never_printed(tmp_path: Path) -> None:
    """A REDIS_URL that does not answer is one line naming the server, not its password;
    the same for the health command."""
    from bot.config import ConfigError
    from bot.store import open_store

    url = f"redis://kozel:hunter2-sekret@127.0.0.1:{_free_port()}/0"
    with pytest.raises(ConfigError) as e:
        await open_store(Settings(redis_url=url))
    assert "hunter2" not in str(e.value) and "***@127.0.0.1" in str(e.value)
    beat = tmp_path / "beat"
    beat.touch()
    done = _health({"REDIS_URL": url, "HEARTBEAT_FILE": str(beat)})
    assert done.returncode == 1 and "hunter2" not in done.stderr + done.stdout
    assert logs.mask_url("rediss://:pw@h:6380/1") == "rediss://***@h:6380/1"
    assert logs.mask_url("redis://h:6379/0") == "redis://h:6379/0"


def test_log_lines_hide_url_passwords_and_discord_interaction_tokens() -> None:
    """discord.py logs request paths at DEBUG: an interaction's token in its path answers
    (and edits) that interaction for 15 minutes; a webhook's token posts as the bot."""
    record = logging.LogRecord(
        "discord.http",
        logging.DEBUG,
        __file__,
        1,
        "POST https://discord.com/api/v10/interactions/1234567890/aW50ZXJhY3Rpb246MTIz.abc-_x/callback "
        "then PATCH /webhooks/555/aW50ZXJhY3Rpb246T0tFTg-_.x/messages/@original with redis://u:pw@r:6379",
        None,
        None,
    )
    text = logs.Redacting(logging.Formatter("%(message)s"), []).format(record)
    assert "aW50ZXJhY3Rpb24" not in text and ":pw@" not in text
    assert "/interactions/1234567890/***/callback" in text and "/webhooks/555/***/messages" in text


def test_metrics_listen_on_the_loopback_by_default() -> None:
    """METRICS_HOST is 127.0.0.1 unless the operator says otherwise: the metrics port is not
    open to the world by default."""
    assert Settings().metrics_host == "127.0.0.1"
    metrics = PrometheusMetrics()
    port = _free_port()
    metrics.serve(port)
    with socket.create_connection(("127.0.0.1", port), timeout=5):
        pass
    outside = _outside_address()
    if outside is not None:
        with pytest.raises(OSError), socket.create_connection((outside, port), timeout=5):
            pass


def _outside_address() -> str | None:
    """This machine's address on a non-loopback interface, if it has one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("10.255.255.255", 1))
            addr = str(s.getsockname()[0])
        except OSError:
            return None
    return None if addr.startswith("127.") else addr
