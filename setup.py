"""Only what pyproject.toml cannot say:

- the gettext catalogs are compiled (.po -> .mo) into the package when it is built, so an
  installed bot reads them without Babel doing it in memory at start;
- the search's playout path and the families' matches (``COMPILED``) are compiled to C
  by mypyc, from the same typed Python: a computer player affords about twice the playouts
  in its thinking time (``python bench/engine.py --search-only``), and a kozel deal through
  the ``Game`` API costs about two thirds of the time (``--engine-only``).
  ``KOZEL_PURE_PYTHON=1`` builds without it; the modules then run as plain Python, the same
  moves for the same seed, only slower;
- an editable install (``pip install -e .``) keeps the compiled modules out of the source
  tree, in ``build/kozel-compiled/`` with a manifest of their sources' hashes: Python would
  find a compiled module before its source, so an edited source would silently not run.
  ``engine.compiled`` uses them only while every source matches (issue 35).

Everything else is in pyproject.toml."""

import hashlib
import json
import os
import shutil
import sysconfig
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
# an editable checkout's compiled modules: engine/compiled.py reads the same place
EDITABLE_COMPILED = ROOT / "build" / "kozel-compiled"


def remove_compiled_beside_sources() -> None:
    """Compiled modules an older editable install left beside their sources, and the
    editable build of a plain-Python install: neither may run in place of a source."""
    for path in COMPILED:
        for built in (ROOT / path).parent.glob(Path(path).stem + ".*.so"):
            built.unlink()
    for group in ROOT.glob("engine_compiled__mypyc.*.so"):
        group.unlink()
    if os.environ.get("KOZEL_PURE_PYTHON") == "1":
        shutil.rmtree(EDITABLE_COMPILED, ignore_errors=True)


class BuildWithCatalogs(build_py):
    def run(self) -> None:
        if self.editable_mode:
            remove_compiled_beside_sources()
        super().run()
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po

        for po in sorted(Path("locales").glob("*/LC_MESSAGES/*.po")):
            target = Path(self.build_lib) / po.with_suffix(".mo")
            target.parent.mkdir(parents=True, exist_ok=True)
            with po.open("rb") as f:
                catalog = read_po(f, locale=po.parts[1])
            with target.open("wb") as out:
                write_mo(out, catalog)


# the compact playout forms and the search around them: where a computer player spends its time
COMPILED = [
    "engine/families/trump/compact.py",
    "engine/families/drawing/compact.py",
    "engine/families/drawing/compact_table.py",
    "engine/families/petukh/compact.py",
    "engine/players/sampler.py",
    "engine/players/search.py",
    "engine/players/playout.py",
    # each family's hidden cards as a sample deals them again
    "engine/families/drawing/sampling.py",
    "engine/families/trump/sampling.py",
    "engine/families/petukh/sampling.py",
    # the drawing family's match and deal: the `Game` API's moves of kozel, kozel-4, kozel-60
    "engine/dealing.py",
    "engine/families/drawing/match.py",
    "engine/families/drawing/deal.py",
    "engine/families/drawing/declare.py",
    "engine/families/drawing/rules.py",
    # the permanent-trump family's match and dealing: kozel-hvalenyi, kozel-nn, kozel-kocherga
    "engine/families/trump/match.py",
    "engine/families/trump/deal.py",
    # the Petukh family's match and deal: petukh, petukh-25
    "engine/families/petukh/match.py",
    "engine/families/petukh/deal.py",
]


class BuildCompiledApart(build_ext):
    """A wheel's compiled modules go beside its sources as usual; an editable install's go to
    ``EDITABLE_COMPILED`` with ``manifest.json``: each module's file, each source's SHA-256."""

    def run(self) -> None:
        if not self.editable_mode:
            super().run()
            return
        self.inplace = False  # built into build_lib (a temporary folder), copied below
        super().run()
        shutil.rmtree(EDITABLE_COMPILED, ignore_errors=True)
        modules = {}
        for ext in self.extensions:
            name = self.get_ext_fullname(ext.name)
            relative = self.get_ext_filename(name)
            target = EDITABLE_COMPILED / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(Path(self.build_lib) / relative, target)
            modules[name] = relative
        sources = {path: hashlib.sha256((ROOT / path).read_bytes()).hexdigest() for path in COMPILED}
        manifest = {
            "ext_suffix": sysconfig.get_config_var("EXT_SUFFIX"),
            "modules": modules,
            "sources": sources,
        }
        (EDITABLE_COMPILED / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True))


def compiled_modules() -> list:
    if os.environ.get("KOZEL_PURE_PYTHON") == "1":
        return []
    from mypyc.build import mypycify

    # --config-file= : not pyproject.toml's [tool.mypy] (its pydantic plugin is no build need);
    # --ignore-missing-imports: the compiled modules only pass pydantic models through
    return mypycify(
        ["--config-file=", "--ignore-missing-imports", *COMPILED], opt_level="3", group_name="engine_compiled"
    )


setup(
    cmdclass={"build_py": BuildWithCatalogs, "build_ext": BuildCompiledApart}, ext_modules=compiled_modules()
)
