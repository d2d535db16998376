"""A bad setting stops start-up with one clear line, no traceback."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from bot.config import ConfigError, load_settings


def test_defaults_load(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TURN_SECONDS", raising=False)
    s = load_settings()
    assert s.turn_seconds > 0 and s.default_language in ("ru", "en")


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("TURN_SECONDS", "soon"),
        ("TURN_SECONDS", "-5"),
        ("DEFAULT_LANGUAGE", "xx"),
        ("MISSED_TURNS_TO_BOT", "0"),
    ],
)
def test_bad_setting_is_one_clear_line(monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError) as e:
        load_settings()
    assert name in str(e.value) and "\n" not in str(e.value)


def test_cli_refuses_bad_setting_without_traceback() -> None:
    env = {**os.environ, "TURN_SECONDS": "soon"}
    p = subprocess.run(
        [sys.executable, "-m", "bot", "play"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert p.returncode == 2
    assert p.stderr.strip().count("\n") == 0 and "TURN_SECONDS" in p.stderr
    assert "Traceback" not in p.stderr


def test_discord_shards_come_from_the_environment(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from bot.config import load_settings

    monkeypatch.setenv("DISCORD_SHARD_COUNT", "4")
    monkeypatch.setenv("DISCORD_SHARD_IDS", "[0, 2]")
    s = load_settings()
    assert s.discord_shard_count == 4 and s.discord_shard_ids == [0, 2]
