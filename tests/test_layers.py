"""The import contract of DESIGN.md: adapters -> bot -> engine, nothing back. The engine
knows no service, no platform and no I/O; the service knows no adapter and no platform
library; adapters never import each other (adapters/common is shared by all) and never touch
Redis directly."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLATFORMS = ("aiogram", "discord")


def imports(package: str) -> dict[str, set[str]]:
    """Module path -> the top modules (``bot.store``, ``aiogram``...) it imports."""
    out: dict[str, set[str]] = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module)
        out[str(path.relative_to(ROOT))] = found
    return out


def _starts(name: str, *prefixes: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def test_the_engine_imports_neither_the_service_nor_adapters_nor_io() -> None:
    for module, names in imports("engine").items():
        bad = {n for n in names if _starts(n, "bot", "adapters", "redis", "asyncio", "aiohttp", *PLATFORMS)}
        assert not bad, (module, bad)


def test_the_service_imports_no_adapter_and_no_platform_library() -> None:
    for module, names in imports("bot").items():
        if module == "bot/__main__.py":
            continue  # the composition root: it starts the adapters the operator asks for
        bad = {n for n in names if _starts(n, "adapters", *PLATFORMS)}
        assert not bad, (module, bad)


def test_adapters_import_no_other_adapter_and_no_redis() -> None:
    for module, names in imports("adapters").items():
        own = module.split("/")[1]
        others = [a for a in ("telegram", "discord", "console", "web") if a != own]
        bad = {n for n in names if _starts(n, *(f"adapters.{a}" for a in others), "redis", "bot.store")}
        if own == "common":
            bad |= {n for n in names if _starts(n, *PLATFORMS)}
        assert not bad, (module, bad)


def test_no_preset_name_is_compared_outside_the_preset_registry() -> None:
    """Issue 16.1: what adapters and the service need to know of a preset comes in the views
    and the registry (engine/presets.py), never from comparing its name."""
    import re

    literal = r"""\s*["'](kozel|petukh)"""
    pattern = re.compile(rf"""preset\s*(==|!=|in\s*[\(\[{{]){literal}|\.startswith\({literal}""")
    for package in ("bot", "adapters"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                code = line.split("#", 1)[0]
                assert not pattern.search(code), f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
