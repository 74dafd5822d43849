"""The product wheel: every app, the files they read at run time, the site's templates, static
files, translations and demo room, the licence and the dependencies the code imports.

bin/check-wheel (run by CI) installs the wheel outside the checkout and runs its commands; these
tests read the wheel itself, which is quicker and says which file is missing.
"""

from __future__ import annotations

import ast
import fnmatch
import subprocess
import sys
import tomllib
import zipfile
from email.parser import Parser
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest
from django.conf import settings
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(settings.BASE_DIR)
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
SITE_FOLDERS = ("templates", "static", "locale", "demo")


def tracked_files() -> list[str]:
    listing = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    return [name for name in listing.split("\0") if name and (ROOT / name).is_file()]


def shipped_packages() -> list[str]:
    return PYPROJECT["tool"]["setuptools"]["packages"]["find"]["include"]


def is_shipped(module: str) -> bool:
    return any(fnmatch.fnmatch(module, pattern) for pattern in shipped_packages())


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    # Built from a copy of the files git knows, as bin/check-wheel does: nothing left over in
    # build/ can stand in for a file the build forgot.
    source = tmp_path_factory.mktemp("source")
    for name in tracked_files():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_bytes((ROOT / name).read_bytes())
    dist = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(dist),
            str(source),
        ],
        check=True,
        capture_output=True,
    )
    (built,) = dist.glob("lexroom-*.whl")
    return zipfile.ZipFile(built)


def dist_info(wheel: zipfile.ZipFile, name: str) -> str:
    (path,) = [entry for entry in wheel.namelist() if entry.endswith(f".dist-info/{name}")]
    return wheel.read(path).decode()


def test_every_app_of_ours_is_in_the_package_list():
    tops = {app.split(".")[0] for app in settings.INSTALLED_APPS}
    ours = {top for top in tops if (ROOT / top).is_dir()}
    assert ours, "no local app found"
    # The lab (benchmarks, evaluations, the fuzzer) is installed from a checkout only.
    assert sorted(app for app in ours | {"config"} if not is_shipped(app) and app != "lab") == []
    assert not is_shipped("lab")


def test_the_wheel_ships_every_file_of_its_packages_and_the_site_folders(wheel):
    names = set(wheel.namelist())
    missing = []
    for name in tracked_files():
        top = name.split("/")[0]
        if top in SITE_FOLDERS:
            # The top-level site folders travel inside the config package (setup.py).
            if f"config/{name}" not in names:
                missing.append(name)
        elif (
            "/" in name
            and is_shipped(name.rsplit("/", 1)[0].replace("/", "."))
            and name not in names
        ):
            missing.append(name)
    assert missing == []
    assert [name for name in names if name.startswith("lab/")] == []
    # The ones whose absence broke an installed wheel, named so that a rename fails here too.
    for expected in (
        "sources/__init__.py",
        "core/db_backend/__init__.py",
        "config/templates/base.html",
        "config/static/lexroom.css",
        "config/locale/fr/LC_MESSAGES/django.mo",
        "config/demo/dataroom.json",
        "compliance/playbooks/defaults/fr-due-diligence.yaml",
    ):
        assert expected in names


def test_the_wheel_is_apache_licensed_with_its_licence_text(wheel):
    metadata = Parser().parsestr(dist_info(wheel, "METADATA"))
    assert metadata["License-Expression"] == "Apache-2.0"
    assert "Apache License" in dist_info(wheel, "licenses/LICENSE")
    assert "Apache License" in (ROOT / "LICENSE").read_text()


def test_the_wheel_has_a_manage_command_and_the_mcp_server(wheel):
    scripts = dist_info(wheel, "entry_points.txt")
    assert "lexroom = config.manage:main" in scripts
    assert "lexroom-mcp = agents.mcp.stdio:main" in scripts


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module.split(".")[0])
    return found


def test_every_distribution_the_product_imports_is_declared():
    project = PYPROJECT["project"]
    requirements = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        requirements += extra
    declared = {canonicalize_name(Requirement(line).name) for line in requirements}
    stdlib = set(sys.stdlib_module_names)
    ours = {pattern.rstrip("*") for pattern in shipped_packages()}
    distributions = packages_distributions()
    undeclared = {}
    for name in tracked_files():
        top = name.split("/")[0]
        if not name.endswith(".py") or top not in ours:
            continue
        for module in imported_modules(ROOT / name) - stdlib - ours - {"__future__"}:
            candidates = {canonicalize_name(dist) for dist in distributions.get(module, [])}
            if candidates and not candidates & declared:
                undeclared.setdefault(module, set()).add(name)
    assert undeclared == {}
