"""The docs stay true to the code: generated pages are current, README stays short, and the
README and docs point only at files that exist."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "build_reference", DOCS / "gen" / "build_reference.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_reference_pages_match_the_code() -> None:
    generator = _generator()
    stale = [str(path.relative_to(ROOT)) for path in generator.stale(generator.render_all())]
    assert not stale, f"regenerate with `python docs/gen/build_reference.py`: {stale}"


def test_settings_reference_lists_every_typed_reader_call() -> None:
    generator = _generator()
    names = {setting["name"] for _, _, setting in generator.settings_read()}
    page = (DOCS / "reference" / "settings.md").read_text(encoding="utf-8")
    assert {"SECRET_KEY", "DATABASE_URL", "LEXROOM_EMBEDDING_MODEL"} <= names
    assert [name for name in sorted(names) if f"`{name}`" not in page] == []


def test_readme_is_short() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200


def test_readme_and_docs_link_only_to_existing_files() -> None:
    link = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
    missing = []
    pages = [ROOT / "README.md", *DOCS.rglob("*.md")]
    for page in pages:
        # Code (fenced blocks, inline spans) shows links as text: not links.
        text = re.sub(r"```.*?```|`[^`\n]*`", "", page.read_text(encoding="utf-8"), flags=re.S)
        for target in link.findall(text):
            if re.match(r"[a-z]+:", target):
                continue  # http(s), mailto
            if not (page.parent / target).exists():
                missing.append(f"{page.relative_to(ROOT)} → {target}")
    assert missing == []


def test_limits_are_facts_not_issue_history() -> None:
    text = (DOCS / "limits.md").read_text(encoding="utf-8")
    assert not re.search(r"[Ii]ssue #\d+|#\d{1,3}\b", text)
