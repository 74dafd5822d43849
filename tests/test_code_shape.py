"""The product's code stays in pieces one can read: modules of about 400 lines at most,
functions of about 60. A longer function carries its reason in a ``# long: …`` comment on the
line above its ``def`` (or its decorators); complexity is ruff's C901 (max 15)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
APPS = (
    "config",
    "core",
    "workspaces",
    "documents",
    "search",
    "agents",
    "compliance",
    "sources",
    "lab",
)
MAX_MODULE_LINES = 420  # "about 400"
MAX_FUNCTION_LINES = 60


def _modules() -> list[Path]:
    return sorted(
        path
        for app in APPS
        if (ROOT / app).is_dir()
        for path in (ROOT / app).rglob("*.py")
        if "migrations" not in path.parts
    )


def _has_reason(lines: list[str], node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return first >= 2 and "# long:" in lines[first - 2]


def test_no_product_module_is_longer_than_about_400_lines():
    long_modules = {
        str(path.relative_to(ROOT)): count
        for path in _modules()
        if (count := len(path.read_text().splitlines())) > MAX_MODULE_LINES
    }
    assert long_modules == {}


def test_no_product_function_is_longer_than_60_lines_without_a_written_reason():
    long_functions = []
    for path in _modules():
        source = path.read_text()
        lines = source.splitlines()
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > MAX_FUNCTION_LINES and not _has_reason(lines, node):
                long_functions.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert long_functions == []
