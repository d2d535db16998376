"""The locks (requirements/*.lock) hold on every Python README admits ("Python 3.11 or newer")
and every platform (issue 37): one universal lock each, made by ``uv pip compile --universal``
for the lowest Python admitted, its markers choosing per interpreter. Debian 12's own python3
(3.11.2) needs async-timeout for redis (below 3.11.3), which a lock made on 3.11.7 left out:
``pip install --require-hashes`` then stopped. Here each lock is resolved by pip for the
machine's /usr/bin/python3 (Debian's), hashes required, without installing anything."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LOCKS = ("main", "test", "build")
DEBIAN_PYTHON = Path("/usr/bin/python3")


@pytest.mark.parametrize("name", LOCKS)
def test_i37_every_lock_is_universal_from_the_lowest_python(name: str) -> None:
    text = (ROOT / "requirements" / f"{name}.lock").read_text()
    header = text.splitlines()[1]
    assert "uv pip compile --universal --python-version 3.11 --generate-hashes" in header, header
    readme = (ROOT / "requirements" / "README.md").read_text()
    assert header.lstrip("# ").strip() in readme  # the command to make it again, as run
    if name != "build":  # redis: async-timeout below 3.11.3, pinned and hashed
        assert "async-timeout==" in text and "; python_full_version < '3.11.3'" in text


def _interpreter_of(env_dir: Path) -> str:
    done = subprocess.run(
        [str(env_dir / "bin" / "python"), "-c", "import platform; print(platform.python_version())"],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


@pytest.mark.parametrize("name", LOCKS)
def test_i37_every_lock_resolves_for_debians_own_python(name: str, tmp_path: Path) -> None:
    if not DEBIAN_PYTHON.exists():
        pytest.skip("no /usr/bin/python3 here (Debian's python3 package): nothing to resolve for")
    env_dir = tmp_path / "debian-venv"
    made = subprocess.run(
        [str(DEBIAN_PYTHON), "-m", "venv", "--without-pip", str(env_dir)], capture_output=True, text=True
    )
    if made.returncode != 0:  # e.g. an old Debian python3 without the venv module
        pytest.skip(f"/usr/bin/python3 cannot make a venv: {made.stderr.strip()[-200:]}")
    version = _interpreter_of(env_dir)
    # this environment's pip, run for the Debian interpreter: its markers, its tags
    done = subprocess.run(
        [
            *(sys.executable, "-m", "pip", "--python", str(env_dir / "bin" / "python")),
            *("install", "--dry-run", "--ignore-installed", "--quiet", "--report", "-"),
            *("--require-hashes", "-r", str(ROOT / "requirements" / f"{name}.lock")),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"Python {version}: {done.stderr[-3000:]}"
    installed = {item["metadata"]["name"].lower() for item in json.loads(done.stdout)["install"]}
    parts = tuple(int(p) for p in version.split(".")[:3])
    if name != "build":
        assert ("async-timeout" in installed) == (parts < (3, 11, 3)), (version, sorted(installed))
