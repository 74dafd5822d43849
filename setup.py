"""Metadata lives in pyproject.toml; this only ships the site's top-level folders in a wheel.

templates/, static/, locale/ and demo/ sit at the top of the checkout (they belong to no one
app), where setuptools' package data cannot reach. A wheel carries them inside the config
package, where config/settings.py looks first (SITE_DIR). An editable install reads them in
place and copies nothing.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

SITE_FOLDERS = ("templates", "static", "locale", "demo")


class BuildWithSiteFolders(build_py):  # type: ignore[misc]  # untyped base
    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        root = Path(__file__).resolve().parent
        for name in SITE_FOLDERS:
            target = Path(self.build_lib) / "config" / name
            # A stale copy from an earlier build would ship files deleted since.
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(
                root / name, target, ignore=shutil.ignore_patterns("__pycache__", "*.py[co]")
            )


setup(cmdclass={"build_py": BuildWithSiteFolders})
