"""Only what pyproject.toml cannot say:

- the gettext catalogs are compiled (.po -> .mo) into the package when it is built, so an
  installed bot reads them without Babel doing it in memory at start;
- the search's playout path and the families' matches (``COMPILED``) are compiled to C
  by mypyc, from the same typed Python: a computer player affords about twice the playouts
  in its thinking time (``python bench/engine.py --search-only``), and a kozel deal through
  the ``Game`` API costs about two thirds of the time (``--engine-only``).
  ``KOZEL_PURE_PYTHON=1`` builds without it; the modules then run as plain Python, the same
  moves for the same seed, only slower.

Everything else is in pyproject.toml."""

import os
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithCatalogs(build_py):
    def run(self) -> None:
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
    "engine/compact_trump.py",
    "engine/compact_drawing.py",
    "engine/compact_drawing_table.py",
    "engine/compact_petukh.py",
    "engine/sampling.py",
    "engine/search.py",
    "engine/playout.py",
    # the drawing family's match and deal: the `Game` API's moves of kozel, kozel-4, kozel-60
    "engine/match.py",
    "engine/drawing.py",
    "engine/drawing_rules.py",
    "engine/drawing_declare.py",
    # the permanent-trump family's match and dealing: kozel-hvalenyi, kozel-nn, kozel-kocherga
    "engine/trump.py",
    "engine/trump_deal.py",
    # the Petukh family's match and deal: petukh, petukh-25
    "engine/petukh.py",
    "engine/petukh_deal.py",
]


def compiled_modules() -> list:
    if os.environ.get("KOZEL_PURE_PYTHON") == "1":
        return []
    from mypyc.build import mypycify

    # --config-file= : not pyproject.toml's [tool.mypy] (its pydantic plugin is no build need);
    # --ignore-missing-imports: the compiled modules only pass pydantic models through
    return mypycify(
        ["--config-file=", "--ignore-missing-imports", *COMPILED], opt_level="3", group_name="engine_compiled"
    )


setup(cmdclass={"build_py": BuildWithCatalogs}, ext_modules=compiled_modules())
