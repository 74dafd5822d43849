"""The house layering, read from the source: ``core`` (the floor) ← ``workspaces`` ←
``documents`` ← ``search`` ← ``agents``; no app importing ``config`` (the roof: settings are
read through ``django.conf.settings``); and no runtime module importing a measurement package
(``bench``, ``evals``).

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
# Folders of an app that are not runtime code: harnesses, commands, schema history.
NOT_RUNTIME = {"bench", "evals", "management", "migrations", "tests"}
MEASUREMENT = {"bench", "evals"}
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
ALLOWED: set[tuple[str, str]] = {
    # The fuzz harness (a lab package, not runtime) serves the whole ASGI app, roof included.
    ("agents.fuzz._live", "config.asgi"),
    ("agents.fuzz._live", "config.asgi.application"),
}


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


def _runtime(module: str) -> bool:
    return not NOT_RUNTIME & set(module.split(".")[1:])


def _violations(app: str, rule: str) -> list[str]:
    found = []
    for module, path in _modules(app):
        for imported in set(_imports(module, path)):
            parts = imported.split(".")
            if rule == "measurement":
                wrong = _runtime(module) and parts[0] in APPS and MEASUREMENT & set(parts[1:])
            else:
                wrong = parts[0] in FORBIDDEN.get(app, set())
            if wrong and (module, imported) not in ALLOWED:
                found.append(f"{module} imports {imported}")
    return sorted(found)


@pytest.mark.parametrize("app", APPS)
def test_runtime_modules_never_import_bench_or_evals(app: str) -> None:
    assert _violations(app, "measurement") == []


@pytest.mark.parametrize("app", sorted(FORBIDDEN))
def test_app_imports_only_the_layers_below_it(app: str) -> None:
    assert _violations(app, "layers") == []


def test_the_scan_sees_lazy_relative_and_from_imports(tmp_path: Path) -> None:
    # Guard against a scanner that finds nothing and so passes everything.
    module = tmp_path / "selectors.py"
    module.write_text(
        "from search import bench\n"
        "from .evals import suites\n"
        "def later():\n"
        "    import agents.registry\n",
        encoding="utf-8",
    )
    imported = set(_imports("search.selectors", module))
    assert {"search.bench", "search.evals.suites", "agents.registry"} <= imported
    assert _runtime("search.selectors")
    assert not _runtime("search.management.commands.bench_search")
    assert not _runtime("search.bench._run")


def test_the_floor_rule_catches_an_app_or_the_roof() -> None:
    # core importing an app or config would be caught, not skipped by an empty rule.
    assert {"workspaces", "documents", "agents", "config"} <= FORBIDDEN["core"]
    assert all(ROOF in FORBIDDEN[app] for app in APPS)
