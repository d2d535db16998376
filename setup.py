"""Only what pyproject.toml cannot say: the gettext catalogs are compiled (.po -> .mo) into
the package when it is built, so an installed bot reads them without Babel doing it in
memory at start. Everything else is in pyproject.toml."""

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


setup(cmdclass={"build_py": BuildWithCatalogs})
