"""The bot as a user installs it: a wheel built from the checkout, installed (not editable)
into a fresh virtual environment, run from outside the checkout. It plays a console match
against computer players and speaks Russian and English: the catalogs ship in the wheel.

The fresh environment takes its dependencies from the test's own (the hash lock's), through
a path file, rather than downloading them again: the wheel itself is installed with
``--no-deps`` and nothing of the checkout (no editable finder, no source folder) is on its
path, so what runs is only what the wheel installed. That keeps the test to seconds in CI."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

from redis.asyncio import Redis

from bot import keys

ROOT = Path(__file__).resolve().parents[1]


def _run(
    cmd: list[str], cwd: Path, env: dict[str, str] | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        cmd, cwd=cwd, env=env, input=stdin, capture_output=True, text=True, timeout=600, encoding="utf-8"
    )


def _borrow_dependencies(env_dir: Path) -> None:
    """The test environment's site-packages after the fresh one's own: a plain path line
    (the ``.pth`` files found there, such as the checkout's editable finder, are not read)."""
    site = next((env_dir / "lib").glob("python3*/site-packages"))
    theirs = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (site / "borrowed-dependencies.pth").write_text("\n".join(sorted(theirs)) + "\n")


async def test_a_wheel_installs_and_plays_in_both_languages(
    tmp_path: Path, redis_url: str, redis: Redis
) -> None:
    wheels = tmp_path / "wheels"
    built = _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(ROOT)], cwd=tmp_path
    )
    assert built.returncode == 0, built.stderr[-3000:]
    wheel = next(wheels.glob("kozel_bot-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    for lang in ("ru", "en", "uk", "hr"):  # compiled at build, the sources beside them
        assert f"locales/{lang}/LC_MESSAGES/messages.mo" in names
        assert f"locales/{lang}/LC_MESSAGES/messages.po" in names
    assert not any(n.startswith("tests/") for n in names)
    # the web table's page ships as it is served: no build step, nothing left out
    static = sorted(p.name for p in (ROOT / "adapters" / "web" / "static").iterdir())
    assert static and all(f"adapters/web/static/{name}" in names for name in static), static

    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    bin_dir = env_dir / "bin"
    installed = _run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(bin_dir / "python"),
            "install",
            "-q",
            "--no-deps",
            str(wheel),
        ],
        cwd=tmp_path,
    )
    assert installed.returncode == 0, installed.stderr[-3000:]
    _borrow_dependencies(env_dir)

    home = tmp_path / "outside"  # nowhere near the checkout: only the installed package
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LOCALES_DIR")}
    env.update(
        {
            "REDIS_URL": redis_url,
            "PYTHONIOENCODING": "utf-8",
            "PATH": f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
        }
    )
    version = _run([str(bin_dir / "kozel-bot"), "--version"], cwd=home, env=env)
    assert version.returncode == 0 and version.stdout.startswith("kozel-bot "), version.stderr
    where = _run(
        [str(bin_dir / "python"), "-c", "import bot, locales; print(bot.__file__); print(locales.__file__)"],
        cwd=home,
        env=env,
    )
    lines = where.stdout.split()
    assert len(lines) == 2 and all(ln.startswith(str(env_dir)) for ln in lines), where
    # Ukrainian and Croatian from the installed, compiled catalogs too
    said = _run(
        [
            str(bin_dir / "python"),
            "-c",
            "from adapters.common.i18n import translator as t; "
            "print(t('uk').gettext('The match is over.')); "
            "print(t('hr').gettext('The match is over.'))",
        ],
        cwd=home,
        env=env,
    )
    assert said.stdout.splitlines() == ["Партію закінчено.", "Partija je gotova."], said
    # the match is played to its end (the person's input is scripted, a computer opposes)
    words = {
        "ru": ("Козырь", "Ваш ход", "Партия окончена."),
        "en": ("Trump", "Your move", "The match is over."),
    }
    for lang, expected in words.items():
        await redis.delete(keys.room("cn:local"), keys.platform_data("cn:local"))  # a new game
        played = _run(
            [
                str(bin_dir / "kozel-bot"),
                "play",
                "--preset",
                "kozel-60",
                "--players",
                "2",
                "--seed",
                "3",
                "--lang",
                lang,
            ],
            cwd=home,
            env=env,
            stdin="1\n" * 400,
        )
        assert played.returncode == 0, played.stderr[-3000:]
        assert "Traceback" not in played.stderr
        for word in expected:
            assert word in played.stdout, (lang, word, played.stdout[-1500:])
