"""The linters are part of the test run (issue 16.4): ``ruff check`` and ``ruff format --check``
over the repository and ``mypy --strict`` over the three packages, each failing with the tool's
own output; and radon's cyclomatic complexity (issue 35): no function of the three packages
above 20.

mypy keeps its cache in the system's temporary directory (one per checkout), so a second run
checks only what changed: a few seconds instead of a quarter of a minute.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tempfile
from pathlib import Path

from radon.complexity import cc_visit
from radon.visitors import Function

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("bot", "adapters", "engine")
MOST_COMPLEX = 20  # radon's grade C tops out at 20: a D or worse is split into helpers


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


def _functions(blocks: list[Function]) -> list[Function]:
    """Every function and method of ``blocks``, and the functions nested in them."""
    out: list[Function] = []
    for block in blocks:
        out.append(block)
        out.extend(_functions(block.closures))
    return out


def test_no_function_above_cyclomatic_complexity_20() -> None:
    over = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            blocks = [b for b in cc_visit(path.read_text(encoding="utf-8")) if isinstance(b, Function)]
            for f in _functions(blocks):
                if f.complexity > MOST_COMPLEX:
                    over.append(f"{path.relative_to(ROOT)}:{f.lineno} {f.fullname} {f.complexity}")
    assert not over, f"above cyclomatic complexity {MOST_COMPLEX} (split into helpers):\n" + "\n".join(over)
