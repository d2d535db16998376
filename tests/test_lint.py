"""The linters are part of the test run (issue 16.4): ``ruff check`` and ``ruff format --check``
over the repository and ``mypy --strict`` over the three packages, each failing with the tool's
own output.

mypy keeps its cache in the system's temporary directory (one per checkout), so a second run
checks only what changed: a few seconds instead of a quarter of a minute.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600, check=False
    )


def _mypy_cache() -> Path:
    checkout = hashlib.sha256(str(ROOT).encode()).hexdigest()[:12]
    return Path(tempfile.gettempdir()) / f"kozel-bot-mypy-{checkout}"


def test_ruff_check_is_clean() -> None:
    done = _run("ruff", "check", "--no-cache", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_format_check_is_clean() -> None:
    done = _run("ruff", "format", "--check", "--no-cache", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_strict_is_clean() -> None:
    done = _run("mypy", "--strict", "--cache-dir", str(_mypy_cache()), "bot", "adapters", "engine")
    assert done.returncode == 0, done.stdout + done.stderr
