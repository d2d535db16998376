"""When an editable checkout may run its mypyc-compiled modules (setup.py ``COMPILED``).

``pip install -e .`` compiles them into ``build/kozel-compiled/``, apart from the sources,
with ``manifest.json``: each compiled module's file and each source's SHA-256. ``import
engine`` calls ``use_compiled``: while every source still has its hash, a finder ahead of
the others loads the compiled modules; once one is edited, all of them run from their
sources, with one warning line. All or none: mypyc compiles them as one group whose calls
between its modules never look at the module of the edited source.

A wheel (and so the image) carries its compiled modules beside its sources and no manifest:
nothing is checked there. ``KOZEL_PURE_PYTHON=1`` runs the sources even where the compiled
modules match (``tests/engine/test_compiled.py`` compares the two).
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import logging
import os
import sys
import sysconfig
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
BUILT = ROOT / "build" / "kozel-compiled"  # setup.py EDITABLE_COMPILED

log = logging.getLogger("engine")


class CompiledFinder(importlib.abc.MetaPathFinder):
    """Finds the modules of the manifest in ``BUILT`` and nothing else."""

    def __init__(self, files: dict[str, Path]) -> None:
        self.files = files

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        file = self.files.get(fullname)
        if file is None:
            return None
        return importlib.util.spec_from_file_location(fullname, file)


def stale_sources(manifest: dict[str, dict[str, str]]) -> list[str]:
    """The sources of the manifest whose content is no longer what was compiled."""
    stale = []
    for path, digest in manifest["sources"].items():
        source = ROOT / path
        if not source.exists() or hashlib.sha256(source.read_bytes()).hexdigest() != digest:
            stale.append(path)
    return stale


def use_compiled() -> bool:
    """Puts the finder of the editable build's compiled modules first, when they match."""
    if os.environ.get("KOZEL_PURE_PYTHON") == "1" or any(
        isinstance(f, CompiledFinder) for f in sys.meta_path
    ):
        return False
    try:
        manifest = json.loads((BUILT / "manifest.json").read_text())
    except (OSError, ValueError):
        return False  # a wheel, or an editable install without compiling
    if manifest.get("ext_suffix") != sysconfig.get_config_var("EXT_SUFFIX"):
        log.warning("engine: compiled for another Python; running the sources")
        return False
    stale = stale_sources(manifest)
    if stale:
        log.warning(
            "engine: %s changed since `pip install -e .` compiled it; running the sources "
            "(`pip install -e .` compiles them again)",
            ", ".join(stale),
        )
        return False
    files = {name: BUILT / relative for name, relative in manifest["modules"].items()}
    sys.meta_path.insert(0, CompiledFinder(files))
    return True
