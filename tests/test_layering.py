"""The house layering, read from the source: ``core`` (the floor) ← ``workspaces`` ←
``documents`` ← ``search`` ← ``agents``; no app importing ``config`` (the roof: settings are
read through ``django.conf.settings``); the measurement ``lab`` apart, on top of everything and
imported by no product module; no module importing another package's private ``_module``
(a package's ``__init__`` is its facade); and no test module importing another test module or
a conftest (what tests share lives in ``tests/helpers``, or is a conftest's fixture).

Imports are parsed with :mod:`ast` (function-level ones included), so a lazy import cannot
hide an arrow pointing the wrong way.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
APPS = ("core", "workspaces", "documents", "search", "agents", "compliance", "sources")
ROOF = "config"
# What the product wheel ships: none of it may import the lab (benchmarks, evals, the fuzzer).
PRODUCT = (ROOF, *APPS)
# Every package whose imports are read for private modules: the lab and the tests included.
SCANNED = (*PRODUCT, "lab", "tests")
# What each app must never import. The floor (core) imports no app; tenancy nothing above it;
# compliance stands on documents and search, below the agents that expose it; so do the public
# legal sources, which no tenant app knows of. None imports the roof (config).
FORBIDDEN = {
    "core": {*APPS} - {"core"} | {ROOF},
    "workspaces": {"documents", "search", "agents", "compliance", "sources", ROOF},
    "documents": {"search", "agents", "compliance", "sources", ROOF},
    "search": {"agents", "compliance", "sources", ROOF},
    "compliance": {"agents", "sources", ROOF},
    "sources": {"agents", "compliance", ROOF},
    "agents": {ROOF},
}
# Known exceptions, each named with the reason it is tolerated: (module, imported).
ALLOWED: set[tuple[str, str]] = set()
# The one module that queues background work: its enqueue names the task's workspace (the fair
# queue's turns), waits for the commit and runs the task through the tenant-aware runner.
QUEUE_MODULE = "workspaces.tasks"


def _modules(app: str) -> Iterator[tuple[str, Path]]:
    for path in sorted((ROOT / app).rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        yield ".".join(part for part in parts if part != "__init__") or app, path


def _imports(module: str, path: Path) -> Iterator[str]:
    """Every module ``module`` imports, relative imports resolved."""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join([*base, node.module] if node.module else base)
            yield target
            # "from search import bench" imports the module search.bench.
            yield from (f"{target}.{alias.name}" for alias in node.names)


def _private_module(imported: str) -> str | None:
    """The package that owns the private module ``imported`` names (``documents.clause_types``
    for ``documents.clause_types._fit.split``), or None when it names no private module."""
    parts = imported.split(".")
    for index, part in enumerate(parts[1:], start=1):
        if part.startswith("_") and not part.startswith("__"):
            path = ROOT.joinpath(*parts[: index + 1])
            is_module = path.with_suffix(".py").is_file() or path.is_dir()
            return ".".join(parts[:index]) if is_module else None
    return None


def _home(module: str, path: Path) -> str:
    """The package whose private modules ``module`` may import: its own, or for a test the
    package it mirrors (tests/search/… tests search, tests/lab/agents/… tests lab.agents), so
    a white-box test may patch a tunable where it lives."""
    parts = module.split(".")
    if parts[0] == "tests" and len(parts) > 2:
        return ".".join(parts[1:3] if parts[1] == "lab" else parts[1:2])
    return module if path.name == "__init__.py" else ".".join(parts[:-1])


def _private_violations(package: str) -> list[str]:
    found = set()
    for module, path in _modules(package):
        home = _home(module, path)
        for imported in set(_imports(module, path)):
            owner = _private_module(imported)
            if owner is None or home == owner:
                continue
            # A module's own package includes the packages above it; a test's, those below.
            inside = home.startswith(f"{owner}.") or (
                module.startswith("tests.") and owner.startswith(f"{home}.")
            )
            if not inside:
                found.add(f"{module} imports {imported}")
    return sorted(found)


def _test_module(imported: str) -> str | None:
    """The test module (``tests/…/test_*.py``) or conftest that ``imported`` names, or None."""
    parts = imported.split(".")
    if parts[0] != "tests":
        return None
    for index, part in enumerate(parts[1:], start=1):
        path = ROOT.joinpath(*parts[: index + 1]).with_suffix(".py")
        if (part.startswith("test_") or part == "conftest") and path.is_file():
            return ".".join(parts[: index + 1])
    return None


def _test_module_imports() -> list[str]:
    found = set()
    for module, path in _modules("tests"):
        for imported in set(_imports(module, path)):
            target = _test_module(imported)
            if target is not None and target != module:
                found.add(f"{module} imports {target}")
    return sorted(found)


def _violations(app: str) -> list[str]:
    found = []
    for module, path in _modules(app):
        for imported in set(_imports(module, path)):
            if imported.split(".")[0] in FORBIDDEN.get(app, set()) and (
                (module, imported) not in ALLOWED
            ):
                found.append(f"{module} imports {imported}")
    return sorted(found)


@pytest.mark.parametrize("package", PRODUCT)
def test_no_product_module_imports_the_lab(package: str) -> None:
    found = [
        f"{module} imports {imported}"
        for module, path in _modules(package)
        for imported in set(_imports(module, path))
        if imported.split(".")[0] == "lab"
    ]
    assert sorted(found) == []


@pytest.mark.parametrize("package", SCANNED)
def test_no_module_imports_another_packages_private_module(package: str) -> None:
    assert _private_violations(package) == []


@pytest.mark.parametrize("app", sorted(FORBIDDEN))
def test_app_imports_only_the_layers_below_it(app: str) -> None:
    assert _violations(app) == []


def test_the_scan_sees_lazy_relative_and_from_imports(tmp_path: Path) -> None:
    # Guard against a scanner that finds nothing and so passes everything.
    module = tmp_path / "selectors.py"
    module.write_text(
        "from lab import search\n"
        "from .ranking import _adapter\n"
        "def later():\n"
        "    import agents.registry\n",
        encoding="utf-8",
    )
    imported = set(_imports("search.selectors", module))
    assert {"lab.search", "search.ranking._adapter", "agents.registry"} <= imported


def test_a_private_module_belongs_to_its_package_only() -> None:
    assert _private_module("documents.clause_types._fit.split_by_group") == "documents.clause_types"
    assert _private_module("search.ranking._adapter") == "search.ranking"
    # A private name inside a public module is not a private module.
    assert _private_module("agents.mcp.server._call") is None
    assert _private_module("documents.clause_types") is None
    assert _home("tests.search.test_ranking", Path("test_ranking.py")) == "search"
    assert _home("tests.lab.agents.test_fuzz", Path("test_fuzz.py")) == "lab.agents"
    assert _home("compliance.checks", Path("checks.py")) == "compliance"


def test_the_floor_rule_catches_an_app_or_the_roof() -> None:
    # core importing an app or config would be caught, not skipped by an empty rule.
    assert {"workspaces", "documents", "agents", "config"} <= FORBIDDEN["core"]
    assert all(ROOF in FORBIDDEN[app] for app in APPS if app != "core")


def _queues_tasks(imported: str) -> bool:
    return imported == "django_q.tasks" or imported.startswith("django_q.tasks.")


def test_only_workspaces_tasks_queues_tasks_with_django_q() -> None:
    queuing = sorted(
        module
        for package in (*PRODUCT, "lab")
        for module, path in _modules(package)
        if any(_queues_tasks(imported) for imported in _imports(module, path))
    )
    # Every task goes through workspaces.tasks.enqueue; the scan does see that one import.
    assert queuing == [QUEUE_MODULE]


# --- What a package pulls in, transitively ---------------------------------------------------


def _reached(package: str) -> set[str]:
    """The product modules importing ``package`` (every module in it) may run: each import
    followed, with the packages on its way (importing ``a.b.c`` runs ``a`` and ``a.b``)."""
    known = {module: path for app in PRODUCT for module, path in _modules(app)}
    todo = [module for module in known if module == package or module.startswith(f"{package}.")]
    reached = set(todo)
    while todo:
        module = todo.pop()
        for imported in _imports(module, known[module]):
            parts = imported.split(".")
            prefixes = (".".join(parts[:end]) for end in range(1, len(parts) + 1))
            for target in (name for name in prefixes if name in known):
                if target not in reached:
                    reached.add(target)
                    todo.append(target)
    return reached


def _inside(modules: set[str], package: str) -> list[str]:
    return sorted(m for m in modules if m == package or m.startswith(f"{package}."))


def test_the_tool_registry_does_not_import_the_agent() -> None:
    # The agent stands on the registry (its tool calls go through call_tool) and registers its
    # ``ask`` tool from AgentsConfig.ready(): an arrow back would be an import loop.
    assert _inside(_reached("agents.tools"), "agents.chat") == []


def test_the_import_graph_follows_imports_through_other_modules() -> None:
    # Guard against a graph that stops at the first hop: the agent reaches the registry
    # through its tool runner (agents.chat -> agents.chat._tools -> agents.tools.registry).
    reached = _reached("agents.chat")
    assert {"agents.chat._tools", "agents.tools.registry", "agents.tools", "agents"} <= reached
    assert "workspaces.tenancy" in _reached("agents.tools")


def test_no_test_module_imports_another_test_module_or_a_conftest() -> None:
    # Importing a test module runs its module-level code again under another name and ties
    # two test files together; a conftest is pytest's to load (imported, its fixtures are
    # registered twice). Shared parts belong in tests/helpers, or are a conftest's fixtures.
    assert _test_module_imports() == []


def test_the_test_module_rule_sees_a_test_module_or_conftest_not_a_helper() -> None:
    assert _test_module("tests.documents.test_ingest.CONTRACT") == "tests.documents.test_ingest"
    assert _test_module("tests.test_layering") == "tests.test_layering"
    assert _test_module("tests.helpers.contracts.CONTRACT") is None
    assert _test_module("tests.conftest.Room") == "tests.conftest"
    assert _test_module("tests.workspaces.conftest") == "tests.workspaces.conftest"
    assert _test_module("tests.factories.UserFactory") is None
    assert _test_module("search.test_nothing") is None
