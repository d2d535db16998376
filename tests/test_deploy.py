"""The image and the compose file, read as an operator reads them (no Docker engine runs on
these machines, so what can be checked without one is checked here)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def test_the_image_installs_locked_dependencies_before_the_code_and_runs_unprivileged() -> None:
    text = (ROOT / "Dockerfile").read_text()
    steps = [line.split()[0] for line in text.splitlines() if line and line[0].isupper()]
    assert steps.count("FROM") == 2  # a build stage and a slim runtime stage
    lock = text.index("--require-hashes -r /tmp/main.lock")
    assert lock < text.index("COPY bot bot")  # a code change reinstalls no dependency
    assert re.search(r"^USER kozel$", text, re.M)
    assert re.search(r'^HEALTHCHECK .*\n\s+CMD \["kozel-bot", "health"\]', text, re.M)
    assert "STOPSIGNAL SIGTERM" in text
    for copied in re.findall(r"^COPY (?!--from)(\S+)", text, re.M):
        assert (ROOT / copied).exists(), copied
    ignore = (ROOT / ".dockerignore").read_text().splitlines()
    assert ignore[ignore.index("*") if "*" in ignore else 0] == "*"  # only what is let in
    assert "!.git" not in ignore and "!data/" not in ignore and "!tests/" not in ignore
    lock_text = (ROOT / "requirements" / "main.lock").read_text()
    assert "--hash=sha256:" in lock_text and "aiogram==" in lock_text


def test_compose_runs_redis_with_aof_and_health_and_scales_telegram_by_webhook() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    redis = services["redis"]
    assert re.fullmatch(r"redis:\d+\.\d+\.\d+(-\w+)?", redis["image"])  # pinned
    assert "--appendonly" in redis["command"] and "redis-data:/data" in redis["volumes"]
    assert redis["healthcheck"]["test"] == ["CMD", "redis-cli", "ping"]
    bots = [s for name, s in services.items() if name not in ("redis", "proxy")]
    for s in bots:
        assert s["depends_on"]["redis"]["condition"] == "service_healthy"
        assert s["restart"] == "unless-stopped" and s["env_file"] == ".env"
    assert services["bot"]["command"] == ["kozel-bot", "all"]
    tg = services["telegram"]
    assert "webhook" in tg["profiles"] and tg["deploy"]["replicas"] >= 2
    assert tg["command"] == ["kozel-bot", "telegram"] and "WEBHOOK_URL" in tg["environment"]
    assert services["discord"]["command"] == ["kozel-bot", "discord"]  # one gateway process
    assert "webhook" in services["proxy"]["profiles"]
    nginx = (ROOT / "deploy" / "nginx.conf").read_text()
    assert "server telegram:8080" in nginx and "location /webhook" in nginx
    # the polling process never runs beside the webhook workers (one consumer a token)
    assert "webhook" not in services["bot"]["profiles"]
